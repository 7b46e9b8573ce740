#!/usr/bin/python3
"""app_test.py - sbt-analyze --compare on a real app, recorded here.

    app_test.py CMP_APP          (SBT_LIB, SBT_ANALYZE from the env)

tests/compare/cmp_app (register-only chains of known length) run with the
recorder: twice as a base (grow +0 %, second mode of `modal` 20 %), twice
again the same (interleaved), once more as a base with modal's second
mode at 10 %, and once changed (grow +10 %, modal's second mode 30 %).
A slow mode holding about 10 % sits at the trimmed mean's 10 % edge, where
the mean moves by percents with the share the filters keep (seen: modal
"2.3 % slower" between two pairs of unchanged runs): the unchanged runs
hold 20 %.
  - the same app, two runs a side: "no change" for every region, bounded
    by the run-to-run spread; one run a side: grow moved as steady did
    (within 3 %: the machine's drift, not the code's; with a busy
    co-runner two regions of one run were seen 2.6 % apart) and no mode
    share of modal moved by 10 points (5 was seen under a busy co-runner);
  - changed: grow slower by 10 % (+-3 %) more than steady (the same runs' own
    reference: the machine drifts a few % between runs here; the runs
    record no speed probes, SBT_SPEED_US=0), modal's share change named; the
    gate trips at 5 % (grow) but not at 15 %.
Effects are 10 %: far beyond the 1 % floor and this VM's run-to-run
drift, so no verdict flips with a busy or a memory-streaming co-runner
(see README "Comparing runs" for the runs under load).
"""
import json, os, re, subprocess, sys, tempfile

APP = sys.argv[1]
ANALYZE = os.environ['SBT_ANALYZE']
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'common'))
from sbttest import check, done, record  # noqa: E402

N = '60000'


def run(tmp, name, grow, share):
    # No speed probes: this is the equal-machine comparison; the probes'
    # normalization is tested on synthetic logs (gen_cmp.c).  On this VM
    # probes of two runs of one binary read up to 4 % apart while its
    # regions did not move, so a normalized gate would be the probes'.
    log, p = record(tmp, name, APP, [N, grow, share], speed_us='0')
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


def main():
    tmp = tempfile.mkdtemp(prefix='sbt-cmpapp-')
    # Unchanged runs interleaved, as runs to compare should be: a machine
    # that drifts over minutes then spreads both sides alike.  Their slow
    # mode holds 20 %, away from the trimmed mean's 10 % edge (below).
    b, s = [], []
    for i in range(2):
        b.append(run(tmp, 'b%d' % i, '0', '0.2'))
        s.append(run(tmp, 's%d' % i, '0', '0.2'))
    b1 = run(tmp, 'b10', '0', '0.1')
    c = run(tmp, 'c', '10', '0.3')

    p, r = compare(b, s)
    for name in ('steady', 'grow', 'modal'):
        # no change, whichever resolution bounds it (modal's samples
        # left out beside probes can make its population's the largest)
        check(r[name]['raw']['change'] == 'none',
              'same app, 2 runs a side: %s: %s' % (name, r[name]['verdict']))
    # One run a side, unchanged: whatever the machine did between the
    # runs, it did to every region alike.
    # (modal is judged by its modes: with a busy co-runner the filters kept
    # 5 % of one run's slow mode against 10 % of the other's (the longer
    # samples are preempted more often): a share change of 5 points can be
    # the machine's, 20 cannot.)
    p, r = compare(b[:1], s[:1])
    st, gr = delta(r, 'steady'), delta(r, 'grow')
    check(abs(gr - st) <= 3,
          'same app, 1 run a side: grow moved %+.2f %%, steady %+.2f %%'
          % (gr, st))
    moved = [abs(int(a) - int(b)) for a, b in
             re.findall(r'share (\d+) % -> (\d+) %',
                        r['modal']['distribution'])]
    check(all(m < 10 for m in moved),
          'same app, 1 run a side: modal: no share moved 10 points (%s)' %
          (r['modal']['distribution'] or 'none named'))
    # One run a side: the machine's drift between runs (a few % on this
    # VM, seen) is not the code's, and without speed probes (the recorder
    # does not write them yet) nothing can tell it apart.  So the effect
    # is judged against `steady`, timed in the same runs: grow's change
    # minus steady's is the code's.
    p, r = compare([b1], [c], '--fail-if-slower', '5', '--regions',
                   'steady,grow')
    st, gr = delta(r, 'steady'), delta(r, 'grow')
    check(r['grow']['raw']['change'] == 'slower' and abs(gr - st - 10) <= 3,
          'grow +10 %% work: %s (steady %+.2f %%)' %
          (r['grow']['verdict'], st))
    m = re.findall(r'mode at [0-9.]+ [un]?s: share (\d+) % -> (\d+) %',
                   r['modal']['distribution'])
    check(m and int(m[-1][1]) - int(m[-1][0]) >= 15,
          'modal share change named: ' + r['modal']['distribution'])
    check(p.returncode == 3, 'gate at 5 %% trips (exit %d)' % p.returncode)
    p, r = compare([b1], [c], '--fail-if-slower', '15', '--regions',
                   'steady,grow')
    check(p.returncode == 0, 'gate at 15 %% passes (exit %d)' % p.returncode)
    done()


main()
