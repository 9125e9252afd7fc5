#!/usr/bin/env bash
# Installs the real engine CLIs that abp's adapters are written for and its real-engine tests run, each at the version
# packages/grader/data/real-engines.json pins, into .tools/engines/<engine>/: an npm package with npm (a wrapper whose
# platform package holds the native binary the adapter runs), a PyPI package into a virtual environment of Debian's
# /usr/bin/python3 (the sandbox binds /usr, so the environment's interpreter is there inside it too), with every
# package at the version packages/grader/data/real-engines/<engine>.txt names. An engine already installed at its pin
# is left alone; a new pin is installed beside the old one and swapped in whole, so an interrupted run leaves the
# previous one.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=.tools/engines
mkdir -p "$root"

# Runs the install command that follows into a fresh folder beside the engine's, then swaps it in. `pinned` says what
# the install is of; it is kept in the install, and an install of the same is left alone.
install_into() {
  local name=$1 pinned=$2 dir="$root/$1"
  shift 2
  if [ "$(cat "$dir/.pinned" 2>/dev/null)" = "$pinned" ]; then return; fi
  echo "install-engines: installing $name ($pinned)"
  # Not local: the EXIT trap reads it after a failure ends the script.
  fresh=$(mktemp -d "$root/.$name.XXXXXX")
  # A failed download (a full disk, a registry that went away) leaves nothing half-installed behind.
  trap 'rm -rf "$fresh"' EXIT
  "$@" "$fresh"
  echo "$pinned" > "$fresh/.pinned"
  rm -rf "$dir.old"
  if [ -d "$dir" ]; then mv "$dir" "$dir.old"; fi
  mv "$fresh" "$dir"
  trap - EXIT
  rm -rf "$dir.old"
}

npm_install() {
  local spec=$1 into=$2
  echo '{"private": true}' > "$into/package.json"
  # --no-save: the pin is the spec. --ignore-scripts: a download runs nothing here; the binary is used in place.
  npm install --prefix "$into" --no-audit --no-fund --no-save --ignore-scripts --loglevel=error "$spec" >/dev/null
}

# Every package at its constraint's version, not only the engine's own: the clients whose usage fields the translators
# read (openai, LiteLLM) are among them.
pypi_install() {
  local spec=$1 constraints=$2 into=$3
  # Made here and then moved: its entry scripts' shebangs name this folder, so the adapters run them with the venv's
  # python3 (which finds its pyvenv.cfg wherever the venv is).
  /usr/bin/python3 -m venv "$into"
  "$into/bin/python3" -m pip install --quiet --disable-pip-version-check --no-input --constraint "$constraints" "$spec"
}

pins=$(node -e '
  const { engines } = require("./packages/grader/data/real-engines.json");
  for (const [name, pin] of Object.entries(engines))
    console.log(pin.npm ? `${name} npm ${pin.npm}@${pin.version}` : `${name} pypi ${pin.pypi}==${pin.version}`);
')
while read -r name registry spec; do
  if [ "$registry" = npm ]; then
    install_into "$name" "$spec" npm_install "$spec"
  else
    # Another Debian python3 under the venv, or other constraints, is another install.
    constraints="packages/grader/data/real-engines/$name.txt"
    pinned="$spec on $(/usr/bin/python3 --version), constraints $(sha256sum "$constraints" | cut -c1-16)"
    install_into "$name" "$pinned" pypi_install "$spec" "$constraints"
  fi
done <<< "$pins"
