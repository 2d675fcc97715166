#!/usr/bin/env bash
# Interop: the real `versola` command against third-party providers on loopback.
#
# Installs glewlwyd when it is missing (Debian package; idempotent), starts a throwaway
# instance on loopback (sqlite in a temporary directory, configured through its admin REST
# API by Conformance/interop/glewlwyd-configure.py), and runs the any-provider runner
# (Conformance/interop/run-provider.sh) against it three times: Bearer tokens with RS256 ID
# tokens, DPoP with ES256 ID tokens, and DPoP with server nonces mandatory. Then runs
# Conformance/interop/idpyoidc.sh (idpyoidc from PyPI in a virtual environment under the
# build directory, an https provider with a private CA made at run time: Bearer, DPoP, and
# PAR with DPoP), Conformance/interop/oidctest.sh (the OpenID Foundation's RP tests from PyPI
# in a virtual environment under the build directory: every test id of the Basic and Config
# RP profiles against its expected outcome, printed as a table), Conformance/interop/mcp.sh (FastMCP from PyPI, the same way: an MCP server
# signed in to from its URL alone, A19, then servers with no refresh token, a scope step-up
# and metadata only at the root), and the runner against `versola-test-idp
# --auto-login`. Each provider run also sends `versola request` to its UserInfo endpoint.
# Prints the provider × feature matrix, writes it (TSV and Markdown) under
# $VERSOLA_BUILD_PATH/interop/, stops everything it started, and exits non-zero when a
# feature failed (known provider issues, documented in Conformance/interop/glewlwyd.md and
# idpyoidc.md, do not count).
#
# Environment: VERSOLA_BUILD_PATH (default .build), VERSOLA_INTEROP_SKIP_BUILD=1 to use the
# binaries already built, VERSOLA_INTEROP_KEEP=1 to keep the temporary directory.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
root=$(pwd)
interop="$root/Conformance/interop"
build=${VERSOLA_BUILD_PATH:-.build}
out="$build/interop"
started=$(date +%s)

echo "== glewlwyd"
command -v glewlwyd >/dev/null 2>&1 || need_packages glewlwyd
schema=/usr/share/doc/glewlwyd/database/init.sqlite3.sql.gz
[ -r "$schema" ] || { echo "interop: $schema is missing (glewlwyd package incomplete?)" >&2; exit 1; }
glewlwyd --help 2>&1 | grep -m1 '^Version' || true

if [ "${VERSOLA_INTEROP_SKIP_BUILD:-0}" != 1 ]; then
  echo "== build"
  build_log=$(mktemp)
  for product in versola versola-test-idp; do
    swift build --build-path "$build" --product "$product" >"$build_log" 2>&1 || {
      tail -n 20 "$build_log" >&2
      rm -f "$build_log"
      echo "interop: could not build $product" >&2
      exit 1
    }
  done
  rm -f "$build_log"
fi
bin=$(swift build --build-path "$build" --show-bin-path)
versola="$bin/versola"
[ -x "$versola" ] || { echo "interop: $versola is missing" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/versola-interop-sh.XXXXXX")
pids=()
# shellcheck disable=SC2317  # run at exit through on_exit, which shellcheck cannot follow
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ "${VERSOLA_INTEROP_KEEP:-0}" = 1 ]; then echo "interop: kept $work"; else rm -rf "$work"; fi
}
on_exit cleanup
trap 'exit 130' INT TERM

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
glewlwyd_port=$(free_port)
# Below the ephemeral range: no outgoing connection of the run can hold it (support/redirect-port.py).
redirect_port=$(python3 "$interop/support/redirect-port.py")
base="http://127.0.0.1:$glewlwyd_port"

# A throwaway instance: its own sqlite file from the packaged schema (admin/password), its
# own config, loopback only, log in the work directory.
python3 scripts/support/glewlwyd-database.py "$schema" "$work/glewlwyd.db"
cat >"$work/glewlwyd.conf" <<EOF
port=$glewlwyd_port
bind_address="127.0.0.1"
external_url="$base"
login_url="login.html"
api_prefix="api"
allow_origin="*"
log_mode="console"
log_level="DEBUG"
cookie_secure=0
session_expiration=3600
session_key="GLEWLWYD2_SESSION_ID"
admin_session_authentication="cookie"
profile_session_authentication="cookie"
allow_multiple_user_per_session=false
login_api_enabled=true
admin_scope="g_admin"
profile_scope="g_profile"
user_module_path="/usr/lib/glewlwyd/user"
client_module_path="/usr/lib/glewlwyd/client"
user_auth_scheme_module_path="/usr/lib/glewlwyd/scheme"
plugin_module_path="/usr/lib/glewlwyd/plugin"
hash_algorithm="SHA512"
database = { type = "sqlite3"; path = "$work/glewlwyd.db"; };
EOF
glewlwyd --config-file="$work/glewlwyd.conf" >"$work/glewlwyd.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do
  curl -s -o /dev/null "$base/api/scheme/" && break
  kill -0 "${pids[0]}" 2>/dev/null || { echo "interop: glewlwyd exited" >&2; tail -n 20 "$work/glewlwyd.log" >&2; exit 1; }
  sleep 0.1
done
redirect="http://127.0.0.1:$redirect_port/callback"
python3 "$interop/glewlwyd-configure.py" --base "$base" --redirect-uri "$redirect" --keys "$work/keys" --plugin oidc >/dev/null
python3 "$interop/glewlwyd-configure.py" --base "$base" --redirect-uri "$redirect" --keys "$work/keys" --plugin oidcnonce \
  --dpop-nonces >/dev/null
echo "glewlwyd on $base; issuers $base/api/oidc (DPoP nonces optional), $base/api/oidcnonce (mandatory)"

mkdir -p "$out"
results="$out/results.tsv"
: >"$results"
status=0
login="$interop/glewlwyd-login.sh %s"
revocation_bug="glewlwyd 2.7 refuses every DPoP proof at /revoke (invalid htu), so a DPoP-bound grant cannot be revoked"
runner=(bash "$interop/run-provider.sh" --versola "$versola" --tsv "$results" --login-command "$login" --port "$redirect_port"
  --resource userinfo)
# The device flow (RFC 8628): glewlwyd-device-approve.sh approves the code at glewlwyd's
# verification page, for the client named first.
approve="$interop/glewlwyd-device-approve.sh"

echo "== glewlwyd, Bearer, RS256 ID tokens"
"${runner[@]}" --issuer "$base/api/oidc" --client-id versola-glewlwyd --no-dpop --name "glewlwyd Bearer RS256" \
  --device-approve-command "$approve versola-glewlwyd %s" || status=1
echo "== glewlwyd, DPoP, ES256 ID tokens"
"${runner[@]}" --issuer "$base/api/oidc" --client-id versola-glewlwyd-es256 --dpop --name "glewlwyd DPoP ES256" \
  --known-failure "revocation=$revocation_bug" --device-approve-command "$approve versola-glewlwyd-es256 %s" || status=1
echo "== glewlwyd, DPoP with nonces mandatory, ES256 ID tokens"
"${runner[@]}" --issuer "$base/api/oidcnonce" --client-id versola-glewlwyd-es256 --dpop --name "glewlwyd DPoP nonces" \
  --known-failure "revocation=$revocation_bug" --device-approve-command "$approve versola-glewlwyd-es256 %s" || status=1

echo "== idpyoidc"
bash "$interop/idpyoidc.sh" --versola "$versola" --tsv "$results" --build "$build" || status=1

echo "== oidctest (the OpenID Foundation's RP tests, Basic and Config RP profiles)"
bash "$interop/oidctest.sh" --versola "$versola" --build "$build" || status=1

echo "== FastMCP (resource-first sign-in)"
bash "$interop/mcp.sh" --versola "$versola" --tsv "$results" --build "$build" || status=1

echo "== real clients: skopeo, docker CLI, pip, uv, twine, cargo (Conformance/interop/tools.sh)"
bash "$interop/tools.sh" --versola "$versola" --tsv "$results" --build "$build" --test-idp "$bin/versola-test-idp" || status=1

echo "== versola-test-idp --auto-login"
if ! start_test_idp "$bin" "$work/idp.out" --auto-login --device-interval 1; then
  status=1
else
  issuer=$test_idp_issuer
  bash "$interop/run-provider.sh" --versola "$versola" --tsv "$results" --issuer "$issuer" --client-id versola-test \
    --login-command 'curl -sL -o /dev/null %s' --dpop --resource userinfo --name "versola-test-idp" \
    --device-approve-command 'curl -sf -o /dev/null %s' || status=1
fi

echo
python3 "$interop/interop-report.py" "$results" --markdown "$out/report.md" || status=1
echo "interop: $(( $(date +%s) - started )) s; results in $results"
exit "$status"
