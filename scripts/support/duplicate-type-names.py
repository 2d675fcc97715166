"""Fails when one type name is declared at the top level of more than one target.

   duplicate-type-names.py PACKAGE.json

PACKAGE.json is `swift package dump-package` (run with VERSOLA_FUZZ=1, so the fuzz targets
count too). A target's files are those under its `path`, or Sources/<name> (Tests/<name> for
a test target) when it has none. Every top-level `struct`, `class`, `enum`, `actor`,
`protocol` and `typealias` counts, whatever its access level: two types of one name in two
targets read as one type to a person, even when the compiler keeps them apart. Nested types
and extensions do not count, nor does a re-export (`public typealias HTTPRequest =
VersolaHTTP.HTTPRequest`), which names the one type again. Prints each clash with the files
that declare it."""
import json
import os
import re
import sys

DECLARATION = re.compile(
    r"^(?:@[\w.]+(?:\([^)]*\))?\s+)*"
    r"(?:(?:public|package|internal|fileprivate|private|open|final|indirect|nonisolated|distributed)\s+)*"
    r"(?:struct|class|enum|actor|protocol|typealias)\s+([A-Za-z_][A-Za-z0-9_]*)"
)
REEXPORT = re.compile(r"^(?:public\s+|package\s+)?typealias\s+(\w+)\s*=\s*\w+\.(\w+)\s*$")


def target_directory(target):
    if target.get("path"):
        return target["path"]
    return os.path.join("Tests" if target["type"] == "test" else "Sources", target["name"])


def swift_files(directory):
    for root, _, names in os.walk(directory):
        for name in sorted(names):
            if name.endswith(".swift"):
                yield os.path.join(root, name)


def top_level_types(path):
    """The names declared at column 0, outside multi-line string literals."""
    inside_string = False
    with open(path, encoding="utf-8") as source:
        for line in source:
            if line.count('"""') % 2 == 1:
                inside_string = not inside_string
                continue
            if inside_string:
                continue
            reexport = REEXPORT.match(line)
            if reexport and reexport.group(1) == reexport.group(2):
                continue
            match = DECLARATION.match(line)
            if match:
                yield match.group(1)


def main():
    package = json.load(open(sys.argv[1]))
    declared = {}  # name -> {target: [files]}
    for target in package["targets"]:
        for path in swift_files(target_directory(target)):
            for name in top_level_types(path):
                declared.setdefault(name, {}).setdefault(target["name"], []).append(path)
    clashes = {name: targets for name, targets in declared.items() if len(targets) > 1}
    for name in sorted(clashes):
        places = "; ".join(f"{target}: {', '.join(files)}" for target, files in sorted(clashes[name].items()))
        print(f"type {name} is declared in {len(clashes[name])} targets ({places})", file=sys.stderr)
    if clashes:
        names = "1 type name is" if len(clashes) == 1 else f"{len(clashes)} type names are"
        print(f"duplicate-type-names: {names} declared in more than one target; "
              "give each one home (or a name of its own)", file=sys.stderr)
        return 1
    print(f"duplicate-type-names: {len(declared)} top-level type names, each declared in one target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
