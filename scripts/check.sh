#!/usr/bin/env bash
# The inner loop (`make check`, meant to take under three minutes on an incremental build):
# checks that no type name is declared in two targets and that no file or function is too long,
# builds everything with warnings as errors and runs every target's tests but the command's
# process tests (VersolaCommandTests, which start the installed binaries, kubectl and git), which
# `make test` runs with interop, the sanitizer and fuzzing.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

install_deps

echo "== type names (each declared in one target)"
bash scripts/type-names-check.sh

echo "== sizes (no source file over 400 lines, no function over 60)"
size_check

echo "== build (warnings are errors)"
swift build --build-tests -Xswiftc -warnings-as-errors 2>&1 | tail -n 5

echo "== tests (every target's, except the command's process tests: make test runs those)"
log=$(temp_file)
run_swift_tests "$log" --skip VersolaCommandTests || fail_tests "the tests" $? "$log"
echo "== $(test_count "$log") tests passed"
