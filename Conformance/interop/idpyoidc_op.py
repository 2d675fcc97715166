#!/usr/bin/env python3
"""A throwaway idpyoidc OpenID Provider on loopback, for the interop run.

usage: idpyoidc_op.py --port N --cert FILE --key FILE --redirect-uri URI [--log FILE]

Serves three issuers from one https server on 127.0.0.1, each an idpyoidc `Server` built
from the library's own endpoint classes, with a public client each:

    https://127.0.0.1:N/plain   Bearer tokens, no PAR              client versola-plain
    https://127.0.0.1:N/dpop    the DPoP add-on, no PAR            client versola-dpop
    https://127.0.0.1:N/par     the DPoP add-on and PAR            client versola-par

DPoP needs an issuer of its own because the add-on makes a DPoP proof mandatory on every
endpoint it covers (a Bearer client's code exchange is refused). Each issuer has PKCE
(S256, required), refresh tokens that rotate (the old one is revoked on use), revocation
(RFC 7009) and the test user `alice` / `wonderland`. The login page is a plain HTML form
posted to `{issuer}/verify`; no single sign-on cookie is kept, so every authorization
request shows the form. Prints `idpyoidc on https://127.0.0.1:N` once it listens; every
refusal the library raises is logged (one line, no secrets) to --log.

Only the idpyoidc library (PyPI) and the Python standard library are used.
"""
import argparse
import html
import json
import logging
import ssl
import sys
import threading
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from idpyoidc.message.oidc import AuthorizationRequest
from idpyoidc.server import Server
from idpyoidc.server.user_authn.user import UserAuthnMethod, create_signed_jwt, verify_signed_jwt
from idpyoidc.server.exception import FailedAuthentication
from idpyoidc.time_util import utc_time_sans_frac

USERS = {"alice": "wonderland"}
CLAIMS = {"alice": {"sub": "alice", "name": "Alice Liddell", "given_name": "Alice",
                    "family_name": "Liddell", "email": "alice@example.org", "email_verified": True}}
ACR = "urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport"
DPOP_ALGS = ["ES256", "RS256"]
log = logging.getLogger("idpyoidc-op")


class FormLogin(UserAuthnMethod):
    """Username and password from an HTML form; the authorization request rides along
    signed by the provider's own key, as the library's authentication methods expect."""

    def __init__(self, action, upstream_get=None, **kwargs):
        super().__init__(upstream_get=upstream_get, **kwargs)
        self.action = action

    def __call__(self, **kwargs):
        context = self.upstream_get("context")
        keyjar = self.upstream_get("attribute", "keyjar")
        token = create_signed_jwt(context.issuer, keyjar, sign_alg="ES256", **kwargs)
        return ("<!doctype html><title>Sign in</title>"
                f'<form method="post" action="{html.escape(self.action)}">'
                '<label>Username <input name="username"></label>'
                '<label>Password <input name="password" type="password"></label>'
                f'<input type="hidden" name="token" value="{html.escape(token)}">'
                '<button type="submit">Sign in</button></form>')

    def verify(self, *args, **kwargs):
        username = kwargs.get("username", "")
        if USERS.get(username) != kwargs.get("password"):
            raise FailedAuthentication("wrong username or password")
        return username

    def arguments(self, token):
        """The authentication arguments __call__ signed into the form."""
        return verify_signed_jwt(token, self.upstream_get("attribute", "keyjar"))


def provider_configuration(issuer, redirect_uri, client_id, dpop, par):
    """The idpyoidc configuration of one issuer."""
    endpoints = {
        "provider_info": {"path": ".well-known/openid-configuration",
                          "class": "idpyoidc.server.oidc.provider_config.ProviderConfiguration",
                          "kwargs": {"client_authn_method": None}},
        "authorization": {"path": "authorization",
                          "class": "idpyoidc.server.oidc.authorization.Authorization",
                          "kwargs": {"client_authn_method": None,
                                     "response_types_supported": ["code"],
                                     "response_modes_supported": ["query"],
                                     "claims_parameter_supported": True,
                                     "request_parameter_supported": False,
                                     "request_uri_parameter_supported": par}},
        "token": {"path": "token", "class": "idpyoidc.server.oidc.token.Token",
                  "kwargs": {"client_authn_method": ["public"], "revoke_refresh_on_issue": True}},
        "userinfo": {"path": "userinfo", "class": "idpyoidc.server.oidc.userinfo.UserInfo",
                     "kwargs": {"client_authn_method": ["bearer_header"] + (["dpop"] if dpop else [])}},
        "token_revocation": {"path": "revoke",
                             "class": "idpyoidc.server.oauth2.token_revocation.TokenRevocation",
                             "kwargs": {"client_authn_method": ["public"]}},
    }
    if par:
        endpoints["pushed_authorization"] = {
            "path": "par", "class": "idpyoidc.server.oauth2.pushed_authorization.PushedAuthorization",
            "kwargs": {"client_authn_method": ["public"]}}
    add_on = {"pkce": {"function": "idpyoidc.server.oauth2.add_on.pkce.add_support",
                       "kwargs": {"essential": True, "code_challenge_method": "S256"}}}
    if dpop:
        add_on["dpop"] = {"function": "idpyoidc.server.oauth2.add_on.dpop.add_support",
                          "kwargs": {"dpop_signing_alg_values_supported": DPOP_ALGS,
                                     "dpop_endpoints": ["token", "userinfo"]}}
    usage = {
        "authorization_code": {"supports_minting": ["access_token", "refresh_token", "id_token"],
                               "max_usage": 1, "expires_in": 120},
        "access_token": {"expires_in": 3600},
        "refresh_token": {"supports_minting": ["access_token", "refresh_token", "id_token"],
                          "expires_in": 86400},
    }
    keys = [{"type": "RSA", "use": ["sig"]}, {"type": "EC", "crv": "P-256", "use": ["sig"]}]
    return {
        "issuer": issuer,
        "entity_id": issuer,
        "httpc_params": {"verify": False, "timeout": 4},
        "key_conf": {"key_defs": keys, "uri_path": "jwks.json", "read_only": False},
        "endpoint": endpoints,
        "add_on": add_on,
        "authentication": {"user": {"acr": ACR, "class": FormLogin,
                                    "kwargs": {"action": f"{urlsplit(issuer).path}/verify"}}},
        "userinfo": {"class": "idpyoidc.server.user_info.UserInfo", "kwargs": {"db": CLAIMS}},
        "authz": {"class": "idpyoidc.server.authz.AuthzHandling",
                  "kwargs": {"grant_config": {"usage_rules": usage, "expires_in": 43200}}},
        "token_handler_args": {
            "jwks_def": {"read_only": False,
                         "key_defs": [{"type": "oct", "bytes": "24", "use": ["enc"], "kid": "code"}]},
            "code": {"kwargs": {"lifetime": 600}},
            "token": {"class": "idpyoidc.server.token.jwt_token.JWTToken",
                      "kwargs": {"lifetime": 3600, "add_claims_by_scope": True}},
            "refresh": {"class": "idpyoidc.server.token.jwt_token.JWTToken",
                        "kwargs": {"lifetime": 86400}},
            "id_token": {"class": "idpyoidc.server.token.id_token.IDToken", "kwargs": {}},
        },
        "cookie_handler": {"class": "idpyoidc.server.cookie_handler.CookieHandler",
                           "kwargs": {"keys": {"key_defs": [
                               {"type": "OCT", "use": ["enc"], "kid": "enc"},
                               {"type": "OCT", "use": ["sig"], "kid": "sig"}]},
                               "name": {"session": "oidc_op", "register": "oidc_op_rp",
                                        "session_management": "sman"}}},
        "session_params": {"encrypter": {"kwargs": {"keys": {"key_defs": [
            {"type": "OCT", "use": ["enc"], "kid": "password"},
            {"type": "OCT", "use": ["enc"], "kid": "salt"}]}}}},
        # scopes_supported is idpyoidc's own (it leaves offline_access out): the client asks
        # for offline_access explicitly, and A12 sends what the caller gave as given.
        "preference": {"subject_types_supported": ["public"],
                       "code_challenge_methods_supported": ["S256"],
                       "grant_types_supported": ["authorization_code", "refresh_token"]},
        "client_db": None,
        "_client": {"client_id": client_id, "redirect_uris": [(redirect_uri, {})],
                    "response_types_supported": ["code"],
                    "grant_types_supported": ["authorization_code", "refresh_token"],
                    "token_endpoint_auth_method": "none", "allowed_scopes":
                        ["openid", "profile", "email", "offline_access"],
                    "revoke_refresh_on_issue": True},
    }


class Issuer:
    """One idpyoidc Server and the path it answers under."""

    def __init__(self, base, name, redirect_uri, dpop, par):
        self.path = f"/{name}"
        self.issuer = f"{base}{self.path}"
        conf = provider_configuration(self.issuer, redirect_uri, f"versola-{name}", dpop, par)
        client = conf.pop("_client")
        self.server = Server(conf, cwd=".")
        self.server.context.cdb[client["client_id"]] = client
        if dpop:
            # Quirk: the add-on writes the algorithms into the metadata, and the server then
            # rebuilds its provider info without them; put them back so discovery shows DPoP.
            self.server.context.provider_info["dpop_signing_alg_values_supported"] = DPOP_ALGS
        self.routes = {}
        for endpoint in self.server.endpoint.values():
            self.routes[urlsplit(endpoint.full_path).path] = endpoint
        self.jwks_path = f"{self.path}/jwks.json"
        self.verify_path = f"{self.path}/verify"

    def jwks(self):
        return json.dumps(self.server.keyjar.export_jwks(issuer_id=""))


def is_error(body):
    """Whether a JSON answer is an OAuth error (the library's answers carry no status)."""
    try:
        return isinstance(body, str) and "error" in json.loads(body)
    except ValueError:
        return False


class Handler(BaseHTTPRequestHandler):
    """Dispatches one request to the issuer and endpoint its path names."""

    protocol_version = "HTTP/1.1"
    issuers = []
    lock = threading.Lock()

    def log_message(self, format, *args):  # noqa: A002 — the stdlib's name
        log.debug("%s %s", self.address_string(), format % args)

    def do_GET(self):
        self.dispatch("GET", urlsplit(self.path).query)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.dispatch("POST", self.rfile.read(length).decode("utf-8", "replace"))

    def dispatch(self, method, body):
        path = urlsplit(self.path).path
        with self.lock:
            try:
                for issuer in self.issuers:
                    if path == issuer.jwks_path:
                        return self.answer(200, issuer.jwks(), "application/json")
                    if path == issuer.verify_path and method == "POST":
                        return self.login(issuer, body)
                    endpoint = issuer.routes.get(path)
                    if endpoint:
                        return self.endpoint(issuer, endpoint, method, body)
                self.answer(404, "not found", "text/plain")
            except Exception as error:  # the library raises for refusals: log and answer 400
                log.warning("%s %s: %s: %s", method, path, type(error).__name__, error)
                if not isinstance(error, ValueError):
                    log.debug("%s", traceback.format_exc())
                self.answer(400, json.dumps({"error": "invalid_request",
                                             "error_description": str(error)}), "application/json")

    def http_info(self, method):
        headers = {name.lower(): value for name, value in self.headers.items()}
        url = f"{self.server.base}{urlsplit(self.path).path}"
        if method == "GET" and urlsplit(self.path).query:
            url += "?" + urlsplit(self.path).query
        return {"headers": headers, "method": method, "url": url, "cookie": []}

    def endpoint(self, issuer, endpoint, method, body):
        http_info = self.http_info(method)
        request = endpoint.parse_request(body or {}, http_info=http_info)
        if "error" in request:
            log.warning("%s %s refused: %s", method, endpoint.name, request.to_json())
            if endpoint.response_placement == "url":
                # Refused before the redirect URI was checked: the provider's own error page.
                return self.answer(400, "<!doctype html><title>Error</title><p>"
                                   + html.escape(request.get("error_description", request["error"])),
                                   "text/html; charset=utf-8")
            return self.answer(400, request.to_json(), "application/json")
        args = endpoint.process_request(request, http_info=http_info)
        if isinstance(args, dict) and "http_response" in args:
            body = args["http_response"]
            if isinstance(body, dict):
                status = 201 if endpoint.name == "pushed_authorization" else 200
                return self.answer(status, json.dumps(body), "application/json")
            return self.answer(200, body, "text/html; charset=utf-8")
        if "error" in args:  # a dict or one of the library's error messages
            log.warning("%s %s refused: %s", method, endpoint.name, args.get("error_description", args["error"]))
        reply = endpoint.do_response(request=request, **args)
        self.reply(endpoint, reply)

    def login(self, issuer, body):
        form = {key: values[0] for key, values in parse_qs(body).items()}
        authorization = issuer.server.endpoint["authorization"]
        method = issuer.server.context.authn_broker["user"]["method"]
        arguments = method.arguments(form.get("token", ""))
        try:
            user = method.verify(username=form.get("username", ""), password=form.get("password", ""))
        except FailedAuthentication:
            return self.answer(401, "wrong username or password", "text/plain")
        request = AuthorizationRequest().from_urlencoded(arguments["query"])
        session = authorization.create_session(request, user, arguments["authn_class_ref"],
                                               utc_time_sans_frac(), method)
        reply = authorization.do_response(request=request, **authorization.authz_part2(request, session))
        self.reply(authorization, reply)

    def reply(self, endpoint, reply):
        headers = [(name, value) for name, value in reply.get("http_headers", [])
                   if name.lower() != "content-type"]
        if endpoint.response_placement == "url" and "response_code" not in reply:
            self.send_response(302)
            self.send_header("Location", reply["response"])
            self.send_header("Content-Length", "0")
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            return
        content_type = dict((n.lower(), v) for n, v in reply.get("http_headers", [])).get("content-type", "application/json")
        body = reply.get("response") or ""
        self.answer(reply.get("response_code") or (400 if is_error(body) else 200), body, content_type, headers)

    def answer(self, status, body, content_type, headers=()):
        data = body.encode("utf-8") if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--redirect-uri", required=True)
    parser.add_argument("--log")
    options = parser.parse_args()
    logging.basicConfig(filename=options.log, level=logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    log.setLevel(logging.DEBUG)

    base = f"https://127.0.0.1:{options.port}"
    Handler.issuers = [Issuer(base, "plain", options.redirect_uri, dpop=False, par=False),
                       Issuer(base, "dpop", options.redirect_uri, dpop=True, par=False),
                       Issuer(base, "par", options.redirect_uri, dpop=True, par=True)]
    httpd = ThreadingHTTPServer(("127.0.0.1", options.port), Handler)
    httpd.base = base
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(options.cert, options.key)
    # The handshake happens in each connection's thread, not in the accepting one.
    httpd.socket = tls.wrap_socket(httpd.socket, server_side=True, do_handshake_on_connect=False)
    print(f"idpyoidc on {base}", flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
