#!/usr/bin/env python3
"""logmem_test.py - what marking threads still pay for the log's memory is
counted in the header (log_wait_ns, log_late_bytes), and is nothing for a
run that fits the lookahead readied when the log opens (1 MiB).

  logmem_test.py RAPP

  short   2,000 pairs on 3 threads and 5,000 on one (well under 1 MiB),
          with the preparer and without (SBT_PREPARE=off): 0 ns, 0 bytes
  long    300,000 pairs (~10 MB) without the preparer: the thread readied
          its own chunks, and the header says how many bytes and that it
          took time (so the count above is a count, not a constant)
Environment: SBT_LIB, SBT_ANALYZE.  Exit 0 pass, 1 fail.
"""
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'common'))
from sbttest import check, done, preloaded  # noqa: E402

H_LOG_WAIT = 1080          # struct sbt_file_header: log_wait_ns, late bytes


def run(rapp, tmp, name, args, prepare):
    log = os.path.join(tmp, name + '.log')
    p = subprocess.run([rapp, *args], env=preloaded(log, prepare=prepare),
                       capture_output=True, text=True, timeout=120)
    check(p.returncode == 0 and os.path.exists(log),
          '%s: recorded (%s)' % (name, p.stderr.strip()))
    with open(log, 'rb') as f:
        b = f.read(4096)
    return struct.unpack_from('<QQ', b, H_LOG_WAIT)


def main():
    rapp = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix='sbt-logmem-')
    for prepare in (None, 'off'):
        for name, args in (('threads', ['threads', '3', '2000']),
                           ('plain', ['plain', '5000'])):
            label = '%s, preparer %s' % (name, prepare or 'auto')
            ns, late = run(rapp, tmp, name + str(prepare), args, prepare)
            check(ns == 0 and late == 0, '%s: waited %d ns for %d bytes of '
                  'log memory, want 0' % (label, ns, late))
    ns, late = run(rapp, tmp, 'long', ['plain', '300000'], 'off')
    check(late >= 8 << 20 and ns > 0,
          'long, no preparer: the thread readied %d bytes itself in %d ns '
          '(counted)' % (late, ns))
    done()


main()
