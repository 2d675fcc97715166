#!/usr/bin/env bash
# The agent's peak RSS in the scenario issue 30 sets, on an installed layout: an agent started
# afresh, two refreshes (`token --force-refresh`, which the agent sends) and a hundred token
# answers, then its VmHWM beside the target, and with --profile where its memory is.
#   scripts/agent-rss.sh PREFIX IDP_BINARY [--profile]
# PREFIX is what `make install PREFIX=...` filled; IDP_BINARY a built versola-test-idp.
# scripts/cli-bench.sh runs it on the layout it installs.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
prefix=$1 idp_bin=$2 profile=${3:-}
front="$prefix/bin/versola"
engine="$prefix/libexec/versola/versola"

work=$(mktemp -d /tmp/versola-agent-rss.XXXXXX)
mkdir -m 700 "$work/run"
export HOME="$work" XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state" XDG_RUNTIME_DIR="$work/run"
stop_agent() {
  "$front" agent --stop >/dev/null 2>&1 || true
  for _ in $(seq 1 100); do pgrep -f "^$engine agent" >/dev/null || break; sleep 0.05; done
}
cleanup() {
  stop_agent
  rm -rf "$work" 2>/dev/null || { sleep 0.2; rm -rf "$work" 2>/dev/null; } || true
}
on_exit cleanup

start_test_idp "$(dirname "$idp_bin")" "$work/idp.out" --auto-login || die "the test provider did not start"
issuer=$test_idp_issuer
"$front" login --issuer "$issuer" --client-id versola-test --browser-command 'curl -sL -o /dev/null %s' \
  >/dev/null 2>"$work/login.err" || { cat "$work/login.err" >&2; exit 1; }

stop_agent
# `status` starts the agent without a request to the provider: its memory before libcurl is loaded.
"$front" status >/dev/null 2>&1 || true
early=""
if early_pid=$(pgrep -n -f "^$engine agent"); then
  early=$(awk '/VmHWM/ {printf "%.1f", $2 / 1024}' "/proc/$early_pid/status")
fi
"$front" token >/dev/null
for _ in 1 2; do "$front" token --force-refresh >/dev/null; done
for _ in $(seq 1 100); do "$front" token >/dev/null; done
pid=$(pgrep -n -f "^$engine agent") || { echo "agent-rss: no agent is running" >&2; exit 1; }
awk '/VmHWM/ {printf "agent peak RSS: %.1f MiB (target <= 16; started, 2 refreshes, 100 token answers)\n", $2 / 1024}' \
  "/proc/$pid/status"
if [ "$profile" = --profile ]; then
  echo "  the engine needs: $(readelf -d "$engine" | awk -F'[][]' '/NEEDED/ {printf "%s ", $2}')"
  echo "  libcurl mapped in the agent: $(grep -q 'libcurl\.so' "/proc/$pid/maps" && echo yes || echo no)" \
    "(peak before its first request to the provider: ${early:-?} MiB)"
  python3 scripts/support/memory_profile.py "$pid" 14
fi
