# shellcheck shell=bash
# Sourced by Conformance/interop/tools.sh: docker-credential-versola, skopeo and the docker CLI
# against docker-registry with token auth (its token service: tools/registry_token.py).
# shellcheck disable=SC2154,SC2016,SC2317  # set by tools.sh; single-quoted on purpose; called by name

is_credential() { # FILE: one object with exactly ServerURL, Username oauth2 and a non-empty Secret
  json_check "$1" 'sorted(d) == ["Secret", "ServerURL", "Username"] and d["Username"] == "oauth2" and isinstance(d["Secret"], str) and len(d["Secret"]) > 0'
}
helper_get() { # NAME ADDRESS: docker-credential-versola get, as docker runs it
  run "$1" bash -c 'printf "%s\n" "$1" | docker-credential-versola get' _ "$2"
}
skopeo_inspect() { run "$1" skopeo inspect --tls-verify=false "docker://$registry/versola/hello:1"; }
docker_inspect() { run "$1" docker manifest inspect --insecure "$registry_alias/versola/hello:1"; }

gets_in_docker() {
  echo '{"default": [{"type": "insecureAcceptAnything"}]}' >"$work/policy.json"
  "$venv/bin/python" "$here/tools/oci_image.py" "$work/image" 1
  helper_get helper-get "$registry"
  local plain=$code plain_out=$out
  helper_get helper-get-scheme "http://$registry"
  if [ "$plain" = 0 ] && [ "$code" = 0 ] && is_credential "$plain_out" && is_credential "$out"; then
    record docker-credential-versola get pass
  else
    record docker-credential-versola get fail "exit $plain/$code, or stdout not one credential object: $(said)"
  fi
  rm -f "$plain_out" "$out" # they hold a token
  run helper-list docker-credential-versola list
  if [ "$code" = 0 ] && json_check "$out" "d.get('$registry') == 'oauth2' and d.get('$registry_alias') == 'oauth2'"; then
    record docker-credential-versola list pass
  else
    record docker-credential-versola list fail "exit $code: $(head -c 200 "$out")"
  fi
  helper_get helper-unknown registry.invalid:5000
  if [ "$code" = 1 ] && [ "$(cat "$out")" = "credentials not found in native keychain" ]; then
    record docker-credential-versola unknown-host pass
  else
    record docker-credential-versola unknown-host fail "exit $code, stdout: $(head -c 200 "$out")"
  fi

  run skopeo-push skopeo --policy "$work/policy.json" copy --dest-tls-verify=false "oci:$work/image:1" "docker://$registry/versola/hello:1"
  local push=$code push_said
  push_said=$(said)
  run skopeo-pull skopeo --policy "$work/policy.json" copy --src-tls-verify=false "docker://$registry/versola/hello:1" "oci:$work/pulled:1"
  local pull=$code pull_said
  pull_said=$(said)
  skopeo_inspect skopeo-inspect
  if [ "$push" = 0 ] && [ "$pull" = 0 ] && [ "$code" = 0 ]; then
    record skopeo gets-in pass "push, pull, inspect"
  else
    record skopeo gets-in fail "push exit $push ($push_said), pull exit $pull ($pull_said), inspect exit $code ($(said))"
  fi
  if json_check "$out" "d['Name'] == '$registry/versola/hello'" && [ ! -s "$err" ]; then
    record skopeo stdout-json pass
  else
    record skopeo stdout-json fail "inspect's stdout is not one JSON document, or it wrote to stderr: $(head -c 200 "$out")"
  fi
  [ -n "$have_docker" ] || return 0
  docker_inspect docker-inspect
  if [ "$code" = 0 ]; then record "docker CLI" gets-in pass "manifest inspect"; else record "docker CLI" gets-in fail "exit $code: $(said)"; fi
  if json_check "$out" "d['schemaVersion'] == 2 and len(d['layers']) == 1"; then
    record "docker CLI" stdout-json pass
  else
    record "docker CLI" stdout-json fail "manifest inspect's stdout is not the manifest as JSON: $(head -c 200 "$out")"
  fi
}

refresh_docker() {
  skopeo_run() { skopeo_inspect "skopeo-refresh-$1"; }
  refresh_check skopeo skopeo_run
  [ -n "$have_docker" ] || return 0
  docker_run() { docker_inspect "docker-refresh-$1"; }
  refresh_check "docker CLI" docker_run
}

parallel_pulls() {
  parallel skopeo skopeo --policy "$work/policy.json" copy --src-tls-verify=false "docker://$registry/versola/hello:1" "oci:$work/parallel-PARALLEL-INDEX:1"
  [ -n "$have_docker" ] || return 0
  parallel "docker CLI" docker manifest inspect --insecure "$registry_alias/versola/hello:1"
}

no_session_docker() {
  helper_get helper-no-session "$registry"
  if [ "$code" = 1 ] && [ "$(cat "$out")" = "credentials not found in native keychain" ] && [ -s "$err" ]; then
    record docker-credential-versola no-session pass
  else
    record docker-credential-versola no-session fail "exit $code, stdout $(head -c 100 "$out"), stderr $(said)"
  fi
  skopeo_inspect skopeo-no-session
  if [ -s "$out" ] || ! grep -q 'unauthorized' "$err"; then
    record skopeo no-session fail "not the registry's 401, or something on stdout: $(said)"
  else
    refused skopeo skopeo "" 401
  fi
  [ -n "$have_docker" ] || return 0
  docker_inspect docker-no-session
  if [ -s "$out" ] || ! grep -q 'unauthorized' "$err"; then
    record "docker CLI" no-session fail "not the registry's 401, or something on stdout: $(said)"
  else
    refused "docker CLI" docker-cli "" 401
  fi
}
