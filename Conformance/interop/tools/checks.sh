# shellcheck shell=bash
# Sourced by Conformance/interop/tools.sh: the checks, client by client and phase by phase.
# Every client runs with no standard input, so nothing can be typed; its output is kept in
# $work/out/ for the leak scan and for a look with VERSOLA_INTEROP_KEEP=1.
# shellcheck disable=SC2154  # set by tools.sh and setup.sh, which run first

# --- helpers

json_check() { # FILE PYTHON-EXPRESSION-ON-d: whether the whole file is JSON and the expression holds
  python3 -c 'import json, sys
try:
    d = json.load(open(sys.argv[1]))
except ValueError:
    sys.exit(1)
sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2" 2>/dev/null
}
clean_failure() { # NAME-OF-OUTPUTS: no stack trace or panic in what a refused client printed
  ! grep -qE 'Traceback|panicked|goroutine [0-9]+|Stack backtrace' "$out" "$err"
}
# refused CLIENT PROFILE [--reason-hidden]: the run just made, with no session, failed without
# a stack trace and (unless the client hides it) showed the person versola's sign-in line.
refused() {
  if [ "$code" = 0 ] || [ "$code" = 100 ] || [ "$code" = 124 ]; then
    record "$1" no-session fail "exit $code: $(said)"
  elif ! clean_failure; then
    record "$1" no-session fail "a stack trace or panic: $(said)"
  elif [ "${3:-}" != --reason-hidden ] && ! grep -qF "versola login --profile $2" "$err"; then
    record "$1" no-session fail "the sign-in line (versola login --profile $2) did not reach the person: $(said)"
  else
    record "$1" no-session pass "${4:-}"
  fi
}
# Whether a client said anything of a sign-in or a refresh (a silent refresh says nothing).
spoke_of_sign_in() { grep -qiE 'sign in|signed in|versola (login|token)|browser|passphrase|refresh' "$1"; }

# refresh_check CLIENT FUNCTION: the tokens are stale; FUNCTION 1 (a run of the client) must
# make exactly one token request and say nothing of it, FUNCTION 2 right after it none.
refresh_check() {
  local client=$1 function=$2 before middle after first first_err
  before=$(token_requests)
  "$function" 2
  first=$code first_err=$err
  middle=$(token_requests)
  "$function" 3
  after=$(token_requests)
  if [ "$first" != 0 ] || [ "$code" != 0 ]; then
    record "$client" refresh fail "exit $first then $code: $(said)"
  elif [ $((middle - before)) != 1 ]; then
    record "$client" refresh fail "$((middle - before)) token requests on a stale token, expected one refresh"
  elif [ $((after - middle)) != 0 ]; then
    record "$client" refresh fail "the run after the refresh made $((after - middle)) token requests, expected none"
  elif spoke_of_sign_in "$first_err"; then
    record "$client" refresh fail "not silent: $(head -c 200 "$first_err")"
  else
    record "$client" refresh pass
  fi
}

# parallel CLIENT COMMAND...: four runs at once on a stale token make one refresh.
parallel() {
  local client=$1 before after index failed=0 pids=() pid
  shift
  before=$(token_requests)
  for index in 1 2 3 4; do
    timeout 180 "${@//PARALLEL-INDEX/$index}" </dev/null >"$work/out/parallel-$client-$index.out" 2>"$work/out/parallel-$client-$index.err" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || failed=$((failed + 1)); done
  after=$(token_requests)
  if [ "$failed" != 0 ]; then
    record "$client" parallel fail "$failed of 4 runs failed: $(head -c 200 "$work/out/parallel-$client-1.err")"
  elif [ $((after - before)) != 1 ]; then
    record "$client" parallel fail "$((after - before)) token requests for four parallel runs, expected one refresh"
  else
    record "$client" parallel pass "4 runs, 1 refresh"
  fi
}

# --- the keyring package

keyring_package() {
  rm -rf "$work/keyring-src"
  cp -r "$here/../../integrations/keyring" "$work/keyring-src"
  run keyring-install "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-input --no-deps \
    --no-build-isolation --force-reinstall "$work/keyring-src"
  [ "$code" = 0 ] || { record versola-keyring unit fail "did not install: $(said)"; return; }
  run keyring-unit "$venv/bin/python" -m unittest discover -s "$work/keyring-src/tests"
  local ran
  ran=$(grep -Eo 'Ran [0-9]+ tests' "$err")
  if [ "$code" = 0 ] && grep -q '^OK' "$err"; then record versola-keyring unit pass "$ran"; else record versola-keyring unit fail "$ran: $(tail -n 3 "$err" | tr '\n' ' ')"; fi
  run keyring-backends keyring --list-backends
  if grep -q '^versola_keyring.backend.VersolaKeyring (priority: 9)' "$out"; then
    record versola-keyring chosen pass
  else
    record versola-keyring chosen fail "keyring --list-backends: $(tr '\n' ' ' <"$out")"
  fi
}

# --- every client

no_leak() {
  local files=("$work"/out/* "$work"/*.log "$work"/*.out)
  run leak-scan python3 "$here/tools/leak_scan.py" "$TOOLS_TOKEN_HASHES" "${files[@]}"
  if [ "$code" = 0 ]; then
    record "all clients" no-leak pass "$(tail -n 1 "$out")"
  else
    record "all clients" no-leak fail "$(tr '\n' ' ' <"$out" | cut -c1-300)"
  fi
}

# fixture_statuses TOKEN: the status each fixture answers a request carrying TOKEN with (the
# token service and the index take it as a Basic password, the sparse index as Bearer), read
# through curl's config on a pipe so that the token is on no command line.
fixture_statuses() {
  local statuses="" url scheme
  for url in "token http://127.0.0.1:$token_port/token?service=versola-tools-registry" \
    "basic $pypi/pip-import/simple/" "bearer http://127.0.0.1:$cargo_port/index/config.json"; do
    scheme=${url%% *} url=${url#* }
    if [ "$scheme" = bearer ]; then
      statuses+=" $(curl -s -o /dev/null -w '%{http_code}' -K <(printf 'header = "Authorization: Bearer %s"\n' "$1") "$url")"
    else
      statuses+=" $(curl -s -o /dev/null -w '%{http_code}' -K <(printf 'user = "oauth2:%s"\n' "$1") "$url")"
    fi
  done
  echo "${statuses# }"
}

no_session_all() {
  local profile held live
  # A token that was live, to show the fixtures refuse it once the session is gone.
  held=$("$versola" token --profile skopeo 2>/dev/null)
  live=$(fixture_statuses "$held")
  for profile in skopeo docker-cli "${python_mounts[@]}" cargo; do
    run "logout-$profile" "$versola" logout --profile "$profile"
  done
  local revoked made_up
  revoked=$(fixture_statuses "$held")
  made_up=$(fixture_statuses not-a-token-of-the-provider)
  if [ "$live" = "200 200 200" ] && [ "$revoked" = "401 401 401" ] && [ "$made_up" = "401 401 401" ]; then
    record fixtures live-only pass "a live token 200; after logout and a made-up one 401 (not 403)"
  else
    record fixtures live-only fail "token service, index, sparse index: live $live, after logout $revoked, made up $made_up"
  fi
  no_session_docker
  no_session_python
  no_session_cargo
}
