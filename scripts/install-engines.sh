#!/usr/bin/env bash
# Installs the real engine CLIs that abp's adapters are written for and its real-engine tests run, each at the version
# packages/grader/data/real-engines.json pins, from npm, into .tools/engines/<engine>/. Each npm package is a wrapper
# whose platform package holds the native binary the adapter runs. An engine already installed at its pin is left
# alone; a new pin is installed beside the old one and swapped in whole, so an interrupted run leaves the previous one.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=.tools/engines
mkdir -p "$root"

install_npm() {
  local name=$1 spec=$2 dir="$root/$1"
  if [ "$(cat "$dir/.pinned" 2>/dev/null)" = "$spec" ]; then return; fi
  echo "install-engines: installing $spec from npm"
  # Not local: the EXIT trap reads it after a failure ends the script.
  fresh=$(mktemp -d "$root/.$name.XXXXXX")
  # A failed download (a full disk, a registry that went away) leaves nothing half-installed behind.
  trap 'rm -rf "$fresh"' EXIT
  echo '{"private": true}' > "$fresh/package.json"
  # --no-save: the pin is the spec above. --ignore-scripts: a download runs nothing here; the binary is used in place.
  npm install --prefix "$fresh" --no-audit --no-fund --no-save --ignore-scripts --loglevel=error "$spec" >/dev/null
  echo "$spec" > "$fresh/.pinned"
  rm -rf "$dir.old"
  if [ -d "$dir" ]; then mv "$dir" "$dir.old"; fi
  mv "$fresh" "$dir"
  trap - EXIT
  rm -rf "$dir.old"
}

pins=$(node -e '
  const { engines } = require("./packages/grader/data/real-engines.json");
  for (const [name, pin] of Object.entries(engines)) console.log(`${name} ${pin.npm}@${pin.version}`);
')
while read -r name spec; do install_npm "$name" "$spec"; done <<< "$pins"
