#!/usr/bin/env bash
# Headless login for the interop idpyoidc provider (idpyoidc_op.py): plays the person in
# the browser leg.
#
# usage: idpyoidc-login.sh AUTHORIZATION_URL
#
# Loads the authorization URL, which answers with the provider's sign-in form, posts the
# test user's name and password to the form's action with the form's hidden `token`, and
# follows the provider's redirect down to the loopback listener. Trusts the CA in
# IDPYOIDC_CA_FILE (the run's private CA).
#
# Environment: IDPYOIDC_CA_FILE (required), IDPYOIDC_USER (alice), IDPYOIDC_PASSWORD
# (wonderland). Exit status: 0 when the listener answered, non-zero otherwise (reasons on
# stderr, the provider's page included when it refused the request).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
url=${1:?usage: idpyoidc-login.sh AUTHORIZATION_URL}
ca=${IDPYOIDC_CA_FILE:?idpyoidc-login: set IDPYOIDC_CA_FILE to the provider CA}
user=${IDPYOIDC_USER:-alice}
password=${IDPYOIDC_PASSWORD:-wonderland}

page=$(mktemp)
trap 'rm -f "$page"' EXIT
status=$(curl -sS --cacert "$ca" -o "$page" -w '%{http_code}' "$url")
if [ "$status" != 200 ]; then
  echo "idpyoidc-login: the authorization endpoint answered $status: $(head -c 300 "$page" | tr -cd '[:print:]')" >&2
  exit 1
fi
# The form: its action and its hidden token (the signed authorization request).
read -r action token < <(python3 "$here/support/sign-in-form.py" "$page") || { echo "idpyoidc-login: no sign-in form: $(head -c 300 "$page" | tr -cd '[:print:]')" >&2; exit 1; }
origin=$(printf '%s' "$url" | sed -E 's#^(https://[^/]+).*#\1#')

# Post the form and follow the redirect to the loopback listener (plain http, no CA needed).
final=$(curl -sS --cacert "$ca" -o "$page" -w '%{http_code} %{url_effective}' -L --max-redirs 3 \
  --data-urlencode "username=$user" --data-urlencode "password=$password" --data-urlencode "token=$token" \
  "$origin$action")
case "$final" in
  2*) exit 0 ;;
  *) echo "idpyoidc-login: the browser leg ended with $final: $(head -c 300 "$page" | tr -cd '[:print:]')" >&2; exit 1 ;;
esac
