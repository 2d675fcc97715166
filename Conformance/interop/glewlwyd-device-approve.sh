#!/usr/bin/env bash
# Headless approval of a glewlwyd device code (RFC 8628): plays the person at the
# verification page, on another device as far as the client can tell.
#
# usage: glewlwyd-device-approve.sh CLIENT_ID VERIFICATION_URI_COMPLETE
#
# The page that holds the code is `{api}/{plugin}/device?code=USER_CODE`. Like
# glewlwyd-login.sh, signs the test user in with the login API (`POST {api}/auth/`) and grants
# the client its scopes (`PUT {api}/auth/grant/{client_id}`), then loads the page with
# `&g_continue`: glewlwyd approves the code and redirects to its login page with
# `prompt=deviceComplete` (any other prompt is a failure: `deviceCodeError` for an unknown
# or used code, the sign-in page itself when the grant is missing).
#
# Environment: GLEWLWYD_USER (alice), GLEWLWYD_PASSWORD (wonderland), GLEWLWYD_SCOPES
# (the scopes the client asked for; default "openid offline_access", versola's default).
# Exit status: 0 when glewlwyd confirmed the approval, non-zero otherwise (reasons on stderr).
set -euo pipefail
client_id=${1:?usage: glewlwyd-device-approve.sh CLIENT_ID VERIFICATION_URI_COMPLETE}
url=${2:?usage: glewlwyd-device-approve.sh CLIENT_ID VERIFICATION_URI_COMPLETE}
user=${GLEWLWYD_USER:-alice}
password=${GLEWLWYD_PASSWORD:-wonderland}
scopes=${GLEWLWYD_SCOPES:-openid offline_access}

page=${url%%\?*}
api=${page%/*/device}
if [ "$api" = "$page" ] || [ "$page" = "$url" ]; then
  echo "glewlwyd-device-approve: $url does not look like a glewlwyd verification page with its code" >&2
  exit 2
fi

jar=$(mktemp)
trap 'rm -f "$jar"' EXIT
json_string() { python3 -c 'import json, sys; print(json.dumps(sys.argv[1]))' "$1"; }

status=$(curl -sS -o /dev/null -w '%{http_code}' -c "$jar" -b "$jar" -H 'Content-Type: application/json' \
  --data "{\"username\": $(json_string "$user"), \"password\": $(json_string "$password")}" "$api/auth/")
[ "$status" = 200 ] || { echo "glewlwyd-device-approve: POST $api/auth/ answered $status" >&2; exit 1; }

status=$(curl -sS -o /dev/null -w '%{http_code}' -c "$jar" -b "$jar" -X PUT -H 'Content-Type: application/json' \
  --data "{\"scope\": $(json_string "$scopes")}" "$api/auth/grant/$client_id")
[ "$status" = 200 ] || { echo "glewlwyd-device-approve: PUT $api/auth/grant/$client_id answered $status" >&2; exit 1; }

location=$(curl -sS -o /dev/null -w '%{redirect_url}' -c "$jar" -b "$jar" "$url&g_continue")
case "$location" in
  *prompt=deviceComplete*) exit 0 ;;
  *) echo "glewlwyd-device-approve: the verification page redirected to ${location:-nothing}" >&2; exit 1 ;;
esac
