#!/usr/bin/python3
"""jobs_test.py - sbt-analyze's output does not depend on -j.

    jobs_test.py RAPP           (SBT_LIB, SBT_ANALYZE from the env)

Records logs with rapp (three threads with nesting and probes; one
region from three call sites), makes summaries of them, then compares
the reports of -j 1 and -j 4 byte for byte, in JSON, CSV and text, for:
one log, several logs, summaries, a log thinned to a small budget, and
call sites symbolized (the resolver's threads).  Under a sanitizer
(SBT_TEST_SANITIZE) each case runs once, JSON at the largest -j: the
same threads, a third of the analyses (TSan's took 150 s).

One log alone is read in segments by -j threads (analysis/read/
segment.c: 1 MB and more of events each, merged in file order): a
one-thread log of 7 MB with a region open from its first chunk to its
last (every segment boundary inside it, its speed probes detours of
it), the same sparse (SKIP events at the boundaries) and under a small
budget (thinned samples' calls credited across boundaries, a thread's
first of a site held), cut short inside its last chunk, and a log of
three threads' interleaved chunks: -j 1, 2 and 4 must agree.  And one
region alone, 300,000 calls (several blocks of the passes over every
sample that run on -j threads, analysis/base/jobs.h; its one group has
every thread: tests/speed's split-jobs plants the processor shift that
makes its two phase searches run side by side).  Suite
'reliability', so the TSan build runs the analyzer's threads through it.
"""
import os, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'common'))
from sbttest import SANITIZED, check, done

RAPP = os.path.realpath(sys.argv[1])
LIB, ANALYZE = os.environ['SBT_LIB'], os.environ['SBT_ANALYZE']


def record(d, name, *args, env=None):
    env = dict(os.environ, LD_PRELOAD=LIB, SBT_OUTPUT=name, SBT_QUIET='1',
               SBT_PROBE_PERIOD='7', **(env or {}))
    subprocess.run([RAPP, *args], cwd=d, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(d, name)


def analyze(d, jobs, *args):
    p = subprocess.run([ANALYZE, '-j', str(jobs), *args], cwd=d,
                       capture_output=True)
    return p.returncode, p.stdout


def same(d, what, *args, fmts=(['--format', 'json'], ['--format', 'csv'],
                                []), jobs=(4,), ok=0):
    if SANITIZED:
        fmts, jobs = fmts[:1], jobs[-1:]
    for fmt in fmts:
        r1, o1 = analyze(d, 1, *fmt, *args)
        name = '%s (%s)' % (what, fmt[1] if fmt else 'text')
        check(r1 == ok and len(o1) > 200, '%s: -j 1 reports (exit %d)' %
              (name, r1))
        for j in jobs:
            rj, oj = analyze(d, j, *fmt, *args)
            check(r1 == rj and o1 == oj, '%s: -j %d the same as -j 1' %
                  (name, j))


def one_log(d):
    """one log alone, read in segments"""
    env = {'SBT_SPEED_US': '20'}
    n = record(d, 'n.log', 'nested', '100000', env=env)
    check(os.path.getsize(n) >= 4 << 20,
          'nested log of %d bytes: -j 4 reads it in 4 or more segments'
          % os.path.getsize(n))
    same(d, 'nested one-thread log', '--no-symbols', n, jobs=(2, 4))
    same(d, 'nested, by thread, held 5000', '--no-symbols', '--by',
         'thread', '--max-samples', '5000', n, fmts=(['--format', 'json'],),
         jobs=(2, 4))
    s = record(d, 's.log', 'nested', '100000',
               env=dict(env, SBT_SAMPLE='inner:7,outer:3'))
    same(d, 'nested, sparse', '--no-symbols', s,
         fmts=(['--format', 'json'], []), jobs=(2, 4))
    same(d, 'nested, sparse, held 3000', '--no-symbols', '--max-samples',
         '3000', s, fmts=(['--format', 'json'],), jobs=(2, 4))
    with open(n, 'rb') as f:
        data = f.read()
    cut = os.path.join(d, 'cut.log')
    end = len(data.rstrip(b'\0'))       # its last event ...
    with open(cut, 'wb') as f:          # ... and 20 KB before, mid-event
        f.write(data[:end - 20000 - 7])
    same(d, 'nested, cut short', '--no-symbols', cut, ok=1,
         fmts=(['--format', 'json'], []), jobs=(2, 4))
    t = record(d, 't.log', 'threads', '3', '80000')
    check(os.path.getsize(t) >= 4 << 20, 'three-thread log of %d bytes' %
          os.path.getsize(t))
    same(d, 'three threads, one log', '--no-symbols', '--by', 'thread', t,
         fmts=(['--format', 'json'],), jobs=(2, 4))
    same(d, 'three threads, one log, held 4000', '--no-symbols',
         '--max-samples', '4000', t, fmts=(['--format', 'json'],),
         jobs=(2, 4))


def one_region(d):
    """one region alone: its group's work on every -j thread"""
    p = record(d, 'p.log', 'plain', '300000', env={'SBT_SPEED_US': '20'})
    same(d, 'one region, 300000 calls', '--no-symbols', p, jobs=(2, 4))


def main():
    d = tempfile.mkdtemp(prefix='sbt-jobs-')
    a = record(d, 'a.log', 'threads', '3', '2000')
    b = record(d, 'b.log', 'sites', '100')
    c = record(d, 'c.log', 'threads', '2', '1500')
    same(d, 'one log', '--no-symbols', a)
    same(d, 'one log, symbols', a)
    same(d, 'three logs', '--no-symbols', a, b, c)
    same(d, 'three logs, by thread', '--no-symbols', '--by', 'thread',
         a, b, c)
    same(d, 'three logs, 3000 samples held', '--no-symbols',
         '--max-samples', '3000', a, b, c)
    for log in (a, b, c):
        r, _ = analyze(d, 1, '-q', '--summary', log[:-4] + '.sbts', log)
        check(r == 0, 'summary of %s' % os.path.basename(log))
    same(d, 'three summaries', '--no-symbols', *(x[:-4] + '.sbts'
                                                 for x in (a, b, c)))
    one_log(d)
    one_region(d)
    subprocess.run(['rm', '-rf', d])
    done()


if __name__ == '__main__':
    main()
