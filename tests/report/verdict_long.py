#!/usr/bin/python3
"""verdict_long.py - a verdict with many findings keeps its last clauses.

    verdict_long.py   (SBT_ANALYZE from the env)

A region whose time moves through 12 levels (CSV input, no timing) has a
dozen findings.  The verdict says the largest SBT_VERDICT_FINDINGS (6) of
them, then how many more there are, and still ends with what the timer
resolves; JSON lists every finding, and the text report's -v every step
in time order (a step and its return on one line).
"""
import os, random, re, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'common'))
from sbttest import analyze, analyze_json, check, done  # noqa: E402


def main():
    with tempfile.TemporaryDirectory(prefix='sbt-verdict-') as d:
        csv = os.path.join(d, 'steps.csv')
        rnd = random.Random(5)
        levels = [400, 520, 430, 610, 450, 700, 470, 800, 500, 900, 540, 1000]
        with open(csv, 'w') as f:
            f.write('region,ns,thread,t_ns\n')
            t = 0
            for lv in levels:
                for _ in range(2000):
                    t += 1000
                    f.write('work,%d,0,%d\n' % (lv + 10 * rnd.randint(0, 2), t))
        g = analyze_json(csv)[1]['work']
        v = g['verdict']
        n = len(g['finding_list'])
        check(n > 6, '%d findings in JSON' % n)
        said = len(re.findall(r'step at|modes? ', v))
        check(said <= 6, 'the verdict says %d of them' % said)
        check('%d more findings (the findings list)' % (n - 6) in v,
              'and how many more: %s' % v)
        check(re.search(r'timed to 1 %|cannot be timed', v) is not None,
              'it ends with the precision clause: ...%s' % v[-120:])
        # -v: every step, in time order, a step and its return one line
        text = analyze(csv, '-v')
        steps = sum(1 for f in g['finding_list'] if f['kind'] == 'step')
        ones = re.findall(r'^  ([\d.]+) ms +step ', text, re.M)
        twos = re.findall(r'^  ([\d.]+) ms +(?:dip|bump) ', text, re.M)
        check(len(ones) + 2 * len(twos) == steps,
              '-v: all %d steps (%d alone, %d folded pairs)' %
              (steps, len(ones), len(twos)))
        at = [float(x) for x in re.findall(r'^  ([\d.]+) ms ', text, re.M)]
        check(at == sorted(at) and len(at) > 1, '-v: in time order %r' % at)
    done()


if __name__ == '__main__':
    main()
