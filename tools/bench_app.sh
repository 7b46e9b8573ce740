#!/bin/sh
# bench_app.sh - a program's wall time plain and under sbt-run with one or
# more builds of the recorder, side by side: runs alternate (plain, then
# each library in turn) so a change of the machine's pace falls on all.
#
#   sh tools/bench_app.sh [-n RUNS] [--sbt-run PATH | --direct] LIB.so [LIB.so...] -- CMD [ARG...]
#
# Each round prints the seconds of each (plain first, then each LIB in
# the order given); the last line gives the medians and each LIB's ratio
# to plain.  The logs go to a temporary directory and are removed.
# --direct: the program preloaded by hand (LD_PRELOAD, SBT_OUTPUT), what
# it pays itself, without sbt-run's own start and its embedding of names
# after the program.
# Example (LULESH, gcc, 2 threads):
#   OMP_NUM_THREADS=2 sh tools/bench_app.sh -n 7 build-rel/preload/libsbtmark.so \
#       -- lulesh2.0 -s 15 -i 1500
set -u
n=5 run= direct=
libs=
while [ $# -gt 0 ]; do
	case $1 in
	-n) n=$2; shift 2 ;;
	--sbt-run) run=$2; shift 2 ;;
	--direct) direct=1; shift ;;
	--) shift; break ;;
	-h|--help) sed -n '2,16p' "$0"; exit 0 ;;
	-*) echo "bench_app: unknown option $1" >&2; exit 2 ;;
	*) libs="$libs $1"; shift ;;
	esac
done
[ -n "$libs" ] && [ $# -gt 0 ] ||
	{ echo "bench_app: usage: bench_app.sh [-n RUNS] LIB.so... -- CMD..." >&2; exit 2; }
for l in $libs; do
	[ -f "$l" ] || { echo "bench_app: no library $l" >&2; exit 2; }
done
top=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "$run" ]; then
	# sbt-run is generated into a build's tools/; any build's will do,
	# the library it preloads is the one given by SBT_LIB
	for b in "$top"/build*/tools/sbt-run; do [ -x "$b" ] && run=$b && break; done
fi
[ -n "$run" ] && [ -x "$run" ] ||
	{ echo "bench_app: no sbt-run found (build first, or --sbt-run PATH)" >&2; exit 2; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

# seconds of one run of the command (its output dropped)
secs() {
	/usr/bin/time -f %e -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err" ||
		{ echo "bench_app: the run failed: $*" >&2; cat "$tmp/err" >&2; exit 1; }
	tail -1 "$tmp/t"
}

k=0
while [ "$k" -lt "$n" ]; do
	k=$((k + 1))
	line=$(secs "$@")
	for l in $libs; do
		if [ -n "$direct" ]; then
			t=$(secs env SBT_QUIET=1 SBT_OUTPUT="$tmp/log" \
				LD_PRELOAD="$l" "$@")
		else
			t=$(SBT_LIB=$l secs "$run" -q -o "$tmp/log" -- "$@")
		fi
		rm -f "$tmp/log"
		line="$line $t"
	done
	echo "$line" | tee -a "$tmp/all"
done
# medians of each column and ratios to the first
awk -v libs="$libs" '
{ for (i = 1; i <= NF; i++) v[i, NR] = $i; cols = NF }
END {
	nl = split(libs, name, " ")
	for (i = 1; i <= cols; i++) {
		for (r = 1; r <= NR; r++) a[r] = v[i, r]
		for (r = 2; r <= NR; r++)
			for (s = r; s > 1 && a[s] < a[s - 1]; s--) {
				t = a[s]; a[s] = a[s - 1]; a[s - 1] = t
			}
		m[i] = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
	}
	printf "medians of %d rounds: plain %.2f s", NR, m[1]
	for (i = 2; i <= cols; i++)
		printf ", %s %.2f s (%.2fx)", name[i - 1], m[i], m[i] / m[1]
	printf "\n"
}' "$tmp/all"
