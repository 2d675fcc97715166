#!/usr/bin/env bash
# `make bench`: release-builds versola-bench and prints its figures, each beside the OpenSSL loop
# it is compared with (run alternately in the same process), then `openssl speed` itself and
# PyJWT doing the same work, with the ratios the targets use.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
seconds=${VERSOLA_BENCH_SECONDS:-3}

swift build -c release --product versola-test-idp 2>&1 | tail -n 1
swift build -c release --product versola-bench 2>&1 | tail -n 1
bench="$(swift build -c release --show-bin-path)/versola-bench"

echo "== versola-bench"
out=$(VERSOLA_BENCH_SECONDS=$seconds "$bench" "$@")
echo "$out"

echo "== openssl speed -seconds $seconds ecdsap256 rsa2048"
speed=$(openssl speed -seconds "$seconds" ecdsap256 rsa2048 2>/dev/null)
echo "$speed" | grep -E '^(rsa 2048|[[:space:]]*256 bits ecdsa)'
ossl_rsa_verify=$(echo "$speed" | awk '/^rsa 2048 bits/ {print $NF}')
ossl_ec_sign=$(echo "$speed" | awk '/256 bits ecdsa/ {print $(NF-1)}')
echo "openssl_ecdsap256_sign_per_s: ${ossl_ec_sign}"
echo "openssl_rsa2048_verify_per_s: ${ossl_rsa_verify}"

echo "== PyJWT (with cryptography) in a venv, the same work"
venv=.build/pyjwt-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "pyjwt[crypto]==2.10.1" 2>&1 | tail -n 2
fi
pyjwt=$(VERSOLA_BENCH_SECONDS=$seconds "$venv/bin/python" bench/pyjwt_bench.py) || pyjwt=""
echo "$pyjwt"

# The first value printed under a name (the OpenSSL loops appear once per group).
figure() { echo "$out"$'\n'"$pyjwt" | awk -v name="$1:" '$1 == name {print $2; exit}'; }
# The ratios the targets use are versola-bench's own: each figure alternates with its OpenSSL
# loop in 20 ms slices (see OpenSSLPeer.swift), so a machine whose speed drifts during the run
# moves both alike. `openssl speed`, run once above, checks that those loops run at its rate.
echo "== ratios (targets from the issue tracker: DPoP proof >= 0.90, ID token >= 0.85 of OpenSSL)"
echo "$out" | grep '^ratio ' || true
agree() {
  local value base
  value=$(figure "$1"); base=$2
  [ -n "$value" ] && [ -n "$base" ] && awk -v v="$value" -v b="$base" -v n="$1" -v o="$3" \
    'BEGIN { printf "check %s / %s: %.2f (the in-process loop against openssl speed itself)\n", n, o, v / b }'
}
agree peer_ecdsap256_sign_per_s "$ossl_ec_sign" openssl_ecdsap256_sign_per_s || true
agree peer_rsa2048_verify_per_s "$ossl_rsa_verify" openssl_rsa2048_verify_per_s || true
versus() {
  local ours theirs
  ours=$(figure "$1"); theirs=$(figure "$2")
  [ -n "$ours" ] && [ -n "$theirs" ] && awk -v a="$ours" -v b="$theirs" -v n="$1" -v t="$3" \
    'BEGIN { printf "ratio %s / PyJWT: %.1fx (target >= %s)\n", n, a / b, t }'
}
versus dpop_proof_per_s pyjwt_dpop_proof_per_s 3 || true
versus id_token_validate_rs256_per_s pyjwt_id_token_validate_rs256_per_s 3.5 || true

echo "== the versola command (scripts/cli-bench.sh)"
bash scripts/cli-bench.sh
