#!/usr/bin/env bash
# Runs the whole test suite under the thread sanitizer, in its own build path
# (.build-tsan), and fails when a test fails or when ThreadSanitizer reports anything.
#   scripts/tsan.sh            # build and run every test
#   scripts/tsan.sh FILTER     # only the tests matching FILTER (swift test --filter)
#   scripts/tsan.sh --build-only / --skip-build [FILTER]
#                              # the build alone / the tests alone (make test runs interop
#                              # beside the build, which is the longer)
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

build_path=.build-tsan
mode=${1:-}
case "$mode" in --build-only | --skip-build) shift ;; *) mode="" ;; esac
work=$(temp_dir)

# Suppressions: scripts/support/tsan-suppressions.txt (each entry says why the report is not
# a race in Versola's code).
#
# Synchronization.Mutex on Linux takes and releases a contended lock in uninstrumented code
# (libswiftSynchronization's _lockSlow/_unlockSlow: spinning, then FUTEX_LOCK_PI/UNLOCK_PI),
# so ThreadSanitizer never sees the hand-over and reports every access a contended Mutex
# protects as a race (a two-thread Mutex<Int> program shows it; NSLock does not). Rather than
# suppress those reports (which would hide real races in the same functions), this shim
# (scripts/support/tsan-mutex-shim.c), preloaded into the test process, wraps the three slow
# paths and tells ThreadSanitizer about them (__tsan_acquire after taking, __tsan_release before giving up the lock), the same
# edges the inlined fast path's atomics already give. It changes nothing else.
toolchain_bin=$(dirname "$(readlink -f "$(command -v swift)")")
clang_path="$toolchain_bin/clang"
[ -x "$clang_path" ] || clang_path=clang
preload=""
sync_library="$(dirname "$toolchain_bin")/lib/swift/linux/libswiftSynchronization.so"
slow_paths=$(nm -D --defined-only "$sync_library" 2>/dev/null | grep -cE '_MutexHandleV(9_lockSlowyys6UInt32VF|12_tryLockSlowSbyF|11_unlockSlowyyF)$' || true)
if [ "$slow_paths" = 3 ]; then
  "$clang_path" -shared -fPIC -O1 -o "$work/mutex-shim.so" scripts/support/tsan-mutex-shim.c -ldl
  preload="$work/mutex-shim.so"
else
  echo "warning: this toolchain's Mutex slow paths are not the ones the shim wraps; running without it" >&2
fi

export TSAN_OPTIONS="halt_on_error=0 suppressions=$VERSOLA_ROOT/scripts/support/tsan-suppressions.txt ${TSAN_OPTIONS:-}"
# Tests that only multiply the same work (FrontParityTests) run a smaller share of it here.
export VERSOLA_SANITIZER=thread
# The Swift backtracer can hang for minutes after a crash under a sanitizer.
export SWIFT_BACKTRACE=enable=no

if [ "$mode" != --skip-build ]; then
  echo "== build (thread sanitizer, $build_path)"
  if ! swift build --build-tests --build-path "$build_path" --sanitize thread >"$work/build.log" 2>&1; then
    grep -E 'error:' "$work/build.log" | head -n 30 >&2 || true
    tail -n 20 "$work/build.log" >&2
    exit 1
  fi
  tail -n 1 "$work/build.log"
fi
[ "$mode" = --build-only ] && exit 0

echo "== tests (thread sanitizer)"
# The suite runs in three parts, one after the other, each test once: the in-process scenarios,
# the command's process tests, and the rest. Run as one process, some 150 in-process servers and
# 400 threads shared two cores under the sanitizer, and a server's answer (made on the task pool)
# could wait more than 30 s behind them: tests timed out that way in 2 of 3 full runs.
if [ -n "${1:-}" ]; then
  parts=("--filter|$1")
else
  parts=("--filter|^ConformanceScenarios\\." "--filter|^VersolaCommandTests\\." "--skip|^(ConformanceScenarios|VersolaCommandTests)\\.")
fi
failed=0
total=0
# Runs one part (a failed test fails the build: nothing is run twice); a race report fails at
# once, a failed test is counted in $failed.
run_part() {
  local option=${1%%|*} pattern=${1#*|} runtime log status count
  log=$(temp_file)
  # The run's own runtime directory, as run_swift_tests gives (spilled test records land there).
  runtime=$(temp_dir)
  chmod 700 "$runtime"
  echo "-- $option $pattern"
  set +e
  XDG_RUNTIME_DIR=$runtime LD_PRELOAD="$preload${LD_PRELOAD:+${preload:+:}$LD_PRELOAD}" \
    swift test --skip-build --build-path "$build_path" --sanitize thread "$option" "$pattern" >"$log" 2>&1
  status=$?
  set -e
  grep -E '(✘|error:|Test run with|Executed [0-9]+ test)' "$log" || true
  # Any line of the sanitizer's, not only its race warnings: when it cannot go on (a CHECK that
  # failed, memory it could not map) it prints ERROR or FATAL and exits with 66, in the test
  # process or in a command a test ran, whose stderr the test's issue shows.
  reports=$(grep -c 'ThreadSanitizer' "$log" || true)
  if [ "$reports" -gt 0 ]; then
    echo "ThreadSanitizer printed $reports line(s):" >&2
    grep -B 2 -A 40 "ThreadSanitizer" "$log" | head -n 400 >&2 || true  # head may close the pipe early
    exit 1
  fi
  if [ "$status" -ne 0 ]; then
    echo "tests failed under the thread sanitizer (exit $status); each issue recorded follows, then the log's end" >&2
    # An issue's detail (for a command test, the child's stderr with any race report) follows its line.
    grep -A 60 'recorded an issue' "$log" | head -n 600 >&2 || true  # head may close the pipe early
    tail -n 80 "$log" >&2
    failed=$((failed + 1))
    return
  fi
  count=$(grep -oE 'Test run with [0-9]+ tests? .*passed' "$log" | grep -oE '[0-9]+' | head -n 1 || true)
  if [ -z "$count" ]; then
    echo "no passing Swift Testing run found in the log" >&2
    tail -n 40 "$log" >&2
    failed=$((failed + 1))
    return
  fi
  total=$((total + count))
}

for part in "${parts[@]}"; do run_part "$part"; done
[ "$failed" -eq 0 ] || exit 1
echo "== thread sanitizer: clean ($total tests)"
