#!/bin/sh
# soak.sh - the test suites that read real timings, many runs in a row,
# under each co-runner a shared CI machine may have: a busy loop on a
# cpu, then a memory-streaming process (tests/speed/stream, 256 MB copied
# back and forth) on cpu 0 - the one that sets off this VM's host
# slowdowns.  A test that passes once but flips under either is flaky.
#
#   sh tools/soak.sh [BUILD_DIR [RUNS [SUITE ...]]]
#
# Defaults: build, 20 runs, suites speed os score.  Prints one line a
# run; keeps the meson log of every failed run in BUILD_DIR/soak/; exits
# 1 when any run failed.
set -u
build=${1:-build}
runs=${2:-20}
if [ $# -gt 2 ]; then shift 2; else set --; fi
[ $# -gt 0 ] || set -- speed os score
suites=""
for s in "$@"; do suites="$suites --suite $s"; done

[ -x "$build/tests/speed/stream" ] || {
	echo "soak.sh: $build is not built (no tests/speed/stream)" >&2
	exit 2
}
last=$(( $(nproc) - 1 ))
mkdir -p "$build/soak"
co=""
stop() { [ -n "$co" ] && kill "$co" 2>/dev/null && wait "$co" 2>/dev/null; co=""; }
trap 'stop; exit 130' INT TERM

bad=0 total=0
for load in busy stream; do
	if [ $load = busy ]; then
		taskset -c "$last" sh -c 'while :; do :; done' & co=$!
	else
		taskset -c 0 "$build/tests/speed/stream" & co=$!
	fi
	i=1
	while [ $i -le "$runs" ]; do
		log="$build/soak/$load-$i.txt"
		# shellcheck disable=SC2086  # one word a suite flag
		meson test -C "$build" $suites --no-rebuild > "$log" 2>&1
		rc=$?
		ok=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' "$log")
		failed=$(grep -E '^ *[0-9]+/[0-9]+ .* (FAIL|TIMEOUT) ' "$log" |
			 awk '{print $2 "/" $4}' | tr '\n' ' ')
		echo "$load $i: ${ok:-0} passed${failed:+, failed: $failed}"
		total=$((total + 1))
		if [ $rc -ne 0 ]; then
			bad=$((bad + 1))
			cp "$build/meson-logs/testlog.txt" "$build/soak/$load-$i.testlog"
		else
			rm -f "$log"
		fi
		i=$((i + 1))
	done
	stop
done
echo "soak: $((total - bad)) of $total runs passed whole ($runs with a busy loop on cpu $last, $runs with the streaming co-runner on cpu 0)"
[ $bad -eq 0 ]
