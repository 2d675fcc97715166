#!/usr/bin/env bash
# Interop with the OpenID Foundation's RP tests (PyPI oidctest): every test id of the Basic
# and Config RP profiles (response type code), each with its expected outcome.
#
# usage: oidctest.sh --versola PATH [--build DIR]
#
# 1. A Python 3.11 virtual environment under DIR/oidctest-venv (DIR: $VERSOLA_BUILD_PATH or
#    .build) with exactly the pinned list oidctest-requirements.txt (installed --no-deps);
#    kept between runs and reinstalled only when the list changes (idempotent, no prompt).
# 2. oidctest_op.py: oidctest's provider on http://127.0.0.1:PORT, one issuer per test id
#    (/versola/<test id>), each with the behaviour its definition names (the `op` column of
#    oidctest-expectations.tsv).
# 3. oidctest_rp.py: for each test id, registers a client, runs `versola` with throwaway XDG
#    directories (login, userinfo, logout --end-session, … as the `drive` column says) and
#    prints the table: test id, profile, expected (with its rule), got, result.
#
# Writes the table as Markdown to DIR/interop/oidctest.md. Exit status 1 when a row differs
# from its expectation (or the provider could not start), 0 otherwise.
# Environment: VERSOLA_INTEROP_KEEP=1 keeps the temporary directory (the provider's logs).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
versola="" build=${VERSOLA_BUILD_PATH:-$here/../../.build}
while [ $# -gt 0 ]; do
  case "$1" in
    --versola) versola=${2:-}; shift 2 ;;
    --build) build=${2:-}; shift 2 ;;
    *) echo "oidctest.sh: unknown argument $1" >&2; sed -n '5p' "$0" | sed 's/^# //' >&2; exit 2 ;;
  esac
done
if ! { [ -n "$versola" ] && [ -x "$versola" ]; }; then sed -n '5p' "$0" | sed 's/^# //' >&2; exit 2; fi
mkdir -p "$build"
build=$(cd "$build" && pwd)
requirements="$here/oidctest-requirements.txt"
tests="$here/oidctest-expectations.tsv"
started=$(date +%s)

# 1. The virtual environment: Python 3.11 (the stack is 2020-era), the pinned list only.
venv="$build/oidctest-venv"
python="$venv/bin/python"
host_python=$(command -v python3.11 || command -v python3)
if ! { [ -x "$python" ] && cmp -s "$requirements" "$venv/versola-requirements.txt"; }; then
  echo "installing oidctest (PyPI, $(grep -c '==' "$requirements") pinned packages) in $venv"
  rm -rf "$venv"
  if ! "$host_python" -m venv "$venv" >/dev/null 2>&1; then
    # Debian's python3 needs python3-venv for ensurepip.
    rm -rf "$venv"
    VERSOLA_EXTRA_PACKAGES=python3-venv bash "$here/../../scripts/install-deps.sh"
    "$host_python" -m venv "$venv"
  fi
  "$python" -m pip install -q --disable-pip-version-check --no-input --no-deps -r "$requirements"
  cp "$requirements" "$venv/versola-requirements.txt"
fi
echo "oidctest $("$python" -c 'from importlib.metadata import version as v; print(v("oidctest"), "with oic", v("oic"))') ($("$python" -c 'import sys; print("Python", sys.version.split()[0])'))"

work=$(mktemp -d "${TMPDIR:-/tmp}/versola-oidctest.XXXXXX")
op_pid=""
# shellcheck disable=SC2317  # run by the EXIT trap, which shellcheck cannot follow
cleanup() {
  if [ -n "$op_pid" ]; then kill "$op_pid" 2>/dev/null || true; wait "$op_pid" 2>/dev/null || true; fi
  if [ "${VERSOLA_INTEROP_KEEP:-0}" = 1 ]; then echo "oidctest: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# 2. The provider, on a free port.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
# Below the ephemeral range: no outgoing connection of the run can hold it (support/redirect-port.py).
redirect_port=$(python3 "$here/support/redirect-port.py")
mkdir -p "$work/op" "$work/runs"
"$python" "$here/oidctest_op.py" --port "$port" --tests "$tests" --dir "$work/op" >"$work/op.out" 2>&1 &
op_pid=$!
for _ in $(seq 1 300); do
  grep -q '^oidctest on ' "$work/op.out" 2>/dev/null && break
  kill -0 "$op_pid" 2>/dev/null || { echo "oidctest.sh: the provider exited" >&2; tail -n 20 "$work/op.out" >&2; exit 1; }
  sleep 0.1
done
grep -q '^oidctest on ' "$work/op.out" || { echo "oidctest.sh: the provider did not start" >&2; exit 1; }
echo "oidctest provider on http://127.0.0.1:$port; issuers http://127.0.0.1:$port/versola/<test id>"

# 3. The tests.
mkdir -p "$build/interop"
status=0
python3 "$here/oidctest_rp.py" --versola "$versola" --base "http://127.0.0.1:$port" --tests "$tests" \
  --port "$redirect_port" --work "$work/runs" --op-log "$work/op/log" --markdown "$build/interop/oidctest.md" || status=1
echo "oidctest: $(( $(date +%s) - started )) s"
exit "$status"
