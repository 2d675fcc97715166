#!/usr/bin/env python3
"""Prints the conformance report from a `swift test` log.

A scenario is a test whose display name starts with the rule ids it proves, then a
colon: @Test("R5 R8: discovery is read again after a 503"). The report lists every rule
of Conformance/rules.tsv with its scenarios and their results, then the rules no
scenario proves yet. It exits 1 when a scenario failed or none ran.

usage: conformance-report.py LOG [--markdown FILE]
"""
import os
import re
import subprocess
import sys
from pathlib import Path

root = Path(__file__).resolve().parent.parent
rules = []
for line in (root / "Conformance" / "rules.tsv").read_text().splitlines():
    if line.startswith("#") or not line.strip():
        continue
    rule_id, _, summary = line.partition("\t")
    rules.append((rule_id, summary))
known = {rule_id for rule_id, _ in rules}

result_line = re.compile(r'^[✔✘] Test "(?P<name>[^"]+)"(?: with \d+ test cases?)? (?P<verdict>passed|failed)')
scenario_name = re.compile(r'^(?P<ids>(?:[SPERDATL]\d+[ ,]*)+):\s*(?P<title>.+)$')

log_path = Path(sys.argv[1])
results = {}
for raw in log_path.read_text(errors="replace").splitlines():
    line = raw.strip()
    match = result_line.match(line)
    if not match:
        continue
    name = match.group("name")
    verdict = match.group("verdict")
    # A test that failed anywhere stays failed.
    if results.get(name) != "failed":
        results[name] = verdict

by_rule = {rule_id: [] for rule_id, _ in rules}
unknown_ids = set()
for name, verdict in sorted(results.items()):
    match = scenario_name.match(name)
    if not match:
        continue
    for rule_id in re.findall(r"[SPERDATL]\d+", match.group("ids")):
        if rule_id in by_rule:
            by_rule[rule_id].append((match.group("title"), verdict))
        else:
            unknown_ids.add(rule_id)

scenario_count = sum(1 for name in results if scenario_name.match(name))
failed = [name for name, verdict in results.items() if verdict == "failed" and scenario_name.match(name)]

lines = ["| rule | scenarios | result |", "| --- | --- | --- |"]
for rule_id, summary in rules:
    scenarios = by_rule[rule_id]
    if not scenarios:
        continue
    passed = sum(1 for _, verdict in scenarios if verdict == "passed")
    state = "pass" if passed == len(scenarios) else f"FAIL ({len(scenarios) - passed} of {len(scenarios)})"
    lines.append(f"| {rule_id} | {len(scenarios)} | {state} |")
uncovered = [(rule_id, summary) for rule_id, summary in rules if not by_rule[rule_id]]

print("== conformance report")
print("\n".join(lines))
print(f"\n{scenario_count} scenarios, {len(failed)} failed; "
      f"{len(rules) - len(uncovered)} of {len(rules)} rules have a scenario.")
if uncovered:
    print("\nRules with no scenario yet:")
    for rule_id, summary in uncovered:
        print(f"  {rule_id}\t{summary}")
if unknown_ids:
    print("\nScenario names citing ids that are not rules: " + ", ".join(sorted(unknown_ids)))
if failed:
    print("\nFailed scenarios:")
    for name in failed:
        print(f"  {name}")

# The interop matrix (provider × feature) of the last `scripts/interop.sh` run, when there is
# one; it is reported, not judged here (interop.sh has its own exit status).
interop = Path(os.environ.get("VERSOLA_INTEROP_RESULTS", root / ".build" / "interop" / "results.tsv"))
if interop.is_file():
    print(flush=True)
    subprocess.run([sys.executable, str(root / "Conformance" / "interop" / "interop-report.py"), str(interop)])

if len(sys.argv) > 3 and sys.argv[2] == "--markdown":
    detail = ["# Conformance report", "", "| rule | scenario | result |", "| --- | --- | --- |"]
    for rule_id, _ in rules:
        for title, verdict in by_rule[rule_id]:
            detail.append(f"| {rule_id} | {title} | {verdict} |")
    detail += ["", "## Rules with no scenario yet", ""] + [f"- {r}: {s}" for r, s in uncovered]
    Path(sys.argv[3]).write_text("\n".join(detail) + "\n")

sys.exit(1 if failed or scenario_count == 0 else 0)
