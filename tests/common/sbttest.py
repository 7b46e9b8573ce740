"""sbttest.py - what the Python end-to-end tests share.

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..',
                                    'common'))
    from sbttest import check, within, binomial_sd, done

check() prints one line per assertion and counts the failures; done()
exits 1 when any failed.  within() is the k-sigma test of a random count
(4 sigma: with ten such checks a run, 3 sigma fails by chance in about
3 % of runs, 4 in 0.06 %).

Running the recorder and the analyzer (SBT_LIB, SBT_ANALYZE from the
environment, as tests/meson.build sets them): record() runs an app
preloaded, analyze() / analyze_json() run sbt-analyze, log_version() reads
a log's format version; dump_samples() reads every sample of a log
(--dump) and uncontained() counts samples of one region outside another's.

A co-runner: `with busy(cpu):` keeps a core busy (that cpu, or any) while
the block runs, and kills it by its pid after; die_with_parent() makes a
child die with the test, even one killed by a timeout.
"""
import contextlib, json, math, os, signal, struct, subprocess, sys, time

# every variable the recorder reads, unset in record() unless given
SBT_VARS = ('SBT_SAMPLE', 'SBT_MAX_MB', 'SBT_LOG_MAX_MB', 'SBT_EVENTS',
            'SBT_OUTPUT')

# a sanitizer's build (meson's b_sanitize, through tests/meson.build):
# its runs of a real log are seconds, so some tests judge fewer of them
SANITIZED = os.environ.get('SBT_TEST_SANITIZE', 'none') not in ('', 'none')

failures = 0


def check(cond, what):
    global failures
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures += 1


def within(x, mean, sd, k=4):
    return abs(x - mean) <= k * sd


def binomial_sd(n, p):
    return math.sqrt(n * p * (1 - p))


def done():
    print('%d failure(s)' % failures)
    sys.exit(1 if failures else 0)


def record(tmp, name, app, args, quiet=True, cwd=None, **sbt):
    """Run app with the recorder preloaded, its log tmp/name.log (name as
    given when it has a '.'), in cwd; sbt: SBT_* settings by name without
    the prefix (sample='hot:16', max_mb='4'), None for unset.  Returns
    (log path, CompletedProcess)."""
    log = os.path.join(tmp, name if '.' in name else name + '.log')
    if os.path.exists(log):     # never replaced by the recorder: go first
        os.unlink(log)
    env = preloaded(log, **sbt)
    if not quiet:
        env.pop('SBT_QUIET', None)
    p = subprocess.run([app, *args], env=env, capture_output=True,
                       text=True, timeout=120, cwd=cwd)
    return log, p


def analyze(log, *opts, codes=(0, 1), cwd=None):
    """sbt-analyze's stdout on log; the test stops unless it exits with one
    of codes and prints something."""
    p = subprocess.run([os.environ['SBT_ANALYZE'], *opts, log],
                       capture_output=True, text=True, timeout=300, cwd=cwd)
    if p.returncode not in codes or not p.stdout:
        sys.exit('sbt-analyze %s failed on %s (exit %d): %s' %
                 (' '.join(opts), log, p.returncode, p.stderr))
    return p.stdout


def analyze_json(log, *opts):
    """The JSON report of log, and its regions by name."""
    d = json.loads(analyze(log, *opts, '--format', 'json'))
    return d, {r['name']: r for r in d['regions']}


def log_version(log):
    with open(log, 'rb') as f:
        return struct.unpack('<8sI', f.read(12))[1]


def run_and_kill(argv, env, delay):
    """Start argv, read its first line, SIGKILL it `delay` s later: (the
    line, stripped, and its return code: -9 when the kill landed)."""
    p = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    time.sleep(delay)
    p.send_signal(signal.SIGKILL)
    p.wait()
    p.stdout.close()
    return line.strip(), p.returncode


def preloaded(log, **sbt):
    """The environment record() gives an app, for apps run otherwise."""
    env = dict(os.environ, LD_PRELOAD=os.environ['SBT_LIB'])
    for v in SBT_VARS:
        env.pop(v, None)
    env['SBT_OUTPUT'] = log
    for k, v in sbt.items():
        if v is not None:
            env['SBT_' + k.upper()] = v
    if sbt.get('test_clock') is not None:
        env['SBT_TEST_CLOCK'] = ','.join(sorted(forced_ways(v=sbt[
            'test_clock'])))
    return env


def forced_ways(v=''):
    """The SBT_TEST_CLOCK ways in force: the suite's own (tools/test.sh's
    pass as a machine without RDTSCP and a true TSC_AUX sets it for every
    test) and a test's v, together."""
    ways = set()
    for s in (os.environ.get('SBT_TEST_CLOCK', ''), v or ''):
        ways |= {w for w in s.split(',') if w}
    return ways


def cpu_flags():
    """The CPU's flags as /proc/cpuinfo lists them (CPUID's view)."""
    try:
        with open('/proc/cpuinfo') as f:
            for ln in f:
                if ln.startswith('flags'):
                    return set(ln.split(':', 1)[1].split())
    except OSError:
        pass
    return set()


def reads_rdtscp(v=''):
    """Whether the recorder reads the clock with rdtscp: CPUID names it
    and no forced way hides it (x86-64 only)."""
    return 'rdtscp' in cpu_flags() and 'no-rdtscp' not in forced_ways(v)
def dump_samples(log, tmp):
    """Every sample of log (not the probes) as a dict of --dump's columns,
    t_ns and ns as floats."""
    import csv
    out = os.path.join(tmp, 'dump.csv')
    subprocess.run([os.environ['SBT_ANALYZE'], '-q', '--filter', 'none', '--no-symbols',
                    '--dump', out, log], stdout=subprocess.DEVNULL,
                   check=False, timeout=120)
    with open(out) as f:
        rows = [r for r in csv.DictReader(f) if r['probe'] == '0']
    for r in rows:
        r['t_ns'] = float(r['t_ns'])
        r['ns'] = float(r['ns'])
    return rows


def uncontained(rows, child, parent, slack=0.2):
    """Samples of region `child` that lie in no sample of region `parent`
    of the same process and thread (slack: --dump's rounding, ns).  A
    sample's wall interval is its time plus the recorder's detours taken
    out of it (--dump's `detour`, ns; speed probes inside it)."""
    par = {}
    for r in rows:
        if r['region'] == parent:
            par.setdefault((r['source'], r['thread']), []).append(
                (r['t_ns'], r['t_ns'] + r['ns'] + float(r.get('detour')
                                                         or 0)))
    bad = 0
    for r in rows:
        if r['region'] != child:
            continue
        a, b = r['t_ns'], r['t_ns'] + r['ns'] + float(r.get('detour') or 0)
        if not any(p0 - slack <= a and b <= p1 + slack
                   for p0, p1 in par.get((r['source'], r['thread']), [])):
            bad += 1
    return bad


def die_with_parent():
    """In a child: SIGKILL when this test dies, even killed by a timeout
    (a busy loop must not outlive it)."""
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG


@contextlib.contextmanager
def busy(cpu=None):
    """A busy loop on `cpu` (None: where the kernel puts it) while the
    block runs."""
    cmd = ['sh', '-c', 'while :; do :; done']
    if cpu is not None:
        cmd = ['taskset', '-c', str(cpu)] + cmd
    p = subprocess.Popen(cmd, preexec_fn=die_with_parent)
    try:
        yield p
    finally:
        p.kill()
        p.wait()
