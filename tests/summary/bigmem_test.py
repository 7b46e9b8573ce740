#!/usr/bin/python3
"""bigmem_test.py - a 10^8-sample log analyzed in bounded memory.

    bigmem_test.py BENCH_RECORD      (SBT_LIB, SBT_ANALYZE from the env)

Records 10^8 samples (two regions, 3.3 GB of log) with bench-record, then
runs sbt-analyze on it under `ulimit -v` of 3 GB and checks: it finishes,
the call counts are exact (5 * 10^7 a region), each region holds the
share the default budget plans, and the peak resident memory stays
under 2 GB.  Skipped (exit 77) when the disk has no room for the log.
"""
import json, os, shutil, subprocess, sys, tempfile

REC = sys.argv[1]
LIB, ANALYZE = os.environ['SBT_LIB'], os.environ['SBT_ANALYZE']
N = 100_000_000
LIMIT_KB = 3_000_000


def main():
    base = os.environ.get('TMPDIR', '/tmp')
    if shutil.disk_usage(base).free < 6e9:
        print('less than 6 GB free in %s: skipped' % base)
        return 77
    tmp = tempfile.mkdtemp(prefix='sbt-bigmem-', dir=base)
    try:
        log = os.path.join(tmp, 'big.log')
        env = dict(os.environ, LD_PRELOAD=LIB, SBT_OUTPUT=log, SBT_QUIET='1')
        subprocess.run([REC, str(N)], env=env, check=True,
                       stdout=subprocess.DEVNULL, timeout=600)
        cmd = 'ulimit -v %d && exec "$0" -q --no-symbols --format json ' \
              '"$1"' % LIMIT_KB
        p = subprocess.Popen(['sh', '-c', cmd, ANALYZE, log],
                             stdout=subprocess.PIPE, text=True)
        out = p.stdout.read()
        _, status, ru = os.wait4(p.pid, 0)
        rc = os.waitstatus_to_exitcode(status)
        peak = ru.ru_maxrss * 1024
        fails = []
        if rc != 0:
            fails.append('exit %d under ulimit -v %d KB' % (rc, LIMIT_KB))
        else:
            r = {g['name']: g for g in json.loads(out)['regions']}
            for name in ('even', 'odd'):
                g = r[name]
                if g['calls'] != N // 2:
                    fails.append('%s: %d calls, not %d' %
                                 (name, g['calls'], N // 2))
                if not 0 < g['held_share'] < 0.2:
                    fails.append('%s: held share %s' %
                                 (name, g['held_share']))
            print('10^8 samples: exact calls, held shares %.4f / %.4f' %
                  (r['even']['held_share'], r['odd']['held_share']))
        print('peak RSS %.0f MB (%.1f bytes/sample)' % (peak / 1e6,
                                                       peak / N))
        if peak > 2e9:
            fails.append('peak RSS %.0f MB > 2 GB' % (peak / 1e6))
        for f in fails:
            print('FAIL ' + f)
        return 1 if fails else 0
    finally:
        shutil.rmtree(tmp)


sys.exit(main())
