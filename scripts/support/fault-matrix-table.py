"""The fault matrix of scripts/conformance.sh as a markdown table: requests seen by the
endpoint when each fault strikes once, DPoP off / on. Each FILE adds its faults as columns
(the HTTP faults, then the storage column).  Usage: fault-matrix-table.py FILE.tsv [FILE.tsv...]"""
import sys
rows = []
for path in sys.argv[1:]:
    rows += [line.rstrip("\n").split("\t") for line in open(path) if line.strip()][1:]
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
