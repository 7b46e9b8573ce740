#!/usr/bin/python3
"""capsite_test.py - SBT_MAX_MB's level 0 takes the inline fast path.

    capsite_test.py CAPSITE             (SBT_LIB from the env)

Below the cap's first step every call is recorded, so a region without a
sampling rate of its own keeps its call site's START word (the inline
fast path) and the log has every call and no SKIP event.  Once level 0
ends the site turns to its SKIP word and calls are left out, counted.
A binary built against this header takes the inline path on every
machine, whatever its clock read and cpu source (TSC_AUX, rseq or none).
"""
import os, struct, sys, tempfile

CAPSITE = sys.argv[1]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'common'))
import sbttest  # noqa: E402
from sbttest import check, done  # noqa: E402


def events(path):
    """(recorded STARTs of a region, calls the SKIP events count): probe
    and calibration STARTs (flags) and the calibration region left out."""
    b = open(path, 'rb').read()
    starts = skipped = 0
    off = 4096
    while off + 64 <= len(b):
        magic, typ, size = struct.unpack_from('<IIQ', b, off)
        if magic != 0x43544253 or size < 4096:
            off += 4096
            continue
        if typ == 4:
            for p in range(off + 64, off + size, 16):
                t, w = struct.unpack_from('<QI', b, p)
                if w == 0:
                    break
                kind, flags = w >> 28, (w >> 24) & 15
                if kind == 1 and not flags & 3 and w & 0xffffff:
                    starts += 1
                elif kind == 5:
                    skipped += t
        off += size
    return starts, skipped


with tempfile.TemporaryDirectory() as tmp:
    # 1 GiB: 20000 pairs stay far below the first step
    log, p = sbttest.record(tmp, 'below', CAPSITE, ['20000'], max_mb='1024')
    check(p.returncode == 0, 'capsite ran: ' + p.stderr)
    check(p.stdout.strip() == '1',
          'below the first step the site keeps its START word (fast '
          'path), kind %s' % p.stdout.strip())
    starts, skipped = events(log)
    check(starts == 20000 and skipped == 0,
          'below the first step every call recorded: %d recorded, %d '
          'skipped' % (starts, skipped))

    # 2 MiB: level 0 ends at 1 MiB, about 30000 pairs in
    log, p = sbttest.record(tmp, 'past', CAPSITE, ['400000'], max_mb='2')
    check(p.returncode == 0, 'capsite ran: ' + p.stderr)
    check(p.stdout.strip() == '5',
          'past the first step the site turned to its SKIP word, kind %s'
          % p.stdout.strip())
    starts, skipped = events(log)
    check(starts + skipped == 400000 and skipped > 0,
          'past it calls are left out and counted: %d recorded + %d '
          'skipped' % (starts, skipped))
done()
