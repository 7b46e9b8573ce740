#!/usr/bin/python3
"""thin_test.py - the analyzer's sample budget and summaries, end to end.

    thin_test.py SAPP OS_APP    (SBT_LIB, SBT_ANALYZE from the env)

Records tests/sparse/sapp's 1-in-4 bimodal workload (every call) and its
"hot"/"cold" pair, then checks from sbt-analyze's JSON:
- under --max-samples, calls stay exact, the share held is within 4 sigma
  of the plan, the bimodal region keeps both kinds of call in their true
  shares,
  and a small region ("cold") beside a large one is held whole;
- a summary made under the same budget gives exactly the direct report,
  and one made under the default budget (every sample) exactly the
  unbudgeted report; merging a thinned and a whole summary of a region
  holds the same share of both;
- inputs read several at once (-j) give the report of reading them one
  by one;
- SBT_EVENTS' counts (tests/common/region_app's page-touching region) come
  through a summary, thinning and parallel reading unchanged;
- a cut, bit-flipped, empty or foreign summary is refused by name with
  exit 1 while the others are still merged, never a crash.
No timings are asserted beyond the workload's two modes being told apart
(4x the work); its shares are counted by call index.
"""
import json, math, os, shutil, subprocess, sys, tempfile

SAPP, OS_APP = sys.argv[1], sys.argv[2]
LIB, ANALYZE = os.environ['SBT_LIB'], os.environ['SBT_ANALYZE']
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'common'))
import sbttest  # noqa: E402
from sbttest import check, within, binomial_sd, done  # noqa: E402


def record(tmp, name, args):
    log, p = sbttest.record(tmp, name, SAPP, args)
    if p.returncode != 0:
        sys.exit('sapp %s failed: %s' % (args, p.stderr))
    return log


def run(*args):
    return subprocess.run([ANALYZE, '-q', *args], capture_output=True,
                          text=True, timeout=300)


def analyze(*args):
    p = run('--format', 'json', *args)
    if p.returncode != 0 or not p.stdout:
        sys.exit('sbt-analyze %s failed (%d): %s' %
                 (args, p.returncode, p.stderr))
    d = json.loads(p.stdout)
    return d, {r['name']: r for r in d['regions']}


def without_paths(d):
    for s in d['sources']:
        s.pop('path', None)
    return d


def dump_held(log, tmp, cap):
    """The samples held under --max-samples cap, as dump_samples()."""
    import csv
    out = os.path.join(tmp, 'held.csv')
    run('--filter', 'none', '--no-symbols', '--max-samples', str(cap),
        '--dump', out, log)
    with open(out) as f:
        rows = [r for r in csv.DictReader(f) if r['probe'] == '0']
    for r in rows:
        r['t_ns'] = float(r['t_ns'])
    return rows


def budget(tmp):
    n, cap = 200000, 20000
    log = record(tmp, 'bimodal', ['bimodal', str(n)])
    full, rf = analyze(log)
    total = rf['bimodal']['count'] + rf['bimodal']['probes']
    d, r = analyze('--max-samples', str(cap), log)
    b = r['bimodal']
    p = b['held_share']
    check(b['calls'] == n, 'budget: calls exact (%d)' % b['calls'])
    check(abs(p / (cap / total) - 1) < 1e-3,
          'budget: held share %.4f = %d / %d' % (p, cap, total))
    held = b['count'] + b['probes']
    sd = math.sqrt(total * p * (1 - p))
    check(within(held, total * p, sd),
          'budget: %d held, within 4 sigma of %.0f' % (held, total * p))
    # The held samples' kinds by call index (every call is recorded: a
    # sample's index is its place among all of them by start), not by
    # time: the share of long calls held is a count no machine's speed
    # moves.  The analyzer tells two modes apart (4x the work).
    check(len(b['modes']) >= 2, 'budget: %d modes' % len(b['modes']))
    every = sorted(x['t_ns'] for x in sbttest.dump_samples(log, tmp)
                   if x['region'] == 'bimodal')
    place = {t: i for i, t in enumerate(every)}
    rows = [x for x in dump_held(log, tmp, cap) if x['region'] == 'bimodal']
    # the total a user checks from the dump: each held sample's ns times
    # the calls it stands for (--filter none: no t_e,std taken out)
    _, rn = analyze('--filter', 'none', '--no-symbols', '--max-samples',
                    str(cap), log)
    sums = sum(float(x['ns']) * int(x['calls']) for x in rows)
    calls = sum(int(x['calls']) for x in rows)
    # the dump rounds ns to 0.001 (each off by 0.0005 x its calls at
    # most), the JSON prints 10 significant digits
    check(calls == n and abs(sums - rn['bimodal']['total_ns']) <=
          0.0005 * calls + 1e-9 * sums,
          'budget: the dump\'s ns x calls %.1f ns over %d calls, the '
          'total %.1f ns' % (sums, calls, rn['bimodal']['total_ns']))
    idx = [place[x['t_ns']] for x in rows if x['t_ns'] in place]
    check(len(every) == n and len(idx) == len(rows) == b['count'],
          'budget: %d held samples of %d found among the %d calls'
          % (len(idx), b['count'], len(every)))
    if idx:
        share = sum(1 for i in idx if i % 4 == 3) / len(idx)
        sd = math.sqrt(0.25 * 0.75 / len(idx))
        check(within(share, 0.25, sd),
              'budget: long share %.4f within 4 sigma (%.4f) of 0.25' %
              (share, sd))

    # The same budget through a summary: the very same report.
    s = os.path.join(tmp, 'bimodal-cap.sbts')
    p1 = run('--max-samples', str(cap), '--summary', s, log)
    check(p1.returncode == 0 and os.path.getsize(s) > 0,
          'summary under a budget written (%s)' % p1.stderr.strip())
    ds, _ = analyze(s)
    check(without_paths(ds) == without_paths(d),
          'summary under a budget = direct analysis under it')
    # Every sample (default summary budget 10^6): the unbudgeted report.
    s2 = os.path.join(tmp, 'bimodal.sbts')
    run('--summary', s2, log)
    ds2, r2 = analyze(s2)
    check(without_paths(ds2) == without_paths(full),
          'whole summary = direct analysis (%d samples)' %
          r2['bimodal']['count'])
    check(os.path.getsize(s2) < os.path.getsize(log),
          'summary %d bytes < log %d bytes' %
          (os.path.getsize(s2), os.path.getsize(log)))
    # A thinned and a whole summary of the region: both held alike.
    dm, rm = analyze(s, s2)
    check(rm['bimodal']['held_share'] == p and
          rm['bimodal']['calls'] == 2 * n,
          'merged thinned + whole: share %.4f for both, calls %d' %
          (rm['bimodal']['held_share'], rm['bimodal']['calls']))
    # Inputs read in parallel merge in input order: the same report.
    j = [analyze('-j', str(k), s, s2, log, s)[0] for k in (1, 2, 3)]
    check(j[0] == j[1] == j[2], 'summaries and a log read with -j 1, 2, '
          '3: the same report')
    return s2


def small_beside_large(tmp):
    n = 300000
    log = record(tmp, 'hot', ['hot', str(n)])
    d, r = analyze('--max-samples', '50000', log)
    h, c = r['hot'], r['cold']
    check(h['calls'] == n and c['calls'] == n // 100,
          'hot/cold: calls exact (%d, %d)' % (h['calls'], c['calls']))
    check(c['held_share'] == 1 and c['count'] == n // 100,
          'hot/cold: the small region held whole (%d)' % c['count'])
    check(h['held_share'] < 0.2, 'hot/cold: hot thinned to %.3f' %
          h['held_share'])


def damage(tmp, good):
    data = open(good, 'rb').read()
    bad = {
        'cut': data[:len(data) // 2],
        'flip': data[:len(data) // 2] + bytes([data[len(data) // 2] ^ 0x40])
                + data[len(data) // 2 + 1:],
        'empty': b'',
        'foreign': b'hello, not a summary\n' * 10,
        'gzip': __import__('gzip').compress(b'SBTSUMS\0' + b'\xff' * 64),
    }
    for name, b in bad.items():
        path = os.path.join(tmp, name + '.sbts')
        with open(path, 'wb') as f:
            f.write(b)
        p = run('--format', 'json', good, path)
        named = path in p.stderr
        ok = p.returncode == 1 and named and p.stdout and \
            json.loads(p.stdout)['regions']
        check(bool(ok), '%s summary: exit %d, named: %s, the rest '
              'reported' % (name, p.returncode, p.stderr.strip()))
        p = run(path)
        check(p.returncode == 2 and path in p.stderr,
              '%s summary alone: exit %d (%s)' %
              (name, p.returncode, p.stderr.strip()))


def counters(tmp):
    """SBT_EVENTS' counts travel with their samples: through a summary,
    thinning and parallel reading."""
    log = os.path.join(tmp, 'pages.log')
    env = dict(os.environ, LD_PRELOAD=LIB, SBT_OUTPUT=log,
               SBT_EVENTS='page-faults,task-clock')
    p = subprocess.run([OS_APP, 'pages', '3000'], env=env,
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        sys.exit('region_app pages failed: %s' % p.stderr)
    d, r = analyze(log)
    touch = r['touch'].get('counters') or {}
    if not touch:
        why = d['sources'][0].get('events_unavailable') or ''
        check('Permission denied' in why,
              'counters: none recorded, and not refused (%s)' % why)
        return
    s = os.path.join(tmp, 'pages.sbts')
    run('--summary', s, log)
    ds, rs = analyze(s)
    check(without_paths(ds) == without_paths(d),
          'counters: the summary reports what the log does (%s)' %
          json.dumps(rs['touch']['counters'])[:120])
    cap = ['--max-samples', '2000']
    dt, rt = analyze(*cap, log)
    s2 = os.path.join(tmp, 'pages-cap.sbts')
    run(*cap, '--summary', s2, log)
    dst, _ = analyze(s2)
    check(without_paths(dst) == without_paths(dt),
          'counters: thinned, the summary = the log (%s)' %
          json.dumps(rt['touch']['counters'])[:120])
    j1, _ = analyze('-j', '1', s, log, s2)
    j2, _ = analyze('-j', '2', s, log, s2)
    check(j1 == j2, 'counters: -j 1 and -j 2 give the same report')


def main():
    tmp = tempfile.mkdtemp(prefix='sbt-thin-')
    try:
        good = budget(tmp)
        small_beside_large(tmp)
        damage(tmp, good)
        counters(tmp)
    finally:
        shutil.rmtree(tmp)
    done()


main()
