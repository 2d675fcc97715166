#!/usr/bin/env python3
"""The interleaved timing rounds of scripts/cli-bench.sh (arguments: runs, front, engine)."""
import os, statistics, sys, time
runs, front, engine = int(sys.argv[1]), sys.argv[2], sys.argv[3]
commands = [
    ("cli_token_warm_front", [front, "token"]),
    ("cli_token_warm_engine_alone", [engine, "token"]),
    ("process_true", ["/bin/true"]),
    ("oidc_token_warm", ["/usr/bin/oidc-token", "bench"]),
]
null = os.open("/dev/null", os.O_RDWR)
actions = [(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]
wall = {name: [] for name, _ in commands}
def once(argv):
    start = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)
    _, status = os.waitpid(pid, 0)
    elapsed = (time.perf_counter_ns() - start) / 1e6
    if os.waitstatus_to_exitcode(status) != 0: sys.exit(f"{argv} failed")
    return elapsed
for _ in range(5):
    for _, argv in commands: once(argv)
for _ in range(runs):
    for name, argv in commands:
        wall[name].append(once(argv))
print(f"== {runs} interleaved rounds; wall ms min / median / max")
for name, _ in commands:
    w = wall[name]
    print(f"{name}_ms: {min(w):.2f} / {statistics.median(w):.2f} / {max(w):.2f}")
def ratio(a, b):
    pairs = sorted(x / y for x, y in zip(wall[a], wall[b]))
    return statistics.median(wall[a]) / statistics.median(wall[b]), pairs[len(pairs) // 2]
for a, b, target in [("cli_token_warm_front", "oidc_token_warm", "target <= 1.0"),
                     ("cli_token_warm_front", "process_true", ""),
                     ("cli_token_warm_engine_alone", "oidc_token_warm", "")]:
    of_medians, paired = ratio(a, b)
    print(f"ratio {a} / {b}: {of_medians:.2f}x (median of pairs {paired:.2f}x) {target}".rstrip())
