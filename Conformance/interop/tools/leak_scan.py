#!/usr/bin/env python3
"""Looks for any token the fixtures saw in the stage's outputs and logs.

usage: leak_scan.py HASHES FILE...

HASHES holds the SHA-256 (hex) of every token the fixtures checked (tools/fixture.py).
Each FILE is cut into words at every character a token cannot hold, and each word of 16 or
more characters is hashed: a hash in HASHES means a token was written there. Prints the file
names that hold one (never the word) and exits 1 when any does.
"""

import hashlib
import re
import sys
from pathlib import Path

WORD = re.compile(r"[A-Za-z0-9._~+/-]{16,}")


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    hashes = set(Path(sys.argv[1]).read_text().split())
    leaked = []
    for name in sys.argv[2:]:
        text = Path(name).read_text(errors="replace")
        for word in WORD.findall(text):
            candidates = {word, word.rstrip("="), word.strip(".")}
            if any(hashlib.sha256(c.encode()).hexdigest() in hashes for c in candidates):
                leaked.append(name)
                break
    for name in leaked:
        print(f"a token appears in {name}")
    print(f"leak scan: {len(sys.argv) - 2} files, {len(hashes)} distinct tokens looked for, {len(leaked)} files with one")
    return 1 if leaked or not hashes else 0


if __name__ == "__main__":
    sys.exit(main())
