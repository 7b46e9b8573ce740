#!/usr/bin/python3
"""evidence_test.py - real programs' logs recorded under load, judged
against truths computed here from their samples, not by the analyzer's
judgement.

    evidence_test.py DATA_DIR TMP_DIR

DATA_DIR holds xz logs (their programs and runs: README there).  Each is
decompressed into TMP_DIR and read with `sbt-analyze --dump` (the samples
only); the truths come from those samples:

  barriers   per barrier region, the slow thread is the one whose waits'
             median is the least (it arrives last); the others' wait is
             their medians' mean minus its; its share's extra time is its
             parallel region's median minus the others'.  A wait more than
             twice that extra time (and beyond the finding's resolution)
             is the OS's where half or more of the long waits (beyond half
             way from that extra time to the wait) had the waiter, or the
             slow thread in a sample overlapping the wait, preempted (the
             kernel's record), else unexplained.  The default table and
             --by thread must name the same thread for the same regions.
  machine    a machine event said to be the OS's has more of the process's
             samples preempted in the span of its slow level than in its
             fast one (10 points or more; the spans from the JSON, the
             counts from the samples); NPB CG's slowdown at 7788 ms, which
             the switch records show, is one; the text says the share of
             its samples preempted.
  processor  a processor shift kept has under a tenth of its samples
             preempted, counted here; beside a busy loop the probes'
             slowdown where the threads shared its cpu is the OS's, and
             "preempted" leads the samples left out.
"""
import bisect, collections, csv, json, lzma, os, re, statistics, subprocess, sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'common'))
from sbttest import SANITIZED, check, done  # noqa: E402

ANALYZE = os.environ['SBT_ANALYZE']


def unpack(data, tmp, name):
    out = os.path.join(tmp, name)
    if not os.path.exists(out):
        with lzma.open(os.path.join(data, name + '.xz')) as f, \
                open(out + '.part', 'wb') as o:
            o.write(f.read())
        os.replace(out + '.part', out)
    return out


def run(log, *opts):
    p = subprocess.run([ANALYZE, '--no-symbols', *opts, log],
                       capture_output=True, text=True, timeout=600)
    if p.returncode not in (0, 1):
        sys.exit('sbt-analyze %s failed on %s: %s' % (opts, log, p.stderr))
    return p.stdout


def samples(log, tmp):
    out = log + '.dump.csv'
    run(log, '-q', '--dump', out)
    with open(out) as f:
        rows = [r for r in csv.DictReader(f) if r['probe'] == '0']
    for r in rows:
        r['t'], r['ns'] = float(r['t_ns']), float(r['ns'])
        r['pre'] = r['preempted'] != '0'
    return rows


def by_region_thread(rows):
    d = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in rows:
        d[r['region']][r['thread']].append(r)
    return d


def barrier_truth(d, name):
    """The slow thread, the others' wait, the slow share's extra time and
    the count of long waits and of those the OS's, of barrier `name`."""
    th = {t: v for t, v in d[name].items() if len(v) >= 10}
    par = d.get(name.replace('omp barrier @', 'omp parallel @'), {})
    if len(th) < 2:
        return None
    med = {t: statistics.median(r['ns'] for r in v) for t, v in th.items()}
    slow = min(med, key=med.get)
    others = [t for t in med if t != slow]
    wait = sum(med[t] for t in others) / len(others) - med[slow]
    pmed = {t: statistics.median(r['ns'] for r in v) for t, v in par.items()}
    extra = float('nan')
    if slow in pmed and all(t in pmed for t in others):
        extra = pmed[slow] - sum(pmed[t] for t in others) / len(others)
    ex = extra if extra > 0 else 0.0
    cut = med[slow] + ex + 0.5 * (wait - ex)
    # the slow thread's preempted samples, by start, to find those
    # overlapping a wait (none is longer than `reach`)
    mine = sorted((s['t'], s['t'] + s['ns']) for s in
                  th[slow] + par.get(slow, []) if s['pre'])
    starts = [a for a, _ in mine]
    reach = max((b - a for a, b in mine), default=0.0)
    nlong = nos = 0
    for t in others:
        for r in th[t]:
            if r['ns'] <= cut:
                continue
            nlong += 1
            end = r['t'] + r['ns']
            lo = bisect.bisect_left(starts, r['t'] - reach)
            hi = bisect.bisect_right(starts, end)
            nos += r['pre'] or any(mine[i][1] >= r['t']
                                   for i in range(lo, hi))
    return dict(slow=int(slow), wait=wait, extra=extra, far=wait > 2 * ex,
                nlong=nlong, nos=nos)


def waits(report):
    """{(region, row's thread or None): the wait finding} of a JSON
    report."""
    out = {}
    for r in report['regions']:
        for x in r['finding_list']:
            if x['kind'] == 'wait':
                out[(r['name'], r.get('thread'))] = x
    return out


def judge_barriers(tag, log, tmp, named=None):
    rows = samples(log, tmp)
    d = by_region_thread(rows)
    report = json.loads(run(log, '--format', 'json'))
    plain = waits(report)
    by_thread = waits(json.loads(run(log, '--by', 'thread', '--format',
                                     'json')))
    seen = 0
    for (name, row), x in sorted(plain.items()):
        t = barrier_truth(d, name)
        if t is None:
            continue
        seen += 1
        check(x['key'] == t['slow'],
              '%s %s: thread %d named slow, the least waiting by the '
              'medians is %d' % (tag, name, x['key'], t['slow']))
        check(abs(x['size_ns'] - t['wait']) <= 0.01 * t['wait'] + 20,
              '%s %s: others wait %.0f ns, by the medians %.0f' %
              (tag, name, x['size_ns'], t['wait']))
        far = t['far'] and x['size_ns'] > 2 * max(t['extra'], 0) + \
            x['resolution_ns']
        want = 'unknown' if t['extra'] != t['extra'] else \
            ('os' if t['nlong'] and 2 * t['nos'] >= t['nlong'] else
             'unexplained') if far else 'share'
        check(x['cause'] == want,
              '%s %s: cause %s, the samples say %s (%d of %d long waits '
              'preempted, extra %.0f ns)' % (tag, name, x['cause'], want,
                                             t['nos'], t['nlong'],
                                             t['extra']))
        # --by thread: the same thread, on every row of the barrier
        rows_bt = [v for (n, _), v in by_thread.items() if n == name]
        check(rows_bt and all(v['key'] == x['key'] for v in rows_bt),
              '%s %s: --by thread names the same thread (%s)' %
              (tag, name, sorted({v['key'] for v in rows_bt})))
    check(seen > 0, '%s: barriers with a wait finding judged (%d)' %
          (tag, seen))
    # and no barrier flagged by thread that the default view leaves out
    for name in sorted({n for n, _ in by_thread}):
        if name.startswith('omp barrier') and barrier_truth(d, name):
            check((name, None) in plain,
                  '%s %s: flagged by thread, and in the default view' %
                  (tag, name))
    if named:
        name, slow, cause = named
        x = plain.get((name, None))
        check(x is not None and x['key'] == slow and x['cause'] == cause,
              '%s %s: thread %d slow, the wait the %s\'s (%s)' %
              (tag, name, slow, cause, x and (x['key'], x['cause'])))
        text = run(log)
        line = [l for l in text.splitlines() if l.startswith(name)]
        check(line and 'thread %d slow' % (1 - slow) not in line[0],
              '%s %s: the table does not name the waiter (%s)' %
              (tag, name, line and line[0].strip()))
    return rows, report


def judge_machine(tag, log, rows, rep, must_os_ms=None):
    """Each event the OS's: more samples preempted in its slow span than
    in its fast one, counted here from the samples."""
    evs = rep.get('machine_events', [])

    def share(span):
        a, b = span[0] * 1e6, span[1] * 1e6
        s = [r for r in rows if a <= r['t'] <= b]
        return (sum(r['pre'] for r in s) / len(s)) if s else 0.0, len(s)

    for e in evs:
        if not e.get('os'):
            continue
        slow, fast = share(e['slow_ms']), share(e['fast_ms'])
        check(slow[0] - fast[0] >= 0.10 - 1e-9,
              '%s event at %.0f ms called the OS\'s: %.0f %% of %d samples '
              'preempted on its slow side, %.0f %% of %d on the other' %
              (tag, e['t_ms'], 100 * slow[0], slow[1], 100 * fast[0],
               fast[1]))
    if must_os_ms is not None:
        hit = [e for e in evs if abs(e['t_ms'] - must_os_ms) < 50]
        check(hit and all(e.get('os') for e in hit),
              '%s: the slowdown at %.0f ms is the OS\'s, not the '
              'machine\'s (%s)' % (tag, must_os_ms,
                                   [(e['t_ms'], e.get('os')) for e in hit]))
        text = run(log, '-v')
        check('the machine, not the code' not in text,
              '%s: no event said to be the machine\'s' % tag)


def judge_processor(tag, log, rows, rep):
    """The OS before the processor: a processor shift kept has its
    samples (its thread's, or its cpu's, between its first and last
    probe) preempted less than a tenth of the time; one said to be the
    OS's a tenth or more, counted here from the samples (a sample's own
    preemption: the bound for the OS's side is the analyzer's, which
    also counts a wait on a preempted thread, so only kept shifts are
    held to the samples' count)."""
    pr = rep['processor']

    def share(h):
        a, b = h['t_ms'] * 1e6, (h['t_ms'] + h['dur_ms']) * 1e6
        key, val = (('thread', str(h['thread'])) if h['thread'] is not None
                    else ('cpu_start', str(h['cpu'])))
        s = [r for r in rows if a <= r['t'] <= b and r[key] == val]
        return (sum(r['pre'] for r in s) / len(s) if s else 0.0), len(s)

    for h in pr['shifts'] + pr['cpu_shifts']:
        sh, n = share(h)
        check(sh < 0.10, '%s: a processor shift at %.1f ms where %.0f %% of '
              '%d samples were preempted' % (tag, h['t_ms'], 100 * sh, n))
    for h in pr.get('os_shifts', []):
        check(h['os_share'] >= 0.10, '%s: a shift called the OS\'s at %.1f '
              'ms with %.0f %% preempted' % (tag, h['t_ms'],
                                              100 * h['os_share']))
    return pr




def main():
    data, tmp = sys.argv[1], sys.argv[2]
    os.makedirs(tmp, exist_ok=True)
    gcc = unpack(data, tmp, 'lulesh-gcc-s30-loaded.log')
    if SANITIZED:
        # the analyzer's memory on a real log of each program, its
        # verdicts judged in the normal build: a sanitized analysis of
        # a LULESH log takes ~6 s here, most of it page faults
        for opts in (['-v'], ['--by', 'thread', '--format', 'json']):
            check(len(run(gcc, *opts)) > 1000,
                  'lulesh gcc: %s reported' % ' '.join(opts))
        judge_cg(data, tmp)
        done()
        return
    # lulesh.cc:969's barrier: thread 1 waits (median 7.6 ms), thread 0
    # (62 us) arrives last; the shares are alike (301 / 298 us), and the
    # waits are the OS's: the waiter preempted, both on one cpu
    rows, rep = judge_barriers('lulesh gcc', gcc, tmp,
                               ('omp barrier @ lulesh2.0+0x3a47', 0, 'os'))
    judge_machine('lulesh gcc', gcc, rows, rep)
    clang = unpack(data, tmp, 'lulesh-clang-s30-base.log')
    rows, rep = judge_barriers('lulesh clang', clang, tmp)
    judge_machine('lulesh clang', clang, rows, rep)
    judge_processor('lulesh clang', clang, rows, rep)
    # a busy loop pinned to cpu 1 beside it: the OS preempting the
    # threads there, not the processor; the probes' slowdown at the
    # start, where the threads shared a cpu with it, the OS's
    busy = unpack(data, tmp, 'lulesh-clang-s30-busyloop.log')
    rows = samples(busy, tmp)
    rep = json.loads(run(busy, '--format', 'json'))
    pr = judge_processor('busy loop', busy, rows, rep)
    check(any(h['t_ms'] < 1000 for h in pr.get('os_shifts', [])),
          'busy loop: the probes\' slowdown in its first second is the '
          'OS\'s (%s)' % [round(h['t_ms']) for h in pr.get('os_shifts', [])])
    text = run(busy)
    left = re.search(r'^left out: .*?preempted (\d+) %, machine (\d+) %',
                     text, re.M)
    # at least the samples the machine's, processor's or a transient's
    # marks left out whose own thread was preempted (a wait on another
    # preempted thread adds to it)
    own = sum(r['pre'] and r['state'] in ('machine', 'processor',
                                          'transient') for r in rows)
    own /= len(rows)
    check(left and int(left.group(1)) >= 100 * own - 1 and
          int(left.group(1)) > int(left.group(2)),
          'busy loop: preempted first among the left out, at least the '
          '%.0f %% marked and preempted themselves (%s)'
          % (100 * own, left and left.group(0)))
    judge_cg(data, tmp)
    done()


def judge_cg(data, tmp):
    cg = unpack(data, tmp, 'npb-cg-A-gcc-loaded.log')
    rows = samples(cg, tmp)
    judge_machine('npb cg', cg, rows, json.loads(run(cg, '--format',
                                                     'json')),
                  must_os_ms=7788)
    # the share preempted, said first of the run's times where a tenth
    # or more: counted here from the samples' own record
    pre = sum(r['pre'] for r in rows) / len(rows)
    said = re.search(r'^OS: (\d+) % of (\d+) samples preempted', run(cg),
                     re.M)
    check(pre >= 0.10 and said and abs(int(said.group(1)) - 100 * pre) <= 1
          and int(said.group(2)) == len(rows),
          'npb cg: %.1f %% of %d samples preempted, said: %s' %
          (100 * pre, len(rows), said and said.group(0)))


if __name__ == '__main__':
    main()
