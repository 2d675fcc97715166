#!/usr/bin/env python3
"""The tools stage's Python package index: pypiserver (PyPI) with an auther of ours.

usage: pypi_index.py --port N --issuer URL --root DIR [--mount NAME]...

Serves DIR as a simple index at http://127.0.0.1:N/simple/ and takes uploads at / (twine),
and the same again under each /NAME/ (so that each client can have a URL, and versola a
target and profile, of its own), all three (list, download, update) behind HTTP Basic whose password must be a live access
token of the test provider (checked at its UserInfo endpoint, found by discovery from
--issuer); any username. pypiserver answers 403 to credentials its auther refuses, and pip
and uv ask a keyring only after a 401, so a 403 would hide every keyring adapter: this index
answers 401 with a Basic challenge instead. No fallback to another index.

Prints "ready" on standard output once it listens; logs each refusal (never a credential)
on standard error.
"""

import argparse
import pathlib
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import pypiserver

from fixture import LiveTokenCheck, discover_userinfo, log

CHALLENGE = ("WWW-Authenticate", 'Basic realm="versola tools stage index"')


def token_auther(check):
    """pypiserver's auther: the password must be a live access token."""

    def auther(username, password):
        live = check.subject(password) is not None
        if not live:
            log(f"index: refused user {username!r}: the password is not a live access token")
        return live

    return auther


def mounted(application, names):
    """WSGI middleware: /NAME/rest is the application at /rest, with NAME as its script name."""

    def wrapped(environ, start_response):
        first, slash, rest = environ.get("PATH_INFO", "").lstrip("/").partition("/")
        if slash and first in names:
            environ = dict(environ, SCRIPT_NAME=environ.get("SCRIPT_NAME", "") + "/" + first, PATH_INFO="/" + rest)
        return application(environ, start_response)

    return wrapped


def unauthorized_not_forbidden(application):
    """WSGI middleware: pypiserver's 403 for refused credentials becomes a 401 challenge."""

    def wrapped(environ, start_response):
        def start(status, headers, exc_info=None):
            if status.startswith("403"):
                status = "401 Unauthorized"
                headers = [h for h in headers if h[0].lower() != "www-authenticate"] + [CHALLENGE]
            return start_response(status, headers, exc_info)

        return application(environ, start)

    return wrapped


class ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):
        log("index: " + format % args)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--issuer", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--mount", action="append", default=[])
    options = parser.parse_args()
    check = LiveTokenCheck(discover_userinfo(options.issuer))
    application = pypiserver.app(
        roots=[pathlib.Path(options.root).resolve()],
        authenticate=["list", "download", "update"],
        auther=token_auther(check),
        disable_fallback=True,
        overwrite=False,
    )
    server = make_server("127.0.0.1", options.port, mounted(unauthorized_not_forbidden(application), set(options.mount)),
                         server_class=ThreadingServer, handler_class=QuietHandler)
    print("ready", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
