#!/usr/bin/python3
"""app_test.py - sbt-analyze --compare on a real app.

    app_test.py CMP_APP BASE.log.gz CHANGED.log.gz [live|recorded]
                                 (SBT_LIB, SBT_ANALYZE from the env)

tests/compare/cmp_app: register-only chains of known length (steady,
grow, modal; see cmp_app.c).

Live, recorded here, only what no machine's speed or steadiness can turn
(two runs of one binary were seen 20 % apart on a VM, so no judgement of
a live effect of a few % can stand):
  - two unchanged runs: every call recorded, every region compared on
    both sides, with a verdict and a measured change;
  - grow with 10 times the work (+900 %): "slower", by more than +100 %
    (the base run would have to run 5 times slower throughout), the gate
    at 5 % trips (exit 3), the gate at +10000 % does not (exit 0).
On two runs recorded once (data/README: grow +10 %, modal's slow mode
10 % -> 30 %), the comparison's judgement, deterministic on any machine:
  - grow slower by 10 % (+-3 %) more than steady, timed in the same runs
    (the runs drift a few % between them; the runs record no speed
    probes, SBT_SPEED_US=0: this is the equal-machine comparison, the
    probes' normalization is tested on synthetic logs, gen_cmp.c);
  - modal's share change named (>= 15 points);
  - the gate trips at 5 % (grow) but not at 15 %.
"No change" between unchanged runs and the gate's other cases are judged
on synthetic logs (synth_test.py).
"""
import gzip, json, os, re, shutil, subprocess, sys, tempfile

APP, BASE_GZ, CHANGED_GZ = sys.argv[1:4]
ANALYZE = os.environ['SBT_ANALYZE']
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'common'))
from sbttest import analyze_json, check, done, record  # noqa: E402

N = 20000
REGIONS = ('steady', 'grow', 'modal')


def run(tmp, name, grow, share):
    log, p = record(tmp, name, APP, [str(N), grow, share], speed_us='0')
    if not os.path.exists(log):
        sys.exit('no log from cmp_app: ' + p.stderr)
    return log


def compare(base, new, *opts):
    p = subprocess.run([ANALYZE, '-q', *opts, '--format', 'json',
                        '--compare', *base, '--', *new],
                       capture_output=True, text=True, timeout=300)
    if not p.stdout:
        sys.exit('sbt-analyze failed: ' + p.stderr)
    d = json.loads(p.stdout)['compare']
    return p, {r['name']: r for r in d['regions']}


def delta(r, name):
    """The region's measured change in %: a comparison always gives one
    (a side without steady samples falls back to its kept ones)."""
    raw = r[name]['raw']
    check(raw is not None, '%s: a change is given (%s)' %
          (name, r[name]['verdict']))
    if raw is None:
        done()
    return raw['delta_pct']


def unpack(gz, tmp):
    log = os.path.join(tmp, os.path.basename(gz)[:-len('.gz')])
    with gzip.open(gz, 'rb') as f, open(log, 'wb') as o:
        shutil.copyfileobj(f, o)
    return log


def live(tmp):
    b = run(tmp, 'b', '0', '0.2')
    s = run(tmp, 's', '0', '0.2')
    p, r = compare([b], [s])
    check(p.returncode == 0, 'same app: exit %d without a gate'
          % p.returncode)
    for name in REGIONS:
        g = r.get(name)
        check(g and g['present'] == 'both' and 0 < g['base']['n'] <= N and
              0 < g['new']['n'] <= N and g['verdict'] and g['raw'] and
              g['raw']['change'] in ('none', 'slower', 'faster'),
              'same app: %s compared: %s' % (name, g and g['verdict']))
    for log in (b, s):
        _, regions = analyze_json(log)
        check(all(regions[x]['count'] == N for x in REGIONS),
              '%s: %d calls of each region' % (os.path.basename(log), N))
    c = run(tmp, 'x10', '900', '0.2')
    p, r = compare([b], [c], '--fail-if-slower', '5', '--regions', 'grow')
    gr = delta(r, 'grow')
    check(r['grow']['raw']['change'] == 'slower' and gr > 100,
          'grow x10 work: %s' % r['grow']['verdict'])
    check(p.returncode == 3, 'x10: gate at 5 %% trips (exit %d)'
          % p.returncode)
    p, r = compare([b], [c], '--fail-if-slower', '10000', '--regions',
                   'grow')
    check(p.returncode == 0, 'x10: gate at 10000 %% passes (exit %d)'
          % p.returncode)


def recorded(tmp):
    b1, c = unpack(BASE_GZ, tmp), unpack(CHANGED_GZ, tmp)
    p, r = compare([b1], [c], '--fail-if-slower', '5', '--regions',
                   'steady,grow')
    st, gr = delta(r, 'steady'), delta(r, 'grow')
    check(r['grow']['raw']['change'] == 'slower' and abs(gr - st - 10) <= 3,
          'recorded: grow +10 %% work: %s (steady %+.2f %%)' %
          (r['grow']['verdict'], st))
    m = re.findall(r'mode at [0-9.]+ [un]?s: share (\d+) % -> (\d+) %',
                   r['modal']['distribution'])
    check(m and int(m[-1][1]) - int(m[-1][0]) >= 15,
          'recorded: modal share change named: ' +
          r['modal']['distribution'])
    check(p.returncode == 3, 'recorded: gate at 5 %% trips (exit %d)'
          % p.returncode)
    p, r = compare([b1], [c], '--fail-if-slower', '15', '--regions',
                   'steady,grow')
    check(p.returncode == 0, 'recorded: gate at 15 %% passes (exit %d)'
          % p.returncode)


def main():
    tmp = tempfile.mkdtemp(prefix='sbt-cmpapp-')
    part = sys.argv[4] if len(sys.argv) > 4 else 'both'
    if part in ('recorded', 'both'):
        recorded(tmp)
    if part in ('live', 'both'):
        live(tmp)
    shutil.rmtree(tmp, ignore_errors=True)
    done()


main()
