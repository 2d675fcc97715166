# shellcheck shell=bash
# Sourced by Conformance/interop/tools.sh: the machine's cargo against the sparse index with
# "auth-required": true (tools/cargo_index.py), with versola as the registry's credential
# provider (the config setup-cargo printed, in the consumer crate's .cargo/config.toml).
# shellcheck disable=SC2154,SC2016,SC2317  # set by tools.sh and setup.sh; single-quoted on purpose; called by name

cargo_in() { # NAME SUBCOMMAND...: cargo in the consumer crate, where its config is found
  run "cargo-$1" bash -c 'cd "$0" && exec cargo "$@"' "$work/consumer" "${@:2}"
}
cargo_lockfile() {
  cargo_in "lockfile-$1" generate-lockfile
  [ "$code" != 0 ] || grep -q "name = \"$crate\"" "$work/consumer/Cargo.lock" || code=100
}

gets_in_cargo() {
  [ -n "$have_cargo" ] || return 0
  cargo_lockfile 1
  local lockfile=$code lockfile_said
  lockfile_said=$(said)
  cargo_in fetch fetch
  if [ "$lockfile" = 0 ] && [ "$code" = 0 ] && compgen -G "$CARGO_HOME/registry/cache/*/$crate-1.0.0.crate" >/dev/null; then
    record cargo gets-in pass "generate-lockfile, fetch"
  else
    record cargo gets-in fail "generate-lockfile exit $lockfile ($lockfile_said), fetch exit $code ($(said))"
  fi
}

refresh_cargo() {
  [ -n "$have_cargo" ] || return 0
  refresh_check cargo cargo_lockfile
}

no_session_cargo() {
  [ -n "$have_cargo" ] || return 0
  cargo_lockfile 9
  refused cargo cargo
}
