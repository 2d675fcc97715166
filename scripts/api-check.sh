#!/usr/bin/env bash
# Compares the public API of the `Versola` module (what `import Versola` shows an app) with
# the committed list in api/Versola.txt, so that it changes only on purpose. Needs a debug
# build (`swift build`). With --update, writes the list instead.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

work=$(temp_dir)
symbol_graph Versola "$work"
python3 scripts/support/public-api.py "$work/Versola.symbols.json" >"$work/Versola.txt"
if [ "${1:-}" = "--update" ]; then
  cp "$work/Versola.txt" api/Versola.txt
  echo "api-check: api/Versola.txt written ($(wc -l <api/Versola.txt) symbols)"
  exit 0
fi
if ! diff -u api/Versola.txt "$work/Versola.txt"; then
  die "api-check: the public API of Versola changed; if that is meant, run scripts/api-check.sh --update and commit api/Versola.txt"
fi
echo "api-check: the public API of Versola is as committed ($(wc -l <api/Versola.txt) symbols)"
