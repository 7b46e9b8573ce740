#!/usr/bin/python3
"""cli_test.py - a first run that explains itself: each friction a new
user met, with the fixed behaviour's exit status and message.

    cli_test.py CASE SBT_RUN SBT_ANALYZE SBT_CALIBRATE SBT_EVENTS DEMO
                DEMO_PLAIN VERSION

nodir      sbt-run -o /nonexistent/r.log: exit 2 before the program runs,
           naming the folder and the reason (also: a file as the folder)
nomarkers  a program built without -DSBT_MARKER: no log, and a hint that
           names -DSBT_MARKER; the same program with markers: no hint
rerun      a second run never replaces the first run's region.log: it
           writes region.<pid>.log and both the recorder and sbt-run say so
csvname    CSV samples in a file named .txt are read as CSV; a text file
           that is neither log nor CSV is refused, exit 2
version    --version on every tool: exit 0, "<tool> VERSION"
"""
import glob, os, struct, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'common'))
from sbttest import check, done

CASE, VERSION = sys.argv[1], sys.argv[8]
RUN, ANALYZE, CALIBRATE, EVENTS, DEMO, PLAIN = map(os.path.abspath,
                                                   sys.argv[2:8])


def sh(args, **kw):
    env = dict(os.environ)
    env.pop('SBT_QUIET', None)          # the messages are the point
    env.update(kw.pop('env', {}))
    return subprocess.run(args, capture_output=True, text=True, env=env,
                          **kw)


def case_nodir(d):
    ran = os.path.join(d, 'ran')
    p = sh([RUN, '-o', '/nonexistent/r.log', '--', 'sh', '-c',
            'touch ' + ran])
    check(p.returncode == 2, 'missing folder: exit %d (want 2)'
          % p.returncode)
    check('/nonexistent' in p.stderr and 'No such file or directory' in
          p.stderr, 'names the folder and why: %r' % p.stderr.strip())
    check(not os.path.exists(ran), 'the program did not run for nothing')
    f = os.path.join(d, 'afile')
    open(f, 'w').close()
    p = sh([RUN, '-o', f + '/r.log', '--', 'true'])
    check(p.returncode == 2 and 'Not a directory' in p.stderr and
          f in p.stderr, 'a file as the folder: exit %d %r'
          % (p.returncode, p.stderr.strip()))
    # the recorder itself, without sbt-run, names the folder too
    p = sh([DEMO], env={'LD_PRELOAD': os.environ['SBT_LIB'],
                        'SBT_OUTPUT': '/nonexistent/r.log'})
    check('cannot create the log /nonexistent/r.log in /nonexistent: No '
          'such file or directory' in p.stderr,
          'recorder: %r' % p.stderr.strip()[:200])


def case_nomarkers(d):
    p = sh([RUN, '--', PLAIN], cwd=d)
    check(p.returncode == 0 and not glob.glob(os.path.join(d, '*.log')),
          'compiled out: exit %d, no log' % p.returncode)
    check('-DSBT_MARKER' in p.stderr and 'references no sbtmark marker' in
          p.stderr, 'hint: %r' % p.stderr.strip())
    p = sh([RUN, '--', DEMO], cwd=d)
    check(p.returncode == 0 and '-DSBT_MARKER' not in p.stderr and
          'log written: ./region.log' in p.stderr,
          'compiled in: no hint: %r' % p.stderr.strip())


def header_pid(path):
    with open(path, 'rb') as f:
        h = f.read(4096)
    # magic[8], 6 uint32, tick_hz, quantum+reserved, tick_source[16],
    # cycles_note[64], te_* 4 x u64, te_samples, kernel_entry: then pid
    off = 8 + 6 * 4 + 8 + 8 + 16 + 64 + 4 * 8 + 4 + 4
    return struct.unpack_from('<i', h, off)[0]


def case_rerun(d):
    p1 = sh([RUN, '--', DEMO], cwd=d)
    log = os.path.join(d, 'region.log')
    first = header_pid(log)
    p2 = sh([RUN, '--', DEMO], cwd=d)
    others = [f for f in glob.glob(os.path.join(d, 'region.*.log'))]
    check(p1.returncode == 0 and p2.returncode == 0, 'both runs exit 0')
    check(header_pid(log) == first, 'region.log still the first run\'s '
          '(pid %d)' % first)
    check(len(others) == 1, 'the rerun wrote a sibling: %r' % others)
    if others:
        name = os.path.basename(others[0])
        pid = header_pid(others[0])
        check(name == 'region.%d.log' % pid, '%s: numbered by its pid %d'
              % (name, pid))
        check('region.log exists' in p2.stderr and name in p2.stderr and
              'log written: ./' + name in p2.stderr,
              'both say which: %r' % p2.stderr.strip())


def case_csvname(d):
    txt = os.path.join(d, 'samples.txt')
    with open(txt, 'w') as f:
        f.write('region,ns,thread\n')
        for i in range(200):
            f.write('solve,%d,%d\n' % (1000 + i % 7, i % 2))
    p = sh([ANALYZE, '-q', txt])
    check(p.returncode == 0 and 'solve' in p.stdout and 'CSV samples' in
          p.stdout, '.txt read as CSV: exit %d %r' % (p.returncode,
                                                       p.stderr.strip()))
    other = os.path.join(d, 'notes.txt')
    with open(other, 'w') as f:
        f.write('just some notes\n')
    p = sh([ANALYZE, '-q', other])
    check(p.returncode == 2 and 'an sbtmark log' in p.stderr,
          'neither log nor CSV: exit %d %r' % (p.returncode,
                                                p.stderr.strip()))


def case_version(d):
    for tool in (RUN, ANALYZE, CALIBRATE, EVENTS):
        p = sh([tool, '--version'])
        name = os.path.basename(tool)
        check(p.returncode == 0 and p.stdout.startswith('%s %s' % (name,
                                                                   VERSION)),
              '%s --version: exit %d %r' % (name, p.returncode,
                                            p.stdout.strip()))


with tempfile.TemporaryDirectory(prefix='sbt-cli-') as d:
    globals()['case_' + CASE](d)
done()
