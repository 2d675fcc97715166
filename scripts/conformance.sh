#!/usr/bin/env bash
# `make conformance`: runs the conformance scenarios (the tests under Conformance/ that
# name the rules they prove) and prints the report: each rule with its scenarios and
# their results, then the rules with no scenario yet. Exits non-zero when one failed.
# Set VERSOLA_CONFORMANCE_MARKDOWN=FILE to also write the per-scenario table.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" = "--skip-build" ] || swift build --build-tests 2>&1 | tail -n 1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
swift test --skip-build --filter 'ConformanceScenarios|TestIdPTests' >"$log" 2>&1
status=$?
set -e
args=("$log")
[ -n "${VERSOLA_CONFORMANCE_MARKDOWN:-}" ] && args+=(--markdown "$VERSOLA_CONFORMANCE_MARKDOWN")
report=0
python3 scripts/conformance-report.py "${args[@]}" || report=$?
if [ "$status" -ne 0 ]; then
  grep -E '✘' "$log" | head -n 40 >&2
  exit "$status"
fi
exit "$report"
