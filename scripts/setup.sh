#!/usr/bin/env bash
# Installs everything abp and its tests need on a fresh Debian machine, idempotently:
# system packages (Java + Maven for the test server, PostgreSQL for the Postgres test suite,
# Go, Rust and pytest for the simulator's live repositories' real test suites), node modules
# from the lockfile, the two Temporal servers (scripts/install-temporal.sh), the pinned real
# engine CLIs (scripts/install-engines.sh), and the build of every package (`tsc -b`,
# incremental), which the `abp` command and the worker run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Node.js is the one thing this script does not install: Debian's own is too old for abp.
if ! command -v node >/dev/null; then
  echo "setup: abp needs Node.js 20.19 or newer (with npm); install it first, e.g. from your distribution's nodejs 20+ packages or nodejs.org" >&2
  exit 1
fi
if ! node -e 'const [major, minor] = process.versions.node.split(".").map(Number); process.exit(major > 20 || (major === 20 && minor >= 19) ? 0 : 1)'; then
  echo "setup: abp needs Node.js 20.19 or newer; this is $(node --version)" >&2
  exit 1
fi

need=()
command -v git >/dev/null || need+=(git)
# The real-engine tests script a curl inside the sandbox, at a host its egress proxy must refuse.
command -v curl >/dev/null || need+=(curl)
command -v python3 >/dev/null || need+=(python3 python3-pip)
python3 -m pip --version >/dev/null 2>&1 || need+=(python3-pip)
# The Python engines (Hermes Agent, mini-swe-agent) live in virtual environments of Debian's python3.
/usr/bin/python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || need+=(python3-venv)
command -v java >/dev/null || need+=(default-jre-headless)
command -v mvn >/dev/null || need+=(maven)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || need+=(postgresql)
command -v go >/dev/null || need+=(golang-go)
command -v cargo >/dev/null || need+=(cargo)
# The grader's sandboxed execution policy runs trials under bubblewrap.
command -v bwrap >/dev/null || need+=(bubblewrap)
# Environments: Debian bases built with mmdebstrap, OCI archives read back with skopeo.
command -v mmdebstrap >/dev/null || need+=(mmdebstrap)
command -v skopeo >/dev/null || need+=(skopeo)
# Normalized diff sizes canonicalize Rust with rustfmt (Debian's cargo does not bring it).
command -v rustfmt >/dev/null || need+=(rustfmt)
# C and C++ suites: the runner tests build a CMake project against Debian's GoogleTest and run CTest.
command -v cmake >/dev/null || need+=(cmake)
command -v ninja >/dev/null || need+=(ninja-build)
command -v g++ >/dev/null || need+=(g++)
[ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]} from Debian"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: installing ${need[*]} needs root: run this script as root, or install them yourself" >&2; exit 1; }
    sudo=sudo
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if ! python3 -m pytest --version >/dev/null 2>&1; then
  echo "setup: installing pytest from PyPI"
  python3 -m pip install --quiet pytest || python3 -m pip install --quiet --break-system-packages pytest
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
bash scripts/install-temporal.sh
bash scripts/install-engines.sh

# The S3 run store's integration test talks to moto's server (the S3 wire protocol on a local port), from PyPI into a
# virtual environment of Debian's python3 at .tools/moto; pip reads the machine's own configuration (index,
# certificates). Made in place, since its scripts' shebangs name the folder, and marked with its pin last, so an
# interrupted install is redone and one at the pin is left alone.
moto_pin='moto[server]==5.2.6'
moto_pinned="$moto_pin on $(/usr/bin/python3 --version)"
if [ "$(cat .tools/moto/.pinned 2>/dev/null)" != "$moto_pinned" ]; then
  echo "setup: installing $moto_pin from PyPI into .tools/moto"
  rm -rf .tools/moto
  /usr/bin/python3 -m venv .tools/moto
  .tools/moto/bin/python3 -m pip install --quiet --disable-pip-version-check --no-input "$moto_pin"
  echo "$moto_pinned" > .tools/moto/.pinned
fi

npm run --silent build
