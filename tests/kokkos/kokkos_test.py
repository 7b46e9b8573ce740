#!/usr/bin/env python3
"""kokkos_test.py - Kokkos apps recorded through the Kokkos Tools interface.

  kokkos_test.py app CXX SRC        Debian's Kokkos, tool preloaded too
  kokkos_test.py dlopen CXX SRC     ... loaded by Kokkos alone
  kokkos_test.py sbt-run CXX SRC SBT_RUN
                                    sbt-run sets the variable, and says so
                                    when another tool was named there
  kokkos_test.py threads PROG       the callbacks from four threads

The app (kokkos_app.cpp) is built here against Debian's Kokkos (Serial
backend: Debian's build has no other); counts and nesting are checked with
sbt-analyze (JSON per thread, --dump).  Exit 0 pass, 1 fail, 77 skip
(no Kokkos headers).
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'interpose'))
sys.path.insert(0, os.path.join(HERE, '..', 'common'))
from interpose_test import run_app, expect, fail          # noqa: E402
from sbttest import check, done, dump_samples, uncontained  # noqa: E402

KOKKOS_INC = '/usr/include/trilinos'
STEPS = 50


def build(cxx, src, tmp):
    if not os.path.exists(os.path.join(KOKKOS_INC, 'Kokkos_Core.hpp')):
        print('SKIP: libtrilinos-kokkos-dev not installed', file=sys.stderr)
        sys.exit(77)
    cmd = cxx.split() + ['-O1', '-g', '-Wall', '-Wextra', '-isystem',
                         KOKKOS_INC, src, '-o', 'kokkos_app',
                         '-ltrilinos_kokkoscore', '-ldl']
    p = subprocess.run(cmd, cwd=tmp, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0 or p.stdout.strip():
        fail('building the Kokkos app:\n' + p.stdout)
    return os.path.join(tmp, 'kokkos_app')


def want_app():
    k = lambda n: (n, 'kokkos')                              # noqa: E731
    return {k('Kokkos::View::initialization [a]'): [1],
            k('Kokkos::View::initialization [b]'): [1],
            k('step'): [STEPS], k('section'): [STEPS], k('fill'): [STEPS],
            k('sum'): [STEPS], k('scan'): [STEPS], k('inner'): [STEPS],
            k('fill2'): [STEPS], k('sync'): [STEPS],
            k('deep_copy b=a'): [STEPS]}


def check_app(log, tmp):
    # a pop without push, an end of an id never handed out
    expect(log, want_app(), {'stop_without_start': 2})
    print('checked: kernels, regions, fences, deep copies, sections: %d each'
          % STEPS)
    rows = dump_samples(log, tmp)
    for child, parent in [('fill', 'step'), ('sum', 'step'),
                          ('scan', 'step'), ('inner', 'step'),
                          ('sync', 'step'), ('deep_copy b=a', 'step'),
                          ('fill2', 'inner'), ('fill', 'section'),
                          ('section', 'step')]:
        n = uncontained(rows, child, parent)
        check(n == 0, '%s inside %s (%d outside)' % (child, parent, n))
    n = uncontained(rows, 'step', 'inner')
    check(n == STEPS, 'step not inside inner (%d of %d)' % (n, STEPS))


def case_app(tmp, cxx, src, how='preload'):
    app = build(cxx, src, tmp)
    log, out = run_app([app, str(STEPS)], tmp,
                       {'KOKKOS_PROFILE_LIBRARY': os.environ['SBT_LIB']},
                       preload=how == 'preload')
    check('total ' in out, 'the app ran to its end')
    check_app(log, tmp)


def case_sbt_run(tmp, cxx, src, sbt_run):
    app = build(cxx, src, tmp)
    env = dict(os.environ)
    env.pop('KOKKOS_PROFILE_LIBRARY', None)
    env.pop('SBT_QUIET', None)
    env['KOKKOS_TOOLS_LIBS'] = '/opt/other/libkp_kernel_timer.so'
    log = os.path.join(tmp, 'run.log')
    p = subprocess.run([sbt_run, '-o', log, '--', app, str(STEPS)],
                       cwd=tmp, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=120)
    sys.stderr.write(p.stderr)
    check(p.returncode == 0, 'sbt-run exit status %d' % p.returncode)
    check('KOKKOS_TOOLS_LIBS was /opt/other/libkp_kernel_timer.so'
          in p.stderr, 'sbt-run says it replaced the other tool')
    check('KOKKOS_PROFILE_LIBRARY was' not in p.stderr,
          'and says nothing of the variable that was unset')
    check_app(log, tmp)


def case_threads(tmp, prog):
    log, _ = run_app([prog], tmp,
                     {'KOKKOS_PROFILE_LIBRARY': os.environ['SBT_LIB']})
    want = {('work', 'kokkos'): [1000] * 4, ('sync', 'kokkos'): [1000] * 4}
    for t in range(4):
        want[('k%d' % t, 'kokkos')] = [1000]
    expect(log, want, {'stop_without_start': 1})
    print('checked: 4 threads x 1000: per-thread kernel ids and names exact')
    rows = dump_samples(log, tmp)
    for t in range(4):
        n = uncontained(rows, 'k%d' % t, 'work')
        check(n == 0, 'k%d inside work (%d outside)' % (t, n))
    n = sum(uncontained(rows, 'sync', 'k%d' % t) for t in range(4))
    check(n == 3 * 4000, 'each sync inside its own thread\'s kernel only')


def main():
    os.environ.pop('LD_PRELOAD', None)
    case, args = sys.argv[1], [os.path.abspath(a) if os.path.exists(a)
                               else a for a in sys.argv[2:]]
    tmp = tempfile.mkdtemp(prefix='sbt-kokkos-')
    try:
        if case in ('app', 'dlopen'):
            case_app(tmp, args[0], args[1],
                     'preload' if case == 'app' else 'dlopen')
        elif case == 'sbt-run':
            case_sbt_run(tmp, *args)
        elif case == 'threads':
            case_threads(tmp, *args)
        else:
            print(__doc__, file=sys.stderr)
            sys.exit(2)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    done()


if __name__ == '__main__':
    main()
