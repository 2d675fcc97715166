#!/usr/bin/env bash
# Runs the whole test suite under the thread sanitizer, in its own build path
# (.build-tsan), and fails when a test fails or when ThreadSanitizer reports anything.
#   scripts/tsan.sh            # build and run every test
#   scripts/tsan.sh FILTER     # only the tests matching FILTER (swift test --filter)
set -euo pipefail
cd "$(dirname "$0")/.."

build_path=.build-tsan
log=$(mktemp)
suppressions=$(mktemp)
trap 'rm -f "$log" "$suppressions"' EXIT

# Suppressions: none are needed today. Every entry added here must say why the report is
# not a race in Versola's code (for example a known report inside a system library).
: >"$suppressions"

export TSAN_OPTIONS="halt_on_error=0 report_signal_unsafe=0 suppressions=$suppressions ${TSAN_OPTIONS:-}"
# The Swift backtracer can hang for minutes after a crash under a sanitizer.
export SWIFT_BACKTRACE=enable=no

echo "== build (thread sanitizer, $build_path)"
swift build --build-tests --build-path "$build_path" --sanitize thread 2>&1 | tail -n 3

echo "== tests (thread sanitizer)"
filter=()
[ -n "${1:-}" ] && filter=(--filter "$1")
set +e
swift test --skip-build --build-path "$build_path" --sanitize thread "${filter[@]}" >"$log" 2>&1
status=$?
set -e
grep -E '(✘|error:|Test run with|Executed [0-9]+ test)' "$log" || true

reports=$(grep -c 'WARNING: ThreadSanitizer' "$log" || true)
if [ "$reports" -gt 0 ]; then
  echo "ThreadSanitizer reported $reports problem(s):" >&2
  grep -A 40 'WARNING: ThreadSanitizer' "$log" | head -n 400 >&2
  exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "tests failed under the thread sanitizer (exit $status); the log's end follows" >&2
  tail -n 80 "$log" >&2
  exit "$status"
fi
if ! grep -qE 'Test run with [0-9]+ tests? .*passed' "$log"; then
  echo "no passing Swift Testing run found in the log" >&2
  tail -n 40 "$log" >&2
  exit 1
fi
echo "== thread sanitizer: clean"
