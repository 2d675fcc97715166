"""Where a process's resident memory is, from /proc/PID/smaps: the resident KiB of each mapped
file (and of the anonymous, heap and stack mappings), largest first, and the totals of
/proc/PID/smaps_rollup. Used by scripts/agent-rss.sh.

    python3 scripts/support/memory_profile.py PID [TOP]
"""

import collections
import os
import sys


def resident_by_mapping(pid):
    """KiB resident per mapping name (a file's basename, or [anon], [heap], [stack], ...)."""
    totals = collections.Counter()
    name = None
    with open(f"/proc/{pid}/smaps") as smaps:
        for line in smaps:
            fields = line.split()
            if "-" in fields[0] and not fields[0].endswith(":"):
                name = os.path.basename(fields[5]) if len(fields) > 5 else "[anon]"
            elif fields[0] == "Rss:":
                totals[name] += int(fields[1])
    return totals


def main():
    pid = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    totals = resident_by_mapping(pid)
    libraries = sum(1 for name in totals if ".so" in name)
    print(f"  resident KiB by mapping ({len(totals)} names, {libraries} shared objects):")
    for name, kib in totals.most_common(top):
        print(f"    {kib:6d}  {name}")
    rest = sum(kib for _, kib in totals.most_common()[top:])
    print(f"    {rest:6d}  (the other {max(0, len(totals) - top)})")
    with open(f"/proc/{pid}/smaps_rollup") as rollup:
        wanted = ("Rss:", "Pss:", "Shared_Clean:", "Private_Clean:", "Private_Dirty:", "Anonymous:")
        parts = [line.split()[:2] for line in rollup if line.startswith(wanted)]
    print("  smaps_rollup: " + ", ".join(f"{key[:-1]} {int(value) / 1024:.1f} MiB" for key, value in parts))


if __name__ == "__main__":
    main()
