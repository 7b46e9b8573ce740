#!/bin/sh
# inline_count.sh - instructions an empty inline marker pair executes on
# its common path, per clock way, counted by valgrind's callgrind: a loop
# of N and of 2N pairs (tools/inline_count/loop.c) against a stand-in
# recorder that keeps every pair on the fast path (harness.c); the
# difference over N.  rdtscp, which valgrind does not run where CPUID
# hides it, is patched to rdtsc; nop and counted as one instruction.
#
#   sh tools/inline_count.sh [COMMIT]     (default: the work tree's header)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
command -v valgrind >/dev/null || { echo "inline_count: needs valgrind" >&2; exit 2; }
tmp=$(mktemp -d /tmp/sbt-icount-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
if [ $# -gt 0 ]; then
	git -C "$root" archive "$1" markers | tar x -C "$tmp"
	inc=$tmp/markers
else
	inc=$root/markers
fi
${CC:-gcc} -O2 -I"$inc" -o "$tmp/pair" "$here/inline_count/harness.c" \
	"$here/inline_count/loop.c"
python3 - "$tmp/pair" <<'PY'
import sys
p = sys.argv[1]
b = open(p, 'rb').read()
open(p, 'wb').write(b.replace(b'\x0f\x01\xf9', b'\x0f\x31\x90'))
PY
count() {  # WAY N -> instructions of the whole run
	WAY=$1 N=$2 valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" \
		"$tmp/pair" >"$tmp/out" 2>"$tmp/err" ||
		{ cat "$tmp/err" >&2; exit 1; }
	ev=$(cut -d' ' -f1 "$tmp/out")
	[ "$ev" -ge $(( 2 * $2 - 2 )) ] ||
		{ echo "inline_count: $ev events of $2 pairs: not the fast path" >&2; exit 1; }
	awk '/^summary:/ {print $2}' "$tmp/cg"
}
ways=rdtscp
grep -q 'uintptr_t clock;' "$inc/sbtmark_hot.h" 2>/dev/null && ways="rdtscp rseq"
for w in $ways; do
	a=$(count "$w" 100000)
	b=$(count "$w" 200000)
	n=$(( (b - a) / 100000 ))
	[ "$w" = rdtscp ] && n=$(( n - 2 ))     # the two patched nops
	echo "$w way: $n instructions a pair"
done
