#!/usr/bin/python3
"""jobs_test.py - sbt-analyze's output does not depend on -j.

    jobs_test.py RAPP           (SBT_LIB, SBT_ANALYZE from the env)

Records logs with rapp (three threads with nesting and probes; one
region from three call sites), makes summaries of them, then compares
the reports of -j 1 and -j 4 byte for byte, in JSON, CSV and text, for:
one log, several logs, summaries, a log thinned to a small budget, and
call sites symbolized (the resolver's threads).  Suite 'reliability',
so the TSan build runs the analyzer's threads through it.
"""
import os, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'common'))
from sbttest import check, done

RAPP = os.path.realpath(sys.argv[1])
LIB, ANALYZE = os.environ['SBT_LIB'], os.environ['SBT_ANALYZE']


def record(d, name, *args):
    env = dict(os.environ, LD_PRELOAD=LIB, SBT_OUTPUT=name, SBT_QUIET='1',
               SBT_PROBE_PERIOD='7')
    subprocess.run([RAPP, *args], cwd=d, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(d, name)


def analyze(d, jobs, *args):
    p = subprocess.run([ANALYZE, '-j', str(jobs), *args], cwd=d,
                       capture_output=True)
    return p.returncode, p.stdout


def same(d, what, *args):
    for fmt in (['--format', 'json'], ['--format', 'csv'], []):
        r1, o1 = analyze(d, 1, *fmt, *args)
        r4, o4 = analyze(d, 4, *fmt, *args)
        name = '%s (%s)' % (what, fmt[1] if fmt else 'text')
        check(r1 == 0 and len(o1) > 200, '%s: -j 1 reports (exit %d)' %
              (name, r1))
        check(r1 == r4 and o1 == o4, '%s: -j 4 the same as -j 1' % name)


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
    subprocess.run(['rm', '-rf', d])
    done()


if __name__ == '__main__':
    main()
