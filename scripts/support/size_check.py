#!/usr/bin/env python3
"""Finds the source files over the line limit and the functions over the body limit.

usage: size_check.py [--files N] [--functions N] PATH...

PATH is a file or a directory searched for .swift and .c files (.build directories and
corpora are left out). A function is a Swift `func`, `init`, `deinit` or `subscript`, or a C
function definition, from its first line to its closing brace. Prints one line per finding
(path:line: what) and exits 1 when there is any.
"""
import re
import sys
from pathlib import Path

SWIFT_DECLARATION = re.compile(
    r"^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*"
    r"(?:(?:public|private|fileprivate|internal|package|open|static|class|final|override|mutating|"
    r"nonmutating|nonisolated|convenience|required|dynamic|consuming|borrowing|distributed)(?:\([^)]*\))?\s+)*"
    r"(?P<kind>func\s+[^\s(<]+|init[?!]?|deinit|subscript)\s*[(<{]")
C_DEFINITION = re.compile(r"^(?:[A-Za-z_]\w*\s+\**)+(?P<name>[A-Za-z_]\w*)\s*\(")


def code_only(line, in_block_comment):
    """The line without string contents and comments, and whether a /* comment is still open."""
    out = []
    i = 0
    in_string = False
    while i < len(line):
        if in_block_comment:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), True
            i = end + 2
            in_block_comment = False
            continue
        c = line[i]
        if in_string:
            if c == "\\":
                i += 2
                continue
            if c == '"':
                in_string = False
            i += 1
            continue
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            in_block_comment = True
            i += 2
            continue
        if c == '"':
            in_string = True
        out.append(c)
        i += 1
    return "".join(out), in_block_comment


CONTINUING_END = ("->", ",", "(", "throws", "async", "where", "&", ":", "rethrows")
CONTINUING_START = ("{", "->", "throws", "async", "where", "rethrows", ")")


def continues(code, following):
    """Whether a signature goes on after this line (to a body on the next)."""
    stripped = code.rstrip()
    if stripped.endswith(CONTINUING_END):
        return True
    return bool(following) and following[0].strip().startswith(CONTINUING_START)


def functions(path, lines):
    """(first line number, name, length in lines) of each function in the file."""
    swift = path.suffix == ".swift"
    pending = []  # declarations whose opening brace is not yet seen: (line number, name)
    open_functions = []  # (line number, name, depth the body opened at)
    depth = 0
    in_comment = False
    in_multiline_string = False
    found = []
    for number, raw in enumerate(lines, 1):
        if swift and raw.count('"""') % 2 == 1:
            in_multiline_string = not in_multiline_string
            continue
        if in_multiline_string:
            continue
        code, in_comment = code_only(raw, in_comment)
        if swift:
            match = SWIFT_DECLARATION.match(code)
            if match:
                pending = [(number, match.group("kind").split()[-1])]
                parens = 0
            if pending:
                parens += code.count("(") - code.count(")")
                if "{" not in code and parens <= 0 and not continues(code, lines[number:number + 1]):
                    pending = []  # a requirement or declaration without a body
        elif depth == 0:
            match = C_DEFINITION.match(code)
            if match and not code.rstrip().endswith(";"):
                pending.append((number, match.group("name")))
        for c in code:
            if c == "{":
                if pending:
                    start, name = pending.pop()
                    pending.clear()
                    open_functions.append((start, name, depth))
                depth += 1
            elif c == "}":
                depth -= 1
                if open_functions and open_functions[-1][2] == depth:
                    start, name, _ = open_functions.pop()
                    found.append((start, name, number - start + 1))
    return found


def self_test():
    """The check finds what it must and nothing else, on made-up sources."""
    body = ["        x += 1"] * 60
    swift = (["protocol P {", "    func required() async -> Bool", "}", "struct S {", "    @Test(\"a (b)\") func long(",
              "        a: Int", "    ) async throws {"] + body + ["    }", "    func short() { let s = \"{\" }", "}"])
    found = {name: length for _, name, length in functions(Path("t.swift"), swift)}
    assert found == {"long": 64, "short": 1}, found
    c = ["static int long_one(int a,", "                    int b) {"] + ["  a++;"] * 60 + ["  return a; /* } */", "}",
         "int proto(void);", "int tiny(void) { return 0; }"]
    found = {name: length for _, name, length in functions(Path("t.c"), c)}
    assert found == {"long_one": 64, "tiny": 1}, found


def main(argv):
    if argv == ["--self-test"]:
        self_test()
        return 0
    file_limit, function_limit, paths = 400, 60, []
    args = iter(argv)
    for arg in args:
        if arg == "--files":
            file_limit = int(next(args))
        elif arg == "--functions":
            function_limit = int(next(args))
        else:
            paths.append(Path(arg))
    sources = []
    for path in paths:
        if path.is_file():
            sources.append(path)
        else:
            sources += [p for p in sorted(path.rglob("*")) if p.suffix in (".swift", ".c")
                        and not any(part.startswith(".build") or part in ("corpus", "seeds") for part in p.parts)]
    findings = []
    for path in sources:
        lines = path.read_text(errors="replace").splitlines()
        if len(lines) > file_limit:
            findings.append(f"{path}:1: {len(lines)} lines (the limit is {file_limit})")
        for start, name, length in functions(path, lines):
            if length > function_limit:
                findings.append(f"{path}:{start}: {name} is {length} lines long (the limit is {function_limit})")
    for finding in findings:
        print(finding)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
