#!/bin/sh
# aarch64.sh - the Armv8 path: cross-build the recorder and a marked app
# with Debian's aarch64 cross compiler, run them under qemu-aarch64, and
# read the log with the native analyzer (same format, same byte order).
# Skips (77) when the cross tools are not installed.
set -eu
src=$(cd "$1" && pwd)
analyze=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64 >/dev/null ||
	{ echo "aarch64 cross compiler or qemu-aarch64 missing: skipped"; exit 77; }
dir=$(mktemp -d /tmp/sbt-arm.XXXXXX)
trap 'rm -rf "$dir"' EXIT
cc="aarch64-linux-gnu-gcc -std=gnu11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE"
$cc -shared -fPIC -fvisibility=hidden -ftls-model=initial-exec \
	-I"$src/markers" -I"$src/format" -I"$src/preload/services" \
	-I"$src/preload/core" "$src"/preload/services/*.c \
	"$src"/preload/core/*.c -o "$dir/libsbtmark.so" -lpthread -ldl
$cc -DSBT_MARKER -I"$src/markers" "$src/tests/unit/app_nested.c" \
	-o "$dir/app" -lpthread
cd "$dir"
export QEMU_LD_PREFIX=/usr/aarch64-linux-gnu
# without the recorder: runs, no log
qemu-aarch64 ./app 2 100 >/dev/null
[ ! -e region.log ] || { echo "FAIL: log without the recorder"; exit 1; }
qemu-aarch64 -E LD_PRELOAD="$dir/libsbtmark.so" -E SBT_OUTPUT=arm.log \
	-E SBT_QUIET=1 ./app 2 2000 >/dev/null
"$analyze" --format csv --filter none --no-symbols arm.log > out.csv
cat out.csv
for r in outer inner empty heavy; do
	n=$(awk -F, -v r=$r '$1 == r { print $3 }' out.csv)
	[ "$n" = 4000 ] || { echo "FAIL: $r has ${n:-no} samples, want 4000"; exit 1; }
done
"$analyze" --format json --no-symbols arm.log | grep -q '"cycles": false' ||
	{ echo "FAIL: cycles not reported absent"; exit 1; }
echo "aarch64 under qemu: 4 regions x 4000 samples recorded and read back"
