#!/usr/bin/env bash
# Builds the documentation of the `Versola` module with DocC: its public API's symbol graph
# (as scripts/api-check.sh extracts it) together with the catalogue Sources/Versola/Versola.docc
# (the landing page and the articles). Fails on any warning: a ``link`` in a doc comment or an
# article that resolves to nothing, an undocumented parameter, a curated symbol that is gone.
# Needs a debug build (`swift build`).
#   scripts/docs.sh [OUTPUT]   OUTPUT: where to keep the archive (by default it is thrown away)
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

started=$SECONDS
# docc comes with the toolchain, next to swift; SwiftPM's documentation plugin is not needed.
docc=$(command -v docc || true)
if [ -z "$docc" ]; then
  docc="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
fi
[ -x "$docc" ] || die "docs: the toolchain has no docc (looked on PATH and next to swift)"

graphs=$(temp_dir)
symbol_graph Versola "$graphs"
output=${1:-$(temp_dir)/Versola.doccarchive}
rm -rf "$output"
log=$(temp_file)
if ! "$docc" convert Sources/Versola/Versola.docc --additional-symbol-graph-dir "$graphs" \
  --output-path "$output" --warnings-as-errors --fallback-display-name Versola \
  --fallback-bundle-identifier dev.versola.Versola >"$log" 2>&1; then
  cat "$log" >&2
  die "docs: DocC refused the documentation of Versola (every warning is an error; see above)"
fi
# --warnings-as-errors already fails on warnings; a warning printed all the same fails too.
if grep -q 'warning:' "$log"; then
  cat "$log" >&2
  die "docs: DocC warned about the documentation of Versola (see above)"
fi
pages=$(find "$output/data/documentation" -name '*.json' | wc -l)
echo "docs: the documentation of Versola builds without a warning ($pages pages, $((SECONDS - started)) s)"
