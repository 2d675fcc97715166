"""The median wall time in milliseconds of a command run RUNS times, for scripts/cli-bench.sh.
Usage: median-ms.py RUNS PROGRAM [ARGUMENT...]"""
import subprocess, sys, time
runs, cmd = int(sys.argv[1]), sys.argv[2:]
samples = []
for _ in range(runs):
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    samples.append((time.perf_counter() - start) * 1000)
samples.sort()
print(f"{samples[len(samples) // 2]:.2f}")
