#!/usr/bin/env python3
"""cpu_test.py - every sample's cpu is one the thread really ran on.

  cpu_test.py RAPP

A machine may keep TSC_AUX true (this one, most likely) or not (a guest
whose kernel believes RDTSCP absent: rdtscp then returns the host's cpu),
and CPUID may or may not name RDTSCP.  SBT_TEST_CLOCK forces the paths a
machine does not need; each run pins three marking threads to one cpu
(taskset), so the only true cpu is that one:
  default            cpus all the pinned one; header: TSC_AUX or rseq
  aux-wrong          TSC_AUX disagrees with getcpu(): cpus from rseq
  aux-wrong,no-rseq  ... and no rseq: every cpu unknown, none made up
  no-rdtscp          lfence;rdtsc;lfence (header), cpus from rseq
  no-rdtscp,no-rseq  ... every cpu unknown
What each case expects follows from the machine and the ways in force,
never from the machine this was written on: the clock read is rdtscp only
where CPUID names it and no way hides it (a guest may hide it), TSC_AUX
can name the cpu only then, and a way the suite forces for every test
(tools/test.sh's second pass) adds to each case's own.
and each run's empty pair (t_e) is above zero and below 1 ms: the clock
advances and is read in one piece.  The report says what the header
does: the text's note on where cpus came from and how the clock was read
(none on the default path), JSON's clock_read, cpu_from, ncpus and
fault_ns (the page fault's cost measured at start: above 0, below 1 ms,
a bound no machine's fault reaches; a summary of the log carries it).  Then the analyzer on a log whose
events name cpus the machine lacks (TSC_AUX of a host): such a cpu is
unknown, and a sample is flagged migrated only between two true cpus.
The tick rate where the kernel does not give it (SBT_TEST_CLOCK=
calibrate): the header says "calibrated" (~3 ms against CLOCK_MONOTONIC_RAW
at the first marker) for a run too short to refine it, and "run" (the
rate from there to the log's finish) for one that slept 300 ms between
two markers; the two rates within 1 % of each other and of the default
path's (a bound no bracketing error reaches), and a region's 300 ms read
as such within 1 %.
Environment: SBT_LIB, SBT_ANALYZE.  Exit 0 pass, 1 fail.
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'common'))
from sbttest import (check, done, dump_samples, forced_ways,  # noqa: E402
                     preloaded, reads_rdtscp)

# struct sbt_file_header offsets (format/sbtlog.h)
H_TICK_HZ, H_TE_MIN, H_END_OFFSET, H_CPU_FROM = 32, 128, 976, 1064
H_TICK_SOURCE = 48
AUX, RSEQ, NONE = 1, 2, 4                 # enum sbt_cpu_from
RDTSCP, RDTSC = 1, 2                      # enum sbt_clock_read
CHUNK_MAGIC, EVENTS = 0x43544253, 4
THREADS, PAIRS = 3, 500


def header(log):
    with open(log, 'rb') as f:
        b = f.read(4096)
    hz, = struct.unpack_from('<Q', b, H_TICK_HZ)
    source = b[H_TICK_SOURCE:H_TICK_SOURCE + 16].split(b'\0')[0].decode()
    te_min, te_p50 = struct.unpack_from("<QQ", b, H_TE_MIN)
    cpu_from, clock_read, ncpus, fault_ns = struct.unpack_from('<IIII', b,
                                                             H_CPU_FROM)
    return dict(hz=hz, source=source, te_min=te_min, te_p50=te_p50,
                cpu_from=cpu_from,
                clock_read=clock_read, ncpus=ncpus, fault_ns=fault_ns)


def run(rapp, tmp, cpu, force):
    log = os.path.join(tmp, 'cpu-%s.log' % (force or 'default'))
    env = preloaded(log, test_clock=force)
    p = subprocess.run(['taskset', '-c', str(cpu), rapp, 'threads',
                        str(THREADS), str(PAIRS)], env=env,
                       capture_output=True, text=True, timeout=120)
    check(p.returncode == 0 and os.path.exists(log),
          '%s: recorded (%s)' % (force or 'default', p.stderr.strip()))
    return log


def events(log):
    """(offset, word, aux) of every event, in file order."""
    with open(log, 'rb') as f:
        data = f.read()
    end = 4096 + struct.unpack_from('<Q', data, H_END_OFFSET)[0]
    off, out = 4096, []
    while off + 64 <= min(end, len(data)):
        magic, typ, size = struct.unpack_from('<IIQ', data, off)
        if magic != CHUNK_MAGIC or size < 64:
            off = (off // 4096 + 1) * 4096
            continue
        if typ == EVENTS:
            for e in range(off + 64, off + size, 16):
                _, word, aux = struct.unpack_from('<QII', data, e)
                if not word:
                    break
                out.append((e, word, aux))
        off += size
    return out


def said(log, name, h):
    """The text's notes and JSON's source fields follow the header."""
    ana = os.environ['SBT_ANALYZE']
    text = subprocess.run([ana, '--no-symbols', log], capture_output=True,
                          text=True, timeout=120).stdout
    head = [ln for ln in text.splitlines() if ln.startswith('#')]
    cpus = [ln for ln in head if ln.startswith('#   cpus:')]
    clock = [ln for ln in head if ln.startswith('#   clock: lfence; rdtsc')]
    cf = h['cpu_from']
    want_cpus = ('unknown' if cf == NONE else 'rseq' if cf == RSEQ else
                 None if cf == AUX else 'any')
    check((not cpus if want_cpus is None else want_cpus == 'any' or
           (len(cpus) == 1 and want_cpus in cpus[0])),
          '%s: the text says where cpus came from: %s' % (name, cpus))
    check(len(clock) == (h['clock_read'] == RDTSC),
          '%s: the text names the clock read only without rdtscp: %s'
          % (name, clock))
    doc = json.loads(subprocess.run([ana, '--format', 'json',
                                     '--no-symbols', log],
                                    capture_output=True, text=True,
                                    timeout=120).stdout)
    src = doc['sources'][0]
    names = {AUX: 'tsc_aux', RSEQ: 'rseq', NONE: 'unknown'}
    check(src['clock_read'] == {RDTSCP: 'rdtscp', RDTSC: 'rdtsc'}[
              h['clock_read']] and
          set(src['cpu_from']) == {v for k, v in names.items() if cf & k}
          and src['ncpus'] == h['ncpus'] and src['log_wait_ns'] >= 0
          and src['fault_ns'] == h['fault_ns'],
          '%s: JSON clock_read %s, cpu_from %s, ncpus %s' %
          (name, src['clock_read'], src['cpu_from'], src['ncpus']))
    # a summary carries the fault cost as the log does
    sums = log + '.sbts'
    subprocess.run([ana, '--summary', sums, '--no-symbols', log],
                   capture_output=True, timeout=120)
    got = subprocess.run([ana, '--format', 'json', '--no-symbols', sums],
                         capture_output=True, text=True, timeout=120).stdout
    fns = json.loads(got)['sources'][0]['fault_ns'] if got else None
    check(fns == h['fault_ns'], '%s: the summary\'s fault_ns %s, the '
          'header\'s %d' % (name, fns, h['fault_ns']))


def tick_rate(rapp, tmp, default_hz):
    """The calibrated tick rate, as is and refined over the run."""
    hz = {}
    for name, args in (('short', ['plain', '10']), ('long', ['pause', '300'])):
        log = os.path.join(tmp, 'rate-%s.log' % name)
        env = preloaded(log, test_clock='calibrate')
        p = subprocess.run([rapp, *args], env=env, capture_output=True,
                           timeout=60)
        h = header(log) if os.path.exists(log) else {}
        check(p.returncode == 0 and h.get('hz', 0) > 0,
              'calibrate, %s run: exit %d, tick_hz %s' %
              (name, p.returncode, h.get('hz')))
        if not h:
            return
        hz[name] = h['hz']
        want = ('run',) if name == 'long' else ('calibrated', 'run')
        check(h['source'] in want, 'calibrate, %s run: tick_source %r '
              '(want %s)' % (name, h['source'], ' or '.join(want)))
    for name, v in hz.items():
        check(abs(v / default_hz - 1) < 0.01, 'calibrate, %s run: %d Hz, '
              'the default path\'s %d' % (name, v, default_hz))
    rows = [r for r in dump_samples(os.path.join(tmp, 'rate-long.log'),
                                    tmp) if r['region'] == 'p']
    gap = (rows[-1]['t_ns'] - rows[0]['t_ns']) / 1e6 if len(rows) == 2 \
        else 0
    # slept 300 ms between them: a rate read too high by 1e-4 or more
    # would put them closer (a late wake-up only puts them further)
    check(len(rows) == 2 and gap >= 300 * (1 - 1e-4),
          'calibrate, long run: %d pairs, %.3f ms apart (slept 300 ms)'
          % (len(rows), gap))


def expected(force):
    """(cpu sources the header may name, its clock read) under `force`
    and the suite's ways, on this machine."""
    ways = forced_ways(force)
    rdtscp = reads_rdtscp(force)
    froms = set()
    if rdtscp and 'aux-wrong' not in ways:
        froms.add(AUX)                # true here, or found untrue: below
    froms.add(NONE if 'no-rseq' in ways else RSEQ)
    # rdtscp only where TSC_AUX is the cpu (a machine's found untrue: below)
    aux = rdtscp and 'aux-wrong' not in ways
    return tuple(sorted(froms)), RDTSCP if aux else RDTSC


def cpus_of(rows):
    return sorted({(r['cpu_start'], r['cpu_stop']) for r in rows})


def main():
    rapp = sys.argv[1]
    allowed = sorted(os.sched_getaffinity(0))
    cpu = allowed[-1]
    ncpus = os.sysconf('SC_NPROCESSORS_CONF')
    tmp = tempfile.mkdtemp(prefix='sbt-cpu-')
    want_rows = THREADS * PAIRS
    for force in (None, 'aux-wrong', 'aux-wrong,no-rseq', 'no-rdtscp',
                  'no-rdtscp,no-rseq'):
        name = force or 'default'
        froms, read = expected(force)
        log = run(rapp, tmp, cpu, force)
        h = header(log)
        known = h['cpu_from'] != NONE
        check(h['cpu_from'] in froms, '%s: header cpu_from %d, want one of %s'
              % (name, h['cpu_from'], froms))
        if h['cpu_from'] != AUX:       # a thread found TSC_AUX untrue
            read = RDTSC
        check(h['clock_read'] == read, '%s: header clock_read %d, want %d'
              % (name, h['clock_read'], read))
        check(h['ncpus'] == ncpus, '%s: header ncpus %d, the machine %d'
              % (name, h['ncpus'], ncpus))
        # a first touch of a fresh page: some cost, below 1 ms
        check(0 < h['fault_ns'] < 1e6, '%s: header fault_ns %d measured'
              % (name, h['fault_ns']))
        ns = lambda t: t * 1e9 / h['hz']  # noqa: E731
        check(0 < h['te_min'] and ns(h['te_p50']) < 1e6,
              '%s: the empty pair %.0f ticks min, %.1f ns median: the clock '
              'advances, read in one piece' % (name, h['te_min'],
                                                ns(h['te_p50'])))
        rows = [r for r in dump_samples(log, tmp) if r['region'] == 't']
        want = {(str(cpu), str(cpu))} if known else {('-1', '-1')}
        check(len(rows) == want_rows and set(cpus_of(rows)) == want,
              '%s: %d samples of %d, (cpu_start, cpu_stop) %s, want %s'
              % (name, len(rows), want_rows, cpus_of(rows), sorted(want)))
        check(not any(r['migrated'] == '1' for r in rows),
              '%s: none flagged migrated' % name)
        said(log, name, h)
        if force is None:
            default_hz = h['hz']

    tick_rate(rapp, tmp, default_hz)

    # The analyzer: cpus beyond the header's count are unknown; a sample
    # is migrated only between two true cpus.  STOP events alternately
    # name cpu 116 (a host's) and cpu 0; STARTs keep the pinned cpu's.
    log = run(rapp, tmp, cpu, 'aux-wrong')
    with open(log, 'r+b') as f:
        f.seek(H_CPU_FROM + 8)
        f.write(struct.pack('<I', max(cpu + 1, 2)))
        k = 0
        for off, word, aux in events(log):
            if word >> 28 == 2:                 # STOP
                f.seek(off + 12)
                f.write(struct.pack('<I', 116 if k % 2 == 0 else 0))
                k += 1
    rows = [r for r in dump_samples(log, tmp) if r['region'] == 't']
    host = [r for r in rows if r['cpu_stop'] == '-1']
    zero = [r for r in rows if r['cpu_stop'] == '0']
    check(len(rows) == want_rows and len(host) + len(zero) == len(rows) and
          abs(len(host) - len(zero)) <= len(rows) // 4,
          'patched: %d samples, %d stop on cpu 116 read as unknown, %d on '
          'cpu 0 (none on another)' % (len(rows), len(host), len(zero)))
    check(not any(r['migrated'] == '1' for r in host),
          'patched: a cpu unknown at STOP is no migration')
    check(cpu == 0 or all(r['migrated'] == '1' for r in zero),
          'patched: cpu %d to cpu 0 is one' % cpu)
    text = subprocess.run([os.environ['SBT_ANALYZE'], '--by', 'cpu',
                           '--no-symbols', log], capture_output=True,
                          text=True, timeout=120).stdout
    # the cpu column of the table and any "cpu N" of the text; not the
    # digits anywhere: a typical time of 116 ns (seen under TSan) is
    # no cpu
    lines = text.splitlines()
    head = next((i for i, l in enumerate(lines)
                 if l.split()[:2] == ['region', 'cpu']), None)
    shown = []
    for l in lines[head + 1:] if head is not None else []:
        if not l.strip():
            break
        shown.append(l.split()[1])
    named = re.findall(r'\bcpus?\s+(\d+)', text)
    check(head is not None and shown and '116' not in shown + named,
          'patched: --by cpu names no cpu 116 (table: %s; text: %s)'
          % (shown, named))
    done()


main()
