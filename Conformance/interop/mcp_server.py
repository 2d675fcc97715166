#!/usr/bin/env python3
"""An MCP server from FastMCP (PyPI) behind FastMCP's own in-memory OAuth provider, on loopback.

usage: mcp_server.py --port N [--variant default|no-refresh|step-up|root-metadata]

FastMCP's InMemoryOAuthProvider is both the authorization server and the protected
resource: it serves RFC 9728 protected-resource metadata (at the path-inserted well-known
of the MCP endpoint), RFC 8414 authorization-server metadata, RFC 7591 registration
(enabled here; FastMCP leaves it off by default), an authorization endpoint that approves
at once (no person), and the token endpoint (codes and rotating refresh tokens). The MCP
endpoint, http://127.0.0.1:N/mcp (streamable HTTP; stateless in the step-up variant, so
that a `tools/call` stands alone), answers 401 with `WWW-Authenticate: Bearer ... resource_metadata=...` without a valid
token. Nothing is changed in the package. Tools: `echo`, and in the step-up variant
`admin_echo`, which needs the scope `mcp:admin`.

Variants (the package's behaviour, then what a small ASGI layer here changes):
  default        as above
  no-refresh     the token endpoint gives an access token and no refresh token (as GitHub
                 OAuth apps and many MCP servers do): the provider's answer minus refresh_token
  step-up        the provider requires `mcp:read` (its 401 names it, its metadata lists it
                 alone, registration takes any scope); a `tools/call` of `admin_echo`
                 with a token lacking `mcp:admin` is answered 403 `WWW-Authenticate: Bearer
                 error="insufficient_scope", scope="mcp:admin"` (RFC 6750 §3.1, as the SDK's
                 RequireAuthMiddleware answers for a whole endpoint)
  root-metadata  protected-resource metadata only at the root,
                 /.well-known/oauth-protected-resource, naming the origin as `resource`; the
                 path-inserted location answers 404 and the 401 names no resource_metadata
Logs every request (uvicorn's access log, which the interop script reads); stops on SIGTERM.
"""
import argparse
import asyncio
import json
import re

from fastmcp import FastMCP
from fastmcp.server.auth.auth import ClientRegistrationOptions
from fastmcp.server.auth.providers.in_memory import InMemoryOAuthProvider
from starlette.middleware import Middleware


class NoRefreshProvider(InMemoryOAuthProvider):
    """The in-memory provider whose code exchange gives no refresh token."""

    async def exchange_authorization_code(self, client, authorization_code):
        token = await super().exchange_authorization_code(client, authorization_code)
        self.refresh_tokens.pop(token.refresh_token, None)
        return token.model_copy(update={"refresh_token": None})


async def send_json(send, status, body, headers=()):
    data = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()),
                            *headers]})
    await send({"type": "http.response.body", "body": data})


class Variant:
    """The ASGI layer of the step-up and root-metadata variants."""

    def __init__(self, app, variant, base, provider):
        self.app, self.variant, self.base, self.provider = app, variant, base, provider

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = scope["path"]
        if self.variant == "root-metadata":
            if path == "/.well-known/oauth-protected-resource/mcp":
                return await send_json(send, 404, {"error": "not_found"})
            if path == "/.well-known/oauth-protected-resource":
                return await send_json(send, 200, {"resource": self.base, "authorization_servers": [self.base + "/"],
                                                   "bearer_methods_supported": ["header"]})
            return await self.app(scope, receive, self.without_resource_metadata(send))
        if self.variant == "step-up" and path == "/mcp" and scope["method"] == "POST":
            body = b""
            while True:
                message = await receive()
                body += message.get("body", b"")
                if not message.get("more_body"):
                    break
            if self.lacks_admin_scope(scope, body):
                challenge = 'Bearer error="insufficient_scope", scope="mcp:admin", ' \
                            f'resource_metadata="{self.base}/.well-known/oauth-protected-resource/mcp"'
                return await send_json(send, 403, {"error": "insufficient_scope"},
                                       [(b"www-authenticate", challenge.encode())])
            replayed = False

            async def replay():
                nonlocal replayed
                if replayed:
                    return await receive()
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await self.app(scope, replay, send)
        return await self.app(scope, receive, send)

    def lacks_admin_scope(self, scope, body):
        try:
            call = json.loads(body)
        except ValueError:
            return False
        if not (isinstance(call, dict) and call.get("method") == "tools/call"
                and (call.get("params") or {}).get("name") == "admin_echo"):
            return False
        authorization = dict(scope["headers"]).get(b"authorization", b"").decode()
        token = self.provider.access_tokens.get(authorization[7:]) if authorization[:7].lower() == "bearer " else None
        # No valid token: the provider's own 401 answers it.
        return token is not None and "mcp:admin" not in token.scopes

    @staticmethod
    def without_resource_metadata(send):
        async def rewritten(message):
            if message["type"] == "http.response.start":
                message["headers"] = [
                    (name, re.sub(rb',?\s*resource_metadata="[^"]*"', b"", value) if name.lower() == b"www-authenticate"
                     else value)
                    for name, value in message.get("headers", [])]
            await send(message)
        return rewritten


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--variant", choices=["default", "no-refresh", "step-up", "root-metadata"], default="default")
    args = parser.parse_args()
    base = f"http://127.0.0.1:{args.port}"
    step_up = args.variant == "step-up"
    # No valid_scopes: FastMCP would list them all as the resource's scopes_supported, and a
    # client that cannot read the 401's scope (see mcp.md) would ask for mcp:admin at once.
    registration = ClientRegistrationOptions(enabled=True)
    provider = NoRefreshProvider if args.variant == "no-refresh" else InMemoryOAuthProvider
    auth = provider(base_url=base, client_registration_options=registration,
                    required_scopes=["mcp:read"] if step_up else None)
    server = FastMCP("versola interop", auth=auth)

    @server.tool
    def echo(text: str) -> str:
        """Returns the text it was given."""
        return text

    if step_up:
        @server.tool
        def admin_echo(text: str) -> str:
            """Returns the text it was given, to a token holding mcp:admin."""
            return text

    middleware = [Middleware(Variant, variant=args.variant, base=base, provider=auth)]
    print(f"mcp ({args.variant}) on {base}/mcp", flush=True)
    asyncio.run(server.run_http_async(show_banner=False, host="127.0.0.1", port=args.port, path="/mcp",
                                      log_level="info", stateless_http=step_up, middleware=middleware))


if __name__ == "__main__":
    main()
