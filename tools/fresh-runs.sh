#!/bin/sh
# fresh-runs.sh - the README's test command again and again, each run in a fresh
# clone of one commit, quiet or beside a co-runner: the evidence that the
# suite does not flip (say 10 quiet runs, then 5 with a busy loop
# on a core, then 5 with a memory-streaming process on the other cpu).
#
#   sh tools/fresh-runs.sh [--quiet N] [--busy N] [--stream N] [--dir D] [REV]
#
# REV (default HEAD) is cloned from this repository into D/run-K (default
# D: /var/tmp/sbt-runs) for each run, so nothing built before is reused.
# The co-runners: `taskset -c 0` of an endless shell loop (busy) and
# `taskset -c 1` of tests/speed/stream.c, built once into D (stream).
# Each run's line goes to stdout and D/runs.txt:
#   K CONDITION COMMIT "N passed, N failed, N skipped" SECONDS time: PHASES
# Stops at the first failed run, its clone kept (D/run-K, with each
# build's test.out); a passed run's clone is removed, its builds' meson
# test logs kept (D/run-K-BUILD.json: each test's duration).  Exit 0
# when every run passed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
nq=10 nb=5 ns=5 dir=/var/tmp/sbt-runs rev=HEAD
while [ $# -gt 0 ]; do
	case $1 in
	--quiet) nq=$2; shift 2 ;;
	--busy) nb=$2; shift 2 ;;
	--stream) ns=$2; shift 2 ;;
	--dir) dir=$2; shift 2 ;;
	-h|--help) sed -n '2,19p' "$0"; exit 0 ;;
	-*) echo "runs: unknown option $1" >&2; exit 2 ;;
	*) rev=$1; shift ;;
	esac
done
commit=$(git -C "$top" rev-parse --short "$rev") ||
	{ echo "runs: no commit $rev" >&2; exit 2; }
mkdir -p "$dir" || exit 2
cc -O2 -o "$dir/stream" "$top/tests/speed/stream.c" ||
	{ echo "runs: cannot build the streaming co-runner" >&2; exit 2; }

co=
stop_co() {
	[ -n "$co" ] && kill "$co" 2>/dev/null && wait "$co" 2>/dev/null
	co=
}
trap 'stop_co; exit 130' INT TERM

k=0
# run CONDITION: one fresh clone, one test command, one line
run() {
	k=$((k + 1))
	d="$dir/run-$k"
	rm -rf "$d"
	git clone -q "$top" "$d" && git -C "$d" checkout -q "$commit" ||
		{ echo "runs: clone failed" >&2; exit 2; }
	case $1 in
	busy) taskset -c 0 sh -c 'while :; do :; done' & co=$! ;;
	stream) taskset -c 1 "$dir/stream" & co=$! ;;
	esac
	s=$(date +%s)
	(cd "$d" && sh tools/test.sh >"$d.out" 2>&1)
	rc=$?
	stop_co
	line="$k $1 $commit \"$(tail -n 1 "$d.out")\" $(($(date +%s) - s))"
	line="$line $(grep '^time:' "$d.out")"
	echo "$line" | tee -a "$dir/runs.txt"
	if [ $rc -ne 0 ]; then
		echo "runs: run $k failed; its clone and output: $d, $d.out" >&2
		exit 1
	fi
	for b in build build-asan build-tsan; do
		cp "$d/$b/meson-logs/testlog.json" "$d-$b.json" 2>/dev/null
	done
	rm -rf "$d" "$d.out"
}

i=0; while [ $i -lt "$nq" ]; do run quiet; i=$((i + 1)); done
i=0; while [ $i -lt "$nb" ]; do run busy; i=$((i + 1)); done
i=0; while [ $i -lt "$ns" ]; do run stream; i=$((i + 1)); done
echo "runs: $k runs of $commit passed"
