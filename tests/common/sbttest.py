"""sbttest.py - what the Python end-to-end tests share.

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..',
                                    'common'))
    from sbttest import check, within, binomial_sd, done

check() prints one line per assertion and counts the failures; done()
exits 1 when any failed.  within() is the k-sigma test of a random count
(4 sigma: with ten such checks a run, 3 sigma fails by chance in about
3 % of runs, 4 in 0.06 %).
"""
import math, sys

failures = 0


def check(cond, what):
    global failures
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures += 1


def within(x, mean, sd, k=4):
    return abs(x - mean) <= k * sd


def binomial_sd(n, p):
    return math.sqrt(n * p * (1 - p))


def done():
    print('%d failure(s)' % failures)
    sys.exit(1 if failures else 0)


def dump_samples(analyze, log, tmp):
    """Every sample of log (not the probes) as a dict of --dump's columns,
    t_ns and ns as floats."""
    import csv, os, subprocess
    out = os.path.join(tmp, 'dump.csv')
    subprocess.run([analyze, '-q', '--filter', 'none', '--no-symbols',
                    '--dump', out, log], stdout=subprocess.DEVNULL,
                   check=False, timeout=120)
    with open(out) as f:
        rows = [r for r in csv.DictReader(f) if r['probe'] == '0']
    for r in rows:
        r['t_ns'] = float(r['t_ns'])
        r['ns'] = float(r['ns'])
    return rows


def uncontained(rows, child, parent, slack=0.2):
    """Samples of region `child` that lie in no sample of region `parent`
    of the same process and thread (slack: --dump's rounding, ns)."""
    par = {}
    for r in rows:
        if r['region'] == parent:
            par.setdefault((r['source'], r['thread']), []).append(
                (r['t_ns'], r['t_ns'] + r['ns']))
    bad = 0
    for r in rows:
        if r['region'] != child:
            continue
        a, b = r['t_ns'], r['t_ns'] + r['ns']
        if not any(p0 - slack <= a and b <= p1 + slack
                   for p0, p1 in par.get((r['source'], r['thread']), [])):
            bad += 1
    return bad
