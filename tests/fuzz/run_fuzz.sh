#!/bin/sh
# run_fuzz.sh - a fuzzing campaign against the log reader.
#
#   run_fuzz.sh FUZZER GEN_SEEDS RAPP [LIBFUZZER OPTIONS...]
#
# Builds the seed corpus (synthetic logs from gen_seeds, plus real logs
# recorded now with rapp under $SBT_LIB, whole and cut short) in a fresh
# directory, then runs the fuzzer on it.  Exit 0: no finding.  A finding
# is kept, with its path printed, and the exit status is non-zero.
#
# Each input has 2 s (-timeout=2): far more than any 64 KiB log takes, so
# an input that makes the reader slow is a finding like a crash.
#
# Short campaign (meson test rel-fuzz):  ... -runs=20000
# Long campaign (2*10^7 executions; hours on 1 core):
#   nice -n 19 tests/fuzz/run_fuzz.sh build/tests/reliability/fuzz-reader \
#     build/tests/reliability/fuzz-seeds \
#     build/tests/reliability/rapp -runs=20000000
set -eu
[ $# -ge 3 ] || { echo "usage: $0 FUZZER GEN_SEEDS RAPP [OPTIONS]" >&2; exit 2; }
fuzzer=$(realpath "$1"); gen=$(realpath "$2"); rapp=$(realpath "$3")
shift 3
work=$(mktemp -d /tmp/sbt-fuzz-XXXXXX)
mkdir "$work/seeds" "$work/corpus"
"$gen" "$work/seeds"
if [ -n "${SBT_LIB:-}" ]; then
	( cd "$work" &&
	  SBT_QUIET=1 SBT_OUTPUT=seeds/real-plain.log LD_PRELOAD="$SBT_LIB" \
		"$rapp" plain 50 &&
	  SBT_QUIET=1 SBT_OUTPUT=seeds/real-misuse.log LD_PRELOAD="$SBT_LIB" \
		"$rapp" misuse &&
	  head -c 40000 seeds/real-plain.log > seeds/real-cut.log ) ||
		echo "run_fuzz: could not record real seed logs" >&2
fi
# A log with its names section, small enough for -max_len: the header,
# the first chunk's first page, then the last meta chunk (the modules)
# and the names chunk appended after it.
if [ -n "${SBT_ANALYZE:-}" ] && [ -f "$work/seeds/real-plain.log" ]; then
	( cd "$work" && cp seeds/real-plain.log names.log &&
	  "$SBT_ANALYZE" -q --embed-names names.log &&
	  head -c 8192 names.log > seeds/real-names.log &&
	  tail -c 8192 names.log >> seeds/real-names.log && rm names.log ) ||
		echo "run_fuzz: could not make the names seed" >&2
fi
status=0
# ASan/UBSan report and stop; libFuzzer bounds time and memory per input.
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
"$fuzzer" -max_len=65536 -timeout=2 -rss_limit_mb=2048 \
	-malloc_limit_mb=1024 -artifact_prefix="$work/" -print_final_stats=1 \
	"$@" "$work/corpus" "$work/seeds" || status=$?
if [ $status -eq 0 ]; then
	rm -rf "$work"
else
	echo "run_fuzz: finding(s) kept in $work" >&2
fi
exit $status
