#!/usr/bin/env bash
# The project's test command (`make test`, and what CI runs): lints the scripts, builds
# everything with warnings as errors, runs every test once, and fails when a test fails or
# when fewer tests ran than the project has (a run of zero tests still exits 0 in SwiftPM).
# A test that fails fails the build: nothing is run twice.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

on_exit stage_times
stage "dependencies"
install_deps
# The kubectl end-to-end tests run the real kubectl: Debian's kubernetes-client when there is
# none (it is 1.20 on bookworm, older than the client.authentication.k8s.io/v1 those tests also
# check; they fail saying so rather than pass without kubectl).
if ! command -v kubectl >/dev/null 2>&1; then
  VERSOLA_EXTRA_PACKAGES="kubernetes-client" install_deps
fi
# The Secret Service end-to-end tests (KeyringProcessScenarios) run a real GNOME Keyring on a
# private D-Bus session bus: dbus-daemon and dbus-send, gnome-keyring-daemon and secret-tool.
# The L7 scenarios register a private-use scheme handler with xdg-mime (xdg-utils). The device
# sign-in's QR code is drawn with libqrencode (loaded at run time) and read back with zbarimg;
# its screen is captured in tmux (DeviceScreenScenarios, scripts/device-screen.sh).
VERSOLA_EXTRA_PACKAGES="dbus-daemon dbus-bin gnome-keyring libsecret-tools xdg-utils libqrencode4 zbar-tools tmux" install_deps

stage "shellcheck (scripts/ and Conformance/interop/)"
bash scripts/shellcheck.sh

stage "type names (each declared in one target)"
bash scripts/type-names-check.sh

stage "sizes (no source file over 400 lines, no function over 60)"
size_check

stage "build (warnings are errors)"
swift build --build-tests -Xswiftc -warnings-as-errors 2>&1 | tail -n 20

# The fuzz targets are part of the package only under VERSOLA_FUZZ=1, so the build above does
# not compile them: build them now rather than find out at the end of the run.
bash scripts/fuzz-replay.sh --build-only

stage "public API (api/Versola.txt)"
bash scripts/api-check.sh

stage "documentation (DocC, warnings are errors)"
bash scripts/docs.sh

# Each suite runs once. The unit tests and the in-process scenarios run against the debug
# build; the command's process tests (VersolaCommandTests) run against the installed layout
# below, and the conformance report is made from the two logs.
unit_log=$(temp_file)
command_log=$(temp_file)
stage "tests (every target's tests, except the command's process tests)"
run_swift_tests "$unit_log" --skip VersolaCommandTests || fail_tests "the tests" $? "$unit_log"

stage "examples/terminal-app: an outside package against the test provider"
bash scripts/example-app.sh

# What people run is what `make install` installs: the static front and the engine linked with
# lld in the agent's layout (Sources/versola/agent.order). The command's end-to-end tests, kubectl
# and git included, run against those binaries.
stage "the command's process tests against the installed layout (make install)"
# Its own directory, open to others as /usr/local is: one test runs the command as a second user.
prefix=$(mktemp -d "${TMPDIR:-/tmp}/versola-installed.XXXXXX")
chmod 755 "$prefix"
on_exit "rm -rf '$prefix'"
make -s install PREFIX="$prefix" 2>&1 | grep -vE '^(\[|Building|Build of|Compiling|Write|Linking)' || true
if [ ! -x "$prefix/bin/versola" ] || [ ! -x "$prefix/libexec/versola/versola" ]; then
  die "make install installed no versola"
fi
VERSOLA_CLI_UNDER_TEST="$prefix/bin/versola" run_swift_tests "$command_log" --filter VersolaCommandTests ||
  fail_tests "the command tests against the installed binaries" $? "$command_log"

count=$(($(test_count "$unit_log") + $(test_count "$command_log")))
minimum=$(cat scripts/minimum-test-count 2>/dev/null || echo 1)
if [ "$count" -lt "$minimum" ]; then
  die "only $count tests ran; the project has at least $minimum"
fi
echo "== $count tests passed"

stage "conformance report (from the two runs above)"
bash scripts/conformance.sh --from-logs "$unit_log" "$command_log"

# The desktop run and interop mostly wait on their programs and providers, and the sanitizer's
# build is the run's longest compile: they run side by side (the two one after the other, each
# with its own log), and the sanitizer's tests then start on a quiet machine.
stage "desktop (the GTK example on Xvfb, L7) and interop (glewlwyd, idpyoidc, oidctest, FastMCP, versola-test-idp) beside the thread sanitizer's build"
desktop_log=$(temp_file)
interop_log=$(temp_file)
(
  desktop=0 interop=0
  bash scripts/desktop-test.sh >"$desktop_log" 2>&1 || desktop=$?
  bash scripts/interop.sh >"$interop_log" 2>&1 || interop=$?
  [ "$desktop" -eq 0 ] && [ "$interop" -eq 0 ]
) &
beside_pid=$!
tsan_build=0
bash scripts/tsan.sh --build-only || tsan_build=$?
beside=0
wait "$beside_pid" || beside=$?
echo "== desktop"
cat "$desktop_log"
echo "== interop"
cat "$interop_log"
[ "$beside" -eq 0 ] || die "the desktop run or interop failed (their output is above)"
[ "$tsan_build" -eq 0 ] || die "the thread sanitizer's build failed (exit $tsan_build)"

stage "thread sanitizer: every test again under TSan"
bash scripts/tsan.sh --skip-build

stage "fuzz: replay every committed corpus, then fuzz each target briefly"
bash scripts/fuzz-replay.sh "${VERSOLA_FUZZ_SECONDS:-6}"
