#!/usr/bin/env bash
# Interop with idpyoidc (PyPI): installs it, starts a throwaway provider and runs the
# any-provider runner against it three times.
#
# usage: idpyoidc.sh --versola PATH --tsv FILE [--build DIR]
#
# 1. A Python virtual environment under DIR/idpyoidc-venv (DIR: $VERSOLA_BUILD_PATH or
#    .build) with idpyoidc $IDPYOIDC_VERSION from PyPI; kept between runs and only
#    reinstalled when the version differs (idempotent, no prompt, works as root).
# 2. A private CA and a server certificate for 127.0.0.1, made with the openssl command in
#    a temporary directory (nothing is committed or kept).
# 3. Conformance/interop/idpyoidc_op.py on https://127.0.0.1:PORT with three issuers and
#    their public clients, all registered with the same exact loopback redirect URI.
# 4. run-provider.sh (with --ca-file, the headless login idpyoidc-login.sh, explicit scopes
#    with prompt=consent, the UserInfo endpoint as the resource for `versola request`):
#    Bearer, DPoP, and PAR with DPoP. The provider's bugs are passed as known failures
#    (Conformance/interop/idpyoidc.md); after the DPoP runs the provider's log must show the
#    refusal each one names, or the run fails.
#
# Appends the results to the TSV; exit status 1 when a feature failed, 0 otherwise.
# Environment: VERSOLA_INTEROP_KEEP=1 keeps the temporary directory (the provider's log).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
versola="" tsv="" build=${VERSOLA_BUILD_PATH:-$here/../../.build}
while [ $# -gt 0 ]; do
  case "$1" in
    --versola) versola=${2:-}; shift 2 ;;
    --tsv) tsv=${2:-}; shift 2 ;;
    --build) build=${2:-}; shift 2 ;;
    *) echo "idpyoidc.sh: unknown argument $1" >&2; sed -n '5p' "$0" | sed 's/^# //' >&2; exit 2 ;;
  esac
done
if ! { [ -n "$versola" ] && [ -x "$versola" ] && [ -n "$tsv" ]; }; then sed -n '5p' "$0" | sed 's/^# //' >&2; exit 2; fi
mkdir -p "$build"
build=$(cd "$build" && pwd)
version=${IDPYOIDC_VERSION:-5.0.0}
started=$(date +%s)

# Debian packages, installed where missing by the project's one installer.
apt_install() { VERSOLA_EXTRA_PACKAGES="$*" bash "$here/../../scripts/install-deps.sh"; }

# 1. The virtual environment.
venv="$build/idpyoidc-venv"
python="$venv/bin/python"
installed() { [ -x "$python" ] && "$python" "$here/support/has-idpyoidc.py" "$version" 2>/dev/null; }
if ! installed; then
  echo "installing idpyoidc $version (PyPI) in $venv"
  rm -rf "$venv"
  if ! python3 -m venv "$venv" >/dev/null 2>&1; then
    # Debian's python3 needs python3-venv for ensurepip.
    rm -rf "$venv"
    apt_install python3-venv
    python3 -m venv "$venv"
  fi
  "$python" -m pip install -q --disable-pip-version-check --no-input "idpyoidc==$version"
  installed || { echo "idpyoidc.sh: idpyoidc $version did not install" >&2; exit 1; }
fi
command -v openssl >/dev/null || apt_install openssl
echo "idpyoidc $version ($("$python" -c 'import sys; print("Python", sys.version.split()[0])'))"

work=$(mktemp -d "${TMPDIR:-/tmp}/versola-idpyoidc.XXXXXX")
op_pid=""
# shellcheck disable=SC2317  # run by the EXIT trap, which shellcheck cannot follow
cleanup() {
  if [ -n "$op_pid" ]; then kill "$op_pid" 2>/dev/null || true; wait "$op_pid" 2>/dev/null || true; fi
  if [ "${VERSOLA_INTEROP_KEEP:-0}" = 1 ]; then echo "idpyoidc: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# 2. The private CA and the server certificate (P-256, one day).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
  -keyout "$work/ca.key" -out "$work/ca.pem" -subj "/CN=versola interop CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
  -keyout "$work/server.key" -out "$work/server.csr" -subj "/CN=127.0.0.1" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$work/server.ext"
openssl x509 -req -in "$work/server.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial \
  -days 1 -extfile "$work/server.ext" -out "$work/server.pem" 2>/dev/null

# 3. The provider, on a free port; one exact redirect URI for every client.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
port=$(free_port)
# Below the ephemeral range: no outgoing connection of the run can hold it (support/redirect-port.py).
redirect_port=$(python3 "$here/support/redirect-port.py")
redirect="http://127.0.0.1:$redirect_port/callback"
# In the temporary directory: the library writes key files under ./private.
(cd "$work" && exec "$python" "$here/idpyoidc_op.py" --port "$port" --cert "$work/server.pem" \
  --key "$work/server.key" --redirect-uri "$redirect" --log "$work/op.log") >"$work/op.out" 2>&1 &
op_pid=$!
for _ in $(seq 1 150); do
  grep -q '^idpyoidc on ' "$work/op.out" 2>/dev/null && break
  kill -0 "$op_pid" 2>/dev/null || { echo "idpyoidc.sh: the provider exited" >&2; tail -n 20 "$work/op.out" >&2; exit 1; }
  sleep 0.1
done
grep -q '^idpyoidc on ' "$work/op.out" || { echo "idpyoidc.sh: the provider did not start" >&2; exit 1; }
base="https://127.0.0.1:$port"
echo "idpyoidc on $base; issuers $base/plain (Bearer), $base/dpop (DPoP), $base/par (PAR, DPoP)"

# 4. The runs.
export IDPYOIDC_CA_FILE="$work/ca.pem"
ath_bug="idpyoidc 5.0 compares a DPoP proof's ath with the hex SHA-256 of the token, not base64url (RFC 9449 §4.2), so a correct proof at UserInfo is refused"
ath_refusal="'ath' in DPoP does not match the token hash"
runner=(bash "$here/run-provider.sh" --versola "$versola" --tsv "$tsv" --port "$redirect_port"
  --login-command "$here/idpyoidc-login.sh %s" --ca-file "$work/ca.pem"
  --scope openid --scope profile --scope offline_access --prompt consent --resource userinfo)
status=0
echo "== idpyoidc, Bearer"
"${runner[@]}" --issuer "$base/plain" --client-id versola-plain --no-dpop --name "idpyoidc Bearer" || status=1
for run in "dpop:DPoP" "par:PAR DPoP"; do
  name="idpyoidc ${run#*:}"
  echo "== $name"
  before=$(grep -c "$ath_refusal" "$work/op.log" || true)
  "${runner[@]}" --issuer "$base/${run%%:*}" --client-id "versola-${run%%:*}" --dpop --name "$name" \
    --known-failure "userinfo=$ath_bug" --known-failure "request=$ath_bug" || status=1
  after=$(grep -c "$ath_refusal" "$work/op.log" || true)
  # A known failure must be the provider's bug: its refusal in the provider's log.
  if grep -q "^$name"$'\t'"[a-z]*"$'\t'"known-fail" "$tsv" && [ "$after" = "$before" ]; then
    echo "$name: known failures reported, but the provider logged no \"$ath_refusal\"" >&2
    printf '%s\tknown-failure evidence\tfail\tthe provider never logged the ath refusal\n' "$name" >>"$tsv"
    status=1
  fi
done
if grep -q 'Traceback\|KeyError' "$work/op.log"; then
  echo "idpyoidc: the provider logged an internal error:" >&2
  grep -m 3 -A 1 'Traceback\|KeyError' "$work/op.log" >&2
fi
echo "idpyoidc: $(( $(date +%s) - started )) s"
exit "$status"
