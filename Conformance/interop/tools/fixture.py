"""What the tools stage's fixtures share: a loopback HTTP server, and the one check every
fixture makes, is this a live access token of the test provider? Its access tokens are
opaque, so the answer is its UserInfo endpoint's: 200 for a live token, 401 for an unknown,
expired or revoked one.

A token is never logged or kept; callers log the outcome only. With $TOOLS_TOKEN_HASHES set,
the SHA-256 of each token checked is appended to that file, so that the stage can look for any
of them in every output and log afterwards (tools/leak_scan.py) without ever holding them.
"""

import base64
import binascii
import hashlib
import json
import os
import sys
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class LiveTokenCheck:
    """Asks UserInfo at `userinfo_url` about each token; counts the outcomes for the log."""

    def __init__(self, userinfo_url):
        self.userinfo_url = userinfo_url

    def subject(self, token):
        """The token's `sub` when the provider says it is live, else None."""
        if not token:
            return None
        hashes = os.environ.get("TOOLS_TOKEN_HASHES")
        if hashes:
            with open(hashes, "a") as file:
                file.write(hashlib.sha256(token.encode()).hexdigest() + "\n")
        request = urllib.request.Request(self.userinfo_url, headers={"Authorization": f"Bearer {token}"})
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                claims = json.load(answer)
        except urllib.error.HTTPError as error:
            if error.code != 401:
                log(f"UserInfo answered {error.code}")
            return None
        except (OSError, ValueError) as error:
            log(f"UserInfo could not be asked: {error}")
            return None
        subject = claims.get("sub") if isinstance(claims, dict) else None
        return subject if isinstance(subject, str) and subject else None


def basic_credentials(header):
    """(username, password) from an `Authorization: Basic …` header, or None."""
    scheme, _, value = (header or "").partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        username, colon, password = base64.b64decode(value.strip(), validate=True).decode("utf-8").partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return (username, password) if colon else None


def discover_userinfo(issuer):
    """The provider's UserInfo endpoint, from its discovery document."""
    with urllib.request.urlopen(issuer.rstrip("/") + "/.well-known/openid-configuration", timeout=10) as answer:
        return json.load(answer)["userinfo_endpoint"]


def log(message):
    print(message, file=sys.stderr, flush=True)


class FixtureHandler(BaseHTTPRequestHandler):
    """A fixture's request handler. It logs nothing by itself: each fixture logs its outcomes,
    never a credential."""

    def answer(self, status, content_type, body, headers=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def json_answer(self, status, document, headers=None):
        self.answer(status, "application/json", json.dumps(document).encode(), headers)

    def log_message(self, format, *args):
        pass


def serve(port, handler):
    """Serves on 127.0.0.1:port, one thread a request, after printing "ready"."""
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    print("ready", flush=True)
    server.serve_forever()
