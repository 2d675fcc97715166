# Sourced by the scripts in scripts/ for what each of them needs first: strict mode, the
# repository root as the working directory, and a few helpers.
#   . "$(dirname "$0")/lib.sh"
# shellcheck shell=bash
set -euo pipefail

VERSOLA_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export VERSOLA_ROOT
cd "$VERSOLA_ROOT"

# die MESSAGE...: prints the message on standard error and exits 1.
die() {
  echo "$*" >&2
  exit 1
}

# on_exit COMMAND: runs COMMAND (a function name or a command line, evaluated) when the script exits, after any
# registered later (last in, first out). Replaces a script's own `trap ... EXIT`.
versola_exit_actions=()
on_exit() {
  versola_exit_actions=("$1" "${versola_exit_actions[@]}")
}
versola_run_exit_actions() {
  local action
  for action in "${versola_exit_actions[@]}"; do eval "$action" || true; done
}
trap versola_run_exit_actions EXIT

# temp_file / temp_dir: print the path of a new file or directory inside this run's scratch
# directory, which is removed when the script exits. (They work inside `$(...)` because the
# cleanup belongs to the scratch directory, made here, not to the subshell.)
VERSOLA_SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/versola-script.XXXXXX")
remove_scratch() { rm -rf "$VERSOLA_SCRATCH"; }
on_exit remove_scratch
temp_file() { mktemp -p "$VERSOLA_SCRATCH"; }
temp_dir() { mktemp -d -p "$VERSOLA_SCRATCH"; }

# install_deps: the system packages the build needs (quick when present).
install_deps() {
  bash "$VERSOLA_ROOT/scripts/install-deps.sh"
}

# need_packages PACKAGE...: installs those Debian packages, and the build's own, where missing.
need_packages() {
  VERSOLA_EXTRA_PACKAGES="$*" install_deps
}

# run_swift_tests LOG [ARGUMENT...]: `swift test --skip-build ARGUMENT...` with the whole output
# kept in LOG and its summary lines shown; returns its exit status. (Environment given before
# the call, such as VERSOLA_CLI_UNDER_TEST, reaches the tests.)
run_swift_tests() {
  local log=$1 status runtime
  shift
  # A runtime directory of the run's own: records the tests' failing disks spill (P10) land
  # there, never in the machine's /dev/shm or the person's session.
  runtime=$(temp_dir)
  chmod 700 "$runtime"
  set +e
  XDG_RUNTIME_DIR=$runtime swift test --skip-build "$@" >"$log" 2>&1
  status=$?
  set -e
  grep -E '(✘|FAIL|error:|Test run with|Executed [0-9]+ test)' "$log" || true
  return "$status"
}

# fail_tests WHAT STATUS LOG: says WHAT failed, prints each issue a test recorded with the detail
# after it (for a command test, the child's stderr) and the log's end, then exits with STATUS.
fail_tests() {
  echo "$1 failed (exit $2); each issue recorded follows, then the log's end" >&2
  grep -E -A 60 'recorded an issue|error:' "$3" | head -n 800 >&2 || true # head may close the pipe early
  tail -n 60 "$3" >&2
  exit "$2"
}

# start_test_idp BIN_DIR OUT [ARGUMENT...]: starts BIN_DIR/versola-test-idp on a free loopback
# port with the arguments and its output in OUT, and stops it when the script exits. Sets
# test_idp_pid and test_idp_issuer (the address it prints first); returns 1, saying so, when it
# printed none within 5 s.
start_test_idp() {
  local bin=$1 out=$2
  shift 2
  "$bin/versola-test-idp" --port 0 "$@" >"$out" 2>&1 &
  test_idp_pid=$!
  on_exit "kill $test_idp_pid 2>/dev/null"
  test_idp_issuer=""
  for _ in $(seq 1 100); do
    test_idp_issuer=$(head -n 1 "$out" 2>/dev/null | grep -Eo 'https?://[^ ]+' || true)
    [ -n "$test_idp_issuer" ] && return 0
    sleep 0.05
  done
  echo "versola-test-idp printed no issuer; its output: $(head -c 400 "$out")" >&2
  return 1
}

# size_check: fails naming each Swift or C source file over 400 lines and each function over 60.
size_check() {
  python3 "$VERSOLA_ROOT/scripts/support/size_check.py" --self-test
  python3 "$VERSOLA_ROOT/scripts/support/size_check.py" Sources Conformance Tests Fuzz examples
}

# test_count LOG: the number of tests a `swift test` log says ran (0 when none).
test_count() {
  grep -Eo 'Test run with [0-9]+ tests' "$1" | tail -n 1 | grep -Eo '[0-9]+' || echo 0
}

# symbol_graph MODULE DIR: writes the symbol graph of MODULE's public API (MODULE.symbols.json)
# into DIR, from the debug build, which must exist (`swift build`).
symbol_graph() {
  local bin modulemap
  bin=$(swift build --show-bin-path)
  modulemap="$bin/CVersolaSystem.build/module.modulemap"
  [ -f "$modulemap" ] || die "build first (no $modulemap)"
  swift-symbolgraph-extract -module-name "$1" -I "$bin/Modules" -target "$(uname -m)-unknown-linux-gnu" \
    -output-dir "$2" -minimum-access-level public -Xcc -fmodule-map-file="$modulemap" \
    -Xcc -I -Xcc Sources/CVersolaSystem/include >/dev/null
}

# stage NAME: prints "== NAME" and starts timing it; the previous stage ends. stage_times
# prints each finished stage's wall time (make test calls it at its end, also on failure).
versola_stage_names=()
versola_stage_seconds=()
versola_stage_name=""
versola_stage_started=0
stage_end() {
  if [ -n "$versola_stage_name" ]; then
    versola_stage_names+=("$versola_stage_name")
    versola_stage_seconds+=($(($(date +%s) - versola_stage_started)))
    versola_stage_name=""
  fi
}
stage() {
  stage_end
  versola_stage_name=$1
  versola_stage_started=$(date +%s)
  echo "== $1"
}
stage_times() {
  stage_end
  local index total=0
  echo "== stage times"
  for index in "${!versola_stage_names[@]}"; do
    printf '%6d s  %s\n' "${versola_stage_seconds[$index]}" "${versola_stage_names[$index]}"
    total=$((total + versola_stage_seconds[index]))
  done
  printf '%6d s  in all\n' "$total"
}
