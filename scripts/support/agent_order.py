"""Turns text-trace.c's logs into a symbol ordering file for lld (scripts/agent-order.sh).

  agent_order.py range BINARY                 the binary's .text as "start:end" (hex)
  agent_order.py exact BINARY TRACE...        the functions that contain a logged address
  agent_order.py extend BINARY ORDER TRACE... ORDER, then every function on a logged page
                                              that lies past the ordered functions

Each trace's functions follow the previous trace's, in the order the trace first reached them:
what every process runs at start comes first, then what the agent's usual work adds, and the
work a traced run did last (the adapters' credentials, say) ends up together at the end, where
an agent that never does it leaves it unread. A name
defined more than once (a local helper each object file has its own copy of) is left out: the
linker would move every copy, and whole-file sections with them.
"""
import bisect
import collections
import subprocess
import sys


def functions(binary):
    listing = subprocess.run(["nm", "-n", "-S", "--defined-only", binary],
                             capture_output=True, text=True, check=True).stdout
    found = []
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in "tTwW":
            found.append((int(fields[0], 16), int(fields[1], 16), fields[3]))
    copies = collections.Counter(name for _, _, name in found)
    return found, copies


def text_range(binary):
    headers = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout
    for line in headers.splitlines():
        fields = line.replace("[ ", "[").split()
        if len(fields) > 5 and fields[1] == ".text":
            start = int(fields[3], 16)
            return "%x:%x" % (start, start + int(fields[5], 16))
    sys.exit(f"{binary} has no .text section")


def logged(trace):
    """The addresses of `trace`, each once, in the order the run first reached them."""
    with open(trace) as lines:
        return list(dict.fromkeys(int(line, 16) for line in lines if line.strip()))


def main(arguments):
    command, binary = arguments[0], arguments[1]
    if command == "range":
        print(text_range(binary))
        return
    table, copies = functions(binary)
    starts = [start for start, _, _ in table]
    if command == "exact":
        ordered, traces = [], arguments[2:]
    else:
        with open(arguments[2]) as lines:
            ordered = [line.strip() for line in lines if line.strip()]
        traces = arguments[3:]
    chosen = set(ordered)
    hot_end = max((start + size for start, size, name in table if name in chosen), default=0)
    for trace in traces:
        picked = []
        def take(index):
            start, size, name = table[index]
            if name not in chosen and copies[name] == 1:
                chosen.add(name)
                picked.append((start, size, name))
        for address in logged(trace):
            if command == "exact":
                index = bisect.bisect_right(starts, address) - 1
                if index >= 0:
                    take(index)
                continue
            page = address & ~4095
            if page < hot_end:
                continue
            index = max(bisect.bisect_right(starts, page) - 1, 0)
            while index < len(table) and table[index][0] < page + 4096:
                if table[index][0] + max(table[index][1], 1) > page:
                    take(index)
                index += 1
        ordered += [name for _, _, name in picked]
        print(f"{trace}: {len(picked)} functions, {sum(size for _, size, _ in picked) // 1024} KiB",
              file=sys.stderr)
    print("\n".join(ordered))


if __name__ == "__main__":
    main(sys.argv[1:])
