"""rawlog.py - what a test reads of a log's bytes without the analyzer.

    from rawlog import Log, call_index

Log(path): header fields (version, tick_hz, start_ticks, end_offset,
max_mb, thin_level), the THIN meta entries, each chunk's events
(chunks: (thread, [(t, kind, flags, id)]), in the chunk's order;
streams(): each thread's chunks joined), and
each thread's recorded (non-probe) STARTs with the index of their call among all its calls,
those the recorder skipped (SBT_SAMPLE, SBT_MAX_MB) counted through the
SKIP events.  call_index() finds the call of samples by their start
(--dump's t_ns): so a test tells a sample's kind by its call, not by its
time.
"""
import bisect, struct

# format/sbtlog.h: offsets in struct sbt_file_header (x86-64, aarch64)
H_TICK_HZ, H_START_TICKS, H_END_OFFSET, H_MAX_MB = 32, 192, 976, 1056


class Log:
    """The parts of a log this test reads: header fields, THIN entries,
    and each thread's recorded (non-probe) STARTs with the index of
    their call, counted through the SKIP events."""

    def __init__(self, path):
        b = open(path, 'rb').read()
        self.size = len(b)
        self.version = struct.unpack_from('<I', b, 8)[0]
        self.tick_hz = struct.unpack_from('<Q', b, H_TICK_HZ)[0]
        self.start_ticks = struct.unpack_from('<Q', b, H_START_TICKS)[0]
        self.end_offset = struct.unpack_from('<Q', b, H_END_OFFSET)[0]
        self.max_mb, self.thin_level = struct.unpack_from('<II', b, H_MAX_MB)
        self.thin = []                  # (t ticks, level)
        self.starts = {}                # thread -> [(t0 ticks, call index)]
        self.chunks = []                # (thread, [(t, kind, flags, id)])
        calls = {}
        off = 4096
        while off + 64 <= len(b):
            magic, typ, size, used, thread = struct.unpack_from('<IIQQI', b,
                                                                off)
            if magic != 0x43544253 or size < 4096:
                off += 4096
                continue
            if typ == 2:                # META
                p = off + 64
                while p + 8 <= off + 64 + used:
                    t, _, ln = struct.unpack_from('<HHI', b, p)
                    if t == 8:
                        self.thin.append(struct.unpack_from('<QI', b, p + 8))
                    p += 8 + ((ln + 7) & ~7)
            elif typ == 4:              # EVENTS: one thread's stream
                st = self.starts.setdefault(thread, [])
                n = calls.get(thread, 0)
                evs = []
                self.chunks.append((thread, evs))
                for p in range(off + 64, off + size, 16):
                    t, w = struct.unpack_from('<QI', b, p)
                    if w == 0:
                        break
                    kind, flags, ident = w >> 28, (w >> 24) & 15, w & 0xffffff
                    evs.append((t, kind, flags, ident))
                    if kind == 1 and not flags & 3 and ident != 0:
                        st.append((t, n))
                        n += 1
                    elif kind == 5:
                        n += t
                calls[thread] = n
            off += size
        self.calls = calls


    def streams(self):
        """Each thread's events over all its chunks, in order: what the
        recorder wrote next may lie in the thread's next chunk."""
        out = {}
        for thread, evs in self.chunks:
            out.setdefault(thread, []).extend(evs)
        return out


def call_index(log, thread, t_ns):
    """The call index of each start time in t_ns (ns since the log's
    start, as --dump gives them) among thread's calls; starts that match
    no recorded START (within 1 ns) are left out."""
    raw = log.starts.get(thread, [])
    raw_ns = [(t - log.start_ticks) * 1e9 / log.tick_hz for t, _ in raw]
    idx = []
    for t in t_ns:
        i = bisect.bisect_left(raw_ns, t - 1)
        if i < len(raw_ns) and abs(raw_ns[i] - t) < 1:
            idx.append(raw[i][1])
    return idx
