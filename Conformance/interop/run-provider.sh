#!/usr/bin/env bash
# The any-provider runner: checks the real `versola` command against an OpenID Provider.
#
# usage: run-provider.sh --issuer URL --client-id ID --login-command 'CMD %s'
#                        [--port N] [--redirect-path PATH] [--dpop|--no-dpop] [--name NAME]
#                        [--ca-file PATH] [--scope S]... [--prompt P] [--resource URL|userinfo]
#                        [--versola PATH] [--tsv FILE] [--no-agent] [--timeout SECONDS] [--keep]
#                        [--known-failure 'FEATURE=REASON']... [--device-approve-command 'CMD %s']
#
# Register a public client at the provider first (loopback redirect URI; with a provider
# that matches the port exactly, register `http://127.0.0.1:N/callback` and pass --port N).
# The login command plays the person: it gets the authorization URL in place of `%s` and
# must drive the provider's login and consent until the provider redirects to the loopback
# listener (for a provider that logs in by itself, `curl -sL -o /dev/null %s` is enough).
#
# Runs every scenario that needs no fault injection, each in order on one profile, in
# isolated XDG directories (a temporary directory, removed at the end unless --keep),
# through the session agent (its socket in that directory) unless --no-agent:
#   login       discovery, PAR when advertised, PKCE, the loopback redirect, the code exchange
#               and ID token validation, DPoP binding with --dpop (`versola login`)
#   status      the session reads as authenticated, with a subject (`versola status --json`)
#   token       an access token, DPoP-bound with --dpop (`versola token --format json`)
#   userinfo    UserInfo with the ID token's subject (`versola userinfo`)
#   request     with --resource: a GET of that URL with the access token, DPoP-bound with
#               --dpop, answered 2xx (`versola request --json`); `userinfo` names the
#               provider's UserInfo endpoint (from discovery)
#   refresh     two forced refreshes in a row, each a new access token: the second one uses
#               the refresh token the first rotated in (`versola token --force-refresh`)
#   logout      `versola logout`, then status unauthenticated and `token` refused (exit 4)
#   revocation  the provider refused the refresh token logout revoked: the session files
#               saved just before logout are put back and a forced refresh must fail with 4
#               (with --no-agent a logout may first refresh to get an access token for the
#               revocation, and a provider with refresh-token reuse detection then refuses the
#               saved token whether or not it revoked: run with the agent, the default)
#   device      with --device-approve-command: `versola login --device` on a profile of its
#               own (RFC 8628); the command plays the person on the other device: it gets the
#               page that holds the user code (verification_uri_complete) in place of `%s`
#               and must approve it; then the login exits 0 and `versola token` gives a token
#               (of type DPoP with --dpop)
#
# --ca-file, --scope and --prompt are handed to `versola login` (a private CA; scopes and a
# prompt instead of the defaults).
#
# Prints `provider × feature: pass|fail` lines (a reason after a failure) and appends the
# same as TSV (provider, feature, result, detail) to --tsv FILE when given. A feature whose
# prerequisite failed is a fail with the reason `needs …`. --known-failure marks a feature
# the provider is known to break (a provider bug, documented in its notes): its failure is
# reported as `known-fail` with the reason and does not fail the run. Exit status: 0 when
# every feature passed or failed as known, 1 when one failed, 2 for a usage error.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

issuer="" client_id="" login_command="" port="" redirect_path="" dpop="" name="" versola=""
tsv="" agent=1 timeout_seconds=60 keep=0 ca_file="" prompt="" resource="" device_approve=""
known=() scopes=()
usage() { sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --issuer) issuer=${2:-}; shift 2 ;;
    --client-id) client_id=${2:-}; shift 2 ;;
    --login-command) login_command=${2:-}; shift 2 ;;
    --port) port=${2:-}; shift 2 ;;
    --redirect-path) redirect_path=${2:-}; shift 2 ;;
    --dpop) dpop=--dpop; shift ;;
    --no-dpop) dpop=--no-dpop; shift ;;
    --name) name=${2:-}; shift 2 ;;
    --ca-file) ca_file=${2:-}; shift 2 ;;
    --scope) scopes+=("${2:-}"); shift 2 ;;
    --prompt) prompt=${2:-}; shift 2 ;;
    --resource) resource=${2:-}; shift 2 ;;
    --versola) versola=${2:-}; shift 2 ;;
    --tsv) tsv=${2:-}; shift 2 ;;
    --agent) agent=1; shift ;;
    --no-agent) agent=0; shift ;;
    --timeout) timeout_seconds=${2:-}; shift 2 ;;
    --keep) keep=1; shift ;;
    --known-failure) known+=("${2:-}"); shift 2 ;;
    --device-approve-command) device_approve=${2:-}; shift 2 ;;
    -h|--help) usage ;;
    *) echo "run-provider: unknown argument $1" >&2; usage ;;
  esac
done
if ! { [ -n "$issuer" ] && [ -n "$client_id" ] && [ -n "$login_command" ]; }; then usage; fi
case "$login_command" in *%s*) ;; *) echo "run-provider: --login-command needs %s for the URL" >&2; exit 2 ;; esac
case "$device_approve" in ""|*%s*) ;; *) echo "run-provider: --device-approve-command needs %s for the page" >&2; exit 2 ;; esac
[ -n "$name" ] || name=$(printf '%s' "$issuer" | sed -E 's#^[a-z]+://##; s#/+$##')

if [ -z "$versola" ]; then
  for candidate in "${VERSOLA_BIN:-}" "$root/.build-interop/debug/versola" "$root/.build/debug/versola" "$(command -v versola || true)"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then versola=$candidate; break; fi
  done
fi
if ! { [ -n "$versola" ] && [ -x "$versola" ]; }; then
  echo "run-provider: no versola binary (build it, or pass --versola PATH)" >&2
  exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/versola-interop.XXXXXX")
cleanup() { if [ "$keep" = 1 ]; then echo "run-provider: kept $work" >&2; else rm -rf "$work"; fi; }
trap cleanup EXIT
mkdir -m 700 "$work/config" "$work/data" "$work/state" "$work/cache" "$work/runtime"
export XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" XDG_STATE_HOME="$work/state"
export XDG_CACHE_HOME="$work/cache" XDG_RUNTIME_DIR="$work/runtime" NO_COLOR=1
unset BROWSER DISPLAY WAYLAND_DISPLAY
if [ "$agent" = 1 ]; then
  # The agent keeps the access token in memory between commands (P4), as for a user; it
  # exits by itself when idle, and the run waits for that before it ends.
  export VERSOLA_AGENT_IDLE_TIMEOUT=${VERSOLA_AGENT_IDLE_TIMEOUT:-2}
  unset VERSOLA_NO_AGENT
else
  export VERSOLA_NO_AGENT=1
fi
profile=interop

# The browser: the login command with the URL, its output kept for the failure report
# (the engine starts the browser with its output discarded).
quoted_command=${login_command//%s/\"\$1\"}
cat >"$work/browser.sh" <<EOF
#!/usr/bin/env bash
exec >>"$work/login.log" 2>&1
echo "login command: opening the authorization URL"
$quoted_command
status=\$?
echo "login command: exit \$status"
exit \$status
EOF
chmod 700 "$work/browser.sh"
if [ -n "$device_approve" ]; then
  quoted_approve=${device_approve//%s/\"\$1\"}
  cat >"$work/device-approve.sh" <<EOF
#!/usr/bin/env bash
exec >>"$work/device.log" 2>&1
echo "device approve command: opening the verification page"
$quoted_approve
status=\$?
echo "device approve command: exit \$status"
exit \$status
EOF
  chmod 700 "$work/device-approve.sh"
fi

results=()
failures=0
record() { # feature result detail
  local result=$2 detail=${3:-} entry
  if [ "$result" = fail ]; then
    for entry in "${known[@]}"; do
      if [ "${entry%%=*}" = "$1" ]; then
        result="known-fail"
        detail="${entry#*=}${detail:+ (observed: $detail)}"
      fi
    done
  fi
  local line="$name × $1: $result"
  [ -n "$detail" ] && line+=" ($detail)"
  echo "$line"
  results+=("$name"$'\t'"$1"$'\t'"$result"$'\t'"$detail")
  [ "$result" = fail ] && failures=$((failures + 1))
  return 0
}

# Runs versola with a time limit; output in $out, status in $code.
run() {
  out=$(timeout "$timeout_seconds" "$versola" "$@" </dev/null 2>"$work/stderr")
  code=$?
  err=$(tr '\n' ' ' <"$work/stderr" | cut -c1-300)
}
json_field() { # JSON text, then a path of keys: prints the value or nothing
  python3 "$here/support/json-field.py" "$@"
}
token_of() { # the access token in `versola token --format json` output (or raw)
  local value
  for key in access_token accessToken token; do
    value=$(json_field "$1" "$key")
    [ -n "$value" ] && { printf '%s' "$value"; return; }
  done
  case "$1" in "{"*) ;; *) printf '%s' "$1" ;; esac
}
failure() { echo "exit $code${err:+: $err}"; }

login_args=(login --issuer "$issuer" --client-id "$client_id" --profile "$profile" --json
  --browser-command "$work/browser.sh %s")
[ -n "$port" ] && login_args+=(--port "$port")
[ -n "$redirect_path" ] && login_args+=(--redirect-path "$redirect_path")
[ -n "$dpop" ] && login_args+=("$dpop")
[ -n "$ca_file" ] && login_args+=(--ca-file "$ca_file")
for scope in "${scopes[@]}"; do login_args+=(--scope "$scope"); done
[ -n "$prompt" ] && login_args+=(--prompt "$prompt")

started=$(date +%s%N)

# login: in the background, so that a login command that failed (the provider refused the
# request, the consent went wrong) ends the wait at once instead of after the timeout.
timeout "$timeout_seconds" "$versola" "${login_args[@]}" </dev/null >"$work/login.out" 2>"$work/stderr" &
login_pid=$!
while kill -0 "$login_pid" 2>/dev/null; do
  if grep -qE '^login command: exit [1-9]' "$work/login.log" 2>/dev/null; then
    sleep 1
    kill "$login_pid" 2>/dev/null
    break
  fi
  sleep 0.1
done
wait "$login_pid"
code=$?
out=$(cat "$work/login.out")
err=$(tr '\n' ' ' <"$work/stderr" | cut -c1-300)
if [ "$code" = 0 ]; then
  record login pass
  logged_in=1
else
  detail=$(failure)
  [ -s "$work/login.log" ] && detail+="; login command: $(tail -n 3 "$work/login.log" | tr '\n' ' ' | cut -c1-200)"
  record login fail "$detail"
  logged_in=0
fi

if [ "$logged_in" = 1 ]; then
  # status
  run status --profile "$profile" --json
  state=$(json_field "$out" state)
  subject=$(json_field "$out" user subject)
  if [ "$code" = 0 ] && [ "$state" = authenticated ] && [ -n "$subject" ]; then
    record status pass
  else
    record status fail "$(failure), state ${state:-?}, subject ${subject:-none}"
  fi

  # token
  run token --profile "$profile" --format json
  first=$(token_of "$out")
  kind=$(json_field "$out" token_type)
  [ -n "$kind" ] || kind=$(json_field "$out" tokenType)
  if [ "$code" != 0 ] || [ -z "$first" ]; then
    record token fail "$(failure)"
  elif [ "$dpop" = --dpop ] && [ -n "$kind" ] && [ "${kind,,}" != dpop ]; then
    record token fail "token type $kind, expected DPoP"
  else
    record token pass
  fi

  # userinfo
  run userinfo --profile "$profile" --json
  if [ "$code" = 0 ]; then
    info_subject=$(json_field "$out" sub)
    if [ -n "$subject" ] && [ -n "$info_subject" ] && [ "$info_subject" != "$subject" ]; then
      record userinfo fail "sub $info_subject, the ID token says $subject"
    else
      record userinfo pass
    fi
  else
    record userinfo fail "$(failure)"
  fi

  # request: a resource with the access token (and a DPoP proof with --dpop)
  if [ -n "$resource" ]; then
    target=$resource
    if [ "$target" = userinfo ]; then
      discovery=$(curl -sS ${ca_file:+--cacert "$ca_file"} "${issuer%/}/.well-known/openid-configuration" 2>/dev/null)
      target=$(json_field "$discovery" userinfo_endpoint)
    fi
    if [ -z "$target" ]; then
      record request fail "the provider's discovery names no userinfo_endpoint"
    else
      run request --profile "$profile" --json "$target"
      answer=$(json_field "$out" status)
      case "$code:$answer" in
        0:2??) record request pass ;;
        0:*) record request fail "HTTP ${answer:-?} from $target: $(json_field "$out" body | tr -d '\000-\037' | cut -c1-200)" ;;
        *) record request fail "$(failure)" ;;
      esac
    fi
  fi

  # refresh: twice, each must give a new access token
  run token --profile "$profile" --force-refresh --format json
  second=$(token_of "$out")
  if [ "$code" != 0 ] || [ -z "$second" ]; then
    record refresh fail "first forced refresh: $(failure)"
  else
    run token --profile "$profile" --force-refresh --format json
    third=$(token_of "$out")
    if [ "$code" != 0 ] || [ -z "$third" ]; then
      record refresh fail "second forced refresh (with the rotated refresh token): $(failure)"
    elif [ "$second" = "$first" ] || [ "$third" = "$second" ]; then
      record refresh fail "a forced refresh returned the same access token"
    else
      record refresh pass
    fi
  fi

  # logout, keeping a copy of the session files to check the revocation afterwards
  mkdir "$work/before-logout" && cp -a "$work/config" "$work/data" "$work/state" "$work/before-logout/"
  run logout --profile "$profile"
  logout_code=$code
  logout_failure=$(failure)
  run status --profile "$profile" --json
  state=$(json_field "$out" state)
  run token --profile "$profile" --format json
  if [ "$logout_code" != 0 ]; then
    record logout fail "$logout_failure"
  elif [ "$state" != unauthenticated ]; then
    record logout fail "state after logout: ${state:-?}"
  elif [ "$code" != 4 ]; then
    record logout fail "token after logout: exit $code, expected 4"
  else
    record logout pass
  fi

  # revocation: the pre-logout session files must hold a refresh token the provider refuses
  rm -rf "$work/config" "$work/data" "$work/state" && cp -a "$work/before-logout/." "$work/"
  VERSOLA_NO_AGENT=1 run token --profile "$profile" --force-refresh --format json
  case "$code" in
    4) record revocation pass ;;
    0) record revocation fail "the provider still honours the refresh token revoked at logout" ;;
    *) record revocation fail "$(failure)" ;;
  esac
  rm -rf "$work/before-logout"
else
  needed=(status token userinfo)
  [ -n "$resource" ] && needed+=(request)
  for feature in "${needed[@]}" refresh logout revocation; do record "$feature" fail "needs login"; done
fi

# device: a sign-in on another device (RFC 8628), on a profile of its own, in the background
# while the approve command plays the person at the page that holds the code.
if [ -n "$device_approve" ]; then
  device_profile=$profile-device
  device_args=(login --device --issuer "$issuer" --client-id "$client_id" --profile "$device_profile" --json)
  [ -n "$dpop" ] && device_args+=("$dpop")
  [ -n "$ca_file" ] && device_args+=(--ca-file "$ca_file")
  for scope in "${scopes[@]}"; do device_args+=(--scope "$scope"); done
  # Made first: the loop below reads it before the background job may have opened it.
  : >"$work/device.err"
  timeout "$timeout_seconds" "$versola" "${device_args[@]}" </dev/null >"$work/device.out" 2>"$work/device.err" &
  device_pid=$!
  page=""
  while kill -0 "$device_pid" 2>/dev/null; do
    page=$(awk 'shown { print $1; exit } /^Or open this page/ { shown = 1 }' "$work/device.err")
    [ -n "$page" ] && break
    sleep 0.1
  done
  approved=1
  if [ -n "$page" ]; then
    "$work/device-approve.sh" "$page" || { approved=0; kill "$device_pid" 2>/dev/null; }
  fi
  wait "$device_pid"
  code=$?
  err=$(tr '\n' ' ' <"$work/device.err" | cut -c1-300)
  if [ -z "$page" ]; then
    record device fail "no page holding the code was shown (no verification_uri_complete?): $(failure)"
  elif [ "$approved" = 0 ]; then
    record device fail "approve command: $(tail -n 3 "$work/device.log" | tr '\n' ' ' | cut -c1-200)"
  elif [ "$code" != 0 ]; then
    record device fail "$(failure)"
  else
    run token --profile "$device_profile" --format json
    device_token=$(token_of "$out")
    kind=$(json_field "$out" tokenType)
    if [ "$code" != 0 ] || [ -z "$device_token" ]; then
      record device fail "token after the device login: $(failure)"
    elif [ "$dpop" = --dpop ] && [ -n "$kind" ] && [ "${kind,,}" != dpop ]; then
      record device fail "token type $kind after the device login, expected DPoP"
    else
      record device pass
    fi
    run logout --profile "$device_profile"
  fi
fi

elapsed_ms=$(( ($(date +%s%N) - started) / 1000000 ))
if [ "$agent" = 1 ]; then
  # The agent removes its socket when it exits after its idle time.
  for _ in $(seq 1 100); do
    [ -e "$XDG_RUNTIME_DIR/versola/agent.sock" ] || break
    sleep 0.1
  done
fi
passed=$(printf '%s\n' "${results[@]}" | awk -F'\t' '$3 == "pass"' | wc -l)
echo "$name: $passed of ${#results[@]} features passed, $failures failed, in ${elapsed_ms} ms"
if [ -n "$tsv" ]; then
  { printf '%s\n' "${results[@]}"; } >>"$tsv"
fi
[ "$failures" = 0 ]
