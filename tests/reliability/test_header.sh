#!/bin/sh
# test_header.sh - markers/sbtmark.h compiles wherever it must:
#   - markers off (no -DSBT_MARKER) on a foreign ISA (i386: gcc -m32);
#   - markers on there: a one-line #error naming the way out;
#   - markers on there as function calls (-DSBT_MARKER_CALL);
#   - markers on for Armv8 (the cross compiler, when installed) and in C++.
# usage: test_header.sh SRCDIR CC
set -u
src=$1 cc=$2
dir=$(mktemp -d /tmp/sbt-hdr.XXXXXX)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/app.c" <<'C'
#include <sbtmark.h>
int main(void)
{
	SBT_MARKER_INIT;
	SBT_MARKER_THREADINIT;
	SBT_MARKER_REGISTER("r");
	SBT_MARKER_START("r");
	SBT_MARKER_STOP("r");
	SBT_MARKER_RESET("r");
	SBT_MARKER_CLOSE;
	return 0;
}
C
pass=0 fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
flags="-std=gnu11 -Wall -Wextra -Werror -fsyntax-only -I$src/markers"
if echo 'int x;' | $cc -m32 -ffreestanding -fsyntax-only -x c - 2>/dev/null; then
	m32="$cc -m32 -ffreestanding $flags"
	$m32 "$dir/app.c" && ok || bad "i386, markers off"
	$m32 -DSBT_MARKER -DSBT_MARKER_CALL "$dir/app.c" && ok ||
		bad "i386, markers as calls"
	if $m32 -DSBT_MARKER "$dir/app.c" 2> "$dir/err"; then
		bad "i386, inline markers: compiled"
	elif grep -q 'SBT_MARKER_CALL' "$dir/err"; then
		ok
	else
		bad "i386, inline markers: $(cat "$dir/err")"
	fi
else
	echo "no -m32 support: i386 checks skipped"
fi
if command -v aarch64-linux-gnu-gcc >/dev/null; then
	aarch64-linux-gnu-gcc $flags -DSBT_MARKER "$dir/app.c" && ok ||
		bad "aarch64, inline markers"
	aarch64-linux-gnu-gcc $flags "$dir/app.c" && ok || bad "aarch64, off"
fi
$cc $flags -DSBT_MARKER "$dir/app.c" && ok || bad "native, inline markers"
if command -v g++ >/dev/null; then
	g++ -x c++ -Wall -Wextra -Werror -fsyntax-only -I"$src/markers" \
		-DSBT_MARKER "$dir/app.c" && ok || bad "C++, inline markers"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
