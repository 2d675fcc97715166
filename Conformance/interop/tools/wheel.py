#!/usr/bin/env python3
"""Writes a small pure-Python wheel, for the tools stage's package index and its uploads.

usage: wheel.py OUTPUT_DIR NAME VERSION

The wheel holds one module named after the distribution (a `VERSION` constant) and the
dist-info files pip, uv and twine read: METADATA, WHEEL and a RECORD with every file's hash.
Prints the wheel's path.
"""

import base64
import hashlib
import sys
import zipfile
from pathlib import Path


def record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def main():
    if len(sys.argv) != 4:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    output, name, version = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    module = name.replace("-", "_")
    info = f"{module}-{version}.dist-info"
    files = {
        f"{module}/__init__.py": f'VERSION = "{version}"\n'.encode(),
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: a test package\n".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: versola-tools-stage\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = [record_line(path, data) for path, data in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    output.mkdir(parents=True, exist_ok=True)
    wheel = output / f"{module}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in files.items():
            archive.writestr(path, data)
    print(wheel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
