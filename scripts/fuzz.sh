#!/usr/bin/env bash
# Runs one libFuzzer target for a number of seconds, or minimises its corpus.
#   scripts/fuzz.sh fuzz-jose 600          # fuzz for 600 s (default 60)
#   scripts/fuzz.sh fuzz-jose --minimise   # merge corpus + seeds into the smallest corpus
#                                          # keeping the same coverage (-merge=1)
# The corpus lives in Fuzz/<target>/corpus (kept in the repository); crashes land in
# Fuzz/<target>/artifacts. Exits non-zero when the fuzzer finds a crash.
# CI replays every corpus with scripts/fuzz-replay.sh.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
target=${1:?usage: scripts/fuzz.sh TARGET [SECONDS | --minimise]}
mode=${2:-60}
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

if [ "$mode" = "--minimise" ]; then
  merged=$(temp_dir)
  before=$(find "$dir/corpus" -type f | wc -l)
  "$binary" -merge=1 -timeout=10 -rss_limit_mb=4096 -artifact_prefix="$dir/artifacts/" \
    "$merged" "$dir/corpus" "$dir/seeds" 2>&1 | grep -E 'MERGE-OUTER|ERROR' || true
  count=$(find "$merged" -type f | wc -l)
  [ "$count" -gt 0 ] || { echo "the merge kept nothing; corpus left as it was" >&2; exit 1; }
  find "$dir/corpus" -type f -delete
  cp "$merged"/* "$dir/corpus/"
  echo "corpus of $target: $before inputs -> $count ($(du -sh "$dir/corpus" | cut -f1))"
  exit 0
fi

[[ "$mode" =~ ^[0-9]+$ ]] || { echo "SECONDS must be a number or --minimise" >&2; exit 2; }
"$binary" -max_total_time="$mode" -print_final_stats=1 -timeout=10 -rss_limit_mb=4096 \
  -artifact_prefix="$dir/artifacts/" "$dir/corpus" "$dir/seeds" 2>&1 | tail -n 25
