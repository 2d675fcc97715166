#!/usr/bin/env python3
"""Prints the interop matrix, provider × feature, from the runner's TSV.

Each line of the TSV (written by run-provider.sh --tsv) is: provider, feature, result
(pass, fail or known-fail) and a detail. The matrix has one row per provider run and one
column per feature; failures are listed below it with their details. A later line for the
same provider and feature replaces an earlier one.

usage: interop-report.py RESULTS.tsv [--markdown FILE]
Exit status: 1 when a feature failed (a known failure does not count), else 0.
"""
import sys
from pathlib import Path

FEATURES = ["login", "status", "token", "userinfo", "request", "refresh", "logout", "revocation", "device"]
SHOWN = {"pass": "pass", "fail": "FAIL", "known-fail": "known fail"}


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    results, providers, features = {}, [], list(FEATURES)
    for line in Path(sys.argv[1]).read_text(errors="replace").splitlines():
        fields = line.split("\t")
        if len(fields) < 3 or line.startswith("#"):
            continue
        provider, feature, result = fields[0], fields[1], fields[2]
        detail = fields[3] if len(fields) > 3 else ""
        if provider not in providers:
            providers.append(provider)
        if feature not in features:
            features.append(feature)
        results[(provider, feature)] = (result, detail)

    rows = [["provider"] + features, ["---"] * (len(features) + 1)]
    for provider in providers:
        rows.append([provider] + [SHOWN.get(results.get((provider, f), ("-", ""))[0], "-") for f in features])
    table = ["| " + " | ".join(row) + " |" for row in rows]
    failed = [(p, f, r, d) for (p, f), (r, d) in results.items() if r != "pass"]

    print("== interop report (provider × feature)")
    print("\n".join(table))
    hard = [item for item in failed if item[2] == "fail"]
    print(f"\n{len(providers)} provider runs, {len(results)} results, {len(hard)} failed, "
          f"{len(failed) - len(hard)} known provider issues.")
    for provider, feature, result, detail in failed:
        print(f"  {provider} × {feature}: {SHOWN.get(result, result)}{': ' + detail if detail else ''}")

    if len(sys.argv) > 3 and sys.argv[2] == "--markdown":
        notes = [f"- {p} × {f}: {SHOWN.get(r, r)}{': ' + d if d else ''}" for p, f, r, d in failed]
        Path(sys.argv[3]).write_text("\n".join(["# Interop report", ""] + table + [""] + notes) + "\n")
    return 1 if hard or not results else 0


if __name__ == "__main__":
    sys.exit(main())
