#!/usr/bin/env bash
# The `versola` command's figures, measured on what `make install` installs (into a scratch
# prefix): one interleaved run (A B C D, A B C D, …) of
#   - a warm `versola token` (the front, bin/versola),
#   - the engine alone doing the same (libexec/versola/versola token),
#   - /bin/true (a process that only starts and exits),
#   - oidc-agent 4.2.6's `oidc-token` (Debian oidc-agent-cli, installed when missing),
# with both agents warm on the same test provider (versola-test-idp, where oidc-agent uses a
# confidential client, as it must). Each figure is min / median / max of wall time, then the
# ratios, the peak RSS of a warm `versola token` (/usr/bin/time, whose own image is small: a
# child of Python would report Python's) and the agents' peak RSS (VmHWM), last the agent's peak
# RSS beside its target (scripts/agent-rss.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
runs=${VERSOLA_CLI_BENCH_RUNS:-400}

sudo_cmd=(); [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
for tool in /usr/bin/time:time /usr/bin/oidc-token:oidc-agent-cli; do
  if [ ! -x "${tool%%:*}" ]; then
    echo "installing ${tool#*:}" >&2
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${tool#*:}" >/dev/null
  fi
done

work=$(mktemp -d /tmp/versola-bench.XXXXXX)
prefix="$work/prefix"
make -s install PREFIX="$prefix" 2>&1 | grep -vE '^(\[|Building|Build of|Compiling|Write|Linking)' || true
swift build -c release --product versola-test-idp 2>&1 | tail -n 1
idp_bin="$(swift build -c release --show-bin-path)/versola-test-idp"
front="$prefix/bin/versola"
engine="$prefix/libexec/versola/versola"

mkdir -m 700 "$work/run" "$work/oidc"
export HOME="$work" XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state" XDG_RUNTIME_DIR="$work/run"
export OIDC_CONFIG_DIR="$work/oidc"
idp_pid="" OIDCD_PID=""
cleanup() {
  "$front" agent --stop >/dev/null 2>&1 || true
  if [ -n "$OIDCD_PID" ]; then kill "$OIDCD_PID" 2>/dev/null || true; fi
  if [ -n "$idp_pid" ]; then kill "$idp_pid" 2>/dev/null || true; fi
  # The agent may still be closing its files after --stop.
  rm -rf "$work" 2>/dev/null || { sleep 0.2; rm -rf "$work" 2>/dev/null; } || true
}
trap cleanup EXIT

"$idp_bin" --port 0 --auto-login --confidential-client oidc-agent-bench:bench-secret > "$work/idp.out" 2>&1 &
idp_pid=$!
for _ in $(seq 1 100); do [ -s "$work/idp.out" ] && break; sleep 0.05; done
issuer=$(head -n 1 "$work/idp.out")

# versola: sign in, then one token to start the agent and warm it.
"$front" login --issuer "$issuer" --client-id versola-test --browser-command 'curl -sL -o /dev/null %s' \
  >/dev/null 2>"$work/login.err"
"$front" token >/dev/null

# oidc-agent: its own agent, an account made from a refresh token of the confidential client
# (signed in by scripts/oidc-agent-refresh-token.py with the provider's auto-login), warmed.
eval "$(oidc-agent --quiet --no-autoload -a "$work/run/oidc-agent.sock")" >/dev/null
refresh=$(python3 scripts/oidc-agent-refresh-token.py "$issuer" oidc-agent-bench bench-secret)
oidc-gen bench --issuer="$issuer" --client-id=oidc-agent-bench --client-secret=bench-secret --rt="$refresh" \
  --scope="openid offline_access" --pw-cmd="echo bench-password" --redirect-uri=http://localhost:4242 \
  --confirm-default --prompt=none </dev/null >"$work/oidc-gen.out" 2>&1
oidc-token bench >/dev/null

python3 scripts/support/cli_bench_rounds.py "$runs" "$front" "$engine"

peak_kib() { for _ in 1 2 3 4 5; do /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -n 1; done | sort -n | tail -n 1; }
for pair in "cli_token_warm_front:$front token" "cli_token_warm_engine_alone:$engine token" \
  "oidc_token_warm:/usr/bin/oidc-token bench" "process_true:/bin/true"; do
  # shellcheck disable=SC2086 # the command's words
  kib=$(peak_kib ${pair#*:})
  target=""; [ "${pair%%:*}" = cli_token_warm_front ] && target=" (target <= 5)"
  echo "${pair%%:*}_peak_rss_mib: $(awk -v k="$kib" 'BEGIN {printf "%.1f", k/1024}')$target"
done

agent_pid=$(pgrep -n -f "^$engine agent" || true)
if [ -n "$agent_pid" ]; then
  echo "cli_agent_peak_rss_mib: $(awk '/VmHWM/ {printf "%.1f", $2/1024}' "/proc/$agent_pid/status") (after every token request above)"
fi
[ -n "$OIDCD_PID" ] && echo "oidc_agent_peak_rss_mib: $(awk '/VmHWM/ {printf "%.1f", $2/1024}' "/proc/$OIDCD_PID/status") (the peer's agent)"
cold_runs=$((runs / 20 + 1))
cold=$(for _ in $(seq 1 "$cold_runs"); do /usr/bin/time -f '%e' "$front" token --no-agent 2>&1 >/dev/null | tail -n 1; done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)] * 1000}')
echo "cli_token_no_agent_median_ms: $cold (in-process restore + refresh, $cold_runs runs, provider cache kept)"
uncached=$(for _ in $(seq 1 "$cold_runs"); do rm -rf "$HOME/.cache/versola"; /usr/bin/time -f '%e' "$front" token --no-agent 2>&1 >/dev/null | tail -n 1; done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)] * 1000}')
echo "cli_token_no_agent_uncached_median_ms: $uncached (the same with the provider cache removed before each run: discovery and the key set asked too)"

# What the engine's layout buys (the Makefile's install target): the agent restarted, on the
# engine as installed and on the same engine linked without Sources/versola/agent.order, each
# then serving the same 200 warm tokens; alternated twice, the larger peak of each printed.
plain="$work/plain"
make -s install PREFIX="$plain" LINK_ORDER=/dev/null 2>&1 | grep -E 'error|warning' || true
restart_peak_kib() {
  local command=$1 engine_path=$2 pid
  "$command" agent --stop >/dev/null 2>&1 || true
  for _ in $(seq 1 100); do pgrep -f "^$prefix/libexec/versola/versola agent|^$plain/libexec/versola/versola agent" >/dev/null || break; sleep 0.05; done
  "$command" token >/dev/null
  for _ in $(seq 1 200); do "$command" token >/dev/null; done
  pid=$(pgrep -n -f "^$engine_path agent")
  awk '/VmHWM/ {print $2}' "/proc/$pid/status"
}
ordered_kib=0 plain_kib=0
for _ in 1 2; do
  kib=$(restart_peak_kib "$front" "$engine"); [ "$kib" -gt "$ordered_kib" ] && ordered_kib=$kib
  kib=$(restart_peak_kib "$plain/bin/versola" "$plain/libexec/versola/versola"); [ "$kib" -gt "$plain_kib" ] && plain_kib=$kib
done
"$plain/bin/versola" agent --stop >/dev/null 2>&1 || true
awk -v a="$ordered_kib" -v b="$plain_kib" 'BEGIN {
  printf "cli_agent_restarted_peak_rss_mib: %.1f (linked in agent.order)\n", a / 1024
  printf "cli_agent_restarted_unordered_peak_rss_mib: %.1f (the same engine linked without it)\n", b / 1024 }'

# The agent's memory in the scenario its target is set for (scripts/agent-rss.sh): an agent started
# afresh, two refreshes and a hundred token answers, on the engine as installed; printed as
# `agent peak RSS: X MiB (target <= 16; ...)`, then where that memory is, mapping by mapping.
"$front" agent --stop >/dev/null 2>&1 || true
bash scripts/agent-rss.sh "$prefix" "$idp_bin" --profile
