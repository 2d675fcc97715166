#!/usr/bin/env bash
# Installs the system libraries Versola builds against, when they are missing.
# Idempotent and quick when everything is present: it asks dpkg first and only
# calls apt-get for what is absent. VERSOLA_EXTRA_PACKAGES adds more (space-separated), e.g.
# the linter for scripts/shellcheck.sh.
set -euo pipefail

packages=(libssl-dev libcurl4-openssl-dev pkg-config)
# shellcheck disable=SC2206  # word splitting of the space-separated list is the point
packages+=(${VERSOLA_EXTRA_PACKAGES:-})
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "installing: ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
