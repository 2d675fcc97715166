"""Prints the public API of a module, one symbol a line, from its symbol graph.

   public-api.py SYMBOLS.json

Each line is the symbol's kind and its path (`method Session.login(_:present:)`), sorted, so
that a committed copy shows every change of the public API in a diff."""
import json
import sys

graph = json.load(open(sys.argv[1]))
lines = set()
for symbol in graph["symbols"]:
    kind = symbol["kind"]["identifier"].split(".")[-1]
    path = ".".join(symbol["pathComponents"])
    lines.add(f"{kind} {path}")
print("\n".join(sorted(lines)))
