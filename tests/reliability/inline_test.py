#!/usr/bin/env python3
"""inline_test.py - the inline markers' fast path on every clock way.

  inline_test.py INLINE_CLOCK

The inline markers read the clock and the cpu the way the recorder chose
for their thread (struct sbt_hot's cpu): rdtscp and its TSC_AUX where
TSC_AUX is true, else the cpu from the rseq area (unknown without one)
and lfence;rdtsc;lfence where CPUID hides RDTSCP.  For each way
(SBT_TEST_CLOCK forces the ones a machine does not need), two threads
pinned to one cpu run inline pairs; the test checks:
  - every pair took the fast path (inline_clock counts the pairs whose
    START and STOP found the state the header's fast path needs and
    appended through it): all of them but the first, which hands the
    state out, and any that met a chunk's end;
  - every sample's cpus are the pinned cpu, or unknown where the way has
    no cpu source (no-rseq), none made up;
  - the entry point binaries of an older header call hands its state
    out only where TSC_AUX is true (such markers read rdtscp's TSC_AUX):
    elsewhere their call site stays unfilled.
Structure and counts only, no timing.
Environment: SBT_LIB, SBT_ANALYZE.  Exit 0 pass, 1 fail.
"""
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'common'))
from sbttest import check, done, dump_samples, preloaded  # noqa: E402

H_CPU_FROM = 1064                         # struct sbt_file_header
AUX, RSEQ, NONE = 1, 2, 4                 # enum sbt_cpu_from
RDTSCP, RDTSC = 1, 2                      # enum sbt_clock_read
THREADS, PAIRS = 2, 3000
# pairs a thread may spend on the recorder's path: its first (the state
# handed out) and one per chunk end and refill (a few at these counts)
SLACK = 16


def glibc_rseq():
    """glibc registers an rseq area from 2.35 on."""
    v = os.confstr('CS_GNU_LIBC_VERSION') or ''
    try:
        major, minor = v.split()[1].split('.')[:2]
        return (int(major), int(minor)) >= (2, 35)
    except (IndexError, ValueError):
        return False


def header(log):
    with open(log, 'rb') as f:
        b = f.read(4096)
    cpu_from, clock_read = struct.unpack_from('<II', b, H_CPU_FROM)
    return cpu_from, clock_read


def main():
    app = sys.argv[1]
    cpu = sorted(os.sched_getaffinity(0))[-1]
    tmp = tempfile.mkdtemp(prefix='sbt-inline-')
    rseq = RSEQ if glibc_rseq() else NONE
    machine_read = None        # the clock read where no-rdtscp is not forced
    for force in (None, 'aux-wrong', 'aux-wrong,no-rdtscp',
                  'aux-wrong,no-rseq', 'no-rdtscp,no-rseq'):
        log = os.path.join(tmp, '%s.log' % (force or 'default'))
        # no probes, no speed probes, no kernel events: nothing that
        # comes at times of the clock's choosing sends a pair to the
        # recorder (only a chunk's end does)
        env = preloaded(log, test_clock=force, probe_period='0',
                        speed_us='0', os_events='0')
        # what the app is told, a global SBT_TEST_CLOCK's included
        flags = set(env.get('SBT_TEST_CLOCK', '').split(','))
        name = force or 'default (%s)' % (env.get('SBT_TEST_CLOCK') or
                                          'as the machine')
        if flags & {'aux-wrong', 'no-rdtscp'}:
            froms = (NONE,) if 'no-rseq' in flags else (rseq,)
        else:
            froms = (AUX, NONE) if 'no-rseq' in flags else (AUX, RSEQ, NONE)
        p = subprocess.run(['taskset', '-c', str(cpu), app, str(THREADS),
                            str(PAIRS)], env=env, capture_output=True,
                           text=True, timeout=120)
        check(p.returncode == 0 and os.path.exists(log),
              '%s: recorded (%s)' % (name, p.stderr.strip()))
        if p.returncode != 0 or not os.path.exists(log):
            continue
        cpu_from, clock_read = header(log)
        if flags & {'aux-wrong', 'no-rdtscp'}:
            read = RDTSC                  # rdtscp only where TSC_AUX is true
        else:
            machine_read = read = machine_read or clock_read
        check(cpu_from in froms and clock_read == read,
              '%s: header cpu_from %d, clock_read %d; want one of %s, %d'
              % (name, cpu_from, clock_read, froms, read))
        lines = p.stdout.split('\n')
        fast = [int(ln.split()[1]) for ln in lines if ln.startswith('fast ')]
        check(len(fast) == THREADS and
              all(PAIRS - SLACK <= f <= PAIRS - 1 for f in fast),
              '%s: pairs on the inline fast path, per thread: %s of %d'
              % (name, fast, PAIRS))
        rows = [r for r in dump_samples(log, tmp) if r['region'] == 'inline']
        pairs = sorted({(r['cpu_start'], r['cpu_stop']) for r in rows})
        want = [('-1', '-1')] if cpu_from == NONE else [(str(cpu), str(cpu))]
        check(len(rows) == THREADS * PAIRS and pairs == want,
              '%s: %d samples of %d, (cpu_start, cpu_stop) %s, want %s'
              % (name, len(rows), THREADS * PAIRS, pairs, want))
        older = [ln.split()[1:] for ln in lines if ln.startswith('older ')]
        handed = ['1', '1'] if cpu_from == AUX else ['0', '0']
        check(older == [handed],
              '%s: an older header\'s markers: slot kind, state handed '
              'out %s, want %s' % (name, older, handed))
        n_older = sum(1 for r in dump_samples(log, tmp)
                      if r['region'] == 'older')
        check(n_older == 1, '%s: its one call recorded all the same (%d)'
              % (name, n_older))
    done()


if __name__ == '__main__':
    main()
