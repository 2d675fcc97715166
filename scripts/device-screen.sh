#!/usr/bin/env bash
# The device sign-in's screen as a person sees it, for the README: runs `versola login --device`
# against the test provider (versola-test-idp) in a detached tmux session 80 columns wide,
# captures the pane once the code and its QR code are drawn (`tmux capture-pane -p`), and
# prints the capture. The login is stopped there (nobody approves it).
#   scripts/device-screen.sh            prints the capture
#   scripts/device-screen.sh --update   also puts it in README.md, between the device-screen markers
# VERSOLA names the versola to run and IDP_BIN_DIR the directory holding versola-test-idp
# (both default to the debug build, built here when they are not given).
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

update=0
[ "${1:-}" = "--update" ] && update=1
command -v tmux >/dev/null 2>&1 || die "tmux is not installed (Debian: tmux)"
if [ -z "${VERSOLA:-}" ] || [ -z "${IDP_BIN_DIR:-}" ]; then
  swift build --product versola-test-idp 2>&1 | tail -n 1 >&2
  swift build --product versola-front 2>&1 | tail -n 1 >&2
  swift build --product versola 2>&1 | tail -n 1 >&2
  bin=$(swift build --show-bin-path)
  VERSOLA=${VERSOLA:-$bin/versola-front}
  IDP_BIN_DIR=${IDP_BIN_DIR:-$bin}
fi

# A short directory of its own: the agent's socket path must fit 107 bytes.
work=$(mktemp -d /tmp/versola-screen.XXXXXX)
server="versola-screen-$$"
on_exit "tmux -L '$server' kill-server 2>/dev/null; rm -rf '$work'"
start_test_idp "$IDP_BIN_DIR" "$work/idp.out" --auto-login --device-interval 1 || die "the test provider did not start"

environment=(env -i "HOME=$work" "XDG_CONFIG_HOME=$work/config" "XDG_STATE_HOME=$work/state"
  "XDG_RUNTIME_DIR=$work" "PATH=/usr/bin:/bin" "TERM=xterm-256color" "LANG=C.UTF-8")
printf -v login '%q ' "${environment[@]}" "$VERSOLA" login --device --issuer "$test_idp_issuer" --client-id versola-test
# The pane outlives the login for as long as the capture needs.
tmux -L "$server" -f /dev/null new-session -d -x 80 -y 40 -s device "$login; sleep 60"

screen=""
for _ in $(seq 1 600); do
  screen=$(tmux -L "$server" capture-pane -p -J -t device)
  # The QR code's last row is drawn after the line that says it waits.
  if grep -q 'Waiting for the approval' <<<"$screen"; then break; fi
  sleep 0.05
done
grep -q 'Waiting for the approval' <<<"$screen" || die "the device sign-in showed no code within 30 s: $screen"
# Trailing blanks and the empty rows below the last line are the pane's, not the program's.
capture=$(printf '%s\n' "$screen" | sed -e 's/[[:space:]]*$//')
printf '%s\n' "$capture"

if [ "$update" -eq 1 ]; then
  CAPTURE="$capture" python3 - "$VERSOLA_ROOT/README.md" <<'EOF'
import os, re, sys
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
block = "<!-- device-screen -->\n```text\n$ versola login --device\n" + os.environ["CAPTURE"] + "\n```\n<!-- /device-screen -->"
new, count = re.subn(r"<!-- device-screen -->.*?<!-- /device-screen -->", lambda _: block, text, flags=re.S)
if count != 1:
    sys.exit("README.md has no <!-- device-screen --> ... <!-- /device-screen --> block")
open(path, "w", encoding="utf-8").write(new)
EOF
  echo "README.md: device-screen block updated" >&2
fi
