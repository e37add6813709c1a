#!/bin/sh
# Installs the Debian packages gsearch builds with, when any is missing. Idempotent; run as
# root (or with sudo). CUDA is optional and not installed here; Open MPI is optional for the
# build (GSEARCH_MPI=AUTO) and installed so that matches and tournaments run under mpirun.
set -eu
pkgs="cmake g++ make pkg-config libeigen3-dev doctest-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev libcpp-httplib-dev libssl-dev python3 libopenmpi-dev openmpi-bin"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "installing:$missing" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
