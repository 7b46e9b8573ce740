#!/bin/sh
# run_fuzz_summary.sh - a fuzzing campaign against the summary reader.
#
#   run_fuzz_summary.sh FUZZER RAPP [LIBFUZZER OPTIONS...]
#                                   (SBT_LIB, SBT_ANALYZE from the env)
#
# Seeds: real summaries' uncompressed content (the target gzips each
# input itself) - of a plain log, of a log with misuse, and of one
# thinned to a budget - recorded now with rapp - and the regression
# inputs of tests/fuzz/regress/summary.  Exit 0: no finding; a
# finding is kept, with its path printed, and the exit status is non-zero.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 FUZZER RAPP [OPTIONS]" >&2; exit 2; }
fuzzer=$(realpath "$1"); rapp=$(realpath "$2")
regress=$(cd "$(dirname "$0")" && pwd)/regress/summary
shift 2
work=$(mktemp -d /tmp/sbt-fuzz-sbts-XXXXXX)
mkdir "$work/seeds" "$work/corpus"
cd "$work"
SBT_QUIET=1 SBT_OUTPUT=plain.log LD_PRELOAD="$SBT_LIB" "$rapp" plain 50
SBT_QUIET=1 SBT_OUTPUT=misuse.log LD_PRELOAD="$SBT_LIB" "$rapp" misuse
"$SBT_ANALYZE" -q --summary plain.sbts plain.log
"$SBT_ANALYZE" -q --summary misuse.sbts misuse.log
"$SBT_ANALYZE" -q --max-samples 20 --summary thin.sbts plain.log
for s in plain misuse thin; do
	gzip -dc < "$s.sbts" > "seeds/$s"
done
# inputs that once found a fault or a slow path (tests/fuzz/regress)
cp "$regress"/* seeds/
status=0
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
"$fuzzer" -max_len=65536 -timeout=2 -rss_limit_mb=2048 \
	-malloc_limit_mb=1024 -artifact_prefix="$work/" -print_final_stats=1 \
	"$@" "$work/corpus" "$work/seeds" || status=$?
cd /
if [ $status -eq 0 ]; then
	rm -rf "$work"
else
	echo "run_fuzz_summary: finding(s) kept in $work" >&2
fi
exit $status
