#!/usr/bin/env bash
# `make conformance`: runs the conformance scenarios (the tests under Conformance/ that
# name the rules they prove, and the suites elsewhere whose type name ends in `Scenarios`:
# those that need the command binary or a scripted server) and prints the report: each rule with its scenarios and
# their results, then the rules with no scenario yet. Exits non-zero when one failed.
# Set VERSOLA_CONFORMANCE_MARKDOWN=FILE to also write the per-scenario table.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" = "--skip-build" ] || swift build --build-tests 2>&1 | tail -n 1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
swift test --skip-build --filter 'ConformanceScenarios|TestIdPTests|Scenarios/' >"$log" 2>&1
status=$?
set -e
args=("$log")
[ -n "${VERSOLA_CONFORMANCE_MARKDOWN:-}" ] && args+=(--markdown "$VERSOLA_CONFORMANCE_MARKDOWN")
report=0
python3 scripts/conformance-report.py "${args[@]}" || report=$?
if [ -f .build/fault-matrix.tsv ]; then
  echo
  echo "== fault matrix (requests seen by the endpoint when the fault strikes once; DPoP off / on)"
  python3 - .build/fault-matrix.tsv <<'PY'
import sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()][1:]
faults = list(dict.fromkeys(r[1] for r in rows))
operations = list(dict.fromkeys(r[0] for r in rows))
cell = {(r[0], r[1], r[2]): r for r in rows}
print("| operation | " + " | ".join(faults) + " |")
print("|---" * (len(faults) + 1) + "|")
for op in operations:
    parts = []
    for fault in faults:
        off, on = cell.get((op, fault, "off")), cell.get((op, fault, "on"))
        mark = "" if all(c and c[-1] == "pass" for c in (off, on)) else " FAIL"
        parts.append(f"{off[4] if off else '-'}/{on[4] if on else '-'}{mark}")
    print(f"| {op} | " + " | ".join(parts) + " |")
failed = sum(1 for r in rows if r[-1] != "pass")
print(f"{len(rows)} cells, {failed} failed; every cell also checks that the session was kept.")
PY
fi
if [ "$status" -ne 0 ]; then
  grep -E '✘' "$log" | head -n 40 >&2
  exit "$status"
fi
exit "$report"
