#!/usr/bin/env python3
"""The token service of the tools stage's container registry (Debian's docker-registry with
`auth: token`).

usage: registry_token.py --port N --issuer URL --cert PATH --service NAME --token-issuer NAME

A registry client that was refused (401 with `Bearer realm=…/token`) asks here with HTTP Basic:
any username, and as the password a live access token of the test provider (checked at its
UserInfo endpoint, found by discovery from --issuer). Then it gets a registry token: a JWT
signed ES256 by a key made at start, whose certificate (self-signed, written to --cert for
the registry's `rootcertbundle`) rides in the `x5c` header; it grants every action asked for.
No credentials, or a password that is not a live token: 401 in the registry's error shape.

Prints "ready" on standard output once it listens; logs each answer (never a credential) on
standard error.
"""

import argparse
import base64
import datetime
import json
import secrets
import time
from urllib.parse import parse_qs, urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.x509.oid import NameOID

from fixture import FixtureHandler, LiveTokenCheck, basic_credentials, discover_userinfo, log, serve

LIFETIME = 300


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


class Signer:
    """The signing key and its self-signed certificate."""

    def __init__(self, cert_path):
        self.key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "versola tools stage registry tokens")])
        now = datetime.datetime.now(datetime.timezone.utc)
        certificate = (
            x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(self.key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .sign(self.key, hashes.SHA256())
        )
        with open(cert_path, "wb") as file:
            file.write(certificate.public_bytes(serialization.Encoding.PEM))
        self.x5c = base64.b64encode(certificate.public_bytes(serialization.Encoding.DER)).decode("ascii")

    def token(self, claims):
        header = {"typ": "JWT", "alg": "ES256", "x5c": [self.x5c]}
        signing_input = f"{b64url(json.dumps(header).encode())}.{b64url(json.dumps(claims).encode())}"
        r, s = decode_dss_signature(self.key.sign(signing_input.encode("ascii"), ec.ECDSA(hashes.SHA256())))
        return f"{signing_input}.{b64url(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"


def access_for(scopes):
    """The registry's `access` claim for `repository:NAME:ACTIONS` scopes, every action granted."""
    access = []
    for scope in scopes:
        for item in scope.split(" "):
            parts = item.split(":")
            if len(parts) >= 3:
                access.append({"type": parts[0], "name": ":".join(parts[1:-1]), "actions": parts[-1].split(",")})
    return access


def make_handler(options, signer, check):
    class Handler(FixtureHandler):
        def do_GET(self):
            url = urlsplit(self.path)
            if url.path != "/token":
                return self.json_answer(404, {"errors": [{"code": "NOT_FOUND", "message": "no such path"}]})
            query = parse_qs(url.query)
            credentials = basic_credentials(self.headers.get("Authorization"))
            subject = check.subject(credentials[1]) if credentials else None
            if subject is None:
                why = "no credentials" if credentials is None else "the password is not a live access token"
                log(f"token: 401, {why}")
                return self.json_answer(401, {"errors": [{"code": "UNAUTHORIZED", "message": why}]},
                                   {"WWW-Authenticate": f'Basic realm="{options.service}"'})
            now = int(time.time())
            claims = {
                "iss": options.token_issuer, "sub": subject, "aud": query.get("service", [options.service])[0],
                "exp": now + LIFETIME, "nbf": now - 10, "iat": now, "jti": secrets.token_hex(12),
                "access": access_for(query.get("scope", [])),
            }
            token = signer.token(claims)
            log(f"token: 200 for user {credentials[0]!r}, scopes {query.get('scope', [])}")
            self.json_answer(200, {"token": token, "access_token": token, "expires_in": LIFETIME,
                              "issued_at": datetime.datetime.fromtimestamp(now, datetime.timezone.utc).isoformat()})

    return Handler


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--issuer", required=True)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--service", required=True)
    parser.add_argument("--token-issuer", required=True)
    options = parser.parse_args()
    signer = Signer(options.cert)
    check = LiveTokenCheck(discover_userinfo(options.issuer))
    serve(options.port, make_handler(options, signer, check))


if __name__ == "__main__":
    main()
