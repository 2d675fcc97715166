#!/usr/bin/env bash
# The inner loop (`make check`, meant to take under two minutes on an incremental build):
# checks that no type name is declared in two targets, builds everything with warnings as
# errors and runs the unit tests only, leaving out the end-to-end suites that start the
# command binary, the conformance scenarios, interop, the sanitizer and fuzzing that
# `make test` runs.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

install_deps

echo "== type names (each declared in one target)"
bash scripts/type-names-check.sh

echo "== build (warnings are errors)"
swift build --build-tests -Xswiftc -warnings-as-errors 2>&1 | tail -n 5

echo "== unit tests"
log=$(temp_file)
set +e
# VersolaCommandTests and ConformanceScenarios run real processes and providers: make test.
swift test --skip-build --skip 'VersolaCommandTests|ConformanceScenarios|TestIdPTests' 2>&1 | tee "$log" \
  | grep -E '(✘|error:|Test run with)'
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
  grep -E -A 12 '^✘ Test .*(failed after|recorded an issue)' "$log" | head -n 200 >&2 || true
  exit "$status"
fi
echo "== $(test_count "$log") unit tests passed"
