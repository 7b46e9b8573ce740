#!/usr/bin/python3
"""numbers_test.py - the report's numbers against an independent count,
and every number meaning what it says, on stored logs of real programs.

    numbers_test.py truth|rules LOG.xz|FOLDER... (SBT_ANALYZE from the env;
    a folder: every *.log.xz under it)

truth: per region, the count of its samples and the sum of their `ns`
  (less the log's t_e,std each: the timer's cost the analyzer takes out;
  times the `calls` each stands for) computed from `--dump` alone; JSON's and CSV's total_ns, the text
  table's total and `-v`'s "in all" agree with it to their rounding, and
  under `--by thread`, `--by cpu` and `--by site` each region's groups add
  up to it (by thread: group by group, the dump's threads' sums).
  With `--filter none`, the totals are the dump's plain sums.
rules: in the text table, `-v` and `--by thread -v`: no number in
  scientific notation; every "N % of" (a share of a whole) within
  0-100 %; every "A of B" count with A <= B; no "too few: 0 samples";
  a typical time only for a region with kept samples; JSON's shares
  within 0-1 and its kept and dropped within its count; the text table's
  totals the JSON's, row for row.
"""
import collections, csv, io, json, lzma, math, os, re, subprocess, sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'common'))
from sbttest import check, done  # noqa: E402

ANALYZE = os.environ['SBT_ANALYZE']
UNIT = {'ns': 1, 'us': 1e3, 'ms': 1e6, 's': 1e9}


def run(log, *opts):
    p = subprocess.run([ANALYZE, *opts, log], capture_output=True,
                       text=True, timeout=600)
    if p.returncode not in (0, 1) or not p.stdout:
        sys.exit('sbt-analyze %s failed on %s (exit %d): %s' %
                 (' '.join(opts), log, p.returncode, p.stderr))
    return p.stdout


def close(x, truth, digits, n=0):
    """x agrees with truth to `digits` significant digits, or to the
    rounding of the n samples' 0.001 ns in the dump (and 0.01 ns)."""
    return abs(x - truth) <= max(0.51 * 10 ** -(digits - 1) * abs(truth),
                                 0.0005 * n) + 0.01


def dump_truth(log, tmp, filt):
    """Per region: [count, sum of ns less t_e,std]; per (region, thread)
    the same; from --dump alone (and the log's t_e,std from JSON's
    sources, the header's figure)."""
    path = os.path.join(tmp, 'dump.csv')
    d = json.loads(run(log, '--format', 'json', '--dump', path, *filt))
    te = {i: (s['te_ns'] if not filt else 0)
          for i, s in enumerate(d['sources'])}
    reg = collections.defaultdict(lambda: [0, 0.0])
    thr = collections.defaultdict(lambda: [0, 0.0])
    with open(path) as f:
        for r in csv.DictReader(f):
            if r['probe'] == '1':
                continue
            ns = (float(r['ns']) - te[int(r['source'])]) * int(r['calls'])
            for a in (reg[r['region']],
                      thr[(r['region'], r['source'], r['thread'])]):
                a[0] += 1
                a[1] += ns
    return d, reg, thr


def text_totals(text):
    """The table's rows: their total column, in ns."""
    lines = text.splitlines()
    i = next(k for k, l in enumerate(lines) if l.startswith('region'))
    out = []
    for l in lines[i + 1:]:
        if not l.strip() or l.startswith(' '):
            break
        m = re.search(r'\s(-?[0-9.]+) (ns|us|ms|s)\s+[0-9.]+%', l)
        out.append(float(m.group(1)) * UNIT[m.group(2)] if m else None)
    return out


def case_truth(log, tmp):
    name = os.path.basename(log)
    for filt in ((), ('--filter', 'none')):
        tag = '%s%s' % (name, ' --filter none' if filt else '')
        d, reg, thr = dump_truth(log, tmp, filt)
        bad = [(r['name'], r['count'], r['total_ns'], reg[r['name']])
               for r in d['regions']
               if r['count'] != reg[r['name']][0] or
               not close(r['total_ns'], reg[r['name']][1], 6)]
        check(not bad and len(d['regions']) == len(reg),
              '%s: JSON total_ns of %d regions = their samples\' sum '
              '(--dump)%s' % (tag, len(reg), ': %s' % bad[:3] if bad
                              else ''))
        rows = list(csv.DictReader(io.StringIO(run(log, '--format', 'csv',
                                                   *filt))))
        bad = [(r['region'], r['total_ns']) for r in rows
               if not close(float(r['total_ns']), reg[r['region']][1], 9,
                            reg[r['region']][0])]
        check(not bad, '%s: CSV total_ns = the samples\' sum%s' %
              (tag, ': %s' % bad[:3] if bad else ''))
        text = sorted(t for t in text_totals(run(log, *filt)))
        truth = sorted(a[1] for a in reg.values())
        bad = [(t, x) for t, x in zip(text, truth) if not close(t, x, 4)]
        check(len(text) == len(truth) and not bad,
              '%s: the text table\'s %d totals = the samples\' sums%s' %
              (tag, len(text), ': %s' % bad[:3] if bad else ''))
        vt = {m.group(1): float(m.group(2)) * UNIT[m.group(3)] for m in
              re.finditer(r'^(\S.*?): (-?[0-9.]+) (ns|us|ms|s) in all',
                          run(log, '-v', '--width', '400', *filt), re.M)}
        bad = [(k, v) for k, v in vt.items()
               if k not in reg or not close(v, reg[k][1], 3)]
        check(len(vt) == len(reg) and not bad,
              '%s: -v\'s "in all" of %d regions = the samples\' sums%s' %
              (tag, len(vt), ': %s' % bad[:3] if bad else ''))
        for by in ('thread', 'cpu', 'site'):
            g = json.loads(run(log, '--format', 'json', '--by', by,
                               *filt))['regions']
            add = collections.defaultdict(lambda: [0, 0.0])
            per = collections.defaultdict(list)
            for r in g:
                add[r['name']][0] += r['count']
                add[r['name']][1] += r['total_ns']
                per[r['name']].append((r['count'], r['total_ns']))
            bad = [k for k in reg if add[k][0] != reg[k][0] or
                   not close(add[k][1], reg[k][1], 5, reg[k][0])]
            check(not bad, '%s --by %s: each region\'s groups add up to '
                  'its samples\' sum%s' % (tag, by, ': %s' % bad[:3]
                                           if bad else ''))
            if by != 'thread':
                continue
            want = collections.defaultdict(list)
            for (rn, _, _), a in thr.items():
                want[rn].append(tuple(a))
            bad = [k for k in reg if len(per[k]) != len(want[k]) or any(
                   c != wc or not close(t, wt, 6, wc) for (c, t), (wc, wt) in
                   zip(sorted(per[k]), sorted(want[k])))]
            check(not bad, '%s --by thread: every thread\'s total = its '
                  'samples\' sum%s' % (tag, ': %s' % bad[:3] if bad
                                       else ''))


SCI = re.compile(r'\d\.?\d*[eE][+-]\d')
SHARE = re.compile(r'(-?\d+(?:\.\d+)?) ?% of ')
OF = re.compile(r'\b(\d+) of (?:its region\'s )?(\d+)\b')


def text_rules(tag, text):
    sci = [l for l in text.splitlines() if SCI.search(l)]
    check(not sci, '%s: no scientific notation%s' %
          (tag, ': %s' % sci[:2] if sci else ''))
    flat = re.sub(r'\s+', ' ', text)
    over = [m.group(0) for m in SHARE.finditer(flat)
            if not 0 <= float(m.group(1)) <= 100]
    check(not over, '%s: every "N %% of" within 0-100 %%%s' %
          (tag, ': %s' % over[:3] if over else ''))
    out = [m.group(0) for m in OF.finditer(flat)
           if int(m.group(1)) > int(m.group(2))]
    check(not out, '%s: every "A of B" count has A <= B%s' %
          (tag, ': %s' % out[:3] if out else ''))
    check('too few: 0 samples' not in flat and
          'too few     0 samples' not in text,
          '%s: no region "too few" with 0 samples' % tag)
    check('typical (median kept) ?' not in flat,
          '%s: no typical time said without samples' % tag)


def case_rules(log, tmp):
    name = os.path.basename(log)
    d = json.loads(run(log, '--format', 'json'))
    regs = d['regions']
    bad = [r['name'] for r in regs
           if any(isinstance(r[k], (int, float)) and math.isfinite(r[k])
                  and not -1e-9 <= r[k] <= 1 + 1e-9
                  for k in ('share', 'excl_share') if r.get(k) is not None)]
    check(not bad, '%s: JSON shares within 0-1%s' %
          (name, ': %s' % bad[:3] if bad else ''))
    bad = [r['name'] for r in regs
           if not (r['kept'] <= r['count'] and r['dropped'] <= r['count'])]
    check(not bad, '%s: JSON kept, dropped within count' % name)
    table = run(log, '--width', '400')
    text_rules(name + ' table', table)
    text_rules(name + ' -v', run(log, '-v', '--width', '400'))
    text_rules(name + ' --by thread -v',
               run(log, '-v', '--by', 'thread', '--width', '400'))
    # the table's rows against JSON's, row for row (--sort name: JSON's
    # order): the total, and a typical time only with kept samples
    rows = run(log, '--sort', 'name', '--width', '400').splitlines()
    i = next(k for k, l in enumerate(rows) if l.startswith('region'))
    rows = rows[i + 1:i + 1 + len(regs)]
    bad = []
    for r, l in zip(regs, rows):
        if not l.startswith(r['name'] + ' '):
            bad.append(('order', r['name'], l[:40]))
            continue
        f = l[len(r['name']):].split()
        tot = float(f[0]) * UNIT[f[1]]
        if not close(tot, r['total_ns'], 4):
            bad.append(('total', r['name'], tot, r['total_ns']))
        if f[3] != '-' and r['kept'] == 0:
            bad.append(('typical without samples', r['name']))
    check(len(rows) == len(regs) and not bad,
          '%s: the table\'s %d rows are JSON\'s totals, a typical time '
          'only with samples%s' % (name, len(rows),
                                   ': %s' % bad[:3] if bad else ''))


def main():
    what, logs = sys.argv[1], []
    for a in sys.argv[2:]:              # a folder: its logs, and its
        if os.path.isdir(a):            # folders' (the corpus)
            logs += sorted(os.path.join(r, f) for r, _, fs in os.walk(a)
                           for f in fs if f.endswith('.log.xz'))
        else:
            logs.append(a)
    check(len(logs) > 0, '%d logs' % len(logs))
    with tempfile.TemporaryDirectory() as tmp:
        for xz in logs:
            log = os.path.join(tmp, os.path.basename(xz)[:-3])
            with lzma.open(xz) as f, open(log, 'wb') as o:
                o.write(f.read())
            {'truth': case_truth, 'rules': case_rules}[what](log, tmp)
            os.unlink(log)
    done()


if __name__ == '__main__':
    main()
