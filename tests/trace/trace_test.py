#!/usr/bin/env python3
"""trace_test.py - sbt-analyze --trace: the samples on a timeline.

  trace_test.py demo DEMO         the demo's threads, every sample,
                                  then --trace-max 5000
  trace_test.py two DEMO          two runs, two processes on one time axis
  trace_test.py os OS_APP         counts (SBT_EVENTS) as counter tracks and
                                  the kernel's page faults as instants
  trace_test.py machine           a machine-wide shift (synthetic CSV) as
                                  a process-wide instant
  trace_test.py crossed           overlapping samples clamped, and said
  trace_test.py detours APP       probes every 10 us inside nested
                                  regions: every slice at its real
                                  times, 1000 of 1000 children inside
                                  their parents, each detour its own
                                  slice inside the samples it was taken
                                  out of

Checked for every trace: it parses as JSON; complete events = the held
samples (--dump, probes left out) or --trace-max; each track's events in
time order; every event that starts inside another of its track ends
inside it (times compared in integer ns); every track and process named.
Environment: SBT_LIB, SBT_ANALYZE.  Exit 0 pass, 1 fail.
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'common'))
import sbttest  # noqa: E402
from sbttest import check, done, dump_samples  # noqa: E402

ANA = os.environ.get('SBT_ANALYZE', '')


def record(argv, tmp, name, extra=None):
    log, p = sbttest.record(tmp, name, argv[0], argv[1:], cwd=tmp,
                            **{k[4:].lower(): v for k, v in
                               (extra or {}).items()})
    check(p.returncode == 0 and os.path.exists(log),
          '%s recorded (%s)' % (os.path.basename(argv[0]), p.stderr.strip()))
    return log


def trace(tmp, inputs, *args):
    out = os.path.join(tmp, 'trace.json')
    p = subprocess.run([ANA, '-q', '--trace', out, *args, *inputs],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, timeout=120)
    check(p.returncode == 0, 'sbt-analyze --trace exit %d %s'
          % (p.returncode, p.stderr.strip()))
    with open(out) as f:
        doc = json.load(f)               # raises: not JSON
    return doc


def ns(x):
    return round(x * 1000)


def tracks(doc):
    """{(pid, tid): [(t0, t1, event)] in file order} of the X events."""
    t = {}
    for e in doc['traceEvents']:
        if e['ph'] == 'X':
            t0 = ns(e['ts'])
            t.setdefault((e['pid'], e['tid']), []).append(
                (t0, t0 + ns(e['dur']), e))
    return t


def well_formed(doc, want_x):
    ev = doc['traceEvents']
    xs = [e for e in ev if e['ph'] == 'X' and e['cat'] != 'recorder']
    check(len(xs) == want_x, 'complete events %d, want %d'
          % (len(xs), want_x))
    check(doc['otherData']['complete_events'] == len(xs),
          'otherData says how many')
    dx = [e for e in ev if e['ph'] == 'X' and e['cat'] == 'recorder']
    check(doc["otherData"].get("detour_events") == len(dx) and
          all(e['name'] == 'sbtmark' for e in dx),
          'otherData says how many detours (%d), each named sbtmark'
          % len(dx))
    bad_order = bad_nest = 0
    leaves = {}
    for key, evs in tracks(doc).items():
        stack = []
        for i, (a, b, e) in enumerate(evs):
            if i and (a, -b) < (evs[i - 1][0], -evs[i - 1][1]):
                bad_order += 1
            while stack and stack[-1][1] <= a and stack[-1][0] != a:
                stack.pop()
            if stack:
                leaves[id(stack[-1][2])] = False
                if b > stack[-1][1]:
                    bad_nest += 1
            stack.append((a, b, e))
    check(bad_order == 0, 'each track in time order (%d out)' % bad_order)
    check(bad_nest == 0, 'nested events inside their parents (%d not)'
          % bad_nest)
    names = {(e['pid'], e.get('tid')) for e in ev
             if e['ph'] == 'M' and e['name'] == 'thread_name'}
    procs = {e['pid'] for e in ev
             if e['ph'] == 'M' and e['name'] == 'process_name'}
    keys = set(tracks(doc))
    check(keys <= names, 'every thread track named (%d of %d)'
          % (len(keys & names), len(keys)))
    check({p for p, _ in keys} <= procs, 'every process named')
    return xs, leaves


def case_demo(tmp, demo):
    log = record([demo], tmp, 'demo.log')
    held = dump_samples(log, tmp)
    doc = trace(tmp, [log], '--trace-max', '0')
    xs, leaves = well_formed(doc, len(held))
    threads = {(r['source'], r['thread']) for r in held}
    check(len(tracks(doc)) == len(threads) >= 2,
          'a track per recording thread (%d)' % len(threads))
    nested = sum(1 for v in leaves.values() if v is False)
    check(nested > 0, 'the demo nests (step around compute): %d parents'
          % nested)
    # thinned: exactly N, evenly over the run (per decile of the held
    # samples' start times, a tenth of N, up to rounding)
    doc = trace(tmp, [log], '--trace-max', '5000')
    xs, _ = well_formed(doc, 5000)
    check('5000 of %d' % len(held) in doc['otherData']['thinning'],
          'the thinning stated: ' + doc['otherData']['thinning'])
    starts = sorted(r['t_ns'] for r in held)
    edges = [starts[len(starts) * k // 10] for k in range(1, 10)]
    per = [0] * 10
    for e in xs:                 # one log: its start is the axis' origin
        t = ns(e['ts'])
        per[sum(1 for x in edges if t >= round(x))] += 1
    check(all(abs(c - 500) <= 2 for c in per),
          'chosen evenly over time: per decile %s' % per)


def case_two(tmp, demo):
    a = record([demo], tmp, 'a.log')
    b = record([demo], tmp, 'b.log')
    na, nb = len(dump_samples(a, tmp)), len(dump_samples(b, tmp))
    doc = trace(tmp, [a, b])
    well_formed(doc, na + nb)
    t = tracks(doc)
    pids = sorted({p for p, _ in t})
    check(len(pids) == 2, 'two processes')
    span = {p: (min(x[0] for k, v in t.items() if k[0] == p for x in v),
                max(x[1] for k, v in t.items() if k[0] == p for x in v))
            for p in pids}
    first, second = sorted(span.values())
    check(first[1] <= second[0], 'one time axis: the second run after the '
          'first (%s, %s)' % (first, second))


def case_os(tmp, region_app):
    log = record([region_app, 'pages', '300'], tmp, 'os.log',
                 {'SBT_EVENTS': 'page-faults'})
    held = dump_samples(log, tmp)
    doc = trace(tmp, [log])
    xs, leaves = well_formed(doc, len(held))
    counted = [e for e in xs if 'page-faults' in e['args']]
    cs = [e for e in doc['traceEvents'] if e['ph'] == 'C']
    leaf_counted = [e for e in counted if leaves.get(id(e), True)]
    check(len(counted) > 0 and len(cs) == 2 * len(leaf_counted),
          'a counter value and a zero per counted sample (%d for %d)'
          % (len(cs), len(leaf_counted)))
    starts = {(e['pid'], ns(e['ts'])): e['args']['page-faults']
              for e in leaf_counted}
    ups = [e for e in cs if e['args']['page-faults'] > 0]
    check(all(starts.get((e['pid'], ns(e['ts']))) ==
              e['args']['page-faults'] for e in ups),
          'counter values are the samples\' counts, at their starts')
    touch = [e for e in xs if e['name'] == 'touch']
    faults = [e for e in doc['traceEvents']
              if e['ph'] == 'i' and e['name'].startswith('OS: ')]
    check(len(touch) == 300 and
          len([e for e in faults if e['args']['in'] == 'touch']) ==
          len([e for e in touch if e['args'].get('faults', 0) > 0]) >= 290,
          'an OS instant per faulting touch (%d)' % len(faults))


def case_detours(tmp, region_app):
    # 250 "outer" x 4 "inner", probes every 10 us of marking
    log = record([region_app, 'nested', '250'], tmp, 'detours.log',
                 {'SBT_SPEED_US': '10'})
    held = dump_samples(log, tmp)
    doc = trace(tmp, [log])
    well_formed(doc, len(held))
    xs = [e for e in doc['traceEvents'] if e['ph'] == 'X']
    dx = [e for e in xs if e['cat'] == 'recorder']
    smp = [e for e in xs if e['cat'] != 'recorder']
    inner = [e for e in smp if e['name'] == 'inner']
    outer = [(ns(e['ts']), ns(e['ts']) + ns(e['dur'])) for e in smp
             if e['name'] == 'outer']
    inside = sum(1 for e in inner
                 if any(a <= ns(e['ts']) and
                        ns(e['ts']) + ns(e['dur']) <= b for a, b in outer))
    check(len(inner) == 1000 and inside == 1000,
          '%d of %d children inside their parents' % (inside, len(inner)))
    check(not any('clamped_ns' in e['args'] for e in smp),
          'no slice clamped to fit: every one at its real times')
    taken = [e for e in smp if e['args'].get('detour_ns', 0) > 0]
    check(len(dx) > 0 and len(taken) > 0,
          '%d detours shown, %d samples had one taken out'
          % (len(dx), len(taken)))
    # a sample's slice is its detour-free time plus what was taken out
    off = [e for e in smp if abs(ns(e['dur']) - round(
        e['args']['ns'] + e['args'].get('detour_ns', 0))) > 2]
    check(not off, 'each slice lasts ns + detour_ns (%d do not)' % len(off))
    # every detour inside each sample it was taken out of: its enclosing
    # slices on the track hold it whole
    by_track = {}
    for e in smp:
        by_track.setdefault((e['pid'], e['tid']), []).append(
            (ns(e['ts']), ns(e['ts']) + ns(e['dur'])))
    loose = [e for e in dx if not any(
        a <= ns(e['ts']) and ns(e['ts']) + ns(e['dur']) <= b
        for a, b in by_track.get((e['pid'], e['tid']), []))]
    check(not loose, 'every detour inside a sample (%d not)' % len(loose))
    # the detours a sample holds add up to what it says was taken out
    bad = 0
    for e in taken:
        a, b = ns(e['ts']), ns(e['ts']) + ns(e['dur'])
        got = sum(ns(d['dur']) for d in dx if d['pid'] == e['pid'] and
                  d['tid'] == e['tid'] and a <= ns(d['ts']) and
                  ns(d['ts']) + ns(d['dur']) <= b)
        bad += abs(got - e['args']['detour_ns']) > 2 + 0.001 * got
    check(bad == 0, 'each sample\'s detour slices sum to its detour_ns '
          '(%d do not)' % bad)


def case_machine(tmp):
    rnd = random.Random(5)
    csv = os.path.join(tmp, 'm.csv')
    with open(csv, 'w') as f:
        f.write('region,ns,t_ns,thread,cpu\n')
        for i in range(8000):
            for k, (name, base) in enumerate((('a', 300), ('b', 500),
                                              ('c', 800))):
                v = base + rnd.gauss(0, 1)
                if 3e6 <= 1000.0 * i < 5e6:
                    v *= 1.05
                f.write('%s,%.0f,%.0f,0,1\n' % (name, 10 * (v // 10),
                                               1000.0 * i + 300 * k))
    doc = trace(tmp, [csv])
    well_formed(doc, 3 * 8000)
    m = [e for e in doc['traceEvents']
         if e['ph'] == 'i' and e['name'].startswith('machine:')]
    check(len(m) == 2 and all(e['s'] == 'p' for e in m) and
          abs(m[0]['ts'] - 3000) < 200 and abs(m[1]['ts'] - 5000) < 200 and
          sorted(m[0]['args']['regions']) == ['a', 'b', 'c'],
          'machine events at 3 and 5 ms: %s' % [(e['ts'], e['name'])
                                                for e in m])


def case_crossed(tmp):
    """Samples that overlap without nesting (a region stopped out of
    order; here CSV) are clamped into their parent, and say by how much;
    the rest is untouched."""
    csv = os.path.join(tmp, 'x.csv')
    with open(csv, 'w') as f:
        f.write('region,ns,t_ns,thread\n')
        f.write('outer,1000,0,0\ninner,300,200,0\n')       # nested
        f.write('a,1000,5000,0\nb,1000,5500,0\n')          # crossed
        f.write('c,100.4,9000,0\nd,0.6,9099.8,0\n')        # rounding
    doc = trace(tmp, [csv], '--filter', 'none')
    well_formed(doc, 6)
    x = {e['name']: e for e in doc['traceEvents'] if e['ph'] == 'X'}
    check(ns(x['b']['dur']) == 500 and x['b']['args']['clamped_ns'] == 500,
          'b ends with a, 500 ns clamped: %s' % x['b'])
    check(ns(x['inner']['dur']) == 300 and 'clamped_ns' not in
          x['inner']['args'], 'a nested sample untouched')
    check(ns(x['d']['ts']) + ns(x['d']['dur']) <=
          ns(x['c']['ts']) + ns(x['c']['dur']),
          'd inside c after rounding')


def main():
    os.environ.pop('LD_PRELOAD', None)
    case = sys.argv[1]
    args = [os.path.abspath(a) for a in sys.argv[2:]]
    tmp = tempfile.mkdtemp(prefix='sbt-trace-')
    try:
        {'demo': case_demo, 'two': case_two, 'os': case_os,
         'machine': case_machine, 'crossed': case_crossed,
         'detours': case_detours}[case](tmp, *args)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    done()


if __name__ == '__main__':
    main()
