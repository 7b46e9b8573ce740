#!/bin/sh
# test.sh - build and run every test: the normal build as the machine this
# is (the sanitized builds compiling beside its suite), then the whole
# suite under ASan+UBSan as a machine without RDTSCP and TSC_AUX, and the
# threaded recorder tests under TSan, those two side by side (their tests
# are mostly serial ones: together they fill both cpus).  Ends with one
# summary line "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
sh tools/setup.sh --tests || { echo "test: setup failed" >&2; exit 1; }

# build_suite NAME BUILD_DIR MESON_SETUP_ARGS [SELECTION]
# Sets up and builds one build directory; leaves "WARNINGS SECONDS" in
# BUILD_DIR.built, or no such file when it failed (its log printed).
# With SELECTION (--suite and --no-suite arguments), only what those
# tests need is built (tools/test_targets.py).
build_suite() {
	name=$1 dir=$2 setup=$3 sel=${4:-}
	rm -f "$dir.built"
	if [ ! -f "$dir/build.ninja" ]; then
		# shellcheck disable=SC2086
		meson setup "$dir" $setup >"$dir.setup.log" 2>&1 ||
			{ cat "$dir.setup.log"; return; }
	fi
	b0=$(date +%s)
	targets=""
	if [ -n "$sel" ]; then
		# shellcheck disable=SC2086
		targets=$(python3 tools/test_targets.py "$dir" $sel) ||
			{ echo "test: no targets for $name"; return; }
	fi
	# shellcheck disable=SC2086
	if ! ninja -C "$dir" $targets >"$dir/ninja.out" 2>&1; then
		cat "$dir/ninja.out"; return
	fi
	warn=0
	# warnings are errors for us: -Wall -Wextra clean
	if grep -q "warning:" "$dir/ninja.out"; then
		grep "warning:" "$dir/ninja.out"
		echo "test: compiler warnings in $name" >&2
		warn=1
	fi
	echo "$warn $(($(date +%s) - b0))" >"$dir.built"
}

# test_suite NAME BUILD_DIR MESON_TEST_ARGS [SELECTION]
# Tests what build_suite built; prints its report and leaves "passed
# failed skipped" in BUILD_DIR.counts (a failed build: one failure).
test_suite() {
	name=$1 dir=$2 targs=$3 sel=${4:-}
	echo "== $name"
	echo "0 1 0" >"$dir.counts"
	[ -f "$dir.built" ] || { echo "test: $name not built"; return; }
	read -r warn built <"$dir.built"
	b1=$(date +%s)
	# shellcheck disable=SC2086
	meson test -C "$dir" --print-errorlogs --num-processes 2 --no-rebuild \
		$targs $sel >"$dir/test.out" 2>&1
	echo "$name: built in $built s, tested in $(($(date +%s) - b1)) s"
	count "$dir/test.out" "$warn" >"$dir.counts"
}

# count TEST_OUT EXTRA_FAILURES: "passed failed skipped" of a meson test
# report (no summary at all is a failure).
count() {
	tail -n 12 "$1" >&2
	ok=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' "$1" | tail -1)
	bad=$(sed -n 's/^Fail: *\([0-9]*\).*/\1/p' "$1" | tail -1)
	to=$(sed -n 's/^Timeout: *\([0-9]*\).*/\1/p' "$1" | tail -1)
	sk=$(sed -n 's/^Skipped: *\([0-9]*\).*/\1/p' "$1" | tail -1)
	none=0
	[ -n "$ok" ] || none=1
	echo "${ok:-0} $(($2 + none + ${bad:-0} + ${to:-0})) ${sk:-0}"
}

# phase NAME: the seconds since the last phase, for the run's last lines
t_last=$(date +%s) phases=""
phase() {
	t_now=$(date +%s)
	phases="$phases $1 $((t_now - t_last)) s,"
	t_last=$t_now
}

asan_setup="-Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug"
# libunwind's per-thread cache destructor crashes under TSan (not our code):
# the TSan build records call sites without stacks.
tsan_setup="-Db_sanitize=thread -Db_lundef=false -Dunwind=disabled"
# The analyzer's worker threads (-j) run under it through verdict-cases.
tsan_sel="--suite unit --suite reliability --suite threads --no-suite slow"

build_suite "build and test" build ""
# The sanitized builds compile beside the normal suite, niced: its tests
# that must run alone leave a cpu idle for minutes, and the suite passes
# beside a co-runner by design (no test depends on the machine's pace).
# (renice: what the subshell starts from then on inherits it)
build_suite ASan+UBSan build-asan "$asan_setup" >build-asan.build.log 2>&1 &
b_asan=$!
renice -n 19 -p "$b_asan" >/dev/null
build_suite TSan build-tsan "$tsan_setup" "$tsan_sel" >build-tsan.build.log 2>&1 &
b_tsan=$!
renice -n 19 -p "$b_tsan" >/dev/null
test_suite "build and test" build ""
phase normal
wait "$b_asan" "$b_tsan"
cat build-asan.build.log build-tsan.build.log
phase "sanitizers' builds, after the normal suite,"
# The ASan+UBSan run is also the pass as a machine without RDTSCP in CPUID
# and with an untrue TSC_AUX (a cloud guest's: the clock read by lfence;
# rdtsc, cpus from rseq), whatever this machine is: a test that assumes
# the developer's machine fails here, on the developer's machine, while
# the normal build runs the machine's own ways.  One pass of the
# sanitized suite serves both: a second of the normal one would take
# CI past its 25 minutes.
(
	export SBT_TEST_CLOCK=aux-wrong,no-rdtscp
	test_suite "ASan+UBSan, as a machine without RDTSCP and TSC_AUX" \
		build-asan "--timeout-multiplier 3" "--no-suite slow"
) >build-asan.report 2>&1 &
asan=$!
test_suite "TSan (recorder and analyzer threads)" build-tsan \
	"--timeout-multiplier 4" "$tsan_sel" >build-tsan.report 2>&1
wait "$asan"
phase sanitizers
cat build-asan.report build-tsan.report
echo "time:${phases%,}"

pass=0 fail=0 skip=0
for dir in build build-asan build-tsan; do
	read -r p f s <"$dir.counts"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
