#!/usr/bin/env python3
"""PyJWT figures beside versola-bench, for `make bench`.

Prints, as `name: value unit` lines:
  pyjwt_dpop_proof_per_s           a complete DPoP proof (typ, alg, jwk; jti, htm, htu, iat, ath, nonce), ES256
  pyjwt_id_token_validate_rs256_per_s  an RS256 ID token: signature and the iss/aud/exp/iat/nbf checks
The work matches what versola-bench measures for dpop_proof_per_s and id_token_validate_rs256_per_s.
"""
import base64
import hashlib
import json
import os
import sys
import time
import uuid

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa

SECONDS = float(os.environ.get("VERSOLA_BENCH_SECONDS", "3"))


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def rate(body):
    for _ in range(50):
        body()
    # Per CPU second of this thread, as versola-bench and `openssl speed` count.
    count = 0
    start = time.thread_time()
    while True:
        for _ in range(32):
            body()
        count += 32
        now = time.thread_time()
        if now - start >= SECONDS:
            return count / (now - start)


def dpop_proof_bench():
    key = ec.generate_private_key(ec.SECP256R1())
    numbers = key.public_key().public_numbers()
    jwk = {"crv": "P-256", "kty": "EC", "x": b64url(numbers.x.to_bytes(32, "big")), "y": b64url(numbers.y.to_bytes(32, "big"))}
    access_token = "A" * 800
    nonce = "eyJ7S_zG.eyJH0-Z.HX4w-7v"

    def proof():
        claims = {
            "jti": b64url(os.urandom(16)),
            "htm": "GET",
            "htu": "https://resource.example.org/protected",
            "iat": int(time.time()),
            "ath": b64url(hashlib.sha256(access_token.encode()).digest()),
            "nonce": nonce,
        }
        return jwt.encode(claims, key, algorithm="ES256", headers={"typ": "dpop+jwt", "jwk": jwk})

    return rate(proof)


def id_token_bench():
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = key.public_key()
    now = int(time.time())
    claims = {
        "iss": "https://issuer.example.com", "sub": "248289761001", "aud": "versola-test",
        "exp": now + 3600, "iat": now, "auth_time": now, "nonce": "n-0S6_WzA2Mj",
        "at_hash": "77QmUPtjPfzWtF2AnpK9RQ", "name": "Alice Example", "email": "alice@example.test",
        "email_verified": True, "given_name": "Alice", "family_name": "Example", "locale": "en",
        "acr": "urn:example:loa:2", "amr": ["pwd"], "sid": str(uuid.uuid4()),
    }
    token = jwt.encode(claims, key, algorithm="RS256", headers={"kid": "rsa-1"})

    def validate():
        decoded = jwt.decode(
            token, public, algorithms=["RS256"], audience="versola-test", issuer="https://issuer.example.com",
            leeway=60, options={"require": ["exp", "iat", "iss", "aud", "sub"]})
        if decoded["nonce"] != "n-0S6_WzA2Mj":
            raise SystemExit("nonce mismatch")

    return rate(validate)


def main():
    print(f"pyjwt_dpop_proof_per_s: {dpop_proof_bench():.0f} ops/s")
    print(f"pyjwt_id_token_validate_rs256_per_s: {id_token_bench():.0f} ops/s")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
