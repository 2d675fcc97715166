#!/usr/bin/env bash
# `make demo`: a real loopback login with the `versola` command against the local test
# provider, then status, token, a DPoP-bound request, a forced refresh and logout.
# Everything lives in a temp directory (XDG dirs, agent socket); the provider and the
# session agent are stopped at the end.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
install_deps

echo "== building versola and versola-test-idp"
swift build --product versola 2>&1 | tail -n 1
swift build --product versola-test-idp 2>&1 | tail -n 1
bin="$(swift build --show-bin-path)"

demo=$(mktemp -d /tmp/versola-demo.XXXXXX)
mkdir -m 700 "$demo/run"
export XDG_CONFIG_HOME="$demo/config" XDG_STATE_HOME="$demo/state" XDG_RUNTIME_DIR="$demo/run"
export VERSOLA_AGENT_IDLE_TIMEOUT=60
cleanup() {
  "$bin/versola" agent --stop >/dev/null 2>&1 || true
  rm -rf "$demo"
}
on_exit cleanup

step() { printf '\n\033[1m== %s\033[0m\n$ %s\n' "$1" "$2"; }

start_test_idp "$bin" "$demo/idp.out" --auto-login || die "the test provider did not start"
issuer=$test_idp_issuer
echo "test provider: $issuer (user alice, auto-login)"

browser='curl -sL -o /dev/null %s'
step "log in through the browser leg (curl plays the browser)" \
  "versola login --issuer $issuer --client-id versola-test --browser-command '$browser'"
"$bin/versola" login --issuer "$issuer" --client-id versola-test --browser-command "$browser"
echo "profile saved: $(ls "$XDG_CONFIG_HOME"/versola/profiles/)"

step "status (read from disk; no network)" "versola status"
"$bin/versola" status

step "an access token (the agent starts on demand and keeps it in memory)" "versola token --format json"
"$bin/versola" token --format json | sed -E 's/("accessToken":")(.{12})[^"]*/\1\2…/'

step "for kubectl, from the warm agent: the ID token (kubectl sends no DPoP proofs)" \
  "versola token --format k8s --token id"
"$bin/versola" token --format k8s --token id | sed -E 's/("token":")(.{12})[^"]*/\1\2…/'

step "a DPoP-bound request to the provider's protected resource" "versola request $issuer/resource"
"$bin/versola" request "$issuer/resource"; echo

step "a forced refresh (rotates the refresh token)" "versola token --force-refresh"
"$bin/versola" token --force-refresh | cut -c1-12 | sed 's/$/…/'

step "UserInfo" "versola userinfo"
"$bin/versola" userinfo

step "log out (revokes the refresh token, wipes the session and the DPoP key)" "versola logout"
"$bin/versola" logout

step "after logout: a token needs a new login (exit status 4)" "versola token --json"
set +e
"$bin/versola" token --json
echo "exit status: $?"
set -e
echo
echo "demo finished; the provider and the agent are stopped."
