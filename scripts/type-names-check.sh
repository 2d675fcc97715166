#!/usr/bin/env bash
# Fails when one type name is declared at the top level of more than one target (fuzz targets
# included), so that a name in a test, a log or a stack trace means one type
# (scripts/support/duplicate-type-names.py). It first shows that it can fail: on a made-up
# package of two targets that both declare `Twice`, it must report the clash.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

checker="$VERSOLA_ROOT/scripts/support/duplicate-type-names.py"

sample=$(temp_dir)
mkdir -p "$sample/Sources/One" "$sample/Tests/OneTests"
printf 'struct Twice {}\nstruct OnlyHere {}\n' >"$sample/Sources/One/Twice.swift"
printf 'import Testing\n\n@Suite final class Twice {\n    struct OnlyHere {}\n}\n' >"$sample/Tests/OneTests/Twice.swift"
printf '{"targets": [{"name": "One", "type": "regular"}, {"name": "OneTests", "type": "test"}]}\n' \
  >"$sample/package.json"
if report=$(cd "$sample" && python3 "$checker" package.json 2>&1); then
  die "type-names-check: the check passed a package that declares Twice in two targets"
fi
case "$report" in
  *"type Twice is declared in 2 targets"*) ;;
  *) die "type-names-check: the check failed the sample package without naming Twice: $report" ;;
esac

package=$(temp_file)
VERSOLA_FUZZ=1 swift package dump-package >"$package"
python3 "$checker" "$package"
