#!/usr/bin/env bash
# `make conformance`: runs the conformance scenarios (the tests under Conformance/ that
# name the rules they prove, and the suites elsewhere whose type name ends in `Scenarios`:
# those that need the command binary or a scripted server) and prints the report: each rule with its scenarios and
# their results, then the rules with no scenario yet. Exits non-zero when one failed.
# Set VERSOLA_CONFORMANCE_MARKDOWN=FILE to also write the per-scenario table.
#   scripts/conformance.sh [--skip-build]      runs the scenarios, then reports
#   scripts/conformance.sh --from-logs LOG...  reports from `swift test` logs already made
#                                              (make test's runs: each suite runs once)
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
log=$(temp_file)
status=0
if [ "${1:-}" = "--from-logs" ]; then
  shift
  [ $# -gt 0 ] || die "--from-logs needs the logs"
  cat "$@" >"$log"
else
  [ "${1:-}" = "--skip-build" ] || swift build --build-tests 2>&1 | tail -n 1
  run_swift_tests "$log" --filter 'ConformanceScenarios|TestIdPTests|Scenarios/' >/dev/null || status=$?
fi
args=("$log")
[ -n "${VERSOLA_CONFORMANCE_MARKDOWN:-}" ] && args+=(--markdown "$VERSOLA_CONFORMANCE_MARKDOWN")
report=0
python3 scripts/conformance-report.py "${args[@]}" || report=$?
if [ -f .build/fault-matrix.tsv ]; then
  echo
  echo "== fault matrix (requests seen by the endpoint when the fault strikes once; DPoP off / on)"
  tables=(.build/fault-matrix.tsv)
  if [ -f .build/fault-matrix-storage.tsv ]; then tables+=(.build/fault-matrix-storage.tsv); fi
  python3 scripts/support/fault-matrix-table.py "${tables[@]}"
fi
# The disk fault matrix through real processes (DiskFaultMatrixScenarios), one table per runner.
for table in .build/fault-matrix-process-agent.md .build/fault-matrix-process-no-agent.md; do
  if [ -f "$table" ]; then
    echo
    cat "$table"
  fi
done
if [ "$status" -ne 0 ]; then
  grep -E '✘' "$log" | head -n 40 >&2
  exit "$status"
fi
exit "$report"
