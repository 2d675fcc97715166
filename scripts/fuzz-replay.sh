#!/usr/bin/env bash
# CI for the fuzz targets: builds every target under Fuzz/ once, replays each committed corpus
# and its seeds (every input runs exactly once, -runs=0), then fuzzes each target for a few
# seconds. Fails on any crash, leak, timeout or broken invariant, printing the input.
#   scripts/fuzz-replay.sh              # 20 s of fuzzing per target
#   scripts/fuzz-replay.sh 60           # 60 s per target
#   scripts/fuzz-replay.sh 0            # replay only
#   scripts/fuzz-replay.sh --build-only # only build the targets (make test does this early,
#                                       # so a target that no longer compiles fails in minutes)
# Nothing in the repository changes: new inputs and crash files go to a temporary directory
# (kept and named on failure). Build path: .build-fuzz (shared with scripts/fuzz.sh).
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
seconds=${1:-20}
build_only=0
if [ "$seconds" = "--build-only" ]; then build_only=1; seconds=0; fi
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "usage: scripts/fuzz-replay.sh [SECONDS]" >&2; exit 2; }

export VERSOLA_FUZZ=1
export SWIFT_BACKTRACE=enable=no
work=$(mktemp -d)
keep_work=0
remove_work() { [ "$keep_work" = 1 ] || rm -rf "$work"; }
on_exit remove_work

targets=()
for dir in Fuzz/*/; do
  name=$(basename "$dir")
  compgen -G "$dir*.swift" >/dev/null && targets+=("$name")
done
[ "${#targets[@]}" -gt 0 ] || { echo "no fuzz targets under Fuzz/" >&2; exit 1; }

elapsed() { echo $(( $(date +%s) - $1 )); }
started=$(date +%s)

echo "== build ${#targets[@]} fuzz targets (.build-fuzz)"
for target in "${targets[@]}"; do
  step=$(date +%s)
  # swiftc's -sanitize=fuzzer alone leaves Swift code without coverage counters: ask for them.
  if ! swift build --product "$target" --build-path .build-fuzz -c debug \
      --sanitize fuzzer --sanitize address \
      -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp >"$work/build.log" 2>&1; then
    grep -v 'ld.gold: warning' "$work/build.log" | tail -n 30 >&2
    exit 1
  fi
  echo "   $target built in $(elapsed "$step") s"
done
[ "$build_only" = 0 ] || exit 0

failures=()
# Runs one fuzzer invocation; on failure, records it and shows the end of its log.
run() {
  local target=$1 what=$2 log=$3
  shift 3
  if ! ".build-fuzz/debug/$target" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
      -artifact_prefix="$work/$target-artifacts/" "$@" >"$log" 2>&1; then
    echo "   FAILED: $target $what" >&2
    grep -E 'Fatal error|invariant broken|ERROR:|SUMMARY:' "$log" | head -n 10 >&2
    echo "   the log's end:" >&2
    grep -vE '^(#[0-9]+|INFO:|stat::)' "$log" | tail -n 30 >&2
    failures+=("$target $what")
    keep_work=1
    return 1
  fi
}

for target in "${targets[@]}"; do
  dir="Fuzz/$target"
  mkdir -p "$work/$target-artifacts" "$work/$target-new"
  inputs=()
  for sub in corpus seeds; do [ -d "$dir/$sub" ] && inputs+=("$dir/$sub"); done
  count=$(find "${inputs[@]}" -type f | wc -l)

  step=$(date +%s)
  if run "$target" replay "$work/$target-replay.log" -runs=0 "${inputs[@]}"; then
    echo "   $target: replayed $count inputs in $(elapsed "$step") s"
  fi

  if [ "$seconds" -gt 0 ]; then
    step=$(date +%s)
    # New inputs go to the first directory, a temporary one: the committed corpus stays as is.
    if run "$target" "fuzzing" "$work/$target-fuzz.log" -max_total_time="$seconds" \
        "$work/$target-new" "${inputs[@]}"; then
      runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$work/$target-fuzz.log" | grep -Eo '[0-9]+$' || echo "?")
      echo "   $target: fuzzed ${seconds} s, $runs executions, $(find "$work/$target-new" -type f | wc -l) new inputs ($(elapsed "$step") s)"
    fi
  fi
done

echo "== fuzz replay took $(elapsed "$started") s"
if [ "${#failures[@]}" -gt 0 ]; then
  echo "fuzzing failed: ${failures[*]}" >&2
  echo "crash inputs and logs are kept in $work" >&2
  exit 1
fi
echo "== no crash"
