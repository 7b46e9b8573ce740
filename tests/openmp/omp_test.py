#!/usr/bin/env python3
"""omp_test.py - an unmodified OpenMP app recorded under sbt-run.

  omp_test.py SBT_RUN LABELS CC EXTRA_PCT [busy]
  omp_test.py SBT_RUN LABELS detail
  omp_test.py SBT_RUN LABELS nested CC
  omp_test.py SBT_RUN LABELS unrecorded
  omp_test.py SBT_RUN LABELS gompwait GOMP_BARRIERS_SO
  omp_test.py SBT_RUN LABELS lines CC
  omp_test.py SBT_RUN LABELS logged PLANTED30.log.gz EQUAL.log.gz

Builds tests/openmp/omp_app.c with CC (clang: LLVM's libomp, recorded
through OMPT; gcc: libgomp, recorded through its interposed entry
points), runs 200 parallel regions of 4 threads under sbt-run, thread 3's
share EXTRA_PCT percent bigger, and checks `sbt-analyze --by thread
--format json`:
  - exactly two OpenMP regions, "omp parallel @ omp_app.c:L" and "omp
    barrier @ omp_app.c:L", L the line of the parallel pragma;
  - each with 200 samples on each of 4 threads, OpenMP threads 0-3, and
    the log's thread labels "omp 0" .. "omp 3";
  - EXTRA_PCT 900 (10 times the work): OpenMP thread 3's share flagged
    slower by more than 100 %, the verdict naming it and the others'
    barrier wait (> 0): a bound no machine reaches.  EXTRA_PCT 0: the
    shares are printed, not judged.
With `busy` a busy loop shares a cpu with the app throughout.
`logged` judges two logs recorded once (data/README), deterministic on
any machine: a 30 % imbalance (not the issue's 5 %: equal shares of a
4-thread team on a 2-cpu VM differed by up to 5.2 % with a busy
co-runner, so a share is flagged from 10 % on, analysis/score/groups.c)
flags thread 3 alone, by more than 15 %; equal shares flag none.
Exit 0 pass, 1 fail, 77 skip (no such compiler).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'common'))
from sbttest import check, die_with_parent, done  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def pragma_line(src, what):
    return next(i + 1 for i, t in enumerate(open(src))
                if '#pragma omp ' + what in t)


def detail(sbt_run):
    """omp_detail.c (clang): with SBT_OMP_DETAIL=1 each thread's part of
    50 loops, the single, 100 tasks; without, none of those - the
    loops' barrier waits either way."""
    if not shutil.which('clang'):
        print('SKIP: no clang', file=sys.stderr)
        return 77
    src = os.path.join(HERE, 'omp_detail.c')
    par, loop, single, task = (pragma_line(src, w) for w in
                               ('parallel', 'for', 'single', 'task'))
    base = {'omp parallel @ omp_detail.c:%d' % par: 4,
            'omp barrier @ omp_detail.c:%d' % par: 4,
            'omp barrier @ omp_detail.c:%d' % loop: 200,
            'omp barrier @ omp_detail.c:%d' % single: 4}
    more = {'omp loop @ omp_detail.c:%d' % loop: 200,
            'omp single @ omp_detail.c:%d' % single: 1,
            'omp task @ omp_detail.c:%d' % task: 100}
    tmp = tempfile.mkdtemp(prefix='sbt-omp-')
    try:
        subprocess.run(['clang', '-O2', '-g', '-fopenmp', src, '-o',
                        os.path.join(tmp, 'omp_detail')], check=True)
        for on in ('1', '0'):
            log = os.path.join(tmp, 'd%s.log' % on)
            env = dict(os.environ, SBT_OMP_DETAIL=on)
            env.pop('LD_PRELOAD', None)
            p = subprocess.run([sbt_run, '-o', log, '--', './omp_detail',
                                '50', '100'], cwd=tmp, env=env,
                               capture_output=True, text=True, timeout=120)
            check(p.returncode == 0 and
                  p.stdout == 'omp_detail: 50 loops, 100 tasks\n',
                  'exit %d, output %r' % (p.returncode, p.stdout))
            a = subprocess.run([os.environ['SBT_ANALYZE'], '--format',
                                'json', log], capture_output=True,
                               text=True, env=env)
            doc = json.loads(a.stdout)
            got = {g['name']: g['count'] for g in doc['regions']}
            want = dict(base, **more) if on == '1' else base
            cnt = doc['sources'][0]['counters']
            # A worker's wait at the region's closing barrier may end only
            # when libomp shuts its team down at exit, after the recorder
            # finished its log: if its chunk is full then, that wait is
            # counted dropped, not recorded (seen once in a full CI run
            # under load; 12 reruns did not).  Every wait is one or the other, exactly.
            closing = 'omp barrier @ omp_detail.c:%d' % par
            late = cnt.get('dropped', 0)
            if closing in got and 0 < late <= 3:
                got[closing] += late
            check(got == want, 'SBT_OMP_DETAIL=%s: %s, want %s'
                  % (on, sorted(got.items()), sorted(want.items())))
            check(not any(v for k, v in cnt.items()
                          if k not in ('threads', 'dropped')),
                  'counters %s' % cnt)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    done()


def nested(sbt_run, labels, cc):
    """omp_nested.c: 10 x 2 outer shares, 40 inner ones, each pragma one
    region (clang unrolls the loop: ten addresses), inner threads at
    nesting level 2."""
    if not shutil.which(cc):
        print('SKIP: no ' + cc, file=sys.stderr)
        return 77
    src = os.path.join(HERE, 'omp_nested.c')
    outer = pragma_line(src, 'parallel')
    inner = outer + 2
    want = {'omp parallel @ omp_nested.c:%d' % outer: 20,
            'omp barrier @ omp_nested.c:%d' % outer: 20,
            'omp parallel @ omp_nested.c:%d' % inner: 40,
            'omp barrier @ omp_nested.c:%d' % inner: 40}
    tmp = tempfile.mkdtemp(prefix='sbt-omp-')
    try:
        subprocess.run([cc, '-O2', '-g', '-fopenmp', src, '-o',
                        os.path.join(tmp, 'omp_nested')], check=True)
        log = os.path.join(tmp, 'n.log')
        env = dict(os.environ)
        env.pop('LD_PRELOAD', None)
        p = subprocess.run([sbt_run, '-o', log, '--', './omp_nested'],
                           cwd=tmp, env=env, capture_output=True, text=True,
                           timeout=120)
        check(p.returncode == 0 and p.stdout == 'omp_nested: 80\n',
              'exit %d, output %r' % (p.returncode, p.stdout))
        a = subprocess.run([os.environ['SBT_ANALYZE'], '--format', 'json',
                            log], capture_output=True, text=True, env=env)
        got = {g['name']: g['count'] for g in json.loads(a.stdout)['regions']}
        check(got == want, '%s: %s, want %s' % (cc, sorted(got.items()),
                                                sorted(want.items())))
        lab = subprocess.run([labels, log], capture_output=True, text=True,
                             env=env).stdout.split('\n')
        check(any(t.split()[3:4] == ['2'] for t in lab if t),
              'no thread at nesting level 2: %s' % lab)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    done()


def unrecorded(sbt_run):
    """omp_marked.c (clang): with OMP_TOOL=disabled libomp reaches
    neither path - the header says so once, no OpenMP region; without,
    its regions and counter 0.  Our markers inside are recorded both
    ways.  omp_old_abi.c (gcc): GCC's pre-4.9 entry points, counted."""
    if not shutil.which('clang'):
        print('SKIP: no clang', file=sys.stderr)
        return 77
    src = os.path.join(HERE, 'omp_marked.c')
    tmp = tempfile.mkdtemp(prefix='sbt-omp-')
    try:
        subprocess.run(['clang', '-O2', '-g', '-fopenmp', '-DSBT_MARKER',
                        '-I', os.path.join(HERE, '..', '..', 'markers'),
                        src, '-o', os.path.join(tmp, 'omp_marked')],
                       check=True)
        for tool in ('disabled', 'enabled'):
            log = os.path.join(tmp, tool + '.log')
            env = dict(os.environ, OMP_TOOL=tool)
            env.pop('LD_PRELOAD', None)
            p = subprocess.run([sbt_run, '-o', log, '--', './omp_marked'],
                               cwd=tmp, env=env, capture_output=True,
                               text=True, timeout=120)
            check(p.returncode == 0 and p.stdout == 'omp_marked: 10\n',
                  'exit %d, output %r' % (p.returncode, p.stdout))
            a = subprocess.run([os.environ['SBT_ANALYZE'], '--format',
                                'json', log], capture_output=True,
                               text=True, env=env)
            doc = json.loads(a.stdout)
            got = sorted((g['name'].split(' @ ')[0], g['count'])
                         for g in doc['regions'])
            n = doc['sources'][0]['counters']['openmp_unrecorded']
            if tool == 'disabled':
                check(n == 1 and got == [('inside', 10)],
                      'OMP_TOOL=disabled: counter %d, regions %s' % (n, got))
            else:
                check(n == 0 and got == [('inside', 10),
                                         ('omp barrier', 10),
                                         ('omp parallel', 10)],
                      'OMP_TOOL=enabled: counter %d, regions %s' % (n, got))
        # GCC's pre-4.9 entry points on libgomp: passed through, counted
        subprocess.run(['gcc', '-O1', '-fopenmp', '-DSBT_MARKER', '-I',
                        os.path.join(HERE, '..', '..', 'markers'),
                        os.path.join(HERE, 'omp_old_abi.c'), '-o',
                        os.path.join(tmp, 'old')], check=True)
        log = os.path.join(tmp, 'old.log')
        env = dict(os.environ)
        env.pop('LD_PRELOAD', None)
        p = subprocess.run([sbt_run, '-o', log, '--', './old'], cwd=tmp,
                           env=env, capture_output=True, text=True,
                           timeout=120)
        check(p.returncode == 0 and p.stdout == 'omp_old_abi: 2\n',
              'old ABI: exit %d, output %r' % (p.returncode, p.stdout))
        a = subprocess.run([os.environ['SBT_ANALYZE'], '--format', 'json',
                            log], capture_output=True, text=True, env=env)
        doc = json.loads(a.stdout)
        n = doc['sources'][0]['counters']['openmp_unrecorded']
        got = sorted(g['name'] for g in doc['regions'])
        check(n == 1 and got == ['outside'],
              'old ABI: counter %d, regions %s' % (n, got))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    done()


def runtime_barriers(binary, entry):
    """The barrier calls the code makes (objdump; entry: a regular
    expression of the runtime's entry points): the line the line table
    gives each call's return address (addr2line, the call's last byte),
    and how many are tail calls (a jmp: no return address in the
    app)."""
    dis = subprocess.run(['objdump', '-d', '--no-show-raw-insn', binary],
                         capture_output=True, text=True,
                         check=True).stdout.splitlines()
    call = re.compile(r'^\s*([0-9a-f]+):\s+(call|jmp)\s+[0-9a-f]+ '
                      r'<(%s)@plt>' % entry)
    addr = re.compile(r'^\s*([0-9a-f]+):')
    ras, tail = [], 0
    for k, t in enumerate(dis):
        m = call.match(t)
        if not m:
            continue
        if m.group(2) == 'jmp':
            tail += 1
            continue
        nxt = next(addr.match(u) for u in dis[k + 1:] if addr.match(u))
        ras.append(int(nxt.group(1), 16))
    a2l = subprocess.run(['addr2line', '-e', binary] +
                         ['%x' % (r - 1) for r in ras], capture_output=True,
                         text=True, check=True).stdout.split()
    got = [int(re.match(r'.*:(\d+)$', t).group(1)) for t in a2l
           if re.match(r'.*:\d+$', t)]
    return got, tail


def lines(sbt_run, cc):
    """omp_lines.c built with CC, 20 reps of teams of 4 under sbt-run:
    the output as without the recorder; every parallel region named by
    its pragma's line (grep) with its exact count, its closing barrier
    alike; and the barriers inside a region recorded, each thread once a
    rep: with clang (OMPT) at their pragmas' lines; with gcc (libgomp) at
    the lines the line table gives their runtime calls (objdump and
    addr2line), the explicit barrier's its pragma's.  The explicit
    barrier that ends region B is a tail call at -O2 (objdump says): no
    place in the app; OMPT names it in libomp, libgomp's path counts its
    wait in the closing barrier's."""
    if not shutil.which(cc):
        print('SKIP: no ' + cc, file=sys.stderr)
        return 77
    src = os.path.join(HERE, 'omp_lines.c')
    text = open(src).read().splitlines()

    def pragma(what):
        return [i + 1 for i, t in enumerate(text)
                if re.match(r'\s*#pragma omp %s\b' % what, t)]

    reps, team = 20, 4
    u = reps * team
    main_at = next(i + 1 for i, t in enumerate(text)
                   if t.startswith('int main('))
    name = 'omp %s @ omp_lines.c:%d'
    want = {}
    for line in pragma('parallel'):
        # the one before main is scale's, called twice a rep
        n = 2 * u if line < main_at else u
        want[name % ('parallel', line)] = n
        want[name % ('barrier', line)] = n
    inner = pragma('for') + pragma('barrier') + pragma('single') + \
        pragma('sections')
    tmp = tempfile.mkdtemp(prefix='sbt-omp-')
    try:
        binary = os.path.join(tmp, 'omp_lines')
        subprocess.run([cc, '-O2', '-g', '-fopenmp', src, '-o', binary],
                       check=True)
        explicit = pragma('barrier')
        if cc == 'gcc':
            at, tail = runtime_barriers(
                binary, r'GOMP_(barrier|loop_end|sections_end)(_cancel)?')
            check(len(at) + tail == len(inner) and
                  len(explicit) == 2 and explicit[0] in at and tail <= 1,
                  'gcc\'s barrier calls at lines %s, %d tail calls; '
                  'pragmas %s' % (at, tail, inner))
        else:
            _, tail = runtime_barriers(binary, r'__kmpc_barrier')
            at = [line for line in inner
                  if not (tail and line == explicit[-1])]
            if tail:
                want['(outside omp_lines.c)'] = u
        for line in at:
            k = name % ('barrier', line)
            want[k] = want.get(k, 0) + u
        env = dict(os.environ)
        env.pop('LD_PRELOAD', None)
        plain = subprocess.run([binary, str(reps)], env=env,
                               capture_output=True, text=True, timeout=120)
        log = os.path.join(tmp, 'l.log')
        p = subprocess.run([sbt_run, '-o', log, '--', binary, str(reps)],
                           env=env, capture_output=True, text=True,
                           timeout=120)
        check(p.returncode == 0 == plain.returncode and
              p.stdout == plain.stdout and
              p.stdout.startswith('omp_lines: %d reps, %d singles, %d '
                                  'sections' % (reps, reps, 2 * reps)),
              'exit %d, output %r; without the recorder %r'
              % (p.returncode, p.stdout, plain.stdout))
        a = subprocess.run([os.environ['SBT_ANALYZE'], '--format', 'json',
                            log], capture_output=True, text=True, env=env)
        doc = json.loads(a.stdout)
        cnt = doc['sources'][0]['counters']
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    got = {g['name'] if 'omp_lines.c:' in g['name'] or
           not g['name'].startswith('omp barrier @ ') else
           '(outside omp_lines.c)': g['count'] for g in doc['regions']}
    # as in detail(): a closing wait libomp ends only at exit, after the
    # log was finished, is counted dropped, not recorded
    late = cnt.get('dropped', 0) if cc == 'clang' else 0
    short = {k: want[k] - got.get(k, 0) for k in want
             if k.startswith('omp barrier') and got.get(k, 0) < want[k]}
    if 0 < late <= 3 and sum(short.values()) == late:
        got.update({k: want[k] for k in short})
    check(got == want, '%s: %s, want %s' % (cc, sorted(got.items()),
                                            sorted(want.items())))
    done()


def gompwait(sbt_run, counter):
    """omp_app (gcc, libgomp), thread 3 with 10 times the work, under
    sbt-run with gomp_count.so preloaded after the recorder: the
    recorder calls no GOMP_barrier (the counter, which every
    GOMP_parallel reached through the recorder, saw none), and every
    thread's wait of every region ends at the team's release: after the
    last share of the region ended (every thread arrived), before the
    thread's next share began, and the same instant for the team (one
    release).  A lost wait (ended at its thread's own arrival) ends
    before the slow thread's share does."""
    if not shutil.which('gcc'):
        print('SKIP: no gcc', file=sys.stderr)
        return 77
    regions = 200
    tmp = tempfile.mkdtemp(prefix='sbt-omp-')
    try:
        subprocess.run(['gcc', '-O2', '-fopenmp',
                        os.path.join(HERE, 'omp_app.c'), '-o',
                        os.path.join(tmp, 'omp_app')], check=True)
        log, dump, out = (os.path.join(tmp, f) for f in
                          ('w.log', 'w.csv', 'count.txt'))
        env = dict(os.environ, GOMP_COUNT_OUT=out,
                   LD_PRELOAD=os.environ['SBT_LIB'] + ':' + counter)
        p = subprocess.run([sbt_run, '-o', log, '--', './omp_app',
                            str(regions), '900'], cwd=tmp, env=env,
                           capture_output=True, text=True, timeout=120)
        check(p.returncode == 0 and p.stdout.startswith(
              'omp_app: %d regions, %d implicit tasks' % (regions,
                                                          4 * regions)),
              'exit %d, output %r %s' % (p.returncode, p.stdout, p.stderr))
        lines = open(out).read().splitlines()
        got = json.loads(lines[0]) if len(lines) == 1 else lines
        check(got == {'GOMP_parallel': regions,
                      'GOMP_parallel_reductions': 0,
                      'GOMP_parallel_sections': 0,
                      'GOMP_parallel_start': 0, 'GOMP_barrier': 0},
              'calls through the recorder: %s' % got)
        env.pop('LD_PRELOAD')
        a = subprocess.run([os.environ['SBT_ANALYZE'], '--filter', 'none',
                            '--dump', dump, log], capture_output=True,
                           text=True, env=env)
        check(a.returncode == 0, 'sbt-analyze exit %d: %s'
              % (a.returncode, a.stderr))
        import csv
        rows = list(csv.DictReader(open(dump)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    # per thread, its shares and waits in time order: instance k each
    by = {}
    for r in rows:
        if r['probe'] != '0':
            continue
        kind = r['region'].split(' @ ')[0]
        t0 = float(r['t_ns'])
        end = t0 + float(r['ns']) + float(r['detour'])
        by.setdefault((r['thread'], kind), []).append((t0, end))
    threads = sorted({t for t, _ in by})
    check(len(threads) == 4 and
          all(len(by.get((t, k), [])) == regions for t in threads
              for k in ('omp parallel', 'omp barrier')),
          'samples per thread: %s' % {k: len(v) for k, v in by.items()})
    if len(threads) != 4:
        done()
    for v in by.values():
        v.sort()
    early = late = apart = 0
    for k in range(regions):
        last_share = max(by[(t, 'omp parallel')][k][1] for t in threads)
        ends = [by[(t, 'omp barrier')][k][1] for t in threads]
        # 1 ns: the dump's decimals
        early += sum(e < last_share - 1 for e in ends)
        apart += max(ends) - min(ends) > 1
        if k + 1 < regions:
            late += sum(by[(t, 'omp barrier')][k][1] >
                        by[(t, 'omp parallel')][k + 1][0] + 1
                        for t in threads)
    check(early == 0, '%d waits end before the last share of their '
          'region did' % early)
    check(late == 0, '%d waits end after their thread began its next '
          'share' % late)
    check(apart == 0, '%d regions whose waits end apart' % apart)
    done()


def main():
    if sys.argv[3] == 'lines':
        return lines(os.path.abspath(sys.argv[1]), sys.argv[4])
    if sys.argv[3] == 'gompwait':
        return gompwait(os.path.abspath(sys.argv[1]),
                        os.path.abspath(sys.argv[4]))
    if sys.argv[3] == 'logged':
        return logged(*sys.argv[4:6])
    if sys.argv[3] == 'unrecorded':
        return unrecorded(os.path.abspath(sys.argv[1]))
    if sys.argv[3] == 'detail':
        return detail(os.path.abspath(sys.argv[1]))
    if sys.argv[3] == 'nested':
        return nested(*map(os.path.abspath, sys.argv[1:3]), sys.argv[4])
    sbt_run, labels = map(os.path.abspath, sys.argv[1:3])
    cc, pct = sys.argv[3], int(sys.argv[4])
    busy = len(sys.argv) > 5 and sys.argv[5] == 'busy'
    if not shutil.which(cc):
        print('SKIP: no ' + cc, file=sys.stderr)
        return 77
    src = os.path.join(HERE, 'omp_app.c')
    line = next(i + 1 for i, t in enumerate(open(src))
                if '#pragma omp parallel' in t)
    tmp = tempfile.mkdtemp(prefix='sbt-omp-')
    try:
        subprocess.run([cc, '-O2', '-g', '-fopenmp', src, '-o',
                        os.path.join(tmp, 'omp_app')], check=True)
        log = os.path.join(tmp, 'omp.log')
        env = dict(os.environ)
        env.pop('LD_PRELOAD', None)
        hog = None
        if busy:
            hog = subprocess.Popen(['sh', '-c', 'while :; do :; done'],
                                   preexec_fn=die_with_parent)
        try:
            p = subprocess.run([sbt_run, '-o', log, '--', './omp_app',
                                '200', str(pct)], cwd=tmp, env=env,
                               capture_output=True, text=True, timeout=120)
        finally:
            if hog:
                hog.kill()
                hog.wait()
        check(p.returncode == 0, 'exit status %d (%s)' % (p.returncode,
                                                         p.stderr.strip()))
        check(p.stdout == 'omp_app: 200 regions, 800 implicit tasks (%s)\n'
              % p.stdout[-3:-2], 'normal output: %r' % p.stdout)
        a = subprocess.run([os.environ['SBT_ANALYZE'], '--by', 'thread',
                            '--format', 'json', log], capture_output=True,
                           text=True, env=env)
        check(a.returncode == 0, 'sbt-analyze exit %d' % a.returncode)
        doc = json.loads(a.stdout)
        lab = subprocess.run([labels, log], capture_output=True, text=True,
                             env=env).stdout.split('\n')
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    omp = [g for g in doc['regions'] if g['api'] == 'openmp']
    names = sorted({g['name'] for g in omp})
    par = 'omp parallel @ omp_app.c:%d' % line
    bar = 'omp barrier @ omp_app.c:%d' % line
    check(names == [bar, par], 'regions %s, want %s' % (names, [bar, par]))
    for name in (par, bar):
        gs = [g for g in omp if g['name'] == name]
        check(sorted(g['count'] for g in gs) == [200] * 4,
              '%s: samples per thread %s' % (name,
                                             [g['count'] for g in gs]))
        check(sorted(g.get('omp_thread', -1) for g in gs) == [0, 1, 2, 3],
              '%s: OpenMP threads %s' % (name, [g.get('omp_thread')
                                                for g in gs]))
    got = sorted(t.split()[-1] for t in lab if t.split()[-2:-1] == ['omp'])
    check(got == ['0', '1', '2', '3'], 'thread labels %s' % lab)

    shares = [g for g in omp if g['name'] == par]
    if pct >= 900:
        # 10 times the work on thread 3: no machine's speed or steadiness
        # makes that read as less than twice the others' (they would
        # have to run 5 times slower throughout).  Whether a planted
        # 30 % is told, and equal shares are not, is judged on recorded
        # logs (logged()).
        judge_shares(shares, 1.0, others=False)
    else:
        print('note: shares here (not judged): %s'
              % [(g.get('omp_thread'), g['flagged'], g['delta_rel'])
                 for g in shares])
    done()


def judge_shares(shares, least, others=True):
    """Thread 3's share flagged slower by more than `least`, named in its
    verdict with the others' wait; others: no other share flagged; with
    least 0: no share flagged."""
    slow = [g for g in shares if g['flagged'] and g['delta_ns'] > 0]
    if least > 0:
        got = [g.get('omp_thread') for g in slow]
        check(got == [3] if others else 3 in got,
              'flagged slower: OpenMP threads %s, want [3] (%s)'
              % (got, [(g.get('omp_thread'), g['delta_rel'])
                       for g in shares]))
        slow = [g for g in slow if g.get('omp_thread') == 3]
        check(all(g['delta_rel'] > least for g in slow),
              'thread 3 slower by %s (want > %g)'
              % ([g['delta_rel'] for g in slow], least))
        for g in slow:
            check(any(f['kind'] == 'group' and f['size_ns'] > 0
                      for f in g['finding_list']), g['verdict'])
            check(g['delta_ns'] > 0 and g.get('others_wait_ns', 0) > 0,
                  'the others\' wait: %s' % g.get('others_wait_ns'))
    else:
        check(not [g for g in shares if g['flagged']],
              'flagged with equal shares: %s'
              % [(g.get('omp_thread'), g['delta_rel']) for g in shares
                 if g['flagged']])


def logged(planted, equal):
    """Two logs of omp_app (clang, libomp) recorded once with a busy loop
    beside it (data/README): thread 3's share 30 % bigger is flagged,
    alone, by more than 15 %; equal shares flag none.  The logs carry
    their names (sbt-run embedded them): the regions are named by line
    without the binary that ran, which no machine but the recording one
    had."""
    import gzip
    tmp = tempfile.mkdtemp(prefix='sbt-omp-')
    try:
        for gz, least in ((planted, 0.15), (equal, 0)):
            log = os.path.join(tmp, 'omp.log')
            with gzip.open(gz, 'rb') as f, open(log, 'wb') as o:
                shutil.copyfileobj(f, o)
            a = subprocess.run([os.environ['SBT_ANALYZE'], '--by', 'thread',
                                '--format', 'json', log],
                               capture_output=True, text=True)
            check(a.returncode == 0, '%s: sbt-analyze exit %d'
                  % (os.path.basename(gz), a.returncode))
            doc = json.loads(a.stdout)
            # the log carries its names: no binary of the run is read
            check(not doc.get('callsite_notes'), '%s: names from the log '
                  '(notes %s)' % (os.path.basename(gz),
                                  doc.get('callsite_notes')))
            shares = [g for g in doc['regions'] if g['api'] == 'openmp' and
                      g['name'].startswith('omp parallel @ omp_app.c:')]
            check(sorted(g.get('omp_thread', -1) for g in shares) ==
                  [0, 1, 2, 3], '%s: 4 shares' % os.path.basename(gz))
            judge_shares(shares, least)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    done()

if __name__ == '__main__':
    sys.exit(main())
