#!/usr/bin/env bash
# The `versola` command's figures (release build): wall time of `versola token` with a warm
# agent and without one (median of many runs), and the peak memory of `versola login` and
# of the session agent (`/usr/bin/time -v`, installed when missing).
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
install_deps
runs=${VERSOLA_CLI_BENCH_RUNS:-200}

if [ ! -x /usr/bin/time ]; then
  echo "installing time" >&2
  sudo_cmd=(); [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq time >/dev/null
fi

# The installed form: the Swift runtime and Foundation linked statically (see README), which
# halves start-up for a command run over and over by kubectl and shells.
swift build -c release --static-swift-stdlib --product versola 2>&1 | tail -n 1
swift build -c release --product versola-test-idp 2>&1 | tail -n 1
bin="$(swift build -c release --show-bin-path)"

work=$(mktemp -d /tmp/versola-bench.XXXXXX)
mkdir -m 700 "$work/run"
export XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state" XDG_RUNTIME_DIR="$work/run"
idp_pid=""
cleanup() {
  "$bin/versola" agent --stop >/dev/null 2>&1 || true
  if [ -n "$idp_pid" ]; then kill "$idp_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
on_exit cleanup

"$bin/versola-test-idp" --port 0 --auto-login > "$work/idp.out" 2>&1 &
idp_pid=$!
for _ in $(seq 1 100); do [ -s "$work/idp.out" ] && break; sleep 0.05; done
issuer=$(head -n 1 "$work/idp.out")

peak_kib() { awk -F': ' '/Maximum resident set size/ {print $2}' "$1"; }

/usr/bin/time -v -o "$work/login.time" "$bin/versola" login --issuer "$issuer" --client-id versola-test \
  --browser-command 'curl -sL -o /dev/null %s' >/dev/null 2>"$work/login.err"

# Median wall time in milliseconds of the command (the versola binary unless told otherwise).
median_ms() {
  local program="$bin/versola"
  if [ "${1:-}" = "--program" ]; then program=$2; shift 2; fi
  python3 scripts/support/median-ms.py "$runs" "$program" "$@"
}

"$bin/versola" token >/dev/null   # start the agent and warm it
warm=$(median_ms token)
cold_runs=$((runs / 10))
cold=$(runs=$cold_runs median_ms token --no-agent)

agent_pid=$(pgrep -n -f "$bin/versola agent" || true)
agent_kib=""
if [ -n "$agent_pid" ]; then agent_kib=$(awk '/VmHWM/ {print $2}' "/proc/$agent_pid/status"); fi

baseline=$(median_ms --program /bin/true)

echo "cli_token_warm_agent_median_ms: $warm (target < 10)"
echo "process_true_median_ms: $baseline (a process that only starts and exits)"
awk -v a="$warm" -v b="$baseline" 'BEGIN { printf "cli_token_warm_agent_over_true: %.1fx\n", a / b }'
echo "cli_token_no_agent_median_ms: $cold (in-process restore + refresh)"
echo "cli_login_peak_rss_mib: $(awk -v k="$(peak_kib "$work/login.time")" 'BEGIN {printf "%.1f", k/1024}') (target < 40)"
echo "cli_agent_peak_rss_mib: $(awk -v k="$agent_kib" 'BEGIN {printf "%.1f", k/1024}') (target < 40, after $((runs + 1)) token requests)"
