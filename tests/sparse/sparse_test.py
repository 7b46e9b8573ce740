#!/usr/bin/python3
"""sparse_test.py - sparse recording (SBT_SAMPLE), end to end.

    sparse_test.py SAPP SAPP_CALL [API_APP ...]   (SBT_LIB, SBT_ANALYZE
                                                   from the env)

Runs tests/sparse/sapp preloaded with the recorder and checks, from
sbt-analyze's JSON: call counts are exact, the number recorded is within
4 sigma of calls / N (each call is recorded with probability 1/N, on its
own), through our markers and every interposed API (tests/interpose's
apps: ITT, NVTX, LIKWID, PAPI-HL), a 1-in-4 periodic workload sampled at 4 still holds both of its
kinds of call in their true shares, unsampled regions and misuse counters are as
without sampling, a SIGKILL loses no call, and a malformed SBT_SAMPLE is
told once while the run goes on, recording every call.  No timings are
asserted beyond the workload's long calls reading longer than its short
ones (4x the work, interleaved) and two modes found; the shares are
counted by call index.
"""
import math, os, struct, subprocess, sys, tempfile

SAPP, SAPP_CALL, API_APPS = sys.argv[1], sys.argv[2], sys.argv[3:]
LIB = os.environ['SBT_LIB']
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'common'))
import sbttest  # noqa: E402
from sbttest import check, within, binomial_sd, done  # noqa: E402
from sbttest import run_and_kill, preloaded  # noqa: E402
from sbttest import analyze_json as analyze, log_version as version  # noqa: E402,E501
from rawlog import Log, call_index  # noqa: E402


def record(tmp, name, app, args, sample, quiet=True):
    return sbttest.record(tmp, name, app, args, quiet, sample=sample)


def hot(tmp, app, label):
    n = 1000000
    log, p = record(tmp, 'hot-' + label, app, ['hot', str(n)], 'hot:16')
    check(p.returncode == 0, label + ': app ran: ' + p.stderr.strip())
    d, r = analyze(log)
    h, c = r['hot'], r['cold']
    check(h['calls'] == n, '%s: hot calls exact (%d)' % (label, h['calls']))
    check(within(h['recorded'], n / 16, binomial_sd(n, 1 / 16)),
          '%s: hot recorded %d within 4 sigma of %d' %
          (label, h['recorded'], n // 16))
    check(h['est_total_se_ns'] > 0, label + ': sampled total has an error')
    # the estimate is the region's total, whatever the verdict left out:
    # a user reads both on one page
    check(abs(h['est_total_ns'] - h['total_ns']) <= 1e-9 * h['total_ns'],
          '%s: estimated total %.0f ns is the total %.0f ns' %
          (label, h['est_total_ns'], h['total_ns']))
    check(c['calls'] == c['recorded'] == n // 100 and
          c['est_total_se_ns'] == 0,
          '%s: unsampled cold exact (%d of %d)' %
          (label, c['recorded'], c['calls']))
    check(version(log) == 6, label + ': a sampled log is format version 6')


def threads(tmp):
    n = 200000
    for app, label in ((SAPP, 'inline'), (SAPP_CALL, 'calls')):
        log, p = record(tmp, 'threads', app, ['threads', str(n)], '*:8')
        d, r = analyze(log)
        h = r['hot']
        check(h['calls'] == 4 * n, '%s threads: calls exact (%d)' %
              (label, h['calls']))
        check(within(h['recorded'], 4 * n / 8, binomial_sd(4 * n, 1 / 8)),
              '%s threads: recorded %d within 4 sigma of %d' %
              (label, h['recorded'], 4 * n // 8))


def apis(tmp):
    for app in API_APPS:
        name = os.path.basename(app)
        got = []
        for sample in (None, '*:3'):
            # a log of its own each: the recorder never replaces one
            log = os.path.join(tmp, '%s-%s.log' % (name, 'sampled' if sample
                                                   else 'all'))
            env = dict(os.environ, LD_PRELOAD=LIB, SBT_OUTPUT=log,
                       INTEL_LIBITTNOTIFY64=LIB, NVTX_INJECTION64_PATH=LIB)
            env.pop('SBT_SAMPLE', None)
            if sample:
                env['SBT_SAMPLE'] = sample
            p = subprocess.run([app], env=env, capture_output=True,
                               text=True, timeout=120)
            d, r = analyze(log)
            got.append((p.returncode, d['sources'][0]['counters'],
                        {k: v['calls'] for k, v in r.items()},
                        sum(v['recorded'] for v in r.values())))
        (rc0, cnt0, calls0, rec0), (rc1, cnt1, calls1, rec1) = got
        check(rc0 == rc1 == 0 and calls0 == calls1 and cnt0 == cnt1 and
              rec1 < rec0,
              '%s: calls %s and misuse counters as unsampled, %d of %d '
              'recorded' % (name, calls1, rec1, rec0))


def bimodal(tmp):
    # A sample's kind is its call's index (i % 4 == 3: 4x the work), read
    # from the log, not its time: the share of long calls among those
    # recorded is a count no machine's speed moves (sampled every 4th
    # call, it would be 0 or 1).  The analyzer tells two modes apart (4x
    # the work, interleaved in one run).
    n = 20000
    log, p = record(tmp, 'bimodal', SAPP, ['bimodal', str(n)], 'bimodal:4')
    d, r = analyze(log)
    b = r['bimodal']
    check(b['calls'] == n, 'bimodal calls exact (%d)' % b['calls'])
    check(len(b['modes']) >= 2, 'bimodal: %d modes' % len(b['modes']))
    rows = [x for x in sbttest.dump_samples(log, tmp)
            if x['region'] == 'bimodal']
    idx = call_index(Log(log), 0, [x['t_ns'] for x in rows])
    check(len(idx) == len(rows) == b['recorded'],
          'bimodal: %d of %d samples found in the log (%d recorded)'
          % (len(idx), len(rows), b['recorded']))
    lng = sorted(x['ns'] for x, i in zip(rows, idx) if i % 4 == 3)
    sht = sorted(x['ns'] for x, i in zip(rows, idx) if i % 4 != 3)
    check(lng and sht and lng[len(lng) // 2] > sht[len(sht) // 2],
          'bimodal: long calls read longer (medians %.0f, %.0f ns)'
          % (lng[len(lng) // 2] if lng else 0,
             sht[len(sht) // 2] if sht else 0))
    if idx:
        share = len(lng) / len(idx)
        sd = math.sqrt(0.25 * 0.75 / len(idx))
        check(within(share, 0.25, sd),
              'bimodal: long share %.4f within 4 sigma (%.4f) of 0.25'
              % (share, sd))


def nest(tmp):
    n = 100000
    runs = {}
    for sample in (None, 'outer:8,inner:3', 'inner:3', 'outer:5'):
        log, p = record(tmp, 'nest', SAPP, ['nest', str(n)], sample)
        d, r = analyze(log)
        runs[sample] = d['sources'][0]['counters'], r
    base = runs[None][0]
    for sample, (cnt, r) in runs.items():
        check(r['outer']['calls'] == n and r['inner']['calls'] == n,
              'nest %s: calls exact' % sample)
        check(cnt == base, 'nest %s: misuse counters as unsampled (%s)' %
              (sample, {k: v for k, v in cnt.items() if v}))


def kill(tmp):
    log = os.path.join(tmp, 'kill.log')
    done = os.path.join(tmp, 'kill.done')
    line, rc = run_and_kill([SAPP, 'kill', '200000', done],
                            preloaded(log, sample='hot:16'), 0.2)
    check(line == 'running' and rc == -9, 'kill: killed mid-run')
    with open(done, 'rb') as f:
        made = struct.unpack('<Q', f.read(8))[0]
    d, r = analyze(log)
    calls = r['hot']['calls']
    # The call in flight at the kill may have been counted already.
    check(made > 200000 and calls in (made, made + 1),
          'kill: %d calls in the log, %d completed' % (calls, made))
    check(within(r['hot']['recorded'], calls / 16,
                 binomial_sd(calls, 1 / 16)),
          'kill: recorded %d within 4 sigma of %d' %
          (r['hot']['recorded'], calls // 16))


def bad(tmp):
    n = 10000
    for value in ('hot', 'hot:0', ':4', 'hot:x', 'hot:4,', 'hot:99999999999'):
        log, p = record(tmp, 'bad', SAPP, ['hot', str(n)], value,
                        quiet=False)
        told = [l for l in p.stderr.splitlines() if 'SBT_SAMPLE' in l]
        check(p.returncode == 0 and len(told) == 1,
              'bad %r: told once: %s' % (value, told))
        d, r = analyze(log)
        check(r['hot']['recorded'] == r['hot']['calls'] == n,
              'bad %r: every call recorded' % value)
        check(version(log) == 6, 'bad %r: a version-6 log' % value)


with tempfile.TemporaryDirectory() as tmp:
    hot(tmp, SAPP, 'inline')
    hot(tmp, SAPP_CALL, 'calls')
    threads(tmp)
    apis(tmp)
    bimodal(tmp)
    nest(tmp)
    kill(tmp)
    bad(tmp)
done()
