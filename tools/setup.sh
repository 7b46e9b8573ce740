#!/bin/sh
# setup.sh - install what building sbtmark and running its demo needs;
# with --tests, also what the test suites use (tools/test.sh asks for it).
# Idempotent: installs only missing Debian packages.  Needs root (or sudo).
#   setup.sh          compiler, meson, and the libraries the build links
#                     (libunwind: call stacks; libdw: call sites by line;
#                     libpfm4: event names; zlib: summaries)
#   setup.sh --tests  the above, and: LIKWID, PAPI, MPI and gfortran (the
#                     interposed APIs), numpy/scipy/scikit-learn (checks),
#                     clang + libomp and TBB (OMPT, ITT), an Armv8 cross
#                     compiler and qemu, g++, Chromium (renders the HTML
#                     report), Debian's Kokkos
set -eu

pkgs="gcc make meson ninja-build pkg-config python3
libunwind-dev libdw-dev libelf-dev libpfm4-dev zlib1g-dev"
case "${1:-}" in
--tests)
	pkgs="$pkgs
likwid libpapi-dev openmpi-bin libopenmpi-dev gfortran
python3-numpy python3-scipy python3-sklearn
clang libclang-rt-14-dev libomp-14-dev libtbb-dev
gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
g++ chromium libtrilinos-kokkos-dev" ;;
"") ;;
*)	echo "usage: setup.sh [--tests]" >&2; exit 2 ;;
esac

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
