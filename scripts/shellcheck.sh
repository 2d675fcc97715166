#!/usr/bin/env bash
# Lints every shell script of the project (scripts/ and Conformance/interop/) with
# the linter shellcheck (installed from Debian when missing). Fails on any finding.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

VERSOLA_EXTRA_PACKAGES="shellcheck" install_deps
mapfile -t files < <(find scripts Conformance/interop -name '*.sh' | sort)
shellcheck --external-sources --source-path=SCRIPTDIR "${files[@]}"
echo "shellcheck: ${#files[@]} scripts clean"
