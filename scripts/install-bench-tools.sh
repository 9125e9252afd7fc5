#!/usr/bin/env bash
# The tools the benchmarks compare abp with, from Debian: nginx (bench/serve.ts serves the same bytes with it) and wrk
# (the load generator). Not part of scripts/setup.sh: the tests never need them. Idempotent; installing nginx starts
# no service here, and the bench runs its own nginx in the foreground with a configuration of its own.
set -euo pipefail
need=()
command -v nginx >/dev/null || need+=(nginx-light)
command -v wrk >/dev/null || need+=(wrk)
if [ ${#need[@]} -eq 0 ]; then
  echo "install-bench-tools: nginx and wrk are installed"
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-bench-tools: installing ${need[*]} needs root: run this script as root, or install them yourself" >&2; exit 1; }
  sudo=sudo
fi
echo "install-bench-tools: installing ${need[*]} from Debian"
$sudo apt-get update -qq
# policy-rc.d-style guard: a package's maintainer script must not start nginx as a system service.
RUNLEVEL=1 DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
