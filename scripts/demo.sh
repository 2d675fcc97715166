#!/usr/bin/env bash
# `make demo`. The full demo (a loopback login through the test IdP with the
# `versola` command) arrives with the command-line work; until then this builds the
# libraries and prints the benchmark figures, which exercise the crypto and JOSE code.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "The versola command and its login demo are not built yet."
echo "Meanwhile, here is the engine's cryptography at work (release build):"
swift build -c release --product versola-bench 2>&1 | tail -n 1
"$(swift build -c release --show-bin-path)/versola-bench"
