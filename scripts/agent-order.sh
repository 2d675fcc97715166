#!/usr/bin/env bash
# Remakes Sources/versola/agent.order, the order `make install` lays out the engine's functions
# in, from what a running agent executes (see the Makefile's install target for why).
#
# The workload is the one the agent serves: sign in against versola-test-idp, then warm tokens
# in each format, forced refreshes and refreshes at expiry (3-second access tokens). The engine
# runs with scripts/support/text-trace.c preloaded, which logs where its code runs.
#   1. An exact trace (a window of 16 runnable pages, so each function entered from another page
#      is logged) of a build without an order gives the functions: the agent's, then those of
#      the `login` command, then of the other commands.
#   2. Two rounds of a page trace of the build linked with that order add whatever ran outside
#      the ordered functions (a function called only from its own page escapes the exact trace).
# The order names functions, so it outlives small code changes: a name that no longer exists is
# skipped by the linker. Rerun this after larger changes; `make bench` shows the agent's RSS.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
work=$(mktemp -d /tmp/versola-order.XXXXXX)
idp_pid=""
cleanup() {
  if [ -n "$idp_pid" ]; then kill "$idp_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
cc -O2 -Wall -Wextra -Werror -shared -fPIC -o "$work/text-trace.so" scripts/support/text-trace.c
swift build -c release --product versola-test-idp 2>&1 | tail -n 1
idp_bin="$(swift build -c release --show-bin-path)/versola-test-idp"
order_tool=(python3 scripts/support/agent_order.py)

# install ORDER: the engine as `make install` builds it, linked with ORDER, under $work/prefix.
install() {
  rm -rf "$work/prefix"
  make -s install PREFIX="$work/prefix" LINK_ORDER="$1" 2>&1 | grep -E 'error|warning' || true
}

# trace WINDOW NAME: runs the workload with the tracer; leaves NAME.agent, NAME.login, NAME.other.
trace() {
  local window=$1 name=$2 engine front home issuer agent range
  engine="$work/prefix/libexec/versola/versola"; front="$work/prefix/bin/versola"
  home=$(mktemp -d "$work/home.XXXXXX"); mkdir -m 700 "$home/run"
  "$idp_bin" --port 0 --auto-login --access-token-lifetime 3 > "$home/idp.out" 2>&1 &
  idp_pid=$!
  for _ in $(seq 1 100); do [ -s "$home/idp.out" ] && break; sleep 0.05; done
  issuer=$(head -n 1 "$home/idp.out")
  range=$("${order_tool[@]}" range "$engine")
  (
    export HOME="$home" XDG_CONFIG_HOME="$home/config" XDG_STATE_HOME="$home/state" XDG_RUNTIME_DIR="$home/run"
    export SWIFT_BACKTRACE=enable=no LD_PRELOAD="$work/text-trace.so" TEXT_TRACE_BINARY="$engine" \
      TEXT_TRACE_RANGE="$range" TEXT_TRACE_OUT="$home/trace" TEXT_TRACE_WINDOW="$window"
    "$front" login --issuer "$issuer" --client-id versola-test --browser-command 'curl -sL -o /dev/null %s' \
      >/dev/null 2>"$home/login.err"
    "$front" token >/dev/null
    # The adapters' targets, which the agent's credential requests read (issue 41).
    "$front" setup-docker --host 127.0.0.1:5000 >/dev/null 2>&1
    "$front" setup-pip --url http://127.0.0.1:8080/simple/ >/dev/null 2>&1
    agent=$(pgrep -n -f "^$engine agent")
    # The order follows the trace, so the work every agent does comes first and the adapters'
    # (which many never use) last, together.
    for _ in 1 2 3; do
      for _ in $(seq 1 30); do "$front" token >/dev/null; done
      "$front" token --json >/dev/null
      "$front" token --token id >/dev/null
      "$front" token --force-refresh >/dev/null
      "$front" status >/dev/null
      sleep 3.5 # the access token expires: the next request refreshes at expiry
    done
    for _ in 1 2; do
      "$front" token --format k8s >/dev/null 2>&1 || true # refused for DPoP-bound tokens, as it should be
      # docker's get and the keyring backend's credential: also refused for DPoP-bound tokens.
      printf 127.0.0.1:5000 | "$work/prefix/bin/docker-credential-versola" get >/dev/null 2>&1 || true
      "$front" credential --url http://127.0.0.1:8080/simple/x/ >/dev/null 2>&1 || true
    done
    "$front" agent --stop >/dev/null
    for _ in $(seq 1 100); do kill -0 "$agent" 2>/dev/null || break; sleep 0.05; done
    login=$(find "$home" -maxdepth 1 -name 'trace.*' ! -name "trace.$agent" -printf '%s %p\n' | sort -rn | awk 'NR == 1 {print $2}')
    mv "$home/trace.$agent" "$name.agent"; mv "$login" "$name.login"
    cat "$home"/trace.* 2>/dev/null > "$name.other" || true
  )
  kill "$idp_pid" 2>/dev/null || true; idp_pid=""
}

install /dev/null
trace 16 "$work/exact"
"${order_tool[@]}" exact "$work/prefix/libexec/versola/versola" \
  "$work/exact.agent" "$work/exact.login" "$work/exact.other" > "$work/order.0"
for round in 1 2; do
  install "$work/order.$((round - 1))"
  trace 0 "$work/pages.$round"
  "${order_tool[@]}" extend "$work/prefix/libexec/versola/versola" "$work/order.$((round - 1))" \
    "$work/pages.$round.agent" "$work/pages.$round.login" "$work/pages.$round.other" > "$work/order.$round"
done
cp "$work/order.2" Sources/versola/agent.order
echo "wrote Sources/versola/agent.order: $(wc -l < Sources/versola/agent.order) functions"
