#!/usr/bin/env bash
# The real clients of issue 41 against versola's adapters: container registries (skopeo, the
# docker CLI), Python package indexes (pip in both keyring modes, uv, twine) and a cargo sparse
# index, each getting in with no token typed, refreshing after expiry and refused cleanly
# without a session.
#
# usage: tools.sh --versola PATH --tsv FILE [--build DIR] [--test-idp PATH]
#
# 1. Debian's docker-registry and skopeo (installed by scripts/install-deps.sh when missing);
#    the machine's docker CLI and cargo (>= 1.74) when it has them (else those rows are skipped
#    with a note). Python virtual environments under DIR (DIR: $VERSOLA_BUILD_PATH or .build):
#    tools-venv with pinned keyring, twine, uv, pypiserver and pip from PyPI, plus the keyring
#    backend integrations/keyring (installed from a copy, whose unit tests run first);
#    tools-pip-venv with pip alone, whose subprocess keyring mode must find `keyring` on PATH
#    (pip skips the one in its own environment).
# 2. versola-test-idp --auto-login with a 150 s access-token lifetime: versola renews a token
#    when less than 120 s is left (T1), so a token is served for 30 s and then "expired" (to
#    versola: the provider still takes it until its end). The fixtures in tools/ check every
#    token at its UserInfo endpoint; refreshes are counted in its request log.
# 3. Fixtures on loopback: docker-registry with `auth: token` and our token service
#    (tools/registry_token.py), pypiserver behind our auther (tools/pypi_index.py, one mount
#    per Python client), the sparse index (tools/cargo_index.py). One profile per client
#    (signed in with --dpop off), set up with versola setup-docker/setup-pip/setup-cargo.
# 4. Phases: every client gets in; after a wait for the tokens to go stale, each client's next
#    run makes one refresh and the run after it none; after another wait, four parallel pulls
#    make one refresh; no secret in any output or log; after logout, each client is refused
#    cleanly. Prints the client × check table; rows appended to the TSV.
# Exit status 1 when a check failed. Environment: VERSOLA_INTEROP_KEEP=1 keeps the temporary
# directory (every client's output and every fixture's log).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
versola="" tsv="" test_idp="" build=${VERSOLA_BUILD_PATH:-$here/../../.build}
while [ $# -gt 0 ]; do
  case "$1" in
    --versola) versola=${2:-}; shift 2 ;;
    --tsv) tsv=${2:-}; shift 2 ;;
    --build) build=${2:-}; shift 2 ;;
    --test-idp) test_idp=${2:-}; shift 2 ;;
    *) echo "tools.sh: unknown argument $1" >&2; sed -n '7p' "$0" | sed 's/^# //' >&2; exit 2 ;;
  esac
done
if ! { [ -n "$versola" ] && [ -x "$versola" ] && [ -n "$tsv" ]; }; then sed -n '7p' "$0" | sed 's/^# //' >&2; exit 2; fi
versola=$(cd "$(dirname "$versola")" && pwd)/$(basename "$versola")
test_idp=${test_idp:-$(dirname "$versola")/versola-test-idp}
[ -x "$test_idp" ] || { echo "tools.sh: no versola-test-idp at $test_idp (give --test-idp)" >&2; exit 2; }
mkdir -p "$build"
build=$(cd "$build" && pwd)
started=$(date +%s)
lifetime=150 served_for=30

# shellcheck source=tools/setup.sh
. "$here/tools/setup.sh"
# shellcheck source=tools/checks.sh
. "$here/tools/checks.sh"
# shellcheck source=tools/docker.sh
. "$here/tools/docker.sh"
# shellcheck source=tools/python.sh
. "$here/tools/python.sh"
# shellcheck source=tools/cargo.sh
. "$here/tools/cargo.sh"

install_tools
make_work_directory
keyring_package
start_fixtures
sign_in_and_set_up

echo "-- every client gets in"
gets_in_docker
gets_in_python
gets_in_cargo

echo "-- after expiry: one silent refresh, then the new token is reused"
wait_until_stale
refresh_docker
refresh_python
refresh_cargo

echo "-- four parallel pulls on a stale token: one refresh"
wait_until_stale
parallel_pulls

no_leak
echo "-- signed out: each client is refused cleanly"
no_session_all

report
