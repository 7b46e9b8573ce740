#!/usr/bin/python3
"""names_test.py - logs that carry their own names, end to end.

    names_test.py CASE SRCDIR CC CXX

Compiles small apps from SRCDIR (the call-site tests' sources) at test
time, runs each under the preload (SBT_LIB) without sbt-run, so that its
log carries no names, and analyzes it (SBT_ANALYZE) in every report form:
text, -v, --by site, JSON, CSV and the HTML page.

  identity   `--embed-names` on a copy of the log; then the apps' files
             renamed (their binaries gone): the copy's reports are byte
             for byte those of the log with its binaries, and the log
             without names reports otherwise (the binaries did matter).
             A second --embed-names has nothing to add.  The same of the
             logs' summaries (--summary keeps the names).  Apps: a PIE with
             debug info, the same stripped (names from the symbol table
             only), a library loaded with dlopen and closed, a C++ lambda
             inlined into std::thread's code (when there is a C++
             compiler), OpenMP regions (gcc, outlined bodies).
  damaged    the section cut short, or a byte of it flipped: the report
             is the one without names plus a note, never a crash; the
             file's exit status as before; --embed-names then adds a whole
             section after the cut one, and the identity holds again.

Exit 0 ok, 1 failed, 77 skipped.
"""
import os, re, shutil, struct, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'common'))
from sbttest import SANITIZED  # noqa: E402

SKIP = 77
FORMS = {'text': [], 'verbose': ['-v'], 'site': ['--by', 'site'],
         'json': ['--format', 'json'], 'csv': ['--format', 'csv'],
         'html': None}
if SANITIZED:
    # three of the six forms (text, JSON, HTML), the others judged in
    # the normal build: a sanitized analyzer's run is ~0.2 s where a page
    # fault costs 10 us or more (its shadow, its fresh blocks), and the six forms
    # were 180 runs
    FORMS = {k: FORMS[k] for k in ('text', 'json', 'html')}
failures = 0


def check(ok, what):
    global failures
    print('%s %s' % ('ok  ' if ok else 'FAIL', what))
    if not ok:
        failures += 1


def sh(cmd, cwd, env=None, ok=True):
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True)
    if ok and p.returncode != 0:
        print('FAIL %s exited %d:\n%s%s' % (' '.join(cmd), p.returncode,
                                            p.stdout.decode(errors='replace'),
                                            p.stderr.decode(errors='replace')))
        sys.exit(1)
    return p


def record(cmd, d):
    env = dict(os.environ, LD_PRELOAD=os.environ['SBT_LIB'],
               SBT_OUTPUT='run.log', SBT_QUIET='1', OMP_NUM_THREADS='2')
    sh(cmd, d, env)
    return os.path.join(d, 'run.log')


def reports(log):
    """Every report form of `log`, analyzed from its own folder under its
    own name (so that two copies' reports can be compared): {form: (exit
    status, bytes)}."""
    d, name = os.path.split(log)
    out = {}
    for form, args in FORMS.items():
        if args is None:
            html = os.path.join(d, 'report.html')
            p = sh([os.environ['SBT_ANALYZE'], '-q', '--html', 'report.html',
                    name], d, ok=False)
            body = open(html, 'rb').read() if os.path.exists(html) else b''
            # the minute the page was written is its one line that
            # depends on when, not on what
            body = re.sub(rb'<br>written [0-9: -]+</p>', b'<br>written '
                          b'(when)</p>', body)
            out[form] = (p.returncode, body + p.stderr)
            continue
        p = sh([os.environ['SBT_ANALYZE'], '-q', *args, name], d, ok=False)
        out[form] = (p.returncode, p.stdout + p.stderr)
    for form, (rc, _) in out.items():
        check(rc >= 0, '%s: %s report without a crash (exit %d)'
              % (log, form, rc))
    return out


def embed(log):
    p = sh([os.environ['SBT_ANALYZE'], '--embed-names', log],
           os.path.dirname(log), ok=False)
    return p.returncode, p.stderr.decode(errors='replace')


def build(d, src, cc, cxx):
    """The apps: [(name, command to run, files that are its binaries)]."""
    markers = os.path.join(src, '..', '..', '..', 'markers')
    flags = ['-DSBT_MARKER', '-I', markers]
    sh(cc + ['-g', '-O1', '-fPIE', '-pie', *flags,
             os.path.join(src, 'pie.c'), '-o', 'pie'], d)
    shutil.copy(os.path.join(d, 'pie'), os.path.join(d, 'pie_stripped'))
    sh(['strip', 'pie_stripped'], d)
    sh(cc + ['-g', '-O1', '-fPIC', '-shared', *flags,
             os.path.join(src, 'dl_lib.c'), '-o', 'libdl_lib.so'], d)
    sh(cc + ['-g', '-O1', *flags, os.path.join(src, 'dl_main.c'),
             '-o', 'dl_main', '-ldl'], d)
    apps = [('pie', ['./pie'], ['pie']),
            ('stripped', ['./pie_stripped'], ['pie_stripped']),
            ('dlopen', ['./dl_main', os.path.join(d, 'libdl_lib.so')],
             ['dl_main', 'libdl_lib.so'])]
    if cxx and shutil.which(cxx[0]):
        sh(cxx + ['-g', '-O2', '-pthread', *flags,
                  os.path.join(src, 'lambda.cc'), '-o', 'lambda'], d)
        apps.append(('lambda', ['./lambda'], ['lambda']))
    else:
        print('note: no C++ compiler: the lambda app left out')
    p = sh(cc + ['-g', '-O2', '-fopenmp', *flags,
                 os.path.join(src, 'omp_inline.c'), '-o', 'omp_inline'], d,
           ok=False)
    if p.returncode == 0:
        apps.append(('omp', ['./omp_inline'], ['omp_inline']))
    else:
        print('note: no OpenMP: the OpenMP app left out')
    return apps


def hide(d, files, away):
    for f in files:
        os.rename(os.path.join(d, f), os.path.join(d, f + '.gone')) if away \
            else os.rename(os.path.join(d, f + '.gone'), os.path.join(d, f))


def copy_to(log, sub):
    d = os.path.join(os.path.dirname(log), sub)
    os.makedirs(d, exist_ok=True)
    shutil.copy(log, os.path.join(d, 'run.log'))
    return os.path.join(d, 'run.log')


def same(a, b, what):
    for form in FORMS:
        check(a[form] == b[form], '%s: %s report byte-identical' % (what,
                                                                    form))
        if a[form] != b[form]:
            x, y = a[form][1], b[form][1]
            i = next((k for k in range(min(len(x), len(y)))
                      if x[k] != y[k]), min(len(x), len(y)))
            print('     exit %d, %d; first difference at byte %d:\n'
                  '     %r\n     %r' % (a[form][0], b[form][0], i,
                                         x[max(0, i - 80):i + 80],
                                         y[max(0, i - 80):i + 80]))


def case_identity(d, apps):
    for name, cmd, files in apps:
        log = record(cmd, d)
        plain = copy_to(log, name + '-plain')
        emb = copy_to(log, name + '-names')
        os.unlink(log)
        want = reports(plain)
        rc, msg = embed(emb)
        check(rc == 0 and 'embedded' in msg, '%s: --embed-names: %s'
              % (name, msg.strip()))
        rc, msg = embed(emb)
        check(rc == 0 and 'nothing to add' in msg,
              '%s: again: %s' % (name, msg.strip()))
        same(want, reports(emb), name + ', names in the log, binaries here')
        sums = {}
        for log in (plain, emb):
            sh([os.environ['SBT_ANALYZE'], '-q', '--summary', 'run.sbts',
                'run.log'], os.path.dirname(log))
            sums[log] = os.path.join(os.path.dirname(log), 'run.sbts')
        want_sum = reports(sums[plain])
        hide(d, files, True)
        try:
            same(want, reports(emb), name + ', names in the log, binaries '
                 'gone')
            same(want_sum, reports(sums[emb]), name + ', its summary, '
                 'binaries gone')
            gone = reports(plain)
            check(gone['json'] != want['json'] and
                  b'cannot be read now' in gone['text'][1],
                  '%s: without names or binaries the report differs'
                  % name)
        finally:
            hide(d, files, False)


def names_chunk(log):
    """Offset and size of the last names chunk of `log`."""
    data = open(log, 'rb').read()
    off, found = 4096, None
    while off + 64 <= len(data):
        magic, typ, size, used, _, _, _, tag = struct.unpack_from(
            '<IIQQIiQQ', data, off)
        if magic != 0x43544253 or size < 4096:
            off += 4096
            continue
        if typ == 2 and tag == 0x53454d414e544253:
            found = (off, size)
        off += size
    return found


def case_damaged(d, apps):
    name, cmd, files = apps[0]
    log = record(cmd, d)
    plain = copy_to(log, 'plain')
    emb = copy_to(log, 'names')
    rc, msg = embed(emb)
    check(rc == 0, '--embed-names: %s' % msg.strip())
    want = reports(plain)
    off, size = names_chunk(emb)
    hide(d, files, True)
    try:
        gone = reports(plain)
        cut = None
        for how in ('cut', 'flipped', 'cut-header'):
            bad = copy_to(emb, how)
            cut = cut or bad
            with open(bad, 'r+b') as f:
                if how == 'cut':
                    f.truncate(off + 64 + 8 + 16 + 20)
                elif how == 'cut-header':
                    f.truncate(off + 40)
                else:
                    f.seek(off + 64 + 8 + 16 + 10)
                    b = f.read(1)
                    f.seek(off + 64 + 8 + 16 + 10)
                    f.write(bytes([b[0] ^ 0x40]))
            got = reports(bad)
            for form in FORMS:
                check(got[form][0] == gone[form][0], '%s section: %s exit '
                      'status %d, as without names' % (how, form,
                                                       got[form][0]))
            if how != 'cut-header':
                check(b'names section' in got['text'][1] and
                      b'left out' in got['text'][1],
                      '%s section: said in a note' % how)
            else:
                # not even its chunk's header: the log as it was
                same(gone, got, 'a names chunk cut in its header')
            check(b'cannot be read now' in got['text'][1],
                  '%s section: the binaries asked instead' % how)
        # a new section after the cut one: the identity again
        bad = cut
        hide(d, files, False)
        rc, msg = embed(bad)
        check(rc == 0 and 'embedded' in msg, 'after the cut section: %s'
              % msg.strip())
        hide(d, files, True)
        same(want, reports(bad), 'a whole section after a cut one')
    finally:
        hide(d, files, False)


def main():
    case, src, cc, cxx = sys.argv[1:5]
    d = tempfile.mkdtemp(prefix='sbt-names-')
    try:
        apps = build(d, src, cc.split(), cxx.split())
        globals()['case_' + case](d, apps)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print('%d failure(s)' % failures)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
