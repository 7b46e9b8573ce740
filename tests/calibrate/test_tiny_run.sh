#!/bin/sh
# test_tiny_run.sh - a tiny sbt-calibrate run on one level completes,
# prints its table, and writes a profile that parses back identically.
# No timing is asserted: only that the pipeline works end to end.
# usage: test_tiny_run.sh SBT_CALIBRATE TEST_PROFILE TMPDIR
cal=$1 chk=$2 dir=$3/tiny_run
rm -rf "$dir" && mkdir -p "$dir" || exit 1
"$cal" -l l1 -m bare,clock_gettime -N 30 -p 1 -q 2 --cap 60 \
	-o "$dir/p.profile" >"$dir/out.txt" 2>"$dir/err.txt" || {
	cat "$dir/out.txt" "$dir/err.txt"; exit 1; }
cat "$dir/out.txt"
grep -q '^l1    bare' "$dir/out.txt" || { echo "FAIL: no l1 bare row"; exit 1; }
[ ! -s "$dir/err.txt" ] || { echo "FAIL: stderr not silent off a TTY:"; cat "$dir/err.txt"; exit 1; }
"$chk" --check "$dir/p.profile" || exit 1
# bad options fail cleanly with status 2 and a hint
for bad in "--levels l9" "-N x" "--eps 2" "--bogus" "--mem-mode foo" "-N"; do
	"$cal" $bad >/dev/null 2>"$dir/bad.txt"; rc=$?
	[ $rc -eq 2 ] && grep -q -- "--help" "$dir/bad.txt" || {
		echo "FAIL: '$bad' gave rc $rc:"; cat "$dir/bad.txt"; exit 1; }
done
"$cal" --help | grep -q "^Examples:" || { echo "FAIL: --help"; exit 1; }
echo ok
