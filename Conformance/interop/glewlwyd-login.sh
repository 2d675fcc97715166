#!/usr/bin/env bash
# Headless login for glewlwyd: plays the person in the browser leg.
#
# usage: glewlwyd-login.sh AUTHORIZATION_URL
#
# Given the authorization URL the client opened, signs the test user in with the login API
# (`POST {api}/auth/`), grants the client its scopes (`PUT {api}/auth/grant/{client_id}`),
# then loads the URL with `&g_continue` and follows the redirects down to the loopback
# listener, keeping the session cookie throughout. `{api}` is the part of the
# authorization endpoint before `/{plugin}/auth`.
#
# Environment: GLEWLWYD_USER (alice), GLEWLWYD_PASSWORD (wonderland), GLEWLWYD_SCOPES
# (the URL's `scope`, else "openid offline_access"; with PAR the URL carries no scope).
# Exit status: 0 when the listener answered, non-zero otherwise (reasons on stderr).
set -euo pipefail
url=${1:?usage: glewlwyd-login.sh AUTHORIZATION_URL}
user=${GLEWLWYD_USER:-alice}
password=${GLEWLWYD_PASSWORD:-wonderland}

endpoint=${url%%\?*}
query=${url#"$endpoint"}
query=${query#\?}
api=${endpoint%/*/auth}
if [ "$api" = "$endpoint" ]; then
  echo "glewlwyd-login: $endpoint does not look like a glewlwyd authorization endpoint" >&2
  exit 2
fi

# One query parameter, percent-decoded ('+' is a space in a query).
parameter() {
  local pair value
  for pair in ${query//&/ }; do
    if [ "${pair%%=*}" = "$1" ]; then
      value=${pair#*=}
      value=${value//+/ }
      printf '%b' "${value//%/\\x}"
      return 0
    fi
  done
  return 1
}

client_id=$(parameter client_id) || { echo "glewlwyd-login: no client_id in the URL" >&2; exit 2; }
scopes=${GLEWLWYD_SCOPES:-$(parameter scope || echo "openid offline_access")}

jar=$(mktemp)
trap 'rm -f "$jar"' EXIT
json_string() { python3 -c 'import json, sys; print(json.dumps(sys.argv[1]))' "$1"; }

status=$(curl -sS -o /dev/null -w '%{http_code}' -c "$jar" -b "$jar" -H 'Content-Type: application/json' \
  --data "{\"username\": $(json_string "$user"), \"password\": $(json_string "$password")}" "$api/auth/")
[ "$status" = 200 ] || { echo "glewlwyd-login: POST $api/auth/ answered $status" >&2; exit 1; }

status=$(curl -sS -o /dev/null -w '%{http_code}' -c "$jar" -b "$jar" -X PUT -H 'Content-Type: application/json' \
  --data "{\"scope\": $(json_string "$scopes")}" "$api/auth/grant/$client_id")
[ "$status" = 200 ] || { echo "glewlwyd-login: PUT $api/auth/grant/$client_id answered $status" >&2; exit 1; }

# Follow glewlwyd's redirects to the loopback listener. A refused grant ends on the login
# page, which this instance does not serve (404): reported as a failure.
final=$(curl -sS -o /dev/null -w '%{http_code} %{url_effective}' -L --max-redirs 5 -c "$jar" -b "$jar" "$url&g_continue")
case "$final" in
  2*) exit 0 ;;
  *) echo "glewlwyd-login: the browser leg ended with $final" >&2; exit 1 ;;
esac
