#!/usr/bin/env bash
# The library as an outside package uses it: resolves README's dependency line as written
# (a Package.swift made of it, beside a `versola` checkout), then builds examples/terminal-app,
# which depends on Versola by path, and runs it against the test provider.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

work=$(temp_dir)

echo "== README's dependency line resolves as written"
ln -s "$VERSOLA_ROOT" "$work/versola"
mkdir -p "$work/my-app/Sources/my-app"
echo 'import Versola' > "$work/my-app/Sources/my-app/main.swift"
lines=$(awk '/^```swift$/ { block = 1; next } /^```$/ { if (shown) exit; block = 0; next }
  block && /^\/\/ Package.swift/ { shown = 1 } block && shown { print }' README.md)
[ -n "$lines" ] || die "README.md shows no // Package.swift block"
printf '// swift-tools-version:6.0\nimport PackageDescription\n\nlet package = Package(\n    name: "my-app",\n%s\n)\n' \
  "$lines" > "$work/my-app/Package.swift"
swift package --package-path "$work/my-app" show-dependencies

echo "== examples/terminal-app against the test provider"
swift build --product versola-test-idp 2>&1 | tail -n 1
bin="$(swift build --show-bin-path)"
swift build --package-path examples/terminal-app -Xswiftc -warnings-as-errors 2>&1 | tail -n 1
app="$(swift build --package-path examples/terminal-app --show-bin-path)/terminal-app"

start_test_idp "$bin" "$work/idp.out" --auto-login || die "the test provider did not start"
issuer=$test_idp_issuer

mkdir -m 700 "$work/state" "$work/config"
XDG_STATE_HOME="$work/state" XDG_CONFIG_HOME="$work/config" "$app" "$issuer"
