#!/usr/bin/env bash
# The project's test command (`make test`): builds everything with warnings as
# errors, runs every test, and fails when a test fails or when fewer tests ran than
# the project has (a run of zero tests still exits 0 in SwiftPM).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

echo "== build (warnings are errors)"
swift build --build-tests -Xswiftc -warnings-as-errors 2>&1 | tail -n 20

echo "== tests"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
run_suite() {
  swift test --skip-build 2>&1 | tee "$log" | grep -E '(✘|FAIL|error:|Test run with|Executed [0-9]+ test)'
  status=${PIPESTATUS[0]}
}
set +e
run_suite
if [ "$status" -ne 0 ]; then
  # A few socket and process tests can lose a race on a heavily loaded machine. The whole
  # suite runs once more; a test that fails again fails the build, and the first run's
  # failures are printed either way so a flaky test is seen, not hidden.
  echo "== FIRST RUN FAILED; these tests failed, the suite runs once more:" >&2
  grep -E '^✘ Test .*(failed after|recorded an issue)' "$log" | sort -u | head -n 20 >&2
  run_suite
fi
set -e
if [ "$status" -ne 0 ]; then
  echo "tests failed (exit $status); the full log follows" >&2
  cat "$log" >&2
  exit "$status"
fi
count=$(grep -Eo 'Test run with [0-9]+ tests' "$log" | tail -n 1 | grep -Eo '[0-9]+' || echo 0)
minimum=$(cat scripts/minimum-test-count 2>/dev/null || echo 1)
if [ "$count" -lt "$minimum" ]; then
  echo "only $count tests ran; the project has at least $minimum" >&2
  exit 1
fi
echo "== $count tests passed"

bash scripts/conformance.sh --skip-build

echo "== interop: the versola binary against glewlwyd, idpyoidc and versola-test-idp"
bash scripts/interop.sh

echo "== thread sanitizer: every test again under TSan"
bash scripts/tsan.sh

echo "== fuzz: replay every committed corpus, then fuzz each target briefly"
bash scripts/fuzz-replay.sh "${VERSOLA_FUZZ_SECONDS:-10}"
