#!/usr/bin/python3
"""counters_test.py - SBT_EVENTS end to end, with software events.

    counters_test.py CASE OS_APP NO_PERF SBT_RUN APP
                                        (SBT_LIB, SBT_ANALYZE from the env)

Cases:
  pages        page-faults,task-clock on region_app's page-touching region:
               page-faults exactly 1 per sample (0 in the region touching
               none), task-clock about the region's time
  busy         the same with a busy process on the app's cpu
  sleep        context-switches,cpu-migrations on a region sleeping 50 us:
               at least one switch per sample
  unprivileged as user nobody with perf_event_paranoid >= 2: the kernel's
               part of software events refused, context-switches told
               and marked as reading 0, page-faults still 1 per sample
  unknown      an unknown name: sbt-run exits 2 before launching and says
               how to list the names
  unavailable  perf_event_open refused (seccomp): the header says so, the
               samples are the same as without SBT_EVENTS
  hardware     a hardware name on this machine: counted where a PMU is,
               else told and left out, the run going on
  threads      500 short threads, each with its own group: every
               sample counted, no fd left open
  own          once the log is open every page of the recorder's own
               mappings is in the page table (/proc/self/pagemap): no
               first touch of ours inside a window
  likwid       LIKWID_MARKER_GET (APP is likwid_get) returns the counts
"""
import csv, json, os, statistics, struct, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'common'))
from sbttest import analyze, busy  # noqa: E402

CASE = sys.argv[1]
OS_APP, NO_PERF, SBT_RUN, APP = map(os.path.abspath, sys.argv[2:6])
ANALYZE = os.path.abspath(os.environ['SBT_ANALYZE'])
EVENTS = 'page-faults,task-clock'
N = 300
failed = 0


def check(cond, what):
    global failed
    if not cond:
        failed += 1
        print('FAIL %s: %s' % (CASE, what), file=sys.stderr)


def run(args, log='region.log', env=None, wrap=(), app=None, ok=(0,)):
    """app under sbt-run; returns (exit code, stdout, stderr)."""
    e = dict(os.environ, SBT_OUTPUT=log, **(env or {}))
    p = subprocess.run([*wrap, SBT_RUN, '--', app or OS_APP, *args],
                       env=e, capture_output=True, text=True)
    if p.returncode == 77:
        sys.exit(77)
    if p.returncode not in ok:
        sys.exit('%s %s: exit %d: %s' % (app or OS_APP, args, p.returncode,
                                         p.stderr))
    return p.returncode, p.stdout, p.stderr




def report(log):
    return json.loads(analyze(log, '--format', 'json'))


def dump(log):
    analyze(log, '--dump', 'dump.csv')
    with open('dump.csv') as f:
        return [r for r in csv.DictReader(f) if r['probe'] == '0']


def region(rep, name):
    return next(g for g in rep['regions'] if g['name'] == name)


def version(log):
    with open(log, 'rb') as f:
        return struct.unpack('<8sI', f.read(12))[1]


def counted(rep):
    """The events the log counted; skip where the kernel refuses all."""
    src = rep['sources'][0]
    if not src['events'] and 'Permission denied' in \
            src['events_unavailable']:
        print('software events refused here (%s): skipped'
              % src['events_unavailable'])
        sys.exit(77)
    return src['events']


def pages_checks(log):
    rep = report(log)
    check(counted(rep) == ['page-faults', 'task-clock'],
          'events %r' % rep['sources'][0]['events'])
    check(version(log) == 6, 'log version %d' % version(log))
    rows = dump(log)
    touch = [r for r in rows if r['region'] == 'touch']
    still = [r for r in rows if r['region'] == 'still']
    check(len(touch) == N and len(still) == N,
          '%d / %d samples' % (len(touch), len(still)))
    bad = [r['page-faults'] for r in touch if r['page-faults'] != '1']
    check(not bad, 'touch: %d samples without exactly 1 page fault: %s'
          % (len(bad), bad[:10]))
    bad = [r['page-faults'] for r in still if r['page-faults'] != '0']
    check(not bad, 'still: %d samples with page faults: %s'
          % (len(bad), bad[:10]))
    check(all(float(r['task-clock']) > 0 for r in touch),
          'touch: a sample without task-clock')
    c = region(rep, 'touch')['counters']
    check(c and c['page-faults']['n'] == N and
          c['page-faults']['avg'] == 1 and c['page-faults']['max'] == 1 and
          c['page-faults']['total'] == N, 'touch counters %r' % c)
    check(c and c['running'] == 1, 'software events multiplexed? %r' % c)
    c = region(rep, 'still')['counters']
    check(c and c['page-faults']['max'] == 0, 'still counters %r' % c)
    # task-clock runs from the START's read to the STOP's: the region
    # plus what an empty pair counts (the log's calibration says how
    # much).  Medians, so that a preempted sample cannot decide.
    empty = rep['sources'][0]['events_empty_pair'].get('task-clock')
    check(empty is not None and empty >= 0, 'no empty pair: %r' % empty)
    tc = statistics.median(float(r['task-clock']) for r in touch)
    ns = statistics.median(float(r['ns']) for r in touch)
    own = tc - (empty or 0)
    check(0.5 * ns - 200 <= own <= 2 * ns + 1000,
          'task-clock %.0f ns (empty pair %s) for a %.0f ns region'
          % (tc, empty, ns))
    text = analyze(log)
    check('events: page-faults, task-clock' in text and
          'page-faults 1 / 1 / 1' in text, 'text report:\n' + text[:1500])
    print('touch: %d samples, page-faults 1 each; task-clock median %.0f '
          'ns (empty pair %s ns), wall median %.0f ns'
          % (len(touch), tc, empty, ns))


def case_pages():
    run(['pages', str(N)], env={'SBT_EVENTS': EVENTS})
    pages_checks('region.log')


def case_busy():
    cpu = min(os.sched_getaffinity(0))
    with busy(cpu):
        run(['pages', str(N)], env={'SBT_EVENTS': EVENTS},
            wrap=('taskset', '-c', str(cpu)))
    pages_checks('region.log')


def case_sleep():
    _, _, err = run(['sleep', '100'], env={
        'SBT_EVENTS': 'context-switches,cpu-migrations', 'SBT_QUIET': '0'})
    if 'counts user mode only' in err:
        # as root the kernel part is always allowed: saying otherwise
        # is the recorder's bug
        check(os.geteuid() != 0, 'root told the kernel part is refused')
        if os.geteuid() != 0:
            print('the kernel part of software events is refused here: '
                  'switches read 0; skipped')
            sys.exit(77)
    rep = report('region.log')
    check(counted(rep) == ['context-switches', 'cpu-migrations'],
          'events %r' % rep['sources'][0]['events'])
    rows = [r for r in dump('region.log') if r['region'] == 'sleep']
    check(len(rows) == 100, '%d samples' % len(rows))
    # A sleep can end without a switch: when the host stalls this vCPU
    # between the task's going to sleep and schedule() for longer than the
    # sleep, the timer has woken it already (seen once in CI: 1 of 100).
    # How often is the host's: the bound is one no machine reaches (half
    # the sleeps), while a lost count would miss them all.  A missing
    # reading (-1) is the recorder's fault, never allowed.
    few = [r['context-switches'] for r in rows
           if 0 <= float(r['context-switches']) < 1]
    none = [r for r in rows if float(r['context-switches']) < 0]
    check(len(few) <= 50, '%d sleeps of 100 without a switch (half at '
          'most)' % len(few))
    check(not none, '%d sleeps without a reading' % len(none))
    check(all(float(r['cpu-migrations']) >= 0 for r in rows),
          'a sample without cpu-migrations')
    c = region(rep, 'sleep')['counters']
    print('sleep: context-switches avg %.2f max %.0f, cpu-migrations avg '
          '%.2f' % (c['context-switches']['avg'], c['context-switches']
                    ['max'], c['cpu-migrations']['avg']))


def case_unprivileged():
    try:
        paranoid = int(open('/proc/sys/kernel/perf_event_paranoid').read())
    except OSError:
        paranoid = -9
    if os.geteuid() != 0 or paranoid < 2 or not any(
            os.access(os.path.join(d, 'setpriv'), os.X_OK)
            for d in os.environ.get('PATH', '').split(':')):
        print('needs root, setpriv and perf_event_paranoid >= 2: skipped')
        sys.exit(77)
    os.chmod('.', 0o777)
    e = dict(os.environ, SBT_OUTPUT=os.path.abspath('n.log'),
             SBT_EVENTS='context-switches,page-faults', SBT_QUIET='0')
    p = subprocess.run(['setpriv', '--reuid=65534', '--regid=65534',
                        '--clear-groups', SBT_RUN, '--', OS_APP, 'pages',
                        str(N)], env=e, capture_output=True, text=True)
    if p.returncode != 0 or not os.path.exists('n.log'):
        print('cannot run as nobody here (exit %d: %s): skipped'
              % (p.returncode, p.stderr.strip()[:200]))
        sys.exit(77)
    check("event 'context-switches' counts user mode only" in p.stderr,
          'not told: ' + p.stderr)
    text = analyze('n.log')
    check('context-switches (user mode only, the kernel\'s part refused: '
          'reads 0), page-faults' in text, 'header:\n' + text[:600])
    rep = report('n.log')
    check(rep['sources'][0]['events_user_only'] == ['context-switches'],
          rep['sources'][0]['events_user_only'])
    rows = [r for r in dump('n.log') if r['region'] == 'touch']
    check(len(rows) == N and all(r['page-faults'] == '1' for r in rows),
          'page-faults in user mode: %r' % [r['page-faults']
                                            for r in rows[:10]])


def case_unknown():
    for how in (['-e', 'foo,page-faults'], []):
        e = dict(os.environ, SBT_OUTPUT='u.log')
        if not how:
            e['SBT_EVENTS'] = 'page-faults,foo'
        p = subprocess.run([SBT_RUN, *how, '--', OS_APP, 'pages', '10'],
                           env=e, capture_output=True, text=True)
        check(p.returncode == 2, 'exit %d' % p.returncode)
        check("unknown event 'foo'" in p.stderr and
              'sbt-run --list-events' in p.stderr, 'message: ' + p.stderr)
        check(not os.path.exists('u.log'), 'the program ran')
    p = subprocess.run([SBT_RUN, '--list-events'], capture_output=True,
                       text=True)
    names = p.stdout.split()
    check(p.returncode == 0 and 'page-faults' in names and
          'task-clock' in names and 'instructions' in names,
          '--list-events: exit %d, %r' % (p.returncode, names[:20]))


def case_unavailable():
    run(['pages', str(N)], log='plain.log')
    run(['pages', str(N)], log='refused.log', wrap=(NO_PERF,),
        env={'SBT_EVENTS': EVENTS})
    text = analyze('refused.log')
    check('events: none counted; unavailable: page-faults (perf_event_open:'
          ' Permission denied), task-clock (perf_event_open: Permission '
          'denied)' in text, 'header line missing:\n' + text[:800])
    a, b = report('plain.log'), report('refused.log')
    check(b['sources'][0]['events'] == [], b['sources'][0]['events'])
    check(version('refused.log') == 6, 'version %d' % version('refused.log'))
    for name in ('touch', 'still'):
        ga, gb = region(a, name), region(b, name)
        check(ga['count'] == gb['count'] == N,
              '%s: %d vs %d samples' % (name, ga['count'], gb['count']))
        check(gb['counters'] is None, '%s: counters %r'
              % (name, gb['counters']))
        check(gb['verdict'], name + ': no verdict')
    rows = dump('refused.log')
    check(rows and 'page-faults' not in rows[0], 'dump claims counts')
    check(len(rows) == len(dump('plain.log')), 'dump rows differ')


def case_hardware():
    _, _, err = run(['pages', str(N)], env={
        'SBT_EVENTS': 'cycles,instructions,page-faults', 'SBT_QUIET': '0'})
    rep = report('region.log')
    ev = counted(rep)
    check('page-faults' in ev, 'page-faults not counted: %r' % ev)
    for name in ('cycles', 'instructions'):
        check(name in ev or "event '%s' cannot be counted here" % name
              in err, '%s neither counted nor told: %r / %s'
              % (name, ev, err))
    c = region(rep, 'touch')['counters']
    check(c and c['page-faults']['avg'] == 1, 'touch %r' % c)
    if 'cycles' in ev and 'instructions' in ev:
        check(c['ipc'] and c['ipc'] > 0, 'no IPC: %r' % c)
    check(region(rep, 'touch')['count'] == N, 'samples lost')
    print('counted %s; told: %s' % (ev, err.strip().replace('\n', ' | ')))


def case_threads():
    _, out, _ = run(['threads', '500'], env={'SBT_EVENTS': EVENTS})
    before, after = map(int, out.split()[1:3])
    check(before == after, 'fds %d before, %d after 500 threads'
          % (before, after))
    rep = report('region.log')
    counted(rep)
    rows = [r for r in dump('region.log') if r['region'] == 't']
    check(len(rows) == 500, '%d samples' % len(rows))
    check(all(float(r['task-clock']) > 0 and r['page-faults'] != '-1'
              for r in rows), 'a thread\'s sample without counts')


def case_own():
    # Every page of the recorder's own code and data is in the page table
    # once the log is open: no window (its first STOP's code on a page
    # never run) counts a fault of ours as the user's, whatever the
    # library's layout.
    _, out, _ = run(['own', '1'], env={'SBT_EVENTS': EVENTS})
    word, present, total = out.split()
    check(word == 'own' and int(total) > 0 and present == total,
          'recorder pages present after the log opened: %s of %s'
          % (present, total))


def case_likwid():
    _, out, _ = run(['200'], app=APP, env={'SBT_EVENTS': EVENTS})
    count, nev, *ev = out.split()
    check(int(count) == 200 and int(nev) == 2, 'count %s nev %s'
          % (count, nev))
    check(len(ev) == 2 and float(ev[0]) == 200 and float(ev[1]) > 0,
          'events %r (page-faults, task-clock)' % ev)
    _, out, _ = run(['200'], app=APP)
    check(out.split()[:2] == ['200', '0'], 'without SBT_EVENTS: ' + out)


with tempfile.TemporaryDirectory(prefix='sbt-cnt-') as d:
    os.chdir(d)
    globals()['case_' + CASE]()
print('%s: %s' % (CASE, 'FAILED' if failed else 'ok'))
sys.exit(1 if failed else 0)
