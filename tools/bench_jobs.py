#!/usr/bin/python3
"""bench_jobs.py - sbt-analyze's -j 2 against the machine's ceiling, on a
given log, for one or more builds side by side.

    python3 tools/bench_jobs.py LOG REPS BUILD_DIR [BUILD_DIR...]

The ceiling is what two cores give to independent work: two `-j 1` runs
at once.  Each rep runs, for each build in turn, `-j 1`, `-j 2` and two
`-j 1` at once (wall time, output dropped), so a change of the machine's
pace falls on every build alike; the medians give per build -j 2's
speed-up over -j 1, the ceiling's (2 x -j1 / both at once) and -j 2's
share of the ceiling.  (tools/bench_analyze.py --ceiling does the same on
a log it records itself.)
"""
import statistics
import subprocess
import sys
import time


def wall(cmds):
    t0 = time.perf_counter()
    ps = [subprocess.Popen(c, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL) for c in cmds]
    for p in ps:
        if p.wait() != 0:
            sys.exit('bench_jobs: %s failed' % ' '.join(p.args))
    return time.perf_counter() - t0


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__.split('\n\n')[1])
    log, reps, builds = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    res = {b: {'j1': [], 'j2': [], 'two': []} for b in builds}
    for _ in range(reps):
        for b in builds:
            a = [b + '/analysis/sbt-analyze', '--no-symbols']
            res[b]['j1'].append(wall([a + ['-j', '1', log]]))
            res[b]['j2'].append(wall([a + ['-j', '2', log]]))
            res[b]['two'].append(wall([a + ['-j', '1', log]] * 2))
    for b in builds:
        m = {k: statistics.median(v) for k, v in res[b].items()}
        print('%s: -j1 %.2f s, -j2 %.2f s, two -j1 at once %.2f s: '
              '-j2 %.2fx of -j1, ceiling %.2fx, -j2 = %.2f of the ceiling'
              % (b, m['j1'], m['j2'], m['two'], m['j1'] / m['j2'],
                 2 * m['j1'] / m['two'], m['two'] / (2 * m['j2'])))


main()
