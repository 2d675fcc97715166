# shellcheck shell=bash
# Sourced by Conformance/interop/tools.sh: pip (both keyring modes), uv (both of its keyring
# modes) and twine against pypiserver behind our auther (tools/pypi_index.py), each on its own
# mount of the index and its own profile, through the keyring backend integrations/keyring.
# shellcheck disable=SC2154,SC2317  # set by tools.sh and setup.sh; called by name

# Each function runs its client once; $1 tells runs apart. The package's 1.0 is in the index.
pip_import() {
  run "pip-import-$1" "$venv/bin/pip" download --no-deps --no-input --no-cache-dir --keyring-provider import \
    --index-url "$pypi/pip-import/simple/" -d "$work/downloads/import-$1" "$package==1.0"
  [ "$code" != 0 ] || [ -f "$work/downloads/import-$1/versola_tools_hello-1.0-py3-none-any.whl" ] || code=100
}
# pip skips a keyring command in its own environment: this pip has none, and finds the
# tools environment's on PATH.
pip_subprocess() {
  run "pip-subprocess-$1" "$pip_venv/bin/pip" download --no-deps --no-input --no-cache-dir --keyring-provider subprocess \
    --index-url "$pypi/pip-subprocess/simple/" -d "$work/downloads/subprocess-$1" "$package==1.0"
  [ "$code" != 0 ] || [ -f "$work/downloads/subprocess-$1/versola_tools_hello-1.0-py3-none-any.whl" ] || code=100
}
installed_version() { "$work/target/bin/python" -c 'import versola_tools_hello as m; print(m.VERSION)' 2>/dev/null; }
# uv with the user in the index URL runs `keyring get URL oauth2` (one line back).
uv_user() {
  run "uv-user-$1" uv pip install --reinstall --no-cache --python "$work/target/bin/python" --keyring-provider subprocess \
    --index-url "http://oauth2@127.0.0.1:$pypi_port/uv-user/simple/" "$package==1.0"
  [ "$code" != 0 ] || [ "$(installed_version)" = 1.0 ] || code=100
}
# Without a user, only an index with authenticate = "always": `keyring get URL --mode creds`.
uv_always() {
  run "uv-always-$1" uv pip install --reinstall --no-cache --config-file "$work/uv-always.toml" --python "$work/target/bin/python" \
    --keyring-provider subprocess "$package==1.0"
  [ "$code" != 0 ] || [ "$(installed_version)" = 1.0 ] || code=100
}
# twine uploads version 1.$1 and the index must then hold it.
twine_upload() {
  "$venv/bin/python" "$here/tools/wheel.py" "$work/dist-$1" "$package" "1.$1" >/dev/null
  run "twine-$1" twine upload --non-interactive --disable-progress-bar --config-file /dev/null \
    --repository-url "$pypi/twine/" "$work/dist-$1/versola_tools_hello-1.$1-py3-none-any.whl"
  [ "$code" != 0 ] || [ -f "$work/packages/versola_tools_hello-1.$1-py3-none-any.whl" ] || code=100
}
# CLIENT:FUNCTION:PROFILE (the profile is the index mount's name)
python_clients=("pip import:pip_import:pip-import" "pip subprocess:pip_subprocess:pip-subprocess"
  "uv user in URL:uv_user:uv-user" "uv authenticate always:uv_always:uv-always" "twine:twine_upload:twine")
client_of() { echo "${1%%:*}"; }
function_of() { local rest=${1#*:}; echo "${rest%%:*}"; }
profile_of() { echo "${1##*:}"; }

gets_in_python() {
  "$venv/bin/python" -m venv --without-pip "$work/target"
  printf '[[index]]\nname = "loopback"\nurl = "%s/uv-always/simple/"\ndefault = true\nauthenticate = "always"\n' "$pypi" \
    >"$work/uv-always.toml"
  local entry
  for entry in "${python_clients[@]}"; do
    "$(function_of "$entry")" 1
    if [ "$code" = 0 ]; then record "$(client_of "$entry")" gets-in pass; else record "$(client_of "$entry")" gets-in fail "exit $code: $(said)"; fi
  done
  # A URL no target covers: versola answers nothing, and so does the backend (keyring exits 1).
  run keyring-unserved keyring get "http://127.0.0.1:$pypi_port/not-served/simple/" oauth2
  if [ "$code" = 1 ] && [ ! -s "$out" ]; then
    record versola-keyring falls-through pass
  else
    record versola-keyring falls-through fail "keyring get for a URL versola does not serve: exit $code"
  fi
}

refresh_python() {
  local entry
  for entry in "${python_clients[@]}"; do refresh_check "$(client_of "$entry")" "$(function_of "$entry")"; done
}

no_session_python() {
  run credential-no-session "$versola" credential --url "$pypi/pip-import/simple/"
  if [ "$code" = 4 ] && [ ! -s "$out" ] && [ -s "$err" ]; then
    record "versola credential" no-session pass "exit 4, the reason on stderr"
  else
    record "versola credential" no-session fail "exit $code (expected 4, nothing on stdout, a reason on stderr)"
  fi
  local entry
  for entry in "${python_clients[@]}"; do
    "$(function_of "$entry")" 9
    # pip keeps its keyring command's standard error to itself.
    case "$entry" in
      *:pip_subprocess:*) refused "$(client_of "$entry")" "$(profile_of "$entry")" --reason-hidden "pip hides the reason" ;;
      *) refused "$(client_of "$entry")" "$(profile_of "$entry")" ;;
    esac
  done
}
