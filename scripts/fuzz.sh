#!/usr/bin/env bash
# Runs one libFuzzer target for a number of seconds.
#   scripts/fuzz.sh fuzz-jose 600
# The corpus lives in Fuzz/<target>/corpus (kept in the repository); crashes land in
# Fuzz/<target>/artifacts. Exits non-zero when the fuzzer finds a crash.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/fuzz.sh TARGET SECONDS}
seconds=${2:-60}
dir="Fuzz/$target"
[ -d "$dir" ] || { echo "no fuzz target $target" >&2; exit 2; }

export VERSOLA_FUZZ=1
# swiftc's -sanitize=fuzzer alone leaves Swift code without coverage counters (only C gets
# them), so libFuzzer would fuzz blind: ask for the counters explicitly.
swift build --product "$target" --build-path .build-fuzz -c debug \
  --sanitize fuzzer --sanitize address \
  -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp 2>&1 | tail -n 3
binary=".build-fuzz/debug/$target"

mkdir -p "$dir/corpus" "$dir/artifacts"
export SWIFT_BACKTRACE=enable=no
"$binary" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=4096 \
  -artifact_prefix="$dir/artifacts/" "$dir/corpus" ${dir}/seeds 2>&1 | tail -n 25
