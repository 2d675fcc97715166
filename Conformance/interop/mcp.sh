#!/usr/bin/env bash
# Interop with FastMCP (PyPI): resource-first sign-in (A19) against a real MCP server.
#
# usage: mcp.sh --versola PATH --tsv FILE [--build DIR]
#
# 1. A Python virtual environment under DIR/mcp-venv (DIR: $VERSOLA_BUILD_PATH or .build)
#    with fastmcp $FASTMCP_VERSION from PyPI (it brings the official mcp SDK, whose auth
#    handlers serve the endpoints); kept between runs, reinstalled only when the version
#    differs (idempotent, no prompt).
# 2. Conformance/interop/mcp_server.py on http://127.0.0.1:PORT/mcp: FastMCP's in-memory
#    OAuth provider as authorization server and protected resource, nothing patched.
# 3. The real `versola` in isolated XDG directories, knowing nothing but the MCP URL:
#    challenge   `versola request URL` (an MCP initialize POST) before any login: exit 6
#                naming the `versola login --resource URL` line
#    login       `versola login --resource URL`: RFC 9728 metadata from the 401, RFC 8414
#                metadata, RFC 7591 registration, PKCE, `resource` in the authorization request
#                (seen in the server's access log), the code exchange
#    request     the same initialize POST, now answered 2xx with the server's JSON-RPC result
#    token       `versola token --resource URL` prints the token
#    refresh     `versola token --resource URL --force-refresh`: a new access token
#    relogin     a second `versola login --resource URL`: exit 0 with no second registration
#                (one POST /register in the server's access log)
# Appends provider × feature rows to the TSV (as run-provider.sh writes them); exit status 1
# when a feature failed, 0 otherwise. Environment: VERSOLA_INTEROP_KEEP=1 keeps the temporary
# directory (the server's log).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
versola="" tsv="" build=${VERSOLA_BUILD_PATH:-$here/../../.build}
while [ $# -gt 0 ]; do
  case "$1" in
    --versola) versola=${2:-}; shift 2 ;;
    --tsv) tsv=${2:-}; shift 2 ;;
    --build) build=${2:-}; shift 2 ;;
    *) echo "mcp.sh: unknown argument $1" >&2; sed -n '4p' "$0" | sed 's/^# //' >&2; exit 2 ;;
  esac
done
if ! { [ -n "$versola" ] && [ -x "$versola" ] && [ -n "$tsv" ]; }; then sed -n '4p' "$0" | sed 's/^# //' >&2; exit 2; fi
versola=$(cd "$(dirname "$versola")" && pwd)/$(basename "$versola")
mkdir -p "$build"
build=$(cd "$build" && pwd)
version=${FASTMCP_VERSION:-4.1.6}
started=$(date +%s)

# 1. The virtual environment.
venv="$build/mcp-venv"
python="$venv/bin/python"
installed() {
  [ -x "$python" ] && "$python" -c 'import importlib.metadata as m, sys; sys.exit(m.version("fastmcp") != sys.argv[1])' \
    "$version" 2>/dev/null
}
if ! installed; then
  echo "installing fastmcp $version (PyPI) in $venv"
  rm -rf "$venv"
  if ! python3 -m venv "$venv" >/dev/null 2>&1; then
    # Debian's python3 needs python3-venv for ensurepip.
    rm -rf "$venv"
    VERSOLA_EXTRA_PACKAGES=python3-venv bash "$here/../../scripts/install-deps.sh"
    python3 -m venv "$venv"
  fi
  "$python" -m pip install -q --disable-pip-version-check --no-input "fastmcp==$version"
  installed || { echo "mcp.sh: fastmcp $version did not install" >&2; exit 1; }
fi
echo "fastmcp $version, mcp $("$python" -c 'import importlib.metadata as m; print(m.version("mcp"))')"

work=$(mktemp -d "${TMPDIR:-/tmp}/versola-mcp.XXXXXX")
server_pid=""
# shellcheck disable=SC2317  # run by the EXIT trap, which shellcheck cannot follow
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  if [ "${VERSOLA_INTEROP_KEEP:-0}" = 1 ]; then echo "mcp: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# 2. The server, on a free port.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
"$python" "$here/mcp_server.py" --port "$port" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 150); do
  curl -s -o /dev/null "http://127.0.0.1:$port/.well-known/oauth-authorization-server" && break
  kill -0 "$server_pid" 2>/dev/null || { echo "mcp.sh: the server exited" >&2; tail -n 20 "$work/server.log" >&2; exit 1; }
  sleep 0.1
done
url="http://127.0.0.1:$port/mcp"
echo "FastMCP on $url"

# 3. versola, in its own XDG directories, through the session agent as for a user.
mkdir -m 700 "$work/config" "$work/data" "$work/state" "$work/cache" "$work/runtime"
export XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" XDG_STATE_HOME="$work/state"
export XDG_CACHE_HOME="$work/cache" XDG_RUNTIME_DIR="$work/runtime" NO_COLOR=1 VERSOLA_AGENT_IDLE_TIMEOUT=2
unset BROWSER DISPLAY WAYLAND_DISPLAY VERSOLA_NO_AGENT
name="FastMCP $version"
results=() failures=0
record() { # feature result detail
  local line="$name × $1: $2"
  [ -n "${3:-}" ] && line+=" ($3)"
  echo "$line"
  results+=("$name"$'\t'"$1"$'\t'"$2"$'\t'"${3:-}")
  [ "$2" = fail ] && failures=$((failures + 1))
  return 0
}
run() { # versola ARGS...: output in $out, status in $code, one line of standard error in $err
  out=$(timeout 30 "$versola" "$@" </dev/null 2>"$work/stderr")
  code=$?
  err=$(tr '\n' ' ' <"$work/stderr" | cut -c1-300)
}
failure() { echo "exit $code${err:+: $err}"; }
registrations() { grep -c 'POST /register' "$work/server.log" || true; }
# A real MCP request: initialize over streamable HTTP (JSON-RPC, both media types accepted).
initialize=(request "$url" -X POST -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream'
  -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"versola-interop","version":"1"}}}')
login=(login --resource "$url" --browser-command 'curl -sL -o /dev/null %s')

run "${initialize[@]}"
if [ "$code" = 6 ] && grep -qF "versola login --resource $url" "$work/stderr"; then
  record challenge pass
else
  record challenge fail "$(failure), expected exit 6 naming versola login --resource $url"
fi

run "${login[@]}"
if [ "$code" != 0 ]; then
  record login fail "$(failure)"
elif ! grep -q 'GET /authorize?.*resource=' "$work/server.log"; then
  record login fail "the authorization request carried no resource (RFC 8707)"
else
  record login pass
fi

run "${initialize[@]}"
if [ "$code" = 0 ] && grep -q '"serverInfo"' <<<"$out"; then
  record request pass
else
  record request fail "$(failure), answer: $(tr -d '\000-\037' <<<"$out" | cut -c1-200)"
fi

run token --resource "$url"
first=$out
if [ "$code" = 0 ] && [ -n "$first" ]; then record token pass; else record token fail "$(failure)"; fi

run token --resource "$url" --force-refresh
if [ "$code" != 0 ]; then
  record refresh fail "$(failure)"
elif [ -z "$out" ] || [ "$out" = "$first" ]; then
  record refresh fail "a forced refresh returned the same access token"
else
  record refresh pass
fi

run "${login[@]}"
count=$(registrations)
if [ "$code" != 0 ]; then
  record relogin fail "$(failure)"
elif [ "$count" != 1 ]; then
  record relogin fail "$count registrations at the server, expected the first one reused"
else
  record relogin pass
fi

# The agent removes its socket when it exits after its idle time.
for _ in $(seq 1 100); do
  [ -e "$XDG_RUNTIME_DIR/versola/agent.sock" ] || break
  sleep 0.1
done
if grep -q 'Traceback' "$work/server.log"; then
  echo "mcp: the server logged an internal error:" >&2
  grep -m 3 -A 3 'Traceback' "$work/server.log" >&2
fi
printf '%s\n' "${results[@]}" >>"$tsv"
echo "mcp: $(( ${#results[@]} - failures )) of ${#results[@]} features passed, in $(( $(date +%s) - started )) s"
[ "$failures" = 0 ]
