#!/usr/bin/python3
"""maxmb_test.py - the log cap SBT_MAX_MB, end to end.

    maxmb_test.py SAPP SAPP_CALL        (SBT_LIB, SBT_ANALYZE from the env)

Runs tests/sparse's sapp preloaded with the recorder under SBT_MAX_MB and
checks: the log stays under the cap with nothing dropped, calls are exact,
the thinning level rose and is in the header (max_mb, thin_level), in one
THIN meta entry per level and in the report (text and JSON); the samples
the analyzer holds are spread evenly over the run's calls (those the
recorder wrote are not: it thinned more as the log filled) and a 1-in-4
periodic workload keeps both modes in their shares.  Also: threads race
to raise the level; a SIGKILL loses no call; without SBT_MAX_MB the log is
as before (version 2, no THIN entry); a bad value is told once and the
run records every call.  No timing is asserted beyond the long calls
reading longer than the short ones (4x the work, interleaved).
"""
import math, os, struct, subprocess, sys, tempfile

SAPP, SAPP_CALL = sys.argv[1], sys.argv[2]
LIB, ANALYZE = os.environ['SBT_LIB'], os.environ['SBT_ANALYZE']
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'common'))
import sbttest  # noqa: E402
from sbttest import check, within, done  # noqa: E402
from sbttest import run_and_kill, preloaded  # noqa: E402
from sbttest import analyze, analyze_json  # noqa: E402
from rawlog import Log, call_index  # noqa: E402
MB = 1 << 20

def record(tmp, name, app, args, cap, sample=None, quiet=True):
    return sbttest.record(tmp, name, app, args, quiet, max_mb=cap,
                          sample=sample)


def held_samples(log, tmp):
    """(source thread, t_ns, ns) of every non-probe sample held."""
    dump = os.path.join(tmp, 'dump.csv')
    analyze(log, '--filter', 'none', '--dump', dump)
    out = []
    with open(dump) as f:
        head = f.readline().strip().split(',')
        ix = {k: i for i, k in enumerate(head)}
        for line in f:
            c = line.strip().split(',')
            if c[ix['probe']] == '1':
                continue
            out.append((int(c[ix['thread']]), float(c[ix['t_ns']]),
                        float(c[ix['ns']])))
    return out


def capped(tmp):
    n, cap = 2000000, 4
    log, p = record(tmp, 'capped', SAPP, ['bimodal', str(n)], str(cap))
    check(p.returncode == 0, 'capped: app ran: ' + p.stderr.strip())
    L = Log(log)
    check(L.size <= cap * MB and L.end_offset <= cap * MB,
          'capped: log %d bytes, under the cap of %d MB' % (L.size, cap))
    check(L.version == 6, 'capped: a format version 6 log')
    K = L.thin_level
    check(L.max_mb == cap and K > 0,
          'capped: header max_mb %d, thin_level %d' % (L.max_mb, K))
    levels = sorted(l for _, l in L.thin)
    check(levels == list(range(1, K + 1)),
          'capped: one THIN entry per level 1..%d (%s)' % (K, levels))
    ts = [t for t, _ in sorted(L.thin, key=lambda e: e[1])]
    check(ts == sorted(ts), 'capped: levels rose in time order')
    check(L.calls.get(0) == n, 'capped: the log counts %s calls'
          % L.calls.get(0))

    d, r = analyze_json(log)
    s, b = d['sources'][0], r['bimodal']
    check(b['calls'] == n, 'capped: calls exact (%d)' % b['calls'])
    check(s['counters']['dropped'] == 0, 'capped: nothing dropped')
    check(s['max_mb'] == cap and s['thin_level'] == K and
          [e['level'] for e in s['thin_events']] == list(range(1, K + 1)),
          'capped: JSON max_mb %s, thin_level %s, %d thin_events' %
          (s['max_mb'], s['thin_level'], len(s['thin_events'])))
    text = analyze(log)
    want = 'SBT_MAX_MB %d: thinned from' % cap
    line = [l for l in text.splitlines() if want in l]
    check(len(line) == 1 and ('1 call in %d held' % (1 << K)) in line[0],
          'capped: text header says so: %s' % line)

    # Every call is held with probability 2^-K (the first one always);
    # each level change may leave one sample held at twice its share.
    q = 2.0 ** -K
    sd = math.sqrt(n * q * (1 - q))
    check(abs(b['kept'] + b.get('dropped', 0) - n * q) <= 4 * sd + K + 1,
          'capped: %d held + %d filtered within 4 sigma of %.0f' %
          (b['kept'], b.get('dropped', 0), n * q))

    held = held_samples(log, tmp)
    # a held sample's call index: that of its START among those recorded
    idx = call_index(L, 0, [t for _, t, _ in held])
    check(len(idx) == len(held), 'capped: %d of %d held samples found in '
          'the log' % (len(idx), len(held)))
    first = sum(1 for i in idx if i < n / 2) / max(len(idx), 1)
    raw = L.starts[0]
    rec_first = sum(1 for _, i in raw if i < n / 2) / len(raw)
    check(within(first, 0.5, math.sqrt(0.25 / max(len(idx), 1))),
          'capped: %.3f of the held samples in the first half of the '
          'calls, within 4 sigma of 0.5' % first)
    check(rec_first > 0.8, 'capped: (%.3f of those recorded: the recorder '
          'thinned more as the log filled)' % rec_first)

    # A summary of the capped log holds what the log's reader holds, and
    # merged reports say what the log's does.
    sb = os.path.join(tmp, 'capped.sbts')
    subprocess.run([ANALYZE, '-q', '--summary', sb, log], check=True,
                   timeout=120)
    ds, _ = analyze_json(sb)
    check(ds['regions'] == d['regions'] and
          ds['sources'][0]['thin_events'] == s['thin_events'],
          'capped: its summary reports what the log does')

    # Both kinds of call of the 1-in-4 workload, in their shares: a
    # held sample's kind is its call's index (i % 4 == 3: 4x the work),
    # not its time, so the share is a count no machine's speed moves;
    # the long calls read longer than the short ones, interleaved in one
    # run (4x the work: an order no machine reverses).
    ns = [x for _, _, x in held]
    if len(idx) == len(held) and idx:
        kinds = [(i % 4 == 3, x) for i, x in zip(idx, ns)]
        lng = sorted(x for k, x in kinds if k)
        sht = sorted(x for k, x in kinds if not k)
        long_share = len(lng) / len(kinds)
        sd = math.sqrt(0.25 * 0.75 / len(kinds))
        check(lng and sht and lng[len(lng) // 2] > sht[len(sht) // 2],
              'capped: long calls read longer (medians %.0f and %.0f ns)'
              % (lng[len(lng) // 2] if lng else 0,
                 sht[len(sht) // 2] if sht else 0))
        check(within(long_share, 0.25, sd),
              'capped: long share %.4f within 4 sigma (%.4f) of 0.25'
              % (long_share, sd))

def threads(tmp):
    n, cap = 500000, 2
    for app, label in ((SAPP, 'inline'), (SAPP_CALL, 'calls')):
        log, p = record(tmp, 'threads', app, ['threads', str(n)], str(cap),
                        sample='hot:2')
        L = Log(log)
        d, r = analyze_json(log)
        s = d['sources'][0]
        check(r['hot']['calls'] == 4 * n and
              sum(L.calls.values()) == 4 * n,
              '%s threads: calls exact (%d)' % (label, r['hot']['calls']))
        check(L.size <= cap * MB and s['counters']['dropped'] == 0,
              '%s threads: %d bytes, under the cap, nothing dropped'
              % (label, L.size))
        check(L.thin_level > 0 and sorted(l for _, l in L.thin) ==
              list(range(1, L.thin_level + 1)),
              '%s threads: level %d, one THIN entry each'
              % (label, L.thin_level))


def kill(tmp):
    log = os.path.join(tmp, 'kill.log')
    done = os.path.join(tmp, 'kill.done')
    line, rc = run_and_kill([SAPP, 'kill', '200000', done],
                            preloaded(log, max_mb='2'), 0.3)
    check(line == 'running' and rc == -9, 'kill: killed mid-run')
    with open(done, 'rb') as f:
        made = struct.unpack('<Q', f.read(8))[0]
    d, r = analyze_json(log)
    calls = r['hot']['calls']
    check(made > 200000 and calls in (made, made + 1),
          'kill: %d calls in the log, %d completed' % (calls, made))
    check(Log(log).thin_level > 0 and d['sources'][0]['thin_level'] > 0,
          'kill: the level is in the header of a killed run')


def unset(tmp):
    n = 100000
    log, p = record(tmp, 'unset', SAPP, ['hot', str(n)], None)
    L = Log(log)
    d, r = analyze_json(log)
    check(L.version == 6 and L.max_mb == 0 and L.thin_level == 0 and
          not L.thin, 'unset: version 6, no cap, no THIN entry')
    check(r['hot']['recorded'] == r['hot']['calls'] == n and
          d['sources'][0]['max_mb'] == 0 and
          'SBT_MAX_MB' not in analyze(log),
          'unset: every call recorded, nothing said')
    # A cap never approached: every call still recorded.
    log, p = record(tmp, 'roomy', SAPP, ['hot', str(n)], '1024')
    L = Log(log)
    d, r = analyze_json(log)
    check(L.max_mb == 1024 and L.thin_level == 0 and not L.thin and
          r['hot']['recorded'] == r['hot']['calls'] == n,
          'roomy cap: level 0, every call recorded')
    check('SBT_MAX_MB 1024: not reached' in analyze(log),
          'roomy cap: the report says it was not reached')


def bad(tmp):
    n = 10000
    for value in ('x', '0', '1', '-4', '4MB', '99999999999'):
        log, p = record(tmp, 'bad', SAPP, ['hot', str(n)], value,
                        quiet=False)
        told = [l for l in p.stderr.splitlines() if 'SBT_MAX_MB' in l]
        check(p.returncode == 0 and len(told) == 1,
              'bad %r: told once: %s' % (value, told))
        d, r = analyze_json(log)
        L = Log(log)
        check(r['hot']['recorded'] == r['hot']['calls'] == n and
              L.version == 6 and L.max_mb == 0,
              'bad %r: no cap, every call recorded, version 6' % value)


with tempfile.TemporaryDirectory() as tmp:
    capped(tmp)
    threads(tmp)
    kill(tmp)
    unset(tmp)
    bad(tmp)
done()
