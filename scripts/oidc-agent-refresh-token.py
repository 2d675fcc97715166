#!/usr/bin/env python3
# A refresh token for a confidential client of versola-test-idp (started with --auto-login):
# the code flow with PKCE done by hand, the code exchanged with HTTP Basic. Used by
# scripts/cli-bench.sh to give oidc-agent an account (oidc-gen --rt) without a browser.
# Usage: oidc-agent-refresh-token.py ISSUER CLIENT_ID CLIENT_SECRET
import base64, hashlib, json, os, secrets, sys, urllib.parse, urllib.request, http.client
issuer, client, secret = sys.argv[1:4]
verifier = secrets.token_urlsafe(48)
challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
redirect = "http://127.0.0.1:4242/callback"
query = urllib.parse.urlencode({"response_type": "code", "client_id": client, "redirect_uri": redirect,
    "scope": "openid offline_access", "state": "bench", "nonce": "bench", "code_challenge": challenge,
    "code_challenge_method": "S256"})
class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a, **k): return None
opener = urllib.request.build_opener(NoRedirect)
url = issuer + "/authorize?" + query
for _ in range(6):
    try:
        opener.open(url); sys.exit("no redirect")
    except urllib.error.HTTPError as e:
        url = urllib.parse.urljoin(url, e.headers["Location"])
    if url.startswith(redirect): break
code = urllib.parse.parse_qs(urllib.parse.urlparse(url).query)["code"][0]
body = urllib.parse.urlencode({"grant_type": "authorization_code", "code": code, "redirect_uri": redirect,
    "code_verifier": verifier}).encode()
auth = base64.b64encode(f"{client}:{secret}".encode()).decode()
req = urllib.request.Request(issuer + "/token", data=body, headers={"Authorization": "Basic " + auth,
    "Content-Type": "application/x-www-form-urlencoded"})
print(json.load(urllib.request.urlopen(req))["refresh_token"])
