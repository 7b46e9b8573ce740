#!/bin/sh
# setup.sh - install what building, running and testing sbtmark needs.
# Idempotent: installs only missing Debian packages.  Needs root (or sudo).
# g++: the C++ call-site test; chromium: renders the HTML report in tests;
# libtrilinos-kokkos-dev: Kokkos apps recorded through Kokkos Tools.
set -eu

pkgs="gcc make meson ninja-build pkg-config python3
libunwind-dev libdw-dev libelf-dev libpfm4-dev zlib1g-dev
likwid libpapi-dev openmpi-bin libopenmpi-dev gfortran
python3-numpy python3-scipy python3-sklearn
clang libclang-rt-14-dev libomp-14-dev libtbb-dev
gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
g++ chromium libtrilinos-kokkos-dev"

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "setup: installing$missing" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
