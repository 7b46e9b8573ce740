#!/usr/bin/python3
"""callsites_test.py - call sites as sbt-analyze reports them, end to end.

    callsites_test.py CASE SRCDIR CC CXX FC

Compiles a small app from SRCDIR at test time, runs it under the preload
(SBT_LIB), analyzes the log with sbt-analyze --format json (SBT_ANALYZE)
and checks each region's "callsites": function, file, line (the line of
the source marked "SITE: <region>"), module, exact counts and the stack.

Cases: pie, dlopen, stripped, rebuilt, lambda, fortran, three, twins, omp,
many-names (20,000 regions at one site), many-sites (5,000 sites),
omp_nog (OpenMP regions of a program without a line table: named by
function and offset, every text row told apart at 100 columns).
Exit 0 ok, 1 failed, 77 skipped (no compiler / library for the case).
"""
import json, os, re, shutil, subprocess, sys, tempfile

SKIP = 77


def fail(msg):
    print('FAIL: ' + msg, file=sys.stderr)
    sys.exit(1)


def site_line(path, tag):
    """line number of the comment 'SITE: tag' in path"""
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if re.search(r'SITE: %s\b' % re.escape(tag), line):
                return n
    fail('no SITE: %s in %s' % (tag, path))


def sh(cmd, cwd, env=None, ok=True):
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if ok and p.returncode != 0:
        fail('%s exited %d:\n%s%s' % (' '.join(cmd), p.returncode, p.stdout,
                                       p.stderr))
    return p


def run(cmd, cwd, log='region.log'):
    env = dict(os.environ, LD_PRELOAD=os.environ['SBT_LIB'],
               SBT_OUTPUT=log, SBT_QUIET='1')
    # a log is never replaced: this run's must not meet an earlier one's
    if os.path.exists(os.path.join(cwd, log)):
        os.unlink(os.path.join(cwd, log))
    sh(cmd, cwd, env)
    return os.path.join(cwd, log)


def analyze(log, *extra):
    p = sh([os.environ['SBT_ANALYZE'], '--format', 'json', '--filter',
            'none', *extra, log], os.path.dirname(log))
    return json.loads(p.stdout)


def region(doc, name):
    rows = [r for r in doc['regions'] if r['name'] == name]
    if len(rows) != 1:
        fail('region %s: %d rows in %s' % (name, len(rows),
                                           [r['name'] for r in doc['regions']]))
    return rows[0]


def expect_site(doc, name, function, src, count, module_end):
    r = region(doc, name)
    cs = r['callsites']
    if len(cs) != 1:
        fail('%s: %d call sites: %s' % (name, len(cs), json.dumps(cs)))
    c = cs[0]
    line = site_line(src, name)
    want = (function, os.path.basename(src), line, count)
    got = (c['function'], os.path.basename(c['file']), c['line'], c['count'])
    if got != want:
        fail('%s: call site %r, want %r' % (name, got, want))
    if not c['module'].endswith(module_end):
        fail('%s: module %s, want .../%s' % (name, c['module'], module_end))
    if c['stack'][0]['function'] != function or c['stack'][0]['line'] != line:
        fail('%s: stack does not start at the site: %s' % (name, c['stack']))
    if r['count'] != count:
        fail('%s: count %d, want %d' % (name, r['count'], count))
    return c


def case_pie(d, src, cc):
    sh(cc + ['-g', '-O1', '-fPIE', '-pie', '-DSBT_MARKER', '-I', MARKERS,
             os.path.join(src, 'pie.c'), '-o', 'pie'], d)
    out = sh(['readelf', '-h', 'pie'], d).stdout
    if 'DYN' not in out:
        fail('pie is not position independent:\n' + out)
    doc = analyze(run(['./pie'], d))
    c = expect_site(doc, 'pie_region', 'work', os.path.join(src, 'pie.c'),
                    500, '/pie')
    if not any(f['function'] == 'main' for f in c['stack']):
        fail('pie: main not in the calling context: %s' % c['stack'])


def case_dlopen(d, src, cc):
    sh(cc + ['-g', '-O1', '-fPIC', '-shared', '-DSBT_MARKER', '-I', MARKERS,
             os.path.join(src, 'dl_lib.c'), '-o', 'libdl_lib.so'], d)
    sh(cc + ['-g', '-O1', '-DSBT_MARKER', '-I', MARKERS,
             os.path.join(src, 'dl_main.c'), '-o', 'dl_main', '-ldl'], d)
    doc = analyze(run(['./dl_main', os.path.join(d, 'libdl_lib.so')], d))
    c = expect_site(doc, 'in_lib', 'dl_work', os.path.join(src, 'dl_lib.c'),
                    300, '/libdl_lib.so')
    if not any(f['function'] == 'main' for f in c['stack']):
        fail('dlopen: main not in the calling context: %s' % c['stack'])
    expect_site(doc, 'after_close', 'main', os.path.join(src, 'dl_main.c'),
                200, '/dl_main')


def case_stripped(d, src, cc):
    sh(cc + ['-g', '-O1', '-DSBT_MARKER', '-I', MARKERS,
             os.path.join(src, 'pie.c'), '-o', 'pie'], d)
    sh(['strip', 'pie'], d)
    doc = analyze(run(['./pie'], d))
    c = region(doc, 'pie_region')['callsites']
    if len(c) != 1 or c[0]['count'] != 500:
        fail('stripped: %s' % json.dumps(c))
    c = c[0]
    # module + offset, and the offset is inside the program's text
    if c['function'] != '' or c['file'] != '' or c['line'] != 0:
        fail('stripped binary named a function: %s' % json.dumps(c))
    if not c['module'].endswith('/pie') or not c['offset'].startswith('0x'):
        fail('stripped: module+offset missing: %s' % json.dumps(c))
    if c['stack'][0]['function'] != 'pie' + '+' + c['offset']:
        fail('stripped: frame 0 is %s' % c['stack'][0])
    notes = ' '.join(doc['callsite_notes'])
    if 'no debug info' not in notes:
        fail('stripped: no note said so: %r' % notes)


def case_rebuilt(d, src, cc):
    base = [*cc, '-g', '-O1', '-DSBT_MARKER', '-I', MARKERS,
            os.path.join(src, 'pie.c'), '-o', 'pie']
    sh(base, d)
    log = run(['./pie'], d)
    ran = os.stat(os.path.join(d, 'pie'))
    doc = analyze(log)
    if doc['callsite_notes']:
        fail('fresh binary: notes %r' % doc['callsite_notes'])
    # rebuilt with more code: the loaded size changes
    sh(base[:-3] + [os.path.join(src, 'pie.c'), os.path.join(src,
                    'dl_lib.c'), '-o', 'pie'], d)
    doc = analyze(log)
    notes = ' '.join(doc['callsite_notes'])
    if 'rebuilt after the run' not in notes and 'modified after' not in notes:
        fail('rebuilt binary not detected: %r' % notes)
    p = sh([os.environ['SBT_ANALYZE'], log], d)
    if 'rebuilt after the run' not in p.stdout:
        fail('text report does not say the binary was rebuilt:\n' + p.stdout)
    # rebuilt to the same size and given back the run's mtime: only the
    # build-id the log recorded can tell
    sh(base[:1] + ['-DSBT_SAME_SIZE_CHANGE=1'] + base[1:], d)
    if os.stat(os.path.join(d, 'pie')).st_size != ran.st_size:
        fail('the same-size rebuild changed the size')
    os.utime(os.path.join(d, 'pie'), ns=(ran.st_atime_ns, ran.st_mtime_ns))
    doc = analyze(log)
    notes = ' '.join(doc['callsite_notes'])
    if 'build-id' not in notes:
        fail('same-size rebuild not detected by build-id: %r' % notes)
    # and the very binary that ran: no note, whatever its mtime says
    sh(base, d)
    os.utime(os.path.join(d, 'pie'))
    log = run(['./pie'], d)
    os.utime(os.path.join(d, 'pie'))     # touched after the run
    doc = analyze(log)
    if doc['callsite_notes']:
        fail('same binary, touched: notes %r' % doc['callsite_notes'])


def case_lambda(d, src, cxx):
    if not cxx or not shutil.which(cxx[0]):
        print('SKIP: no C++ compiler', file=sys.stderr)
        sys.exit(SKIP)
    sh(cxx + ['-g', '-O2', '-pthread', '-DSBT_MARKER', '-I', MARKERS,
              os.path.join(src, 'lambda.cc'), '-o', 'lambda'], d)
    doc = analyze(run(['./lambda'], d))
    c = expect_site(doc, 'lambda_region', 'main::<lambda>::operator()',
                    os.path.join(src, 'lambda.cc'), 400, '/lambda')
    names = [f['function'] for f in c['stack']]
    if not any('_M_run' in n and 'std::thread' in n for n in names):
        fail('lambda: std::thread::..._M_run not in the context: %s' % names)
    if any(n.startswith('_Z') for n in names):
        fail('lambda: a name left mangled: %s' % names)
    if not c['stack'][0]['inlined']:
        # at -O2 the lambda is inlined into _M_run; the frame says so
        fail('lambda: the lambda frame is not marked inlined: %s' % c)


def case_fortran(d, src, fc):
    if not fc or not shutil.which(fc[0]) or \
            not os.path.exists('/usr/include/likwid.mod'):
        print('SKIP: no gfortran or LIKWID Fortran module', file=sys.stderr)
        sys.exit(SKIP)
    sh(fc + ['-g', '-O1', '-I/usr/include', os.path.join(src, 'fsite.f90'),
             '-o', 'fsite', '-llikwid'], d)
    doc = analyze(run(['./fsite'], d))
    r = region(doc, 'f_region')
    if r['api'] != 'likwid':
        fail('fortran: api %s' % r['api'])
    # the application's call site, not the shim's (libsbtmark/liblikwid)
    expect_site(doc, 'f_region', 'fsite', os.path.join(src, 'fsite.f90'),
                250, '/fsite')


def case_three(d, src, cc):
    sh(cc + ['-g', '-O1', '-DSBT_MARKER', '-I', MARKERS,
             os.path.join(src, 'three.c'), '-o', 'three'], d)
    log = run(['./three'], d)
    doc = analyze(log)
    cs = region(doc, 'shared')['callsites']
    path = os.path.join(src, 'three.c')
    got = [(c['function'], c['line'], c['count']) for c in cs]
    want = [('three', site_line(path, 'shared/three'), 300),
            ('two', site_line(path, 'shared/two'), 200),
            ('one', site_line(path, 'shared/one'), 100)]
    if got != want:
        fail('three call sites: %r, want %r' % (got, want))
    doc = analyze(log, '--by', 'site')
    rows = sorted((r['count'], r['site']) for r in doc['regions'])
    if [c for c, _ in rows] != [100, 200, 300]:
        fail('--by site rows: %r' % rows)


def case_twins(d, src, cc):
    # two sites of one region at one line: --by site keys them by line
    # and offset, and the text table tells the rows apart in 100 columns
    sh(cc + ['-g', '-O1', '-DSBT_MARKER', '-I', MARKERS,
             os.path.join(src, 'twins.c'), '-o', 'twins'], d)
    log = run(['./twins'], d)
    line = site_line(os.path.join(src, 'twins.c'), 'twin')
    doc = analyze(log, '--by', 'site')
    rows = sorted((r['count'], r['site']) for r in doc['regions'])
    key = re.compile(r'^twins\.c:%d \+0x[0-9a-f]+$' % line)
    if [c for c, _ in rows] != [100, 200] or rows[0][1] == rows[1][1] or \
            not all(key.match(k) for _, k in rows):
        fail('twins: --by site rows %r, want 100 and 200 at twins.c:%d '
             'with their offsets' % (rows, line))
    p = sh([os.environ['SBT_ANALYZE'], '-q', '--width', '100', '--by',
            'site', '--filter', 'none', log], d)
    lines = p.stdout.splitlines()
    i = next(k for k, l in enumerate(lines) if l.startswith('region '))
    text = [l[:lines[i].index('total') - 5] for l in lines[i + 1:i + 3]]
    if len(set(text)) != 2 or any(len(l) > 100 for l in lines):
        fail('twins: text rows not told apart:\n' + p.stdout)


def case_omp(d, src, cc):
    # markers inlined from sbtmark.h inside an OpenMP loop (GCC outlines
    # it as main._omp_fn.0) and inside a static inline helper: the user's
    # line, in the function written, at -O1 and -O2
    path = os.path.join(src, 'omp_inline.c')
    for opt in ('-O1', '-O2'):
        p = sh(cc + ['-g', opt, '-fopenmp', '-DSBT_MARKER', '-I', MARKERS,
                     path, '-o', 'omp_inline'], d, ok=False)
        if p.returncode != 0:
            print('SKIP: no OpenMP (%s)' % p.stderr.strip()[:200],
                  file=sys.stderr)
            sys.exit(SKIP)
        os.environ['OMP_NUM_THREADS'] = '2'
        doc = analyze(run(['./omp_inline'], d))
        for j in ('1', '4'):
            again = analyze(os.path.join(d, 'region.log'), '-j', j)
            if again['regions'] != doc['regions']:
                fail('omp %s: -j %s reports other call sites' % (opt, j))
        expect_site(doc, 'in_omp', 'main [omp]', path, 400, '/omp_inline')
        c = expect_site(doc, 'in_helper', 'helper', path, 300,
                        '/omp_inline')
        if not c['stack'][0]['inlined'] or c['stack'][1]['function'] != \
                'main':
            fail('omp %s: helper not inlined into main: %s' % (opt,
                                                              c['stack']))


def case_omp_nog(d, src, cc):
    path = os.path.join(src, 'omp_pragmas.c')
    p = sh(cc + ['-O2', '-fopenmp', path, '-o', 'omp_pragmas'], d, ok=False)
    if p.returncode != 0:
        print('SKIP: no OpenMP (%s)' % p.stderr.strip()[:200],
              file=sys.stderr)
        sys.exit(SKIP)
    os.environ['OMP_NUM_THREADS'] = '2'
    log = run(['./omp_pragmas'], d)
    doc = analyze(log)
    names = [r['name'] for r in doc['regions']
             if r['name'].startswith('omp parallel @ ')]
    # libgomp's constructs are named by their outlined body ("main
    # [omp]"), the others by the call in the function
    want = re.compile(r'^omp parallel @ (main|triad[.\w]*)( \[omp\])? '
                      r'\(omp_pragmas\+0x[0-9a-f]+\)$')
    if len(names) != 4 or not all(want.match(n) for n in names):
        fail('omp_nog: want 4 regions by function and offset: %r' % names)
    if sum(1 for n in names if ' @ main ' in n) != 3:
        fail('omp_nog: three of them in main: %r' % names)
    # the text table tells every row apart in 100 columns
    p = sh([os.environ['SBT_ANALYZE'], '-q', '--width', '100', log], d)
    lines = p.stdout.splitlines()
    i = next(k for k, l in enumerate(lines) if l.startswith('region '))
    rows = []
    for l in lines[i + 1:]:
        if not l.strip():
            break
        rows.append(l[:lines[i].index('total') - 5].rstrip())  # %9s
    if len(rows) != len(set(rows)) or any(len(l) > 100 for l in lines):
        fail('omp_nog: rows not told apart in 100 columns:\n' + p.stdout)


def case_many_names(d, src, cc):
    path = os.path.join(src, 'many_names.c')
    sh(cc + ['-g', '-O1', '-DSBT_MARKER', '-I', MARKERS, path, '-o',
             'many'], d)
    log = run(['./many'], d)
    doc = analyze(log, '-j', '2')
    if len(doc['regions']) != 20000:
        fail('many names: %d regions' % len(doc['regions']))
    line = site_line(path, 'many_names')
    bad = [r['name'] for r in doc['regions']
           if len(r['callsites']) != 1 or
           (r['callsites'][0]['function'], r['callsites'][0]['line'],
            r['callsites'][0]['count']) != ('main', line, 1)]
    if bad:
        fail('many names: %d regions not at main:%d, e.g. %s: %s' % (
            len(bad), line, bad[0], region(doc, bad[0])['callsites']))
    if analyze(log, '-j', '1')['regions'] != doc['regions']:
        fail('many names: -j 1 and -j 2 differ')


def case_many_sites(d, src, cc):
    # 5,000 functions, each its own region at its own line; the marker
    # functions called, not the inline macros (5,000 of those take
    # minutes to compile)
    n = 5000
    path = os.path.join(d, 'sites.c')
    with open(path, 'w') as f:
        f.write('#include <sbtmark.h>\nstatic volatile int sink;\n')
        for i in range(n):
            f.write('__attribute__((noinline)) void f%d(void)\n{\n'
                    '\tsbt_marker_start("s%d");  /* SITE: s%d */\n'
                    '\tsink++;\n\tsbt_marker_stop("s%d");\n}\n'
                    % (i, i, i, i))
        f.write('int main(void)\n{\n')
        for i in range(n):
            f.write('\tf%d();\n' % i)
        f.write('\treturn 0;\n}\n')
    sh(cc + ['-g', '-O1', '-DSBT_MARKER', '-I', MARKERS, path, '-o',
             'sites'], d)
    log = run(['./sites'], d)
    doc = analyze(log, '-j', '2')
    lines = {}
    with open(path) as f:
        for k, text in enumerate(f, 1):
            m = re.search(r'SITE: (s\d+)', text)
            if m:
                lines[m.group(1)] = k
    got = {r['name']: (r['callsites'][0]['function'],
                       r['callsites'][0]['line'], r['callsites'][0]['count'])
           for r in doc['regions'] if len(r['callsites']) == 1}
    bad = [s for s in lines if got.get(s) != ('f' + s[1:], lines[s], 1)]
    if len(doc['regions']) != n or bad:
        fail('many sites: %d regions, %d wrong, e.g. %s: %s' % (
            len(doc['regions']), len(bad), bad[:1],
            got.get(bad[0]) if bad else None))
    if analyze(log, '-j', '1')['regions'] != doc['regions']:
        fail('many sites: -j 1 and -j 2 differ')


CASES = {'pie': 'cc', 'dlopen': 'cc', 'stripped': 'cc', 'rebuilt': 'cc',
         'lambda': 'cxx', 'fortran': 'fc', 'three': 'cc', 'twins': 'cc',
         'omp': 'cc',
         'many_names': 'cc', 'many_sites': 'cc', 'omp_nog': 'cc'}


def main():
    global MARKERS
    case, src, cc, cxx, fc = sys.argv[1:6]
    MARKERS = os.path.join(src, '..', '..', '..', 'markers')
    comp = {'cc': cc.split(), 'cxx': cxx.split(), 'fc': fc.split()}
    d = tempfile.mkdtemp(prefix='sbt-cs-')
    try:
        globals()['case_' + case](d, src, comp[CASES[case]])
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print('%s: ok' % case)
    return 0


if __name__ == '__main__':
    sys.exit(main())
