#!/usr/bin/python3
"""runs_test.py - what --compare says of whole runs, and its intervals.

    runs_test.py GEN_CMP CORPUS_DIR     (SBT_ANALYZE from the env)

On stored logs of the corpus (decompressed into a temp folder) and on
synthetic ones (gen_cmp.c):
  - the first line's wall times are each log's first sample's start to
    its last one's end, as --dump lists them, and the threads' preempted
    share is what the log's own switch records give (read here from the
    bytes, not by the analyzer);
  - two runs of the same LULESH build (one run a side): at most 5 % of
    the rows beyond their interval, and none called slower or faster
    (the spread between runs is unknown and the text says so);
  - every row with 10 samples a side has an estimate with its interval;
  - a planted slowdown (the acc case's second mode at +300 ns in half its
    calls) lies beyond its interval, its control region does not; the
    same case beside a busy co-runner took 1.85x as long, the OS's;
  - two runs a side: a region 3 % slower is called slower with 3 % inside
    its interval, the unchanged ones not; identical sides: none;
  - no 'nan' or 'inf' in any format.
No timing of this machine is read.
"""
import csv, json, lzma, os, re, struct, subprocess, sys, tempfile

GEN, CORPUS = sys.argv[1], sys.argv[2]
SBT_RUN = sys.argv[3] if len(sys.argv) > 3 else None
ANALYZE = os.environ['SBT_ANALYZE']
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'common'))
from sbttest import SANITIZED, check, done  # noqa: E402

MACHINE = 'amd-f25m17-kvm-20261127'
H_TICK_HZ, H_START_TICKS = 32, 192          # format/sbtlog.h header


def unxz(name, tmp):
    out = os.path.join(tmp, name[:-3])
    with lzma.open(os.path.join(CORPUS, MACHINE, name)) as f, \
            open(out, 'wb') as g:
        g.write(f.read())
    return out


def run(*args, fmt='text'):
    p = subprocess.run([ANALYZE, '-q', '--format', fmt, *args],
                       capture_output=True, text=True, timeout=300)
    return p


def compare(base, new, fmt='json'):
    p = run('--compare', *base, '--', *new, fmt=fmt)
    if fmt != 'json':
        return p, None
    return p, json.loads(p.stdout)['compare']


def dump(log, tmp):
    out = os.path.join(tmp, 'dump.csv')
    subprocess.run([ANALYZE, '-q', '--dump', out, log],
                   stdout=subprocess.DEVNULL, check=False, timeout=300)
    with open(out) as f:
        return list(csv.DictReader(f))


def wall_of(rows):
    """First start to last end over every row --dump lists (ns)."""
    lo = min(float(r['t_ns']) for r in rows)
    hi = max(float(r['t_ns']) + float(r['ns']) + float(r['detour'] or 0)
             for r in rows)
    return hi - lo


def os_records(log):
    """Each thread's kernel events (t ns since the log's start, kind)
    from the log's META OS entries (format/sbtlog.h)."""
    b = open(log, 'rb').read()
    hz = struct.unpack_from('<Q', b, H_TICK_HZ)[0]
    t0 = struct.unpack_from('<Q', b, H_START_TICKS)[0]
    recs, off = {}, 4096
    while off + 64 <= len(b):
        magic, typ, size, used = struct.unpack_from('<IIQQ', b, off)
        if magic != 0x43544253 or size < 4096:
            off += 4096
            continue
        if typ == 2:                                    # META
            p = off + 64
            while p + 8 <= off + 64 + used:
                t, _, ln = struct.unpack_from('<HHI', b, p)
                if t == 5:                              # SBT_META_OS
                    th, _, _, n, _ = struct.unpack_from('<IiIIQ', b, p + 8)
                    for i in range(n):
                        et, kind = struct.unpack_from('<QH', b,
                                                      p + 32 + 16 * i)
                        if 1 <= kind <= 6:
                            recs.setdefault(th, []).append(
                                (max(et - t0, 0) * 1e9 / hz, kind))
                p += 8 + ((ln + 7) & ~7)
        off += size
    return recs


def preempted_share(log, rows):
    """Time from each preemption (kind 2) to the switch back in (3),
    within its thread's samples' span, over the spans' sum."""
    span = {}
    for r in rows:
        th, t = int(r['thread']), float(r['t_ns'])
        e = t + float(r['ns']) + float(r['detour'] or 0)
        a, z = span.get(th, (t, e))
        span[th] = (min(a, t), max(z, e))
    pre = 0.0
    for th, evs in os_records(log).items():
        if th not in span:
            continue
        lo, hi = span[th]
        out = None
        for t, kind in sorted(evs):
            if kind == 6:
                out = None
            elif kind in (1, 2) and out is None:
                out = (kind, t)
            elif kind == 3 and out is not None:
                if out[0] == 2:
                    pre += max(0.0, min(t, hi) - max(out[1], lo))
                out = None
        if out is not None and out[0] == 2:
            pre += max(0.0, hi - max(out[1], lo))
    total = sum(z - a for a, z in span.values())
    return 100 * pre / total


def no_nan(base, new, what, have=None):
    """No nan or inf in any format (have: outputs already made)."""
    have = have or {}
    for fmt in ('text', 'json', 'csv'):
        out = have[fmt] if fmt in have else compare(base, new,
                                                    fmt=fmt)[0].stdout
        bad = re.findall(r'\b(nan|inf|infinity)\b', out, re.I)
        check(out and not bad,
              '%s: no nan/inf in %s (%s)' % (what, fmt, bad[:3]))


def estimated(d):
    return [r for r in d['regions'] if r['estimate']]


def main():
    tmp = tempfile.mkdtemp(prefix='sbt-runs-')
    a = unxz('lulesh-clang.log.xz', tmp)
    b = unxz('lulesh-clang-run4.log.xz', tmp)
    if SANITIZED:
        # the analyzer's memory on a real pair, once: the ten analyses
        # of lulesh_rerun are judged in the normal build (a sanitizer
        # maps each large block afresh: where a page fault costs
        # 10 us or more, as on a KVM guest with shadow paging, an analysis of a LULESH log takes seconds)
        p, d = compare([a], [b])
        check(p.returncode in (0, 1) and len(d['regions']) >= 60,
              'lulesh rerun compared: %d rows' % len(d['regions']))
    else:
        lulesh_rerun(a, b, tmp)
    planted(tmp)
    done()


def lulesh_rerun(a, b, tmp):
    # 1. wall times and preempted shares against the logs themselves
    p, d = compare([a], [b])
    jtext = p.stdout
    text = run('--compare', a, '--', b).stdout
    first = text.splitlines()[0]
    dumps = {a: dump(a, tmp), b: dump(b, tmp)}
    for side, log in (('base', a), ('new', b)):
        rows = dumps[log]
        w = wall_of(rows) / 1e9
        got = d['runs'][side]
        check(abs(got['wall_ns'] / 1e9 - w) <= 1e-9 * w,
              '%s wall %.9f s = --dump\'s first start to last end %.9f s'
              % (side, got['wall_ns'] / 1e9, w))
        check('%.3f s' % w in first,
              '%s wall %.3f s on the first line: %s' % (side, w, first))
        share = preempted_share(log, rows)
        check(abs(got['preempted_pct'] - share) < 0.01 and
              '%.1f %%' % share in first,
              '%s preempted %.2f %% = the switch records\' %.2f %%'
              % (side, got['preempted_pct'], share))
    ratio = d['runs']['new']['wall_s'] / d['runs']['base']['wall_s']
    check('%.2fx as long' % ratio in first,
          'the first line says %.2fx as long' % ratio)

    # 2. two runs of one build, one run a side: false alarms, words
    rows = [r for r in d['regions'] if r['present'] == 'both']
    est = estimated(d)
    apart = [r['name'] for r in est if r['estimate']['change'] != 'no '
             'change found']
    check(len(est) >= 60 and len(apart) <= 0.05 * len(est),
          'identical rerun: %d of %d rows beyond their interval (<= 5 %%)'
          % (len(apart), len(est)))
    check(not any(r['estimate']['change'] in ('slower', 'faster')
                  for r in est),
          'one run a side: no row called slower or faster')
    check('the spread between runs is unknown' in text and
          'Bonferroni' in text, 'the text says the spread is unknown')
    # every row with 10 samples a side, counted from --dump, has one
    cnt = {}
    for side, log in (('b', a), ('n', b)):
        for r in dumps[log]:
            if r['probe'] == '0':
                k = (side, r['region'])
                cnt[k] = cnt.get(k, 0) + 1
    lacking = [r['name'] for r in rows if cnt.get(('b', r['name']), 0) >= 10
               and cnt.get(('n', r['name']), 0) >= 10 and not r['estimate']]
    check(not lacking and all(r['estimate']['lo'] <= r['estimate']['ratio']
                              <= r['estimate']['hi'] for r in est),
          'every row with 10 samples a side has an estimate in its '
          'interval (lacking: %s)' % lacking[:3])
    no_nan([a], [b], 'lulesh rerun', {'text': text, 'json': jtext})


def planted(tmp):
    # 3. a planted slowdown, one run a side: beyond its interval
    c = unxz('acc-quiet-control.log.xz', tmp)
    t = unxz('acc-quiet-two-30-0.5.log.xz', tmp)
    p, d = compare([c], [t])
    r = {x['name']: x for x in d['regions']}
    check(r['acc']['estimate']['change'] == 'apart' and
          r['acc']['estimate']['lo'] > 1.2,
          'planted +300 ns in half the calls: apart, %s' %
          r['acc']['estimate']['said'])
    check(r['ref']['estimate']['change'] == 'no change found',
          'its control region: %s' % r['ref']['estimate']['said'])
    no_nan([c], [t], 'acc planted')

    # 3b. the same case beside a busy co-runner: the longer run is the
    # OS's (its threads were no longer on their cpus, preempted longer)
    k = unxz('acc-busy-control.log.xz', tmp)
    p, d = compare([c], [k])
    lines = run('--compare', c, '--', k).stdout.splitlines()
    x = d['runs']['new']['wall_ns'] / d['runs']['base']['wall_ns']
    check(x > 1.5 and '%.2fx as long' % x in lines[0] and
          lines[1].startswith('why: the OS:'),
          'busy co-runner: %s / %s' % (lines[0], lines[1]))
    check(d['runs']['new']['preempted_pct'] >
          d['runs']['base']['preempted_pct'] + 5,
          'busy co-runner: preempted %.1f %% -> %.1f %%' %
          (d['runs']['base']['preempted_pct'],
           d['runs']['new']['preempted_pct']))

    # 4. two runs a side (synthetic): the spread between runs is known
    g = [os.path.join(tmp, 'g%d.log' % i) for i in range(6)]
    for i in range(4):
        subprocess.run([GEN, g[i], '--seed', str(i + 1), '--n', '5000',
                        'solve:1000', 'io:300'], check=True)
    for i in (4, 5):
        subprocess.run([GEN, g[i], '--seed', str(i + 1), '--n', '5000',
                        'solve:1030', 'io:300'], check=True)
    p, d = compare(g[0:2], g[2:4])
    check(d['runs']['estimated'] == 2 and d['runs']['by_runs'] and
          all(x['estimate']['change'] == 'no change found'
              for x in d['regions']),
          'two runs a side, the same code: no change found')
    p, d = compare(g[0:2], g[4:6])
    want = [wall_of(dump(x, tmp)) for x in g[0:2]]
    got = d['runs']['base']['run_wall_ns']
    check(len(got) == 2 and all(abs(x - y) <= 1e-9 * y
                                for x, y in zip(got, want)),
          'each run\'s wall time, in input order: %s = %s' % (got, want))
    r = {x['name']: x for x in d['regions']}
    e = r['solve']['estimate']
    check(e['change'] == 'slower' and e['lo'] <= 1.03 <= e['hi'] and
          e['units'] == 'runs',
          'solve 3 %% slower: %s' % e['said'])
    check(r['io']['estimate']['change'] == 'no change found',
          'io unchanged: %s' % r['io']['estimate']['said'])
    text = run('--compare', *g[0:2], '--', *g[4:6]).stdout
    check('rows: 1 slower, 0 faster, 1 no change found;' in text and
          'one run a side' not in text,
          'two runs a side: the text counts the rows by their verdicts')
    no_nan(g[0:2], g[4:6], 'synthetic two runs a side', {'text': text})


def names():
    """Live: OpenMP regions named by their pragma's line in the
    comparison as in a report of one log (tests/openmp/omp_app.c, clang,
    two runs); nothing here reads a time."""
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                       'openmp', 'omp_app.c')
    line = next(i + 1 for i, t in enumerate(open(src))
                if '#pragma omp parallel' in t)
    tmp = tempfile.mkdtemp(prefix='sbt-names-')
    app = os.path.join(tmp, 'omp_app')
    try:
        subprocess.run(['clang', '-O2', '-g', '-fopenmp', src, '-o', app],
                       check=True)
    except (OSError, subprocess.CalledProcessError):
        print('SKIP: no clang with OpenMP', file=sys.stderr)
        sys.exit(77)
    env = dict(os.environ, OMP_NUM_THREADS='2')
    env.pop('LD_PRELOAD', None)
    logs = []
    for i in range(2):
        log = os.path.join(tmp, 'omp%d.log' % i)
        subprocess.run([SBT_RUN, '-o', log, '--', app, '50', '0'], cwd=tmp,
                       env=env, capture_output=True, check=True,
                       timeout=120)
        logs.append(log)
    one = json.loads(run(logs[0], fmt='json').stdout)
    single = {g['name'] for g in one['regions']} if 'regions' in one \
        else set()
    p, d = compare([logs[0]], [logs[1]])
    got = {r['name'] for r in d['regions']}
    want = 'omp parallel @ omp_app.c:%d' % line
    check(want in got and got == single,
          'compare names the regions as one log\'s report: %s (single: '
          '%s)' % (sorted(got), sorted(single)))
    p = run('--no-symbols', '--compare', logs[0], '--', logs[1])
    check('omp_app+0x' in p.stdout, '--no-symbols: module+offset')
    done()


if len(sys.argv) > 4 and sys.argv[4] == 'names':
    names()
else:
    main()
