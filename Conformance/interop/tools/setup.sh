# shellcheck shell=bash
# Sourced by Conformance/interop/tools.sh: installing the clients, the work directory, the
# fixtures, the sign-ins and setup-* commands, and the result rows.
# shellcheck disable=SC2034  # what is set here is read by tools.sh and checks.sh
# shellcheck disable=SC2154  # set by tools.sh, which sources this file

# Pinned so that a run is the same run everywhere (keyring >= 25.2.1 for uv's --mode creds).
tools_requirements=(pip==26.3 keyring==25.7.0 twine==7.0.0 uv==0.13.9 pypiserver==2.4.2 setuptools==80.9.0
  cryptography==50.0.2)
pip_requirement=pip==26.3
crate=vtools-hello package=versola-tools-hello
python_mounts=(pip-import pip-subprocess uv-user uv-always twine)

apt_install() { VERSOLA_EXTRA_PACKAGES="$*" bash "$here/../../scripts/install-deps.sh"; }

# make_venv DIR REQUIREMENT...: a virtual environment with exactly those, kept while they stay the same.
make_venv() {
  local venv=$1
  shift
  if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.requirements" 2>/dev/null)" = "$*" ]; then return 0; fi
  echo "installing $* (PyPI) in $venv"
  rm -rf "$venv"
  if ! python3 -m venv "$venv" >/dev/null 2>&1; then
    rm -rf "$venv" # Debian's python3 needs python3-venv for ensurepip
    apt_install python3-venv
    python3 -m venv "$venv"
  fi
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-input "$@" || {
    echo "tools.sh: could not install $* in $venv" >&2
    exit 1
  }
  echo "$*" >"$venv/.requirements"
}

install_tools() {
  if ! command -v docker-registry >/dev/null 2>&1 || ! command -v skopeo >/dev/null 2>&1; then
    apt_install docker-registry skopeo
  fi
  venv="$build/tools-venv" pip_venv="$build/tools-pip-venv"
  make_venv "$venv" "${tools_requirements[@]}"
  make_venv "$pip_venv" "$pip_requirement"
  have_docker="" have_cargo=""
  if command -v docker >/dev/null 2>&1; then
    have_docker=1
  else
    echo "note: no docker CLI on this machine; its rows are skipped (skopeo still runs)"
  fi
  # cargo is the machine's (rustup); its proxy needs RUSTUP_HOME once HOME is the work directory's.
  export RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup}
  local cargo_version
  cargo_version=$(cargo --version 2>/dev/null | awk '{print $2}')
  if [ -n "$cargo_version" ] && [ "$(printf '%s\n1.74.0\n' "$cargo_version" | sort -V | head -n 1)" = 1.74.0 ]; then
    have_cargo=1
  else
    echo "note: no cargo >= 1.74 on this machine (${cargo_version:-none}); its rows are skipped"
  fi
  echo "docker-registry $(docker-registry --version | awk '{print $3}'), $(skopeo --version)," \
    "${have_docker:+docker CLI $(docker --version | awk '{print $3}' | tr -d ,), }${have_cargo:+cargo $cargo_version, }" \
    "$("$venv/bin/python" -c 'import importlib.metadata as m
print(", ".join(f"{n} {m.version(n)}" for n in ("pip", "keyring", "twine", "uv", "pypiserver")))')"
}

# The work directory, and a person's environment in it: XDG directories, HOME (so that no
# configuration of the machine's, ~/.docker, ~/.pypirc, pip's, uv's, cargo's, takes part).
make_work_directory() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/versola-tools.XXXXXX")
  mkdir -p "$work/out" "$work/bin" "$work/home" "$work/docker"
  mkdir -m 700 "$work/config" "$work/data" "$work/state" "$work/cache" "$work/runtime"
  export XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" XDG_STATE_HOME="$work/state"
  export XDG_CACHE_HOME="$work/cache" XDG_RUNTIME_DIR="$work/runtime" HOME="$work/home" NO_COLOR=1
  # The agent lives through the whole run: refreshes are counted, and a new agent would start
  # with no access token in memory (P4).
  export VERSOLA_AGENT_IDLE_TIMEOUT=900 DOCKER_CONFIG="$work/docker" TOOLS_TOKEN_HASHES="$work/token-hashes"
  export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ beside the fixtures in the source tree
  export VERSOLA_KEYRING_COMMAND="$versola" UV_NO_CONFIG=1 UV_CACHE_DIR="$work/uv-cache" CARGO_HOME="$work/cargo-home"
  unset BROWSER DISPLAY WAYLAND_DISPLAY VERSOLA_NO_AGENT
  export REGISTRY_AUTH_FILE="$DOCKER_CONFIG/config.json" # skopeo reads the same credHelpers
  local variable
  for variable in $(compgen -e); do
    case "$variable" in PIP_* | UV_INDEX* | UV_EXTRA_INDEX* | TWINE_* | CARGO_REGISTRIES_* | CARGO_REGISTRY_*) unset "$variable" ;; esac
  done
  export PIP_CONFIG_FILE=/dev/null
  : >"$TOOLS_TOKEN_HASHES"
  # The credential helper docker runs: the installed link beside versola, else one made here.
  local helper
  helper=$(dirname "$versola")/docker-credential-versola
  [ -x "$helper" ] || helper=$versola
  ln -s "$helper" "$work/bin/docker-credential-versola"
  export PATH="$work/bin:$venv/bin:$PATH"
}

fixture_pids=()
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
  [ -n "${work:-}" ] && "$versola" agent --stop >"$work/agent-stop.log" 2>&1
  local pid
  for pid in "${fixture_pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${fixture_pids[@]}"; do wait "$pid" 2>/dev/null; done
  [ -n "${work:-}" ] || return 0
  if [ "${VERSOLA_INTEROP_KEEP:-0}" = 1 ]; then echo "tools: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# start NAME COMMAND...: runs a fixture in the background, output in $work/NAME.out and
# .log, and waits for it to print "ready" (the test provider: its issuer).
start() {
  local name=$1
  shift
  "$@" >"$work/$name.out" 2>"$work/$name.log" &
  fixture_pids+=($!)
  local pid=$!
  for _ in $(seq 1 150); do
    [ -s "$work/$name.out" ] && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "tools.sh: $name did not start; its log:" >&2
  tail -n 20 "$work/$name.log" >&2
  exit 1
}

start_fixtures() {
  start idp "$test_idp" --port 0 --auto-login --access-token-lifetime "$lifetime"
  issuer=$(head -n 1 "$work/idp.out" | grep -Eo 'https?://[^ ]+')
  local python="$venv/bin/python" tools="$here/tools"
  token_port=$(free_port) registry_port=$(free_port) pypi_port=$(free_port) cargo_port=$(free_port)
  start token-service "$python" "$tools/registry_token.py" --port "$token_port" --issuer "$issuer" \
    --cert "$work/registry-tokens.pem" --service versola-tools-registry --token-issuer versola-tools-token-service
  mkdir -p "$work/registry-data" "$work/packages"
  cat >"$work/registry.yml" <<EOF
version: 0.1
log:
  level: info
storage:
  filesystem:
    rootdirectory: $work/registry-data
http:
  addr: 127.0.0.1:$registry_port
auth:
  token:
    realm: http://127.0.0.1:$token_port/token
    service: versola-tools-registry
    issuer: versola-tools-token-service
    rootcertbundle: $work/registry-tokens.pem
EOF
  # The registry reads REGISTRY_* variables as settings: REGISTRY_AUTH_FILE (skopeo's) is not one.
  env -u REGISTRY_AUTH_FILE docker-registry serve "$work/registry.yml" >"$work/registry.log" 2>&1 &
  fixture_pids+=($!)
  local answered=""
  for _ in $(seq 1 100); do
    answered=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$registry_port/v2/")
    [ "$answered" = 401 ] && break
    sleep 0.1
  done
  [ "$answered" = 401 ] || { echo "tools.sh: docker-registry did not start; its log:" >&2; tail -n 20 "$work/registry.log" >&2; exit 1; }
  "$python" "$tools/wheel.py" "$work/packages" "$package" 1.0 >/dev/null
  local mounts=()
  for mount in "${python_mounts[@]}"; do mounts+=(--mount "$mount"); done
  start pypi-index "$python" "$tools/pypi_index.py" --port "$pypi_port" --issuer "$issuer" --root "$work/packages" "${mounts[@]}"
  start cargo-index "$python" "$tools/cargo_index.py" --port "$cargo_port" --issuer "$issuer" --crate "$crate" --version 1.0.0
  echo "test provider $issuer (access tokens for $lifetime s); registry 127.0.0.1:$registry_port (tokens from" \
    ":$token_port), index 127.0.0.1:$pypi_port, sparse index 127.0.0.1:$cargo_port"
}

results=() failures=0
# record CLIENT CHECK pass|fail [DETAIL]
record() {
  local line="$1 × $2: $3"
  [ -n "${4:-}" ] && line+=" ($4)"
  echo "$line"
  results+=("$1"$'\t'"$2"$'\t'"$3"$'\t'"${4:-}")
  [ "$3" = fail ] && failures=$((failures + 1))
  return 0
}

# run NAME COMMAND...: runs a client with no input, its output in $work/out/NAME.out and .err;
# sets $code, $out and $err (the files).
run() {
  local name=$1
  shift
  out="$work/out/$name.out" err="$work/out/$name.err"
  timeout 180 "$@" </dev/null >"$out" 2>"$err"
  code=$?
}
# The first line of a client's stderr that says something, for a failure's detail.
said() { grep -v '^\s*$' "$err" | grep -v '^WARNING: ' | head -n 3 | tr '\n' ' ' | cut -c1-300; }

sign_in() { # PROFILE
  run "login-$1" "$versola" login --profile "$1" --issuer "$issuer" --client-id versola-test --dpop off \
    --browser-command 'curl -sL -o /dev/null %s'
  [ "$code" = 0 ] || { echo "tools.sh: versola login --profile $1 failed (exit $code): $(said)" >&2; exit 1; }
}

sign_in_and_set_up() {
  local profile mount
  registry="127.0.0.1:$registry_port" registry_alias="localhost:$registry_port" pypi="http://127.0.0.1:$pypi_port"
  for profile in skopeo docker-cli "${python_mounts[@]}" cargo; do sign_in "$profile"; done
  run setup-skopeo "$versola" setup-docker --profile skopeo --host "$registry" --write
  local skopeo_setup=$code
  run setup-docker-cli "$versola" setup-docker --profile docker-cli --host "$registry_alias" --write
  if [ "$skopeo_setup" = 0 ] && [ "$code" = 0 ] && python3 -c 'import json, sys
helpers = json.load(open(sys.argv[1]))["credHelpers"]
sys.exit(helpers != {sys.argv[2]: "versola", sys.argv[3]: "versola"})' "$DOCKER_CONFIG/config.json" "$registry" "$registry_alias"; then
    record "versola setup-docker" writes pass
  else
    record "versola setup-docker" writes fail "exit $skopeo_setup/$code; config.json: $(head -c 300 "$DOCKER_CONFIG/config.json")"
  fi
  local failed=""
  for mount in "${python_mounts[@]}"; do
    run "setup-$mount" "$versola" setup-pip --profile "$mount" --url "$pypi/$mount/"
    [ "$code" = 0 ] || failed+="--profile $mount: exit $code: $(said); "
  done
  if [ -z "$failed" ]; then record "versola setup-pip" writes pass; else record "versola setup-pip" writes fail "$failed"; fi
  [ -n "$have_cargo" ] || return 0
  mkdir -p "$work/consumer/src" "$work/consumer/.cargo"
  printf '[package]\nname = "consumer"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n%s = { version = "1", registry = "loopback" }\n' \
    "$crate" >"$work/consumer/Cargo.toml"
  echo 'pub fn nothing() {}' >"$work/consumer/src/lib.rs"
  run setup-cargo "$versola" setup-cargo --profile cargo --registry loopback --index "sparse+http://127.0.0.1:$cargo_port/index/"
  cp "$out" "$work/consumer/.cargo/config.toml"
  if [ "$code" = 0 ] && grep -q '^credential-provider = \["/' "$out" && grep -q "^index = \"sparse+http://127.0.0.1:$cargo_port/index/\"" "$out"; then
    record "versola setup-cargo" writes pass
  else
    record "versola setup-cargo" writes fail "exit $code: $(said); printed: $(head -c 300 "$out")"
  fi
}

# The number of token requests the test provider has answered (its request log).
token_requests() {
  curl -s "$issuer/_admin/requests" | python3 -c 'import json, sys
print(sum(1 for r in json.load(sys.stdin)["requests"] if r["endpoint"] == "token"))'
}

# wait_until_stale: until every profile's newest token is inside versola's renewal margin.
wait_until_stale() {
  local seconds
  seconds=$(curl -s "$issuer/_admin/requests" | python3 -c 'import json, sys, time
last = max(r["at"] for r in json.load(sys.stdin)["requests"] if r["endpoint"] == "token")
print(max(0, int(last + float(sys.argv[1]) + 2 - time.time()) + 1))' "$served_for")
  echo "waiting $seconds s for the newest access token to come within versola's renewal margin"
  sleep "$seconds"
}

report() {
  printf '%s\n' "${results[@]}" >"$work/results.tsv"
  printf '%s\n' "${results[@]}" >>"$tsv"
  python3 "$here/tools/report.py" "$work/results.tsv"
  local status=$?
  echo "tools: ${#results[@]} checks, $failures failed, in $(($(date +%s) - started)) s"
  [ "$status" = 0 ] && [ "$failures" = 0 ]
  exit $?
}
