#!/usr/bin/python3
"""totals_test.py - totals first, and findings ranked by size.

    totals_test.py GEN_NESTED nested|demo|minor [SBT_RUN DEMO]
    (SBT_ANALYZE from the env)

nested: a synthetic log (gen_nested: outer 1000 ns containing inner
  400 ns, exact ticks of 10 ns, 2 threads) reports per region the
  inclusive total, and for outer the exclusive one, each within one
  quantum per call of the truth; inclusive = exclusive + the nested
  region's inclusive; shares of the threads' time as built; the same in
  JSON, CSV and text, the text table sorted by total (--sort changes it).
detour: the same with a recorder detour (a speed probe's span, taken
  out of outer) before every 7th inner call: inner's window lies in
  outer's whole window, not in outer's time less the detour, so
  exclusive + nested = inclusive still holds call by call.
demo: the bundled demo recorded for real (step encloses compute and
  bimodal): step's inclusive time is its exclusive time plus compute's
  and bimodal's, within one quantum per call.
minor: a thread 0.5 % slower (20 ns in 4 us: resolved, under 1 %) is a
  minor finding in text -v, JSON (minor flag) and HTML (listed apart); one
  5 % slower is a major one.
"""
import csv, io, json, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'common'))
import sbttest  # noqa: E402
from sbttest import check, done

ANALYZE = os.environ['SBT_ANALYZE']
Q = 10.0                        # the synthetic clock's quantum, ns


def analyze(log, *args):
    return sbttest.analyze(log, *args, codes=(0,))


def regions(log, *args):
    return {r['name'] + ('/' + r['thread'] if 'thread' in r else ''): r
            for r in json.loads(analyze(log, '--format', 'json',
                                        *args))['regions']}


def first_rows(text):
    lines = text.splitlines()
    i = next(k for k, l in enumerate(lines) if l.startswith('region'))
    return [l.split()[0] for l in lines[i + 1:i + 3]]


def case_nested(gen, d):
    log = os.path.join(d, 'n.log')
    nth, n = 2, 3000
    subprocess.run([gen, log, str(nth), str(n), '0'], check=True)
    r = regions(log)
    out, inn = r['outer'], r['inner']
    calls = nth * n
    check(out['calls'] == calls and inn['calls'] == calls,
          'calls %d, %d' % (out['calls'], inn['calls']))
    check(abs(out['total_ns'] - 1000 * calls) <= Q * calls,
          'outer inclusive %.0f ns, truth %d' % (out['total_ns'],
                                                 1000 * calls))
    check(abs(inn['total_ns'] - 400 * calls) <= Q * calls,
          'inner inclusive %.0f ns, truth %d' % (inn['total_ns'],
                                                 400 * calls))
    check(abs(out['excl_ns'] - 600 * calls) <= Q * calls,
          'outer exclusive %.0f ns, truth %d' % (out['excl_ns'],
                                                 600 * calls))
    check(abs(out['excl_ns'] + inn['total_ns'] - out['total_ns']) <=
          Q * calls, 'exclusive + nested = inclusive: %.0f + %.0f vs %.0f'
          % (out['excl_ns'], inn['total_ns'], out['total_ns']))
    check(out['nested'] and not inn['nested'] and
          inn['excl_ns'] == inn['total_ns'], 'only outer has nested time')
    # threads' time: each thread's span is n iterations of 3000 ns
    check(abs(out['share'] - 1 / 3) < 0.01 and
          abs(out['excl_share'] - 0.2) < 0.01 and
          abs(inn['share'] - 0.4 / 3) < 0.01,
          'shares %.4f (own %.4f), %.4f' % (out['share'],
                                            out['excl_share'], inn['share']))
    # per thread: each group's share of its own thread
    rt = regions(log, '--by', 'thread')
    check(all(abs(rt['outer/%d' % t]['total_ns'] - 1000 * n) <= Q * n
              for t in range(nth)), 'per thread inclusive')
    # CSV: the same figures
    rows = {row['region']: row for row in csv.DictReader(io.StringIO(
        analyze(log, '--format', 'csv')))}
    check(abs(float(rows['outer']['total_ns']) - out['total_ns']) < 1 and
          abs(float(rows['outer']['excl_ns']) - out['excl_ns']) < 1,
          'CSV total_ns, excl_ns as JSON')
    # text: totals first, sorted by total; --sort changes the order
    text = analyze(log)
    head = next(l for l in text.splitlines() if l.startswith('region'))
    check(head.split()[1:3] == ['total', 'share'],
          'text columns lead with total, share: %r' % head)
    full = analyze(log, '-v')
    head = next(l for l in full.splitlines() if l.startswith('region'))
    check(head.split()[1:4] == ['total', 'share', 'own'],
          '-v: the full table leads with total, share, own: %r' % head)
    check(first_rows(text) == ['outer', 'inner'], 'by total: %r'
          % first_rows(text))
    check(first_rows(analyze(log, '--sort', 'name')) == ['inner', 'outer'],
          '--sort name')
    check(first_rows(analyze(log, '--sort', 'median')) == ['outer',
                                                           'inner'],
          '--sort median')
    p = subprocess.run([ANALYZE, '--sort', 'size', log],
                       capture_output=True, text=True)
    check(p.returncode == 2 and "'size'" in p.stderr, '--sort size: exit '
          '%d %r' % (p.returncode, p.stderr.strip()))
    # HTML: the summary's total and shares
    html = os.path.join(d, 'n.html')
    analyze(log, '--html', html, '--format', 'text')
    page = open(html).read()
    check('<th title="the time of all its calls">total</th>' in page and
          '33.3 %' in page and '20.0 %' in page, 'HTML totals and shares')


def case_detour(gen, d):
    log = os.path.join(d, 'd.log')
    nth, n = 2, 2100
    subprocess.run([gen, log, str(nth), str(n), '0', '1000', 'detour'],
                   check=True)
    r = regions(log)
    out, inn = r['outer'], r['inner']
    calls = nth * n
    check(out['calls'] == calls and inn['calls'] == calls,
          'calls %d, %d' % (out['calls'], inn['calls']))
    for name, g, want in (('outer inclusive', out['total_ns'], 1000),
                          ('inner inclusive', inn['total_ns'], 400),
                          ('outer exclusive', out['excl_ns'], 600)):
        check(abs(g - want * calls) <= Q * calls, '%s %.0f ns, truth %d'
              % (name, g, want * calls))
    check(abs(out['excl_ns'] + inn['total_ns'] - out['total_ns']) <= 1,
          'exclusive + nested = inclusive: %.0f + %.0f vs %.0f'
          % (out['excl_ns'], inn['total_ns'], out['total_ns']))


def case_demo(run, demo, d):
    p = subprocess.run([run, '-q', '--', demo], cwd=d, capture_output=True,
                       text=True)
    check(p.returncode == 0, 'demo: exit %d %s' % (p.returncode, p.stderr))
    r = regions(os.path.join(d, 'region.log'))
    step = r['step']
    q = json.loads(analyze(os.path.join(d, 'region.log'), '--format',
                           'json'))['sources'][0]['quantum_ns']
    inner = r['compute']['total_ns'] + r['bimodal']['total_ns']
    check(step['nested'] and not r['compute']['nested'],
          'step holds the nested regions')
    check(abs(step['excl_ns'] + inner - step['total_ns']) <=
          q * step['calls'], 'step: %.0f own + %.0f nested = %.0f '
          'inclusive (quantum %.1f ns, %d calls)' % (
              step['excl_ns'], inner, step['total_ns'], q, step['calls']))
    check(0 < step['excl_ns'] < step['total_ns'], 'step has time of its own')


def case_minor(gen, d):
    log = os.path.join(d, 'm.log')
    subprocess.run([gen, log, '4', '3000', '0.5', '4000'], check=True)
    r = regions(log, '--by', 'thread')
    g = r['outer/3']
    f = g['finding_list']
    check(g['findings'] == 0 and g['minor_findings'] == 1 and len(f) == 1
          and f[0]['kind'] == 'group' and f[0]['minor'] and
          0.004 < f[0]['rel'] < 0.006, 'thread 3, 0.5 %% slower: a minor '
          'finding: %r' % f)
    check(g['variation'] is False, 'no alarm for a minor finding')
    text = ' '.join(analyze(log, '-v', '--by', 'thread').split())  # unwrapped
    check('minor this thread is 0.5 % slower than the others' in text,
          '-v: the minor finding, labelled minor')
    row = [l for l in analyze(log, '--by', 'thread').splitlines()
           if l.startswith('outer') and ' 3 ' in l]
    check(len(row) == 1 and ' steady ' in row[0],
          'the one-line table: thread 3 steady (a minor finding is no '
          'alarm): %r' % row)
    html = os.path.join(d, 'm.html')
    analyze(log, '--html', html, '--format', 'text')
    page = open(html).read()
    top = page.split('<section id="findings">')[1]
    major, minor = top.split('<details>')[0], top.split('<details>')[1]
    check('thread 3 is 0.5 % slower' not in major and
          'thread 3 is 0.5 % slower' in minor.split('</details>')[0],
          'HTML: listed among the minor findings only')
    check('class="bx fl"' not in page and 'class="ln fl"' not in page and
          '+0.5%' in page, 'HTML: its box and lane not red, its label '
          'says by how much')
    # 5 % slower: major
    subprocess.run([gen, log, '4', '3000', '5', '4000'], check=True)
    g = regions(log, '--by', 'thread')['outer/3']
    check(g['findings'] == 1 and not g['finding_list'][0]['minor'] and
          g['variation'] is True, '5 %% slower: a major finding: %r'
          % g['finding_list'])


def main():
    gen, case = os.path.abspath(sys.argv[1]), sys.argv[2]
    with tempfile.TemporaryDirectory(prefix='sbt-totals-') as d:
        if case == 'nested':
            case_nested(gen, d)
        elif case == 'detour':
            case_detour(gen, d)
        elif case == 'demo':
            case_demo(os.path.abspath(sys.argv[3]),
                      os.path.abspath(sys.argv[4]), d)
        else:
            case_minor(gen, d)
    done()


if __name__ == '__main__':
    main()
