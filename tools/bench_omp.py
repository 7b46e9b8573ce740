#!/usr/bin/python3
"""bench_omp.py - what the recorder costs an OpenMP parallel region.

  bench_omp.py BUILD [--regions N] [--reps R]

Builds tools/bench_omp.c with clang (LLVM's libomp: recorded through
OMPT) and gcc (libgomp: its entry points interposed), then, R times over,
runs each with an empty body and a ~10 us body per thread, on 2 threads
and on 1 (a team of one: no thread waits for a cpu, so the recorder's own
cost per thread shows on a loaded machine), without and with
BUILD/preload/libsbtmark.so preloaded, alternating.  Each run times N
regions (batches of 100; the median batch's mean).
Prints, per runtime and body, the median ns per region without and with
the recorder, their difference (the recorder's cost per region: each
thread's share and barrier wait recorded) and ratio.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run(app, ops, regions, threads, lib=None, log=None):
    env = dict(os.environ)
    env.pop('LD_PRELOAD', None)
    if lib:
        env.update(LD_PRELOAD=lib, SBT_OUTPUT=log, SBT_QUIET='1')
        if os.path.exists(log):
            os.unlink(log)
    out = subprocess.run([app, str(ops), str(regions), str(threads)],
                         env=env,
                         check=True, capture_output=True, text=True).stdout
    return float(out.split()[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('build')
    ap.add_argument('--regions', type=int, default=2000)
    ap.add_argument('--reps', type=int, default=5)
    a = ap.parse_args()
    lib = os.path.abspath(os.path.join(a.build, 'preload', 'libsbtmark.so'))
    src = os.path.join(HERE, 'bench_omp.c')
    tmp = tempfile.mkdtemp(prefix='sbt-bench-omp-')
    log = os.path.join(tmp, 'bench.log')
    apps = {}
    for rt, cc in (('libomp', 'clang'), ('libgomp', 'gcc')):
        apps[rt] = os.path.join(tmp, 'bench_' + rt)
        subprocess.run([cc, '-O2', '-fopenmp', src, '-o', apps[rt]],
                       check=True)
    ops10 = int(subprocess.run([apps['libgomp'], 'calibrate', '10000'],
                               check=True, capture_output=True,
                               text=True).stdout)
    cells = [(rt, nt, body, ops) for rt in apps for nt in (2, 1)
             for body, ops in (('empty', 0), ('10 us', ops10))]
    res = {(c[:3], w): [] for c in cells for w in ('off', 'on')}
    for r in range(a.reps):
        for c in cells:
            order = ('off', 'on') if r % 2 == 0 else ('on', 'off')
            for w in order:
                res[(c[:3], w)].append(
                    run(apps[c[0]], c[3], a.regions, c[1],
                        lib if w == 'on' else None, log))
    print('bench_omp: %d regions a run, %d runs each, body "10 us" = %d '
          'ops; medians' % (a.regions, a.reps, ops10))
    print('%-8s %7s %-6s %14s %14s %12s %7s' % (
        'runtime', 'threads', 'body', 'without ns', 'with ns', 'cost ns',
        'ratio'))
    for c in cells:
        off = statistics.median(res[(c[:3], 'off')])
        on = statistics.median(res[(c[:3], 'on')])
        print('%-8s %7d %-6s %14.1f %14.1f %12.1f %6.2fx' % (
            c[0], c[1], c[2], off, on, on - off, on / off))
    for f in os.listdir(tmp):
        os.unlink(os.path.join(tmp, f))
    os.rmdir(tmp)
    return 0


if __name__ == '__main__':
    sys.exit(main())
