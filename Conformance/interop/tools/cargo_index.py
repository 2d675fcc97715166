#!/usr/bin/env python3
"""The tools stage's cargo registry: a sparse index with `"auth-required": true` and its
downloads, on loopback.

usage: cargo_index.py --port N --issuer URL --crate NAME --version V

Index at http://127.0.0.1:N/index/ (cargo: `sparse+http://127.0.0.1:N/index/`), one crate
made at start (a library with one function, as a .crate archive whose SHA-256 the index entry
carries), downloads at /dl/NAME/VERSION/download. Every request, config.json included, needs
`Authorization: Bearer <token>` (or the bare token) with a live access token of the test
provider (checked at its UserInfo endpoint, found by discovery from --issuer); otherwise 401
with a `Cargo` challenge, which is what makes cargo start its credential provider.

Prints "ready" on standard output once it listens; logs each request with its status and
whether it carried a token (never the token) on standard error.
"""

import argparse
import hashlib
import io
import json
import tarfile

from fixture import FixtureHandler, LiveTokenCheck, discover_userinfo, log, serve


def index_path(name):
    """Where a crate's index file lives (cargo's sparse index layout)."""
    name = name.lower()
    if len(name) <= 2:
        return f"{len(name)}/{name}"
    if len(name) == 3:
        return f"3/{name[0]}/{name}"
    return f"{name[0:2]}/{name[2:4]}/{name}"


def crate_archive(name, version):
    """A .crate: a gzipped tar of NAME-VERSION/ with Cargo.toml and src/lib.rs."""
    files = {
        "Cargo.toml": f'[package]\nname = "{name}"\nversion = "{version}"\nedition = "2021"\n'
        'description = "a test crate"\nlicense = "Apache-2.0"\n',
        "src/lib.rs": "pub fn greeting() -> &'static str {\n    \"hello from a sparse index\"\n}\n",
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path, text in files.items():
            data = text.encode()
            member = tarfile.TarInfo(f"{name}-{version}/{path}")
            member.size, member.mode, member.mtime = len(data), 0o644, 1700000000
            archive.addfile(member, io.BytesIO(data))
    return buffer.getvalue()


def make_handler(options, check):
    crate = crate_archive(options.crate, options.version)
    entry = {"name": options.crate, "vers": options.version, "deps": [], "features": {}, "yanked": False,
             "cksum": hashlib.sha256(crate).hexdigest()}
    base = f"http://127.0.0.1:{options.port}"
    routes = {
        "/index/config.json": ("application/json",
                               json.dumps({"dl": f"{base}/dl", "api": base, "auth-required": True}).encode()),
        f"/index/{index_path(options.crate)}": ("text/plain", (json.dumps(entry) + "\n").encode()),
        f"/dl/{options.crate}/{options.version}/download": ("application/gzip", crate),
    }

    class Handler(FixtureHandler):
        def do_GET(self):
            header = self.headers.get("Authorization") or ""
            token = header[len("Bearer "):] if header.startswith("Bearer ") else header
            if check.subject(token) is None:
                log(f"cargo index: 401 {self.path} ({'a token that is not live' if token else 'no token'})")
                return self.answer(401, "text/plain", b"a live access token is needed\n",
                                   {"WWW-Authenticate": f'Cargo login_url="{base}/login"'})
            if self.path not in routes:
                log(f"cargo index: 404 {self.path}")
                return self.answer(404, "text/plain", b"not found\n")
            log(f"cargo index: 200 {self.path}")
            self.answer(200, *routes[self.path])

    return Handler


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--issuer", required=True)
    parser.add_argument("--crate", required=True)
    parser.add_argument("--version", required=True)
    options = parser.parse_args()
    check = LiveTokenCheck(discover_userinfo(options.issuer))
    serve(options.port, make_handler(options, check))


if __name__ == "__main__":
    main()
