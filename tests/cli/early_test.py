#!/usr/bin/env python3
"""early_test.py - under sbt-run the recorder's start-up precedes main.

  early_test.py SBT_RUN EARLY_APP

The program sbt-run runs has its log open before main begins, and its
first region holds none of the recorder's one-off work: at most 2 page
faults inside an empty region (counted by the kernel, getrusage: the
first call site's stack, unwound once, reads its callers' unwind tables,
pages of the app's libraries; under a sanitizer, whose shadow memory
faults on any first touch, a sixteenth of the other case's), where the
same program preloaded by hand (no SBT_EARLY: the log opens at the first
marker) takes the page-fault measurement's 32 fresh pages there.  A
launcher between sbt-run and a program (sh) opens no log of its own.
Counts only, no timing.  Environment: SBT_LIB.  Exit 0 pass, 1 fail.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'common'))
from sbttest import SANITIZED, check, done, preloaded  # noqa: E402

SBT_RUN, APP = sys.argv[1], os.path.abspath(sys.argv[2])


def said(out):
    w = out.split()
    return (int(w[1]), int(w[3])) if len(w) == 4 and w[0] == 'log' else None


with tempfile.TemporaryDirectory() as tmp:
    log = os.path.join(tmp, 'early.log')
    env = dict(os.environ, SBT_LIB=os.environ['SBT_LIB'])
    env.pop('SBT_EARLY', None)
    p = subprocess.run([SBT_RUN, '-q', '-o', log, '--', APP, log], env=env,
                       capture_output=True, text=True, timeout=60)
    got = said(p.stdout)
    check(p.returncode == 0 and got is not None and os.path.exists(log),
          'sbt-run: ran and wrote its log (%s %s)' % (p.stdout.strip(),
                                                     p.stderr.strip()))
    check(got is not None and got[0] == 1,
          'sbt-run: the log was open before main (%s)' % (got,))
    early = got[1] if got is not None else None

    log2 = os.path.join(tmp, 'late.log')
    p = subprocess.run([APP, log2], env=preloaded(log2), capture_output=True,
                       text=True, timeout=60)
    got = said(p.stdout)
    check(p.returncode == 0 and got is not None and got[0] == 0 and
          got[1] >= 32,
          'preloaded by hand: the log opens at the first marker, its '
          'page-fault measurement inside the region (%s)' % (got,))
    # A sanitizer's shadow memory faults on the first touch of anything:
    # there the early log's region holds a small part of the late one's.
    late = got[1] if got is not None else 0
    bound = late // 16 if SANITIZED else 2
    check(early is not None and early <= bound,
          'sbt-run: at most the call site\'s unwinding faults inside the '
          'first region: %s (bound %d; %d when the log opens there)'
          % (early, bound, late))

    # a shell between sbt-run and the program: only the program's log
    log3 = os.path.join(tmp, 'sh-%p.log')
    p = subprocess.run([SBT_RUN, '-q', '-o', log3, '--', 'sh', '-c',
                        '"$0" /nonexistent', APP], env=env,
                       capture_output=True, text=True, timeout=60)
    logs = [f for f in os.listdir(tmp) if f.startswith('sh-')]
    check(p.returncode == 0 and len(logs) == 1,
          'through sh: one log, the program\'s (%s)' % logs)
done()
