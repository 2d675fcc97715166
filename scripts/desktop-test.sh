#!/usr/bin/env bash
# The desktop example proved as a person would see it (L7, L1, L2, S3): on a real X server
# (Xvfb) with a private D-Bus session bus and GNOME Keyring, examples/desktop-app starts,
# xdotool clicks Sign in, the "browser" (curl, then xdg-open on the private-use redirect the
# test provider sends back, as a browser hands a scheme to the desktop) makes the desktop run
# the handler the app registered, and the window shows the user's name; `versola logout` and
# `versola login` from other processes reach the window; Sign out returns it to signed out.
# Before that, `versola login --redirect-scheme` signs in through its own registered handler.
# Screenshots of each state: .build/desktop-screenshots/. `--update-docs` also copies the
# signed-in one to docs/desktop-app.png.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

if [ "${1:-}" != "--inside" ]; then
  VERSOLA_EXTRA_PACKAGES="libgtk-4-dev xvfb xauth xdotool xdg-utils dbus-daemon dbus-bin dbus-x11 gnome-keyring libsecret-tools imagemagick curl" install_deps
  echo "== desktop: building versola, the test provider and examples/desktop-app"
  swift build --product versola 2>&1 | tail -n 1
  swift build --product versola-front 2>&1 | tail -n 1
  swift build --product versola-test-idp 2>&1 | tail -n 1
  swift build --package-path examples/desktop-app 2>&1 | tail -n 1
  export VERSOLA_BIN APP_BIN
  VERSOLA_BIN="$(swift build --show-bin-path)"
  APP_BIN="$(swift build --package-path examples/desktop-app --show-bin-path)"
  exec xvfb-run -a -s "-screen 0 800x600x24" dbus-run-session -- bash "$0" --inside "$@"
fi
shift
update_docs=false
[ "${1:-}" = "--update-docs" ] && update_docs=true

shots="$VERSOLA_ROOT/.build/desktop-screenshots"
rm -rf "$shots"
mkdir -p "$shots"
work=$(temp_dir)
mkdir -m 700 "$work/run" "$work/home"
export HOME="$work/home" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" XDG_STATE_HOME="$work/state"
export XDG_RUNTIME_DIR="$work/run" XDG_DATA_DIRS="$work/no-system-data" VERSOLA_AGENT_IDLE_TIMEOUT=30
unset XDG_CURRENT_DESKTOP DESKTOP_SESSION GNOME_DESKTOP_SESSION_ID KDE_FULL_SESSION BROWSER

# GNOME Keyring on this private bus, unlocked as a desktop login unlocks it.
gnome-keyring-daemon --foreground --unlock --components=secrets <<<"desktop-test-password" >/dev/null 2>&1 &
keyring_pid=$!
on_exit "kill $keyring_pid"
for _ in $(seq 1 100); do
  dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q "boolean true" && break
  sleep 0.05
done

start_test_idp "$VERSOLA_BIN" "$work/idp.out" --auto-login || die "the test provider did not start"
issuer=$test_idp_issuer
versola() { "$VERSOLA_BIN/versola" --profile desktop "$@"; }
on_exit "'$VERSOLA_BIN/versola' agent --stop >/dev/null 2>&1"

# The browser: follows the provider's http(s) redirects with curl, then hands the first
# address of another scheme to the desktop with xdg-open, as a browser does.
cat >"$work/browser.sh" <<'BROWSER'
#!/bin/sh
url="$1"
for _ in 1 2 3 4 5 6 7 8 9 10; do
  next=$(curl -s -o /dev/null -D - "$url" | tr -d '\r' | sed -n 's/^[Ll]ocation: //p' | head -n 1)
  case "$next" in
    http://* | https://*) url="$next" ;;
    "") exit 1 ;;
    *) exec xdg-open "$next" ;;
  esac
done
exit 1
BROWSER
chmod 755 "$work/browser.sh"

fail() {
  echo "desktop test failed: $*" >&2
  [ -n "${window:-}" ] && echo "the window's title: $(xdotool getwindowname "$window")" >&2
  for file in "$work"/*.log; do [ -f "$file" ] && { echo "-- $file" >&2; cat "$file" >&2; }; done
  for id in $(xdotool search --name . 2>/dev/null); do echo "window $id: $(xdotool getwindowname "$id")" >&2; done
  import -window root "$shots/failure.png" 2>/dev/null || true
  echo "screenshots: $shots" >&2
  exit 1
}

# wait_for DESCRIPTION COMMAND...: retries COMMAND for up to 20 s.
wait_for() {
  local what=$1
  shift
  for _ in $(seq 1 200); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  fail "$what"
}

echo "== desktop: versola login --redirect-scheme (xdg-open runs versola handle-redirect)"
cli_scheme="com.example.versola-cli"
versola login --issuer "$issuer" --client-id versola-test --key-source secret-service \
  --redirect-scheme "$cli_scheme:/callback" --browser-command "$work/browser.sh %s" >"$work/cli-login.log" 2>&1 ||
  fail "versola login --redirect-scheme did not sign in"
grep -q "Signed in as Alice Example" "$work/cli-login.log" || fail "versola login did not say who signed in"
handler=$(xdg-mime query default "x-scheme-handler/$cli_scheme")
[ "$handler" = "versola-$cli_scheme.desktop" ] || fail "xdg-mime names '$handler' for $cli_scheme"
grep -q "handle-redirect %u" "$XDG_DATA_HOME/applications/$handler" || fail "the desktop entry does not run handle-redirect"
echo "signed in through $cli_scheme:/callback; handler $handler"
versola logout >/dev/null 2>&1 || fail "versola logout failed"

echo "== desktop: handle-redirect refuses what it cannot use, plainly"
if versola handle-redirect "$cli_scheme:/callback?code=abc&state=nobody" >"$work/refused.log" 2>&1; then
  fail "a redirect with no sign-in waiting was taken"
fi
grep -q "no sign-in is waiting" "$work/refused.log" || fail "no clear message for a redirect with no sign-in waiting"
if versola handle-redirect "not a redirect" >"$work/garbage.log" 2>&1; then fail "garbage was taken"; fi
grep -q "not a sign-in response" "$work/garbage.log" || fail "no clear message for garbage"
rm -f "$work/refused.log" "$work/garbage.log"

echo "== desktop: the GTK example on Xvfb"
state_log="$work/app-states.log"
GTK_A11Y=none BROWSER="$work/browser.sh %s" "$APP_BIN/versola-desktop-example" --issuer "$issuer" --client-id versola-test \
  --profile desktop --state-log "$state_log" >"$work/app.log" 2>&1 &
app_pid=$!
on_exit "kill $app_pid"
wait_for "the window did not appear" xdotool search --name "^Versola example"
window=$(xdotool search --name "^Versola example" | head -n 1)
title() { xdotool getwindowname "$window"; }
title_is() { [ "$(title)" = "$1" ]; }
# snapshot FILE: the window as the screen shows it (GTK 4 draws through the GPU path, so the
# root window is read, cropped to the window).
snapshot() {
  import -window root -crop "$(xdotool getwindowgeometry --shell "$window" |
    awk -F= '/^(X|Y|WIDTH|HEIGHT)=/ { v[$1] = $2 } END { printf "%sx%s+%s+%s", v["WIDTH"], v["HEIGHT"], v["X"], v["Y"] }')" \
    +repage "$1"
}
# shows TITLE NAME: the window's title is TITLE, and NAME.png is the screenshot once the window
# is painted (not one flat colour) and stays the same between two looks.
shows() {
  wait_for "the window's title never became '$1'" title_is "$1"
  local previous="$work/previous.png" current="$work/current.png"
  rm -f "$previous"
  for _ in $(seq 1 50); do
    sleep 0.1
    snapshot "$current" || fail "no screenshot"
    if [ "$(convert "$current" -format '%[fx:standard_deviation>0]' info:)" = 1 ] && [ -f "$previous" ] &&
      [ "$(compare -metric AE "$previous" "$current" null: 2>&1 | cut -d' ' -f1)" = 0 ]; then
      mv "$current" "$shots/$2.png"
      echo "window: $1 ($2.png)"
      return 0
    fi
    mv "$current" "$previous"
  done
  fail "the window never settled on a painted picture for '$1'"
}
shows "Versola example: unauthenticated" 1-signed-out
grep -q "state=unauthenticated user=- " "$state_log" || fail "the app did not record its state"
grep -q "key is in the secret-service key source" "$work/app.log" || fail "the app did not keep its key in the keyring"

# The buttons' centres inside the 420x220 window (measured on its screenshot).
click() { xdotool mousemove --window "$window" "$1" "$2" click 1; }
sign_in() { click 99 131; }
sign_out() { click 261 131; }
sign_in
shows "Versola example: signed in as Alice Example" 2-signed-in
handler=$(xdg-mime query default x-scheme-handler/com.example.versola-desktop)
[ "$handler" = "com.example.versola-desktop.desktop" ] || fail "the app's handler is not registered ('$handler')"

versola logout >/dev/null 2>&1 || fail "versola logout failed"
shows "Versola example: unauthenticated" 3-after-versola-logout

versola login --browser-command "$work/browser.sh %s" >/dev/null 2>&1 || fail "the second versola login failed"
shows "Versola example: signed in as Alice Example" 4-after-versola-login

sign_out
shows "Versola example: unauthenticated" 5-after-sign-out
versola status >"$work/status.log" 2>&1 || true
grep -qi "signed out\|not signed in\|unauthenticated" "$work/status.log" || fail "versola status does not agree with the window"
rm -f "$work/status.log"

# The pictures agree with the titles: signed in and signed out look different, and each state
# looks the same whichever process brought it about.
differing() { compare -metric AE "$shots/$1.png" "$shots/$2.png" null: 2>&1 | cut -d' ' -f1; }
[ "$(differing 1-signed-out 2-signed-in)" != 0 ] || fail "the signed-in screenshot looks like the signed-out one"
[ "$(differing 2-signed-in 4-after-versola-login)" = 0 ] || fail "signed in by versola login looks unlike signed in by the button"
[ "$(differing 1-signed-out 3-after-versola-logout)" = 0 ] || fail "signed out by versola logout looks unlike signed out at start"
if $update_docs; then
  mkdir -p "$VERSOLA_ROOT/docs"
  cp "$shots/2-signed-in.png" "$VERSOLA_ROOT/docs/desktop-app.png"
fi
echo "== desktop: passed; screenshots in .build/desktop-screenshots/"
