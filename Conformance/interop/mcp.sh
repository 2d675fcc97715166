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
#    OAuth provider as authorization server and protected resource, one server per variant.
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
#    no-refresh  (a server whose token endpoint gives no refresh token) login says so, then
#                initialize answers 200 through the agent, again after `versola agent --stop`,
#                and with `--no-agent`; the token endpoint saw one request in all
#    step-up     (a server whose tool `admin_echo` needs `mcp:admin`, a scope the 401 does not
#                name) login, initialize 200, the tools/call without a terminal exits 5 with
#                the exact `versola login … --scope mcp:read --scope mcp:admin` line; that
#                line, run as printed, signs in again and the tools/call answers 200
#    root-metadata (a server whose protected-resource metadata is only at the root, naming
#                the origin, and whose 401 names none) login finds it there and initialize
#                answers 200
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
# The official SDK, pinned too (fastmcp accepts a range of it).
sdk_version=${MCP_SDK_VERSION:-2.3.0}
started=$(date +%s)

# 1. The virtual environment.
venv="$build/mcp-venv"
python="$venv/bin/python"
installed() {
  [ -x "$python" ] && "$python" -c 'import importlib.metadata as m, sys
sys.exit((m.version("fastmcp"), m.version("mcp")) != (sys.argv[1], sys.argv[2]))' "$version" "$sdk_version" 2>/dev/null
}
if ! installed; then
  echo "installing fastmcp $version and mcp $sdk_version (PyPI) in $venv"
  rm -rf "$venv"
  if ! python3 -m venv "$venv" >/dev/null 2>&1; then
    # Debian's python3 needs python3-venv for ensurepip.
    rm -rf "$venv"
    VERSOLA_EXTRA_PACKAGES=python3-venv bash "$here/../../scripts/install-deps.sh"
    python3 -m venv "$venv"
  fi
  "$python" -m pip install -q --disable-pip-version-check --no-input "fastmcp==$version" "mcp==$sdk_version"
  installed || { echo "mcp.sh: fastmcp $version with mcp $sdk_version did not install" >&2; exit 1; }
fi
echo "fastmcp $version, mcp $("$python" -c 'import importlib.metadata as m; print(m.version("mcp"))')"

work=$(mktemp -d "${TMPDIR:-/tmp}/versola-mcp.XXXXXX")
server_pid=""
stop_server() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  server_pid=""
}
# shellcheck disable=SC2317  # run by the EXIT trap, which shellcheck cannot follow
cleanup() {
  stop_server
  if [ "${VERSOLA_INTEROP_KEEP:-0}" = 1 ]; then echo "mcp: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# 2. A server of one variant on a free port: $url, its access log in $log.
start_server() { # VARIANT
  stop_server
  local port
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
  log="$work/server-$1.log"
  "$python" "$here/mcp_server.py" --port "$port" --variant "$1" >"$log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 150); do
    curl -s -o /dev/null "http://127.0.0.1:$port/.well-known/oauth-authorization-server" && break
    kill -0 "$server_pid" 2>/dev/null || { echo "mcp.sh: the $1 server exited" >&2; tail -n 20 "$log" >&2; exit 1; }
    sleep 0.1
  done
  url="http://127.0.0.1:$port/mcp"
  echo "FastMCP ($1) on $url"
}
start_server default

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
registrations() { grep -c 'POST /register' "$log" || true; }
# An MCP call over streamable HTTP (JSON-RPC, both media types accepted) to $url.
mcp_call() { # JSON-RPC BODY
  call=(request "$url" -X POST -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' -d "$1")
}
initialize_body='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"versola-interop","version":"1"}}}'
# Sets $initialize and $login for the server now running.
for_server() {
  mcp_call "$initialize_body"
  initialize=("${call[@]}")
  login=(login --resource "$url" --browser-command 'curl -sL -o /dev/null %s')
}
for_server

run "${initialize[@]}"
if [ "$code" = 6 ] && grep -qF "versola login --resource $url" "$work/stderr"; then
  record challenge pass
else
  record challenge fail "$(failure), expected exit 6 naming versola login --resource $url"
fi

run "${login[@]}"
if [ "$code" != 0 ]; then
  record login fail "$(failure)"
elif ! grep -q 'GET /authorize?.*resource=' "$log"; then
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

# 4. A server that gives no refresh token: the access token is the session (P13), served
# through the agent, by a new agent after --stop, and by a process of its own.
start_server no-refresh
for_server
answered() { [ "$code" = 0 ] && grep -q "$1" <<<"$out"; }
run "${login[@]}"
if [ "$code" != 0 ]; then
  record no-refresh fail "login: $(failure)"
elif ! grep -q 'no refresh token' "$work/stderr"; then
  record no-refresh fail "login did not say the session has no refresh token: $err"
else
  run "${initialize[@]}"
  if ! answered '"serverInfo"'; then
    record no-refresh fail "initialize through the agent: $(failure)"
  else
    run agent --stop
    run "${initialize[@]}"
    if ! answered '"serverInfo"'; then
      record no-refresh fail "initialize after agent --stop: $(failure)"
    else
      run --no-agent "${initialize[@]}"
      tokens=$(grep -c 'POST /token' "$log" || true)
      if ! answered '"serverInfo"'; then
        record no-refresh fail "initialize with --no-agent: $(failure)"
      elif [ "$tokens" != 1 ]; then
        record no-refresh fail "$tokens token requests, expected the code exchange alone"
      else
        record no-refresh pass
      fi
    fi
  fi
fi

# 5. Step-up (A20): a tool that needs a scope the first sign-in did not ask for.
start_server step-up
for_server
mcp_call '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"admin_echo","arguments":{"text":"stepped up"}}}'
admin=("${call[@]}")
step_up() {
  run "${login[@]}"
  [ "$code" = 0 ] || { record step-up fail "login: $(failure)"; return; }
  local asked
  asked=$(grep -m 1 -o 'GET /authorize?[^ ]*' "$log" | python3 -c 'import sys, urllib.parse as u
print(u.parse_qs(u.urlsplit(sys.stdin.read()[4:].strip()).query).get("scope", [""])[0])')
  [ "$asked" = mcp:read ] || { record step-up fail "the first authorization asked for scope '$asked', not mcp:read"; return; }
  run "${initialize[@]}"
  answered '"serverInfo"' || { record step-up fail "initialize: $(failure)"; return; }
  run "${admin[@]}"
  local line
  line=$(grep -o 'versola login .*' "$work/stderr" | head -n 1)
  [ "$code" = 5 ] || { record step-up fail "the tools/call without a terminal: $(failure), expected exit 5"; return; }
  case "$line" in
    *" --scope mcp:read --scope mcp:admin") ;;
    *) record step-up fail "the step-up line does not ask for both scopes: $line"; return ;;
  esac
  # The line exactly as printed, words split as a shell would.
  local words=()
  mapfile -t words < <(python3 -c 'import shlex, sys; print("\n".join(shlex.split(sys.argv[1])))' "$line")
  run "${words[@]:1}"
  [ "$code" = 0 ] || { record step-up fail "running the printed line ($line): $(failure)"; return; }
  run "${admin[@]}"
  answered 'stepped up' || { record step-up fail "the tools/call after the step-up: $(failure)"; return; }
  record step-up pass
}
step_up

# 6. Protected-resource metadata only at the root, naming the origin; a 401 naming none.
start_server root-metadata
for_server
run "${login[@]}"
if [ "$code" != 0 ]; then
  record root-metadata fail "login: $(failure)"
elif ! grep -q 'GET /.well-known/oauth-protected-resource HTTP' "$log"; then
  record root-metadata fail "the root metadata was not read"
else
  run "${initialize[@]}"
  if answered '"serverInfo"'; then record root-metadata pass; else record root-metadata fail "initialize: $(failure)"; fi
fi
stop_server

# The agent removes its socket when it exits after its idle time.
for _ in $(seq 1 100); do
  [ -e "$XDG_RUNTIME_DIR/versola/agent.sock" ] || break
  sleep 0.1
done
for server_log in "$work"/server-*.log; do
  if grep -q 'Traceback' "$server_log"; then
    echo "mcp: the server logged an internal error ($(basename "$server_log")):" >&2
    grep -m 3 -A 3 'Traceback' "$server_log" >&2
  fi
done
printf '%s\n' "${results[@]}" >>"$tsv"
echo "mcp: $(( ${#results[@]} - failures )) of ${#results[@]} features passed, in $(( $(date +%s) - started )) s"
[ "$failures" = 0 ]
