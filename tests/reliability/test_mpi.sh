#!/bin/sh
# test_mpi.sh - one log per MPI rank through sbt-run, merged by sbt-analyze.
#
#   test_mpi.sh SBT_RUN MPI_APP      (SBT_LIB, SBT_ANALYZE from the env)
#
# mpirun -np 4 sbt-run -o 'run-%r.log' -- mpi_app: four logs, run-0..3,
# each naming its rank in the header; sbt-analyze --by rank reads all four
# and reports 4 ranks with every rank's 1000 "compute" samples.
# Exit 77 (skipped) without Open MPI's mpirun or the MPI app.
set -u
common=$(cd "$(dirname "$0")/../common" && pwd)
sbtrun=$(realpath "$1"); app=$(realpath "$2" 2>/dev/null || echo none)
. "$common/mpi.sh"
[ -x "$app" ] || { echo "MPI app not built (no mpicc): skipped"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

tmp=$(mktemp -d /tmp/sbt-mpi-XXXXXX)
cd "$tmp" || exit 99
sbt_mpi 4 120 \
	"$sbtrun" -q -o 'run-%r.log' -- "$app" 1000 > mpirun.out 2>&1 ||
	{ cat mpirun.out >&2; fail "mpirun failed"; }
grep -q "4 ranks ok" mpirun.out || fail "app output: $(cat mpirun.out)"
for r in 0 1 2 3; do
	[ -f "run-$r.log" ] || fail "no run-$r.log: $(ls)"
done
[ "$(ls *.log | wc -l)" -eq 4 ] || fail "logs: $(ls *.log)"

"$SBT_ANALYZE" --by rank --format json --filter none run-*.log > a.json ||
	fail "sbt-analyze exited $?"
/usr/bin/python3 - a.json <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
def find(o, key):
    """every dict in o that has key"""
    if isinstance(o, dict):
        if key in o: yield o
        for v in o.values(): yield from find(v, key)
    elif isinstance(o, list):
        for v in o: yield from find(v, key)
ranks = sorted({s["rank"] for s in find(d, "rank") if "pid" in s})
assert ranks == [0, 1, 2, 3], "sources' ranks: %r" % ranks
rows = [g for g in d["regions"] if g["name"] == "compute"]
by = sorted((int(g["rank"]), g["count"]) for g in rows)
assert by == [(0, 1000), (1, 1000), (2, 1000), (3, 1000)], \
    "compute rows by rank: %r" % by
print("mpi: 4 ranks, 1000 compute samples each")
PY
cd / && rm -rf "$tmp"
