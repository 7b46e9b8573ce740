#!/usr/bin/python3
"""synth_test.py - sbt-analyze --compare on synthetic logs of known contents.

    synth_test.py GEN_CMP        (SBT_ANALYZE from the env)

Logs from tests/compare/gen_cmp.c (version 5, speed probes):
  - the same code on a processor 5 % slower throughout: raw "5 % slower",
    normalized "no change", the gate (--fail-if-slower 1) not tripped;
  - the same code with slow windows (the processor at half speed in 30 %
    of the new run): the windows are left out, so no change;
  - a region timed only in slow windows: no steady samples, so every kept
    sample is compared and the verdict says so;
  - no probes on one side: the comparison says it assumes an equal machine;
  - a region 3 % slower, a second mode 10 % -> 30 %: named;
  - region sets that differ; a damaged log on one side (exit 1, named);
  - summaries as inputs give the verdicts the logs give.
No timing of this machine is read: every number is generated.
"""
import json, os, re, subprocess, sys, tempfile

GEN = sys.argv[1]
ANALYZE = os.environ['SBT_ANALYZE']
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'common'))
from sbttest import check, done  # noqa: E402


def gen(path, *args):
    subprocess.run([GEN, path, *args], check=True)
    return path


def compare(base, new, *opts, fmt='json'):
    cmd = [ANALYZE, '-q', *opts, '--format', fmt, '--compare', *base, '--',
           *new]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if fmt == 'json' and p.stdout:
        d = json.loads(p.stdout)['compare']
        return p, d, {r['name'] + (' ' + r['group'] if r['group'] else ''):
                      r for r in d['regions']}
    return p, None, None


def main():
    tmp = tempfile.mkdtemp(prefix='sbt-cmp-')
    P = lambda n: os.path.join(tmp, n)  # noqa: E731
    regs = ['solve:1000', 'io:300', 'bi:400:1200:0.1']

    # 1. a processor 5 % slower, the code unchanged
    b = gen(P('b.log'), '--seed', '1', *regs)
    s = gen(P('s.log'), '--seed', '2', '--speed', '1.05', *regs)
    p, d, r = compare([b], [s], '--fail-if-slower', '1')
    check(p.returncode == 0, 'slower processor: gate not tripped (exit %d)'
          % p.returncode)
    check(d['machine']['speed'] and
          abs(d['machine']['speed_ratio'] - 1.05) < 0.005,
          'speed ratio %.4f ~ 1.05' % d['machine']['speed_ratio'])
    check(re.search(r'ran (5|4\.9\d|5\.0\d) % slower in the new run',
                    d['machine']['note']),
          'machine note: ' + d['machine']['note'])
    for name in ('solve', 'io'):
        raw, norm = r[name]['raw'], r[name]['normalized']
        check(raw['change'] == 'slower' and abs(raw['delta_pct'] - 5) < 0.5,
              '%s raw slower %.2f %% ~ 5 %%' % (name, raw['delta_pct']))
        check(norm['change'] == 'none',
              '%s normalized: %s (%.2f %%)' % (name, norm['change'],
                                             norm['delta_pct']))
        # the comparison's words (report/say.c), once; the rest reads
        # the data
        check(re.match(r'(5|4\.9\d|5\.0\d) % slower', r[name]['verdict'])
              and
              'normalized by the processor' in r[name]['verdict'],
              '%s verdict: %s' % (name, r[name]['verdict']))
    check(d['gate']['tripped'] == [], 'no region trips the gate')

    # the same in text: the gate passes and says so
    p, _, _ = compare([b], [s], '--fail-if-slower', '1', fmt='text')
    check('gate: --fail-if-slower 1 %: passed' in p.stdout,
          'text: gate passed')

    # 2. slow windows in the new run do not decide the verdict
    w = gen(P('w.log'), '--seed', '3', '--slow', '0.3', *regs)
    p, d, r = compare([b], [w], '--fail-if-slower', '1')
    check(r['solve']['new']['slow_left_out'] > 0.2 * 20000,
          'slow windows: %d samples left out' %
          r['solve']['new']['slow_left_out'])
    check(r['solve']['normalized']['change'] == 'none' and
          r['solve']['raw']['change'] == 'none',
          'slow windows: no change (raw %s, normalized %s)' %
          (r['solve']['raw']['change'], r['solve']['normalized']['change']))
    check(p.returncode == 0, 'slow windows: gate not tripped')
    # ... while a region alone, without probes, has no witness of them
    # (one region cannot tell the machine's windows from its own)
    wn1 = gen(P('wn1.log'), '--seed', '3', '--slow', '0.3', '--no-probes',
              regs[0])
    bn1 = gen(P('bn1.log'), '--seed', '1', '--no-probes', regs[0])
    p, d, r = compare([bn1], [wn1])
    check('assumes an equal machine' in d['machine']['note'],
          'no probes: ' + d['machine']['note'])
    check(r['solve']['raw']['change'] == 'slower',
          'without probes a lone region reads the windows as slower '
          '(%.1f %%)' % r['solve']['raw']['delta_pct'])
    # ... and regions that all slow in the same windows witness each
    # other: the windows are the machine's, left out, no change
    wn = gen(P('wn.log'), '--seed', '3', '--slow', '0.3', '--no-probes',
             *regs)
    bn = gen(P('bn.log'), '--seed', '1', '--no-probes', *regs)
    p, d, r = compare([bn], [wn])
    check(r['solve']['raw']['change'] == 'none',
          'without probes, regions slowed together: no change (%s %.1f %%)'
          % (r['solve']['raw']['change'], r['solve']['raw']['delta_pct']))
    p, d, r = compare([b], [wn])
    check('no speed probes in the new run' in d['machine']['note'],
          'probes on one side: ' + d['machine']['note'])

    # 2b. a region timed only while the processor was slow: no steady
    # samples are left on the new side, so the comparison falls back to
    # every kept sample and says so (seen in compare-app under a
    # memory-streaming co-runner: a null change, the test crashed)
    v = gen(P('v.log'), '--seed', '3', '--slow', '0.3', '--slow-only', 'io',
            *regs)
    p, d, r = compare([b], [v])
    io = r['io']
    check(io['new']['all_kept'] and io['new']['n'] > 0.2 * 20000 and
          not io['base']['all_kept'],
          'slow-only region: new side falls back to %d kept samples' %
          io['new']['n'])
    check(io['raw'] is not None and io['raw']['change'] == 'slower' and
          abs(io['raw']['delta_pct'] - 100) < 10,
          'slow-only region: the kept samples read 2x (%s)' % io['raw'])
    check(not r['solve']['new']['all_kept'], 'solve keeps steady samples')

    # 3. a real change: solve 3 % slower, bi's second mode 10 % -> 30 %
    regs2 = ['solve:1030', 'io:300', 'bi:400:1200:0.3']
    c = gen(P('c.log'), '--seed', '4', *regs2)
    p, d, r = compare([b], [c], '--fail-if-slower', '1', '--regions',
                      'solve,io')
    sv = r['solve']['normalized']
    check(sv['change'] == 'slower' and abs(sv['delta_pct'] - 3) < 0.3,
          'solve 3 %% slower: %s %.2f %%' % (sv['change'], sv['delta_pct']))
    check(abs(sv['delta_pct'] - 3) * 10 <= 3 and
          sv['resolution_ns'] < 0.01 * 1000,
          'solve: resolution %.2f ns' % sv['resolution_ns'])
    check(r['io']['normalized']['change'] == 'none', 'io unchanged')
    check(re.search(r'share (9|1[01]) % -> (29|3[01]) %',
                    r['bi']['distribution']),
          'bi share change named: ' + r['bi']['distribution'])
    check(p.returncode == 3 and d['gate']['tripped'] == ['solve'],
          'gate 1 %% trips on solve (exit %d, %s)' %
          (p.returncode, d['gate']['tripped']))
    p, d, r = compare([b], [c], '--fail-if-slower', '5', '--regions',
                      'solve,io')
    check(p.returncode == 0, 'gate 5 %% not tripped (exit %d)' % p.returncode)
    p, _, _ = compare([b], [c], '--fail-if-slower', '1', fmt='text')
    check(p.returncode == 3 and 'TRIPPED by' in p.stdout and
          'solve' in p.stdout.split('TRIPPED by')[1] and
          'bi' in p.stdout.split('TRIPPED by')[1],
          'text names the regions that tripped the gate')
    check('slower than 1 %' in p.stderr, 'stderr names the gate')
    p, _, _ = compare([b], [c], '--fail-if-slower', '1', '--regions',
                      'solve,slove', fmt='text')
    check(p.returncode == 2 and "'slove'" in p.stderr,
          'a --regions name on no side: exit %d, %s' %
          (p.returncode, p.stderr.strip().splitlines()[-1:]))

    # 4. region sets that differ
    e = gen(P('e.log'), '--seed', '5', 'solve:1000', 'extra:500')
    p, d, r = compare([b], [e])
    check(r['io']['present'] == 'base' and r['bi']['present'] == 'base' and
          r['extra']['present'] == 'new' and r['solve']['present'] == 'both',
          'regions on one side only are listed')

    # 5. damage on one side: exit 1, named; the rest still compared
    dmg = gen(P('dmg.log'), '--seed', '6', '--damage', *regs)
    p, d, r = compare([b], [dmg])
    check(p.returncode == 1 and 'dmg.log' in p.stderr and
          'damaged' in p.stderr, 'damaged new side: exit %d, %s' %
          (p.returncode, p.stderr.strip()))
    p, _, _ = compare([dmg], [b], '--fail-if-slower', '1', fmt='text')
    check(p.returncode == 1, 'damaged base side: exit %d' % p.returncode)
    p, _, _ = compare([b], [P('missing.log')], fmt='text')
    check(p.returncode == 2, 'missing input: exit %d' % p.returncode)
    p = subprocess.run([ANALYZE, '--compare', b], capture_output=True,
                       text=True)
    check(p.returncode == 2 and "'--'" in p.stderr, 'no -- : usage, exit 2')

    # 6. summaries give the verdicts of their logs
    p, d0, r0 = compare([b], [c, s], '--fail-if-slower', '1')
    for lg in (b, c, s):
        subprocess.run([ANALYZE, '-q', '--summary', lg[:-4] + '.sbts', lg],
                       check=True)
    p2, d1, r1 = compare([b[:-4] + '.sbts'],
                         [c[:-4] + '.sbts', s[:-4] + '.sbts'],
                         '--fail-if-slower', '1')
    same = all(r0[k][x] == r1[k][x] for k in r0
               for x in ('present', 'raw', 'normalized', 'tripped'))
    check(same and p.returncode == p2.returncode and
          d1['machine']['speed'], 'summaries: same verdicts, speed probes '
          'kept (exit %d, %d)' % (p.returncode, p2.returncode))

    # 7. --by thread: like with like
    t1 = gen(P('t1.log'), '--seed', '7', '--threads', '2', *regs)
    t2 = gen(P('t2.log'), '--seed', '8', '--threads', '2', *regs2)
    p, d, r = compare([t1], [t2], '--by', 'thread')
    check(set(r) >= {'solve thread 0', 'solve thread 1'} and
          all(r['solve thread %d' % t]['normalized']['change'] == 'slower'
              for t in (0, 1)) and
          all(r['io thread %d' % t]['normalized']['change'] == 'none'
              for t in (0, 1)), '--by thread: each thread against itself')

    # --by rank and --by host: rank 1 (on host hb) got slower, rank 0 not
    rk = {}
    for side, slow in (('b', 'solve:1000'), ('n', 'solve:1030')):
        rk[side] = [gen(P('%s-r0.log' % side), '--seed', '%d1' % len(side),
                        '--rank', '0', '--host', 'ha', 'solve:1000'),
                    gen(P('%s-r1.log' % side), '--seed', '%d2' % len(side),
                        '--rank', '1', '--host', 'hb', slow)]
    for by, k0, k1 in (('rank', 'rank 0', 'rank 1'),
                       ('host', 'host ha', 'host hb')):
        p, d, r = compare(rk['b'], rk['n'][::-1], '--by', by)
        check(r['solve ' + k0]['normalized']['change'] == 'none' and
              r['solve ' + k1]['normalized']['change'] == 'slower',
              '--by %s: like with like (%s none, %s slower), inputs in '
              'any order' % (by, k0, k1))

    # 8. HTML: overlays written
    h = P('cmp.html')
    p, _, _ = compare([b], [c], '--html', h, fmt='text')
    html = open(h).read()
    check(html.count('<svg') == 6 and 'class="sn"' in html and
          'class="sb"' in html, 'HTML: two overlaid plots per region')
    done()


main()
