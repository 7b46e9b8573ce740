#!/bin/sh
# install.sh - meson install into a DESTDIR, then build an instrumented
# app with `pkg-config --cflags sbtmark` alone, record it with the
# installed library and analyze it with the installed sbt-analyze.
#
#   install.sh BUILD_DIR
set -u
build=$(realpath "$1")
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v pkg-config >/dev/null || { echo "no pkg-config: skipped"; exit 77; }

tmp=$(mktemp -d /tmp/sbt-install-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/root
meson install --no-rebuild --quiet -C "$build" --destdir "$dest" \
	> "$tmp/install.out" 2>&1 || fail "meson install: $(cat "$tmp/install.out")"

for f in libsbtmark.so sbt-run sbt-analyze sbt-calibrate sbt-events \
	 sbtmark.h sbtmark.pc sbt-analyze.1 sbt-run.1 sbt-calibrate.1 \
	 sbt-events.1 sbtmark.7; do
	[ -n "$(find "$dest" -name "$f" | head -1)" ] || fail "not installed: $f"
done
pcdir=$(dirname "$(find "$dest" -name sbtmark.pc | head -1)")
bindir=$(dirname "$(find "$dest" -name sbt-analyze | head -1)")

# The app's build knows nothing but pkg-config.
export PKG_CONFIG_PATH="$pcdir" PKG_CONFIG_SYSROOT_DIR="$dest"
cflags=$(pkg-config --cflags sbtmark) || fail "pkg-config --cflags"
libs=$(pkg-config --libs sbtmark) || fail "pkg-config --libs"
cat > "$tmp/app.c" <<'C'
#include <sbtmark.h>
static volatile int sink;
int main(void)
{
	for (int i = 0; i < 321; i++) {
		SBT_MARKER_START("installed");
		sink += i;
		SBT_MARKER_STOP("installed");
	}
	return 0;
}
C
# shellcheck disable=SC2086
${CC:-cc} $cflags "$tmp/app.c" -o "$tmp/app" $libs ||
	fail "cc $cflags app.c $libs"
# pkg-config names the library to preload (pkgconf puts it under the
# sysroot, older pkg-config does not)
lib=$(pkg-config --variable=preload sbtmark)
case $lib in "$dest"/*) ;; *) lib=$dest$lib ;; esac
[ -f "$lib" ] || fail "preload variable: $lib"
(cd "$tmp" && LD_PRELOAD=$lib SBT_QUIET=1 ./app) || fail "app under the preload"
[ -f "$tmp/region.log" ] || fail "no log: the markers were not compiled in"
"$bindir/sbt-analyze" --format csv --filter none "$tmp/region.log" \
	> "$tmp/out.csv" || fail "installed sbt-analyze"
grep -q '^installed,sbtmark,321,' "$tmp/out.csv" ||
	fail "counts: $(cat "$tmp/out.csv")"
"$bindir/sbt-calibrate" --help > /dev/null || fail "installed sbt-calibrate"
SBT_LIB=$lib "$bindir/sbt-run" -h > /dev/null || fail "installed sbt-run"
# every installed tool: a man page that formats, and --version
for tool in "$bindir"/*; do
	name=$(basename "$tool")
	page=$(find "$dest" -name "$name.1" | head -1)
	[ -n "$page" ] || fail "$name is installed without a man page"
	man -l "$page" > /dev/null 2>&1 || fail "$name.1 does not format"
	out=$(SBT_LIB=$lib "$tool" --version 2>&1) ||
		fail "$name --version: exit $?: $out"
	case $out in "$name "[0-9]*) ;; *) fail "$name --version: $out" ;; esac
done
echo "install: $dest holds everything; pkg-config alone built the app"
