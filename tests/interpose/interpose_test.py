#!/usr/bin/env python3
"""interpose_test.py - run an instrumented app under the sbtmark preload
and check the log through sbt-analyze.

  interpose_test.py CASE [ARGS...]

Environment (set by tests/meson.build): SBT_LIB (libsbtmark.so),
SBT_ANALYZE (sbt-analyze).  Each case runs its app in a fresh temporary
directory with LD_PRELOAD=$SBT_LIB, SBT_OUTPUT=<tmp>/app.log (plus the
API's loader variable where it has one), then reads
`sbt-analyze --filter none --by thread --format json` and compares the
per-thread sample counts of every (region, api) and the misuse counters
with what the app must have produced.  Exit 0 pass, 1 fail, 77 skip.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

LIKWID_EXAMPLES = '/usr/share/likwid/examples'
SKIP = 77


def fail(msg):
    print('FAIL: ' + msg, file=sys.stderr)
    sys.exit(1)


def run_app(argv, tmp, extra_env=None, preload=True):
    """Run argv under the preload (or, with preload=False, relying on the
    app's loader to dlopen the library) in tmp; return (log, stdout)."""
    lib = os.environ['SBT_LIB']
    log = os.path.join(tmp, 'app.log')
    env = dict(os.environ)
    env.update({'SBT_OUTPUT': log})
    if preload:
        env['LD_PRELOAD'] = lib
    env.update(extra_env or {})
    p = subprocess.run(argv, cwd=tmp, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=120)
    sys.stderr.write(p.stderr)
    if p.returncode != 0:
        fail('%s exited with %d' % (argv[0], p.returncode))
    if not os.path.exists(log):
        fail('no log written at ' + log)
    return log, p.stdout


def analyze(log):
    """{(name, api): sorted per-thread counts}, counters."""
    p = subprocess.run([os.environ['SBT_ANALYZE'], '--filter', 'none',
                        '--by', 'thread', '--format', 'json',
                        '--no-symbols', log],
                       stdout=subprocess.PIPE, text=True, timeout=120)
    if p.returncode not in (0, 1):
        fail('sbt-analyze exited with %d' % p.returncode)
    doc = json.loads(p.stdout)
    regions = {}
    for r in doc['regions']:
        regions.setdefault((r['name'], r['api']), []).append(r['count'])
    for k in regions:
        regions[k].sort()
    return regions, doc['sources'][0]['counters']


def expect(log, regions, counters=None):
    got, cnt = analyze(log)
    # The examples are OpenMP apps: their parallel regions are recorded
    # too (tests/openmp checks those); here by kind, constructs merged.
    omp = {}
    for (name, api), counts in list(got.items()):
        if api == 'openmp':
            del got[(name, api)]
            omp.setdefault((name.split(' @ ')[0], api), []).extend(counts)
    for k in omp:
        omp[k].sort()
    got.update(omp)
    if got != regions:
        fail('regions: got %s, want %s' % (sorted(got.items()),
                                          sorted(regions.items())))
    want = {k: 0 for k in cnt if k != 'threads'}
    want.update(counters or {})
    for k, v in want.items():
        if cnt.get(k, 0) != v:
            fail('counter %s: got %s, want %s' % (k, cnt.get(k), v))


def compile_or_skip(cmd, tmp):
    p = subprocess.run(cmd, cwd=tmp, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        print(p.stdout, file=sys.stderr)
        print('SKIP: cannot build with liblikwid', file=sys.stderr)
        sys.exit(SKIP)


def likwid_c_example(tmp, cc, fast_sleep):
    """Debian's C example: 10 rounds of one region on 2 OpenMP threads."""
    src = os.path.join(LIKWID_EXAMPLES, 'C-markerAPI.c')
    if not os.path.exists(src):
        print('SKIP: likwid examples not installed', file=sys.stderr)
        return SKIP
    compile_or_skip(cc.split() + ['-DLIKWID_PERFMON', '-fopenmp', src,
                                  fast_sleep, '-o', 'c-example',
                                  '-llikwid'], tmp)
    log, _ = run_app(['./c-example'], tmp, {'OMP_NUM_THREADS': '2'})
    expect(log, {('example', 'likwid'): [10, 10],
                 ('omp parallel', 'openmp'): [1, 1, 10, 10],
                 ('omp barrier', 'openmp'): [1, 1, 10, 10]})
    return 0


def likwid_f_example(tmp, fc, fast_sleep):
    """Debian's Fortran example: one region per thread, and the app
    prints the count likwid_markerGetRegion returned."""
    src = os.path.join(LIKWID_EXAMPLES, 'F-markerAPI.F90')
    if not os.path.exists(src) or not os.path.exists(
            '/usr/include/likwid.mod'):
        print('SKIP: likwid Fortran example not installed', file=sys.stderr)
        return SKIP
    if not fc or not shutil.which(fc.split()[0]):
        print('SKIP: no Fortran compiler', file=sys.stderr)
        return SKIP
    compile_or_skip(fc.split() + ['-DLIKWID_PERFMON', '-fopenmp',
                                  '-I/usr/include', src, fast_sleep, '-o',
                                  'f-example', '-llikwid'], tmp)
    log, out = run_app(['./f-example'], tmp, {'OMP_NUM_THREADS': '2'})
    expect(log, {('example', 'likwid'): [1, 1],
                 ('omp parallel', 'openmp'): [1, 1, 1, 1],
                 ('omp barrier', 'openmp'): [1, 1, 1, 1]})
    if out.count('The region was called 1 times') != 2:
        fail('GetRegion count as printed by the app:\n' + out)
    return 0


def likwid_nest(tmp, prog):
    log, _ = run_app([prog], tmp)
    expect(log, {('outer', 'likwid'): [5], ('inner', 'likwid'): [15],
                 ('reset_me', 'likwid'): [2], ('twice', 'likwid'): [1],
                 ('f_region', 'likwid'): [4], ('f_var_a', 'likwid'): [2]},
           {'stop_without_start': 2, 'start_of_open_region': 1,
            'bad_name': 2, 'after_close': 1})
    return 0


def papi(tmp, prog):
    log, _ = run_app([prog], tmp)
    expect(log, {('compute', 'papi-hl'): [4], ('step', 'papi-hl'): [12],
                 ('io', 'papi-hl'): [4], ('f_region', 'papi-hl'): [3]},
           {'stop_without_start': 1})
    left = glob.glob(os.path.join(tmp, 'papi_hl_output*'))
    if left:
        fail('PAPI wrote its own output: %s' % left)
    return 0


def itt(tmp, prog, prefix, how='preload'):
    p = (lambda d, n: d + '/' + n) if prefix == '1' else (lambda d, n: n)
    log, _ = run_app([prog], tmp, {
        'INTEL_LIBITTNOTIFY64': os.environ['SBT_LIB'],
        'SBT_ITT_DOMAIN_PREFIX': prefix}, preload=how == 'preload')
    expect(log, {(p('dom', 'alpha'), 'itt'): [4],
                 (p('dom', 'beta'), 'itt'): [6],
                 (p('dom2', 'gamma'), 'itt'): [5]},
           {'stop_without_start': 1, 'bad_name': 1, 'crossed_nesting': 1})
    return 0


def nvtx(tmp, prog, prefix, how='preload'):
    p = (lambda n: 'net/' + n) if prefix == '1' else (lambda n: n)
    log, _ = run_app([prog], tmp, {
        'NVTX_INJECTION64_PATH': os.environ['SBT_LIB'],
        'SBT_NVTX_DOMAIN_PREFIX': prefix}, preload=how == 'preload')
    expect(log, {('solve', 'nvtx'): [3], ('kernel', 'nvtx'): [6],
                 ('ex', 'nvtx'): [2], (p('send'), 'nvtx'): [5],
                 (p('recv'), 'nvtx'): [2], ('phase', 'nvtx'): [3],
                 ('x', 'nvtx'): [1]},
           {'crossed_nesting': 2})
    return 0


def keyed(tmp, prog, prefix):
    log, _ = run_app([prog], tmp, {
        'INTEL_LIBITTNOTIFY64': os.environ['SBT_LIB'],
        'NVTX_INJECTION64_PATH': os.environ['SBT_LIB'],
        'SBT_ITT_DOMAIN_PREFIX': prefix})
    want = {('abc', 'likwid'): [3], ('abcdef', 'likwid'): [3],
            ('fb_a', 'likwid'): [3], ('fb_b', 'likwid'): [3],
            ('l_1', 'nvtx'): [3], ('l_2', 'nvtx'): [3],
            ('nv_1', 'nvtx'): [3], ('nv_2', 'nvtx'): [3],
            ('kk_a', 'kokkos'): [3], ('kk_b', 'kokkos'): [3]}
    if prefix == '1':
        want.update({('d1/t_1', 'itt'): [3], ('d1/t_2', 'itt'): [3],
                     ('d2/t_1', 'itt'): [3]})
    else:
        want.update({('t_1', 'itt'): [6], ('t_2', 'itt'): [3]})
    for k in range(32):                 # keyed.c's deep_names[0..31]
        want[('d%d%d' % (k // 8, k % 8), 'nvtx')] = [3]
    expect(log, want, {'too_deep': 3 * 8})
    return 0


def mixed(tmp, prog):
    log, _ = run_app([prog], tmp)
    expect(log, {('outer', 'sbtmark'): [5], ('inner', 'likwid'): [5],
                 ('same', 'sbtmark'): [3], ('same', 'likwid'): [3]})
    return 0


def itt_all(tmp, prog, layout):
    """Every entry point of ittnotify's api_list offered to the collector:
    each one taken and called, or declined as without a collector."""
    log, out = run_app([prog, os.environ['SBT_LIB'], layout], tmp,
                       preload=False)
    if not out.startswith('ok 156 '):
        fail('itt_all said %r' % out)
    expect(log, {('all_task', 'itt'): [10], ('itt.all/frame', 'itt'): [5],
                 ('itt_all_named_fn', 'itt'): [3]})
    return 0


# Runtimes that embed ITT, built here as a user would, run under sbt-run
# (which names libsbtmark.so as their ITT collector).
RUNTIME_APPS = {
    'libomp': ('itt_omp_app.c', ['clang', '-O1', '-fopenmp'], [],
               'omp done 4 x 20\n'),
    'tbb': ('itt_tbb_app.cpp', ['g++', '-O1'], ['-ltbb'], 'tbb done 499500\n'),
}


def itt_runtime(tmp, which, sbt_run, srcdir):
    src, cmd, libs, want = RUNTIME_APPS[which]
    if not shutil.which(cmd[0]):
        print('SKIP: no %s' % cmd[0], file=sys.stderr)
        return SKIP
    compile_or_skip(cmd + [os.path.join(srcdir, src), '-o', 'app'] + libs,
                    tmp)
    log = os.path.join(tmp, 'app.log')
    env = dict(os.environ)
    env['SBT_LIB'] = os.environ['SBT_LIB']
    p = subprocess.run([sbt_run, '-o', log, '--', './app'], cwd=tmp,
                       env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=120)
    sys.stderr.write(p.stderr)
    if p.returncode != 0 or p.stdout != want:
        fail('%s under sbt-run: exit %d, output %r' % (which, p.returncode,
                                                      p.stdout))
    if not os.path.exists(log):
        fail('no log written')
    return 0


def standin_calls(path):
    """Each thread's calls as a stand-in library logged them
    (standin_log.h), in order; the threads' sequences sorted."""
    per = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                t, call = line.rstrip('\n').split(' ', 1)
                per.setdefault(t, []).append(call)
    return sorted(per.values())


def same_calls(prog, tmp, env=None):
    """Run prog without and with the preload, each time logging what
    reaches the stand-in libraries: every call, in order, with the same
    arguments, and the same answers printed.  The preloaded run's log."""
    plain = os.path.join(tmp, 'plain.calls')
    p = subprocess.run([prog], cwd=tmp, env=dict(
        os.environ, STANDIN_LOG=plain, **(env or {})),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        timeout=60)
    if p.returncode != 0 or 'done' not in p.stdout:
        fail('without the preload: %s' % p.stderr)
    pre = os.path.join(tmp, 'pre.calls')
    log, out = run_app([prog], tmp, dict(env or {}, STANDIN_LOG=pre))
    want, got = standin_calls(plain), standin_calls(pre)
    n = sum(len(c) for c in want)
    if n < 20:
        fail('the stand-ins saw %d calls without the preload' % n)
    if got != want:
        fail('calls that reached the stand-ins under the preload differ:'
             '\n got %s\nwant %s' % (got, want))
    if out != p.stdout:
        fail('the app got other answers under the preload:\n%s\n'
             'without it:\n%s' % (out, p.stdout))
    print('ok   %d calls reached the stand-ins, in order, same arguments, '
          'same answers' % n)
    return log, out


def forward(tmp, prog):
    """LIKWID and PAPI-HL, C and Fortran: recorded, and passed on.  The
    LIKWID stand-in plays an active liblikwid (likwid-perfctr -m's
    variables set): its GetRegion answers stand."""
    log, _ = same_calls(prog, tmp, {
        'LIKWID_MODE': '1', 'LIKWID_EVENTS': 'CLOCK', 'LIKWID_THREADS': '0',
        'LIKWID_FILEPATH': os.path.join(tmp, 'likwid.out')})
    expect(log, {('lk', 'likwid'): [4], ('lk_inner', 'likwid'): [4],
                 ('lk_thread', 'likwid'): [3], ('f_lk', 'likwid'): [2],
                 ('pp', 'papi-hl'): [3], ('f_pp', 'papi-hl'): [2]},
           {'stop_without_start': 2})
    return 0


def likwid_omp(tmp, prog):
    """START and STOP in two parallel regions: no crossed_nesting."""
    log, _ = run_app([prog], tmp, {'OMP_NUM_THREADS': '2'})
    expect(log, {('x', 'likwid'): [320, 320],
                 ('omp parallel', 'openmp'): [1, 1, 320, 320, 320, 320],
                 ('omp barrier', 'openmp'): [1, 1, 320, 320, 320, 320]})
    return 0


def run_says(tmp, sbt_run):
    """Where a runtime loads one tool and ours replaces the user's,
    sbt-run says so before the run starts; nothing when none was named."""
    env = dict(os.environ, INTEL_LIBITTNOTIFY64='/opt/vtune/libitt.so',
               NVTX_INJECTION64_PATH='/opt/nsys/libinj.so',
               OMP_TOOL_LIBRARIES='/opt/tool/libompt.so')
    p = subprocess.run([sbt_run, '-o', os.path.join(tmp, 'r.log'), '--',
                        'sh', '-c', 'echo RUN >&2'], env=env, cwd=tmp,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=60)
    err = p.stderr
    for what in ('INTEL_LIBITTNOTIFY64 was /opt/vtune/libitt.so',
                 'NVTX_INJECTION64_PATH was /opt/nsys/libinj.so',
                 'OMP_TOOL_LIBRARIES is /opt/tool/libompt.so'):
        if what not in err or err.index(what) > err.index('RUN'):
            fail('sbt-run does not say %r before the run:\n%s'
                 % (what, err))
    for v in ('INTEL_LIBITTNOTIFY64', 'NVTX_INJECTION64_PATH',
              'OMP_TOOL_LIBRARIES'):
        env.pop(v)
    p = subprocess.run([sbt_run, '-o', os.path.join(tmp, 'q.log'), '--',
                        'true'], env=env, cwd=tmp, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=60)
    if ' was ' in p.stderr or 'OMP_TOOL' in p.stderr:
        fail('sbt-run warns of nothing named: ' + p.stderr)
    print('ok   sbt-run names the tools it replaces, before the run')
    return 0


def caliper(tmp, prog):
    """The stand-in library is linked: the preload records every call
    and passes it on (in order, same arguments, the library's answers);
    counts exact per thread, nesting kept, misuse counted."""
    sys.path.insert(0, os.path.join(os.path.dirname(
        os.path.abspath(__file__)), '..', 'common'))
    from sbttest import dump_samples, uncontained
    env = {'CALI_STANDIN_REPORT': '1'}
    log, out = same_calls(prog, tmp, env)
    if 'done' not in out or 'disagrees' in out:
        fail('app output: ' + out)
    c = lambda n: (n, 'caliper')                           # noqa: E731
    steps = [40, 40]
    expect(log, {c('run'): [1, 1], c('main'): [1, 1],
                 c('loop/steps'): [1, 1], c('iteration#steps'): steps,
                 c('compute'): steps, c('halo'): steps, c('byname'): steps,
                 c('kernel/k1'): steps, c('custom/x'): [3],
                 c('a'): [1], c('b'): [1]},
           {'stop_without_start': 3, 'crossed_nesting': 1, 'bad_name': 1})
    rows = dump_samples(log, tmp)
    for child, parent in [('main', 'run'), ('loop/steps', 'main'),
                          ('iteration#steps', 'loop/steps'),
                          ('compute', 'iteration#steps'),
                          ('halo', 'iteration#steps'),
                          ('byname', 'iteration#steps'),
                          ('kernel/k1', 'iteration#steps')]:
        n = uncontained(rows, child, parent)
        if n:
            fail('%d samples of %s outside %s' % (n, child, parent))
    if uncontained(rows, 'compute', 'halo') != 80:
        fail('compute inside halo?')
    return 0


CASES = {'caliper': caliper, 'forward': forward, 'likwid-omp': likwid_omp,
         'sbt-run-says': run_says, 'likwid-c-example': likwid_c_example,
         'likwid-f-example': likwid_f_example,
         'likwid-nest': likwid_nest, 'papi': papi, 'itt': itt,
         'nvtx': nvtx, 'mixed': mixed, 'itt-all': itt_all,
         'itt-runtime': itt_runtime, 'keyed': keyed}


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in CASES:
        print(__doc__, file=sys.stderr)
        return 2
    # Analyzing a log must not itself be recorded.
    os.environ.pop('LD_PRELOAD', None)
    # Apps run in a temporary directory: make file arguments absolute.
    args = [os.path.abspath(a) if os.path.exists(a) else a
            for a in sys.argv[2:]]
    tmp = tempfile.mkdtemp(prefix='sbt-interpose-')
    try:
        rc = CASES[sys.argv[1]](tmp, *args)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rc


if __name__ == '__main__':
    sys.exit(main())
