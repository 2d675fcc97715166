#!/usr/bin/env python3
"""Prints the tools stage's table, client × check, from its TSV.

usage: report.py RESULTS.tsv

Each line: client, check, result (pass or fail), detail. A cell reads ok or FAIL ("-" where
a client has no such check); failures are listed below with their details.
Exit status: 1 when a check failed or there is no result, else 0.
"""

import sys
from pathlib import Path


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    results, clients, checks = {}, [], []
    for line in Path(sys.argv[1]).read_text(errors="replace").splitlines():
        fields = line.split("\t")
        if len(fields) < 3:
            continue
        client, check = fields[0], fields[1]
        clients += [client] if client not in clients else []
        checks += [check] if check not in checks else []
        results[(client, check)] = (fields[2], fields[3] if len(fields) > 3 else "")
    shown = {"pass": "ok", "fail": "FAIL"}
    width = max([len("client")] + [len(c) for c in clients])
    print("== tools stage (client × check)")
    print(" | ".join(["client".ljust(width)] + checks))
    for client in clients:
        cells = [shown.get(results.get((client, check), ("-",))[0], "-").ljust(len(check)) for check in checks]
        print(" | ".join([client.ljust(width)] + cells))
    failed = [(c, k, d) for (c, k), (r, d) in results.items() if r != "pass"]
    print(f"tools stage: {len(results) - len(failed)} checks passed, {len(failed)} checks failed")
    for client, check, detail in failed:
        print(f"  {client} × {check}: {detail}")
    return 1 if failed or not results else 0


if __name__ == "__main__":
    sys.exit(main())
