#!/usr/bin/env python3
"""An MCP server from FastMCP (PyPI) behind FastMCP's own in-memory OAuth provider, on loopback.

usage: mcp_server.py --port N

FastMCP's InMemoryOAuthProvider is both the authorization server and the protected
resource: it serves RFC 9728 protected-resource metadata (at the path-inserted well-known
of the MCP endpoint), RFC 8414 authorization-server metadata, RFC 7591 registration
(enabled here; FastMCP leaves it off by default), an authorization endpoint that approves
at once (no person), and the token endpoint (codes and rotating refresh tokens). The MCP
endpoint, http://127.0.0.1:N/mcp (streamable HTTP), answers 401 with
`WWW-Authenticate: Bearer ... resource_metadata=...` without a valid token. Nothing is
changed in the package; one tool, `echo`, so that an authenticated request has something
to list. Logs every request (uvicorn's access log, which the interop script reads); stops on SIGTERM.
"""
import argparse
import asyncio

from fastmcp import FastMCP
from fastmcp.server.auth.auth import ClientRegistrationOptions
from fastmcp.server.auth.providers.in_memory import InMemoryOAuthProvider


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    base = f"http://127.0.0.1:{args.port}"
    auth = InMemoryOAuthProvider(
        base_url=base,
        client_registration_options=ClientRegistrationOptions(enabled=True),
    )
    server = FastMCP("versola interop", auth=auth)

    @server.tool
    def echo(text: str) -> str:
        """Returns the text it was given."""
        return text

    print(f"mcp on {base}/mcp", flush=True)
    asyncio.run(server.run_http_async(show_banner=False, host="127.0.0.1", port=args.port, path="/mcp",
                                      log_level="info"))


if __name__ == "__main__":
    main()
