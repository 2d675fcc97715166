#!/usr/bin/env python3
"""Configures a throwaway glewlwyd instance through its admin REST API.

Run against a fresh instance (schema from the packaged init.sqlite3.sql, admin/password):
creates the OIDC plugin instance with an RS256 and an ES256 signing key (generated with
openssl), the test user, and two public clients (RS256 and ES256 ID tokens) whose redirect
URI is an exact loopback URI on a fixed port. PAR is advertised; DPoP is allowed, and
with --dpop-nonces every DPoP request must carry a server nonce. The device authorization
grant (RFC 8628) is on, for the clients too (their `authorization_type` lists
`device_authorization`).

usage: glewlwyd-configure.py --base URL --redirect-uri URI --keys DIR [--plugin NAME]
                             [--dpop-nonces] [--admin-password PW]
Prints the issuer on stdout. Standard library only.
"""
import argparse
import base64
import http.cookiejar
import json
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

USER = ("alice", "wonderland")
CLIENTS = (("versola-glewlwyd", "RS256"), ("versola-glewlwyd-es256", "ES256"))


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def hex_fields(text: str) -> dict:
    """Reads the `name:` + hex-dump blocks of `openssl pkey -text -noout`."""
    fields, name, buffer = {}, None, []
    for line in text.splitlines():
        header = re.match(r"^([A-Za-z0-9]+):\s*(.*)$", line)
        if header and not line.startswith(" "):
            if name:
                fields[name] = "".join(buffer)
            name, rest = header.group(1), header.group(2)
            buffer = [rest] if re.fullmatch(r"[0-9a-f:]+", rest or "-") else []
        elif name and re.fullmatch(r"\s+[0-9a-f:]+", line):
            buffer.append(line.strip())
    if name:
        fields[name] = "".join(buffer)
    return {key: bytes.fromhex(value.replace(":", "")) for key, value in fields.items() if value}


def integer(data: bytes) -> str:
    return b64url(data.lstrip(b"\x00") or b"\x00")


def key_text(path: Path) -> str:
    return subprocess.run(["openssl", "pkey", "-in", str(path), "-text", "-noout"],
                          check=True, capture_output=True, text=True).stdout


def rsa_jwk(directory: Path, kid: str) -> dict:
    path = directory / "rsa.pem"
    if not path.exists():
        subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
                        "-out", str(path)], check=True, capture_output=True)
    text = key_text(path)
    exponent = int(re.search(r"publicExponent:\s*(\d+)", text).group(1))
    parts = hex_fields(text)
    return {"kty": "RSA", "kid": kid, "alg": "RS256", "use": "sig",
            "n": integer(parts["modulus"]), "e": b64url(exponent.to_bytes((exponent.bit_length() + 7) // 8, "big")),
            "d": integer(parts["privateExponent"]), "p": integer(parts["prime1"]), "q": integer(parts["prime2"]),
            "dp": integer(parts["exponent1"]), "dq": integer(parts["exponent2"]), "qi": integer(parts["coefficient"])}


def ec_jwk(directory: Path, kid: str) -> dict:
    path = directory / "ec.pem"
    if not path.exists():
        subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                        "-out", str(path)], check=True, capture_output=True)
    parts = hex_fields(key_text(path))
    private, public = parts["priv"].rjust(32, b"\x00")[-32:], parts["pub"]
    return {"kty": "EC", "kid": kid, "alg": "ES256", "use": "sig", "crv": "P-256",
            "x": b64url(public[1:33]), "y": b64url(public[33:65]), "d": b64url(private)}


class Admin:
    """An admin session (cookie) on the instance."""

    def __init__(self, base: str):
        self.base = base.rstrip("/")
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def call(self, method: str, path: str, body=None, accept=(200,)):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with self.opener.open(request, timeout=10) as response:
                status, payload = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, payload = error.code, error.read()
        if status not in accept:
            sys.exit(f"glewlwyd admin API: {method} {path} answered {status}: {payload[:300]!r}")
        return json.loads(payload) if payload.strip() else None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True, help="the instance root, e.g. http://127.0.0.1:4601")
    parser.add_argument("--redirect-uri", required=True)
    parser.add_argument("--keys", required=True, type=Path)
    parser.add_argument("--plugin", default="oidc")
    parser.add_argument("--dpop-nonces", action="store_true")
    parser.add_argument("--admin-password", default="password")
    arguments = parser.parse_args()
    arguments.keys.mkdir(parents=True, exist_ok=True)

    admin = Admin(arguments.base)
    admin.call("POST", "/api/auth/", {"username": "admin", "password": arguments.admin_password})

    # Scopes: `openid` exists; offline_access is what Versola asks for by default.
    for scope in ("offline_access", "profile", "email"):
        if admin.call("GET", f"/api/scope/{scope}", accept=(200, 404)) is None:
            admin.call("POST", "/api/scope/", {"name": scope, "display_name": scope, "description": scope,
                                               "password_required": True, "password_max_age": 0, "scheme": {}})

    # The client store must hold `sign_kid`, the property naming each client's ID token key.
    clients = admin.call("GET", "/api/mod/client/database")
    formats = clients["parameters"].setdefault("data-format", {})
    if "sign_kid" not in formats:
        formats["sign_kid"] = {"multiple": False, "read": True, "write": True}
        admin.call("PUT", "/api/mod/client/database", clients)
        admin.call("PUT", "/api/mod/client/database/reset")  # a new property is stored only after a reload

    issuer = f"{arguments.base.rstrip('/')}/api/{arguments.plugin}"
    keys = {"keys": [rsa_jwk(arguments.keys, "rs256"), ec_jwk(arguments.keys, "es256")]}
    parameters = {
        "iss": issuer,
        "oauth-as-iss-id": True,
        "jwks-private": json.dumps(keys),
        "default-kid": "rs256",
        "client-sign_kid-parameter": "sign_kid",
        "jwks-show": True,
        "access-token-duration": 3600,
        "refresh-token-duration": 1209600,
        "code-duration": 600,
        "refresh-token-rolling": True,
        "refresh-token-one-use": "always",
        "allow-non-oidc": False,
        "auth-type-code-enabled": True,
        "auth-type-token-enabled": False,
        "auth-type-id-token-enabled": False,
        "auth-type-none-enabled": False,
        "auth-type-password-enabled": False,
        "auth-type-client-enabled": False,
        "auth-type-device-enabled": True,
        "device-authorization-expiration": 600,
        "device-authorization-interval": 5,
        "auth-type-refresh-enabled": True,
        "allowed-scope": ["openid", "offline_access", "profile", "email"],
        "pkce-allowed": True,
        "pkce-method-plain-allowed": False,
        "pkce-required": True,
        "introspection-revocation-allowed": True,
        "introspection-revocation-auth-scope": ["openid"],
        "introspection-revocation-allow-target-client": True,
        "session-management-allowed": True,
        "session-cookie-name": "GLEWLWYD2_OIDC_SID",
        "session-cookie-expiration": 2419200,
        "front-channel-logout-allowed": False,
        "back-channel-logout-allowed": False,
        "oauth-par-allowed": True,
        "oauth-par-required": False,
        "oauth-par-duration": 90,
        "oauth-par-request_uri-prefix": "urn:ietf:params:oauth:request_uri:",
        "oauth-dpop-allowed": True,
        "oauth-dpop-iat-duration": 30,
        "oauth-dpop-nonce-mandatory": arguments.dpop_nonces,
        "oauth-dpop-nonce-counter": 10,
        "name-claim": "on-demand",
        "email-claim": "no",
        "scope-claim": "no",
        "secret-type": "pairwise",
        "request-parameter-allow": False,
        "claims": [],
        "additional-parameters": [],
    }
    plugin = {"module": "oidc", "name": arguments.plugin, "display_name": "OpenID Connect",
              "enabled": True, "parameters": parameters}
    if admin.call("GET", f"/api/mod/plugin/{arguments.plugin}", accept=(200, 404)) is None:
        admin.call("POST", "/api/mod/plugin/", plugin)
    else:
        admin.call("PUT", f"/api/mod/plugin/{arguments.plugin}", plugin)
        admin.call("PUT", f"/api/mod/plugin/{arguments.plugin}/reset")  # an update applies only after a reload

    user = {"username": USER[0], "password": USER[1], "name": "Alice", "email": "alice@example.test",
            "enabled": True, "scope": ["g_profile", "openid", "offline_access", "profile", "email"]}
    if admin.call("GET", f"/api/user/{USER[0]}", accept=(200, 404)) is None:
        admin.call("POST", "/api/user/", user)

    for client_id, algorithm in CLIENTS:
        client = {"client_id": client_id, "name": client_id, "description": f"Versola interop ({algorithm})",
                  "confidential": False, "enabled": True,
                  "redirect_uri": [arguments.redirect_uri],
                  "authorization_type": ["code", "refresh_token", "device_authorization"],
                  "scope": [], "sign_kid": "rs256" if algorithm == "RS256" else "es256"}
        if admin.call("GET", f"/api/client/{client_id}", accept=(200, 404)) is None:
            admin.call("POST", "/api/client/", client)
        else:
            admin.call("PUT", f"/api/client/{client_id}", client)
    print(issuer)


if __name__ == "__main__":
    main()
