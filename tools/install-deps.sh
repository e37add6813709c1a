#!/bin/sh
# Installs the Debian packages gsearch builds with, when any is missing. Idempotent; run as
# root (or with sudo). CUDA is optional and not installed here; Open MPI is optional for the
# build (GSEARCH_MPI=AUTO) and installed so that matches and tournaments run under mpirun.
#   tools/install-deps.sh [--browser]
# --browser also installs what the browser test of `amazons serve` needs (tests/browser): Debian's
# chromium, node and npm, and playwright-core from npm into tests/browser/node_modules.
set -eu
browser=0
for arg in "$@"; do
  case "$arg" in
    --browser) browser=1 ;;
    *) echo "install-deps.sh: unknown option $arg (--browser)" >&2; exit 2 ;;
  esac
done
# apt-get install of the packages named, as root or through sudo.
apt_install() {
  echo "installing: $*" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
pkgs="cmake g++ make pkg-config libeigen3-dev doctest-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev libcpp-httplib-dev libssl-dev python3 libopenmpi-dev openmpi-bin"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
# shellcheck disable=SC2086  # one word per package
[ -z "$missing" ] || apt_install $missing
if [ "$browser" = 1 ]; then
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || extra="nodejs npm"
  command -v chromium >/dev/null 2>&1 || extra="${extra:-} chromium"
  # shellcheck disable=SC2086
  [ -z "${extra:-}" ] || apt_install $extra
  npm install --prefix "$(dirname "$0")/../tests/browser" --no-audit --no-fund --silent
fi
