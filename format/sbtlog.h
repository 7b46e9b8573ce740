/*
 * sbtlog.h - the sbtmark log format, version 6 (versions 5 and 6 read).
 *
 * This header is the one contract between the recorder (preload/) and the
 * analyzer (analysis/).  FORMAT.md next to it explains the layout in prose;
 * change both together and bump SBT_LOG_VERSION on any incompatible change.
 *
 * Layout of a log file (all integers little-endian, as written by the host):
 *
 *   offset 0      struct sbt_file_header       (SBT_HEADER_SIZE bytes)
 *   offset 4096   chunk, chunk, chunk, ...     (each starts with sbt_chunk)
 *   ...           zero bytes                   (preallocated, never written)
 *
 * Version 2 (this one) records each thread as an append-only stream of
 * 16-byte events (EVENTS chunks): START {site, t0} and STOP {t1}.  Pairing,
 * nesting and totals are the reader's work; the recorder's hot path only
 * appends.  Version 1 wrote one 32-byte record per finished region
 * (SAMPLES chunks); readers still read it.  What changed in version 2:
 *   - chunk type EVENTS (struct sbt_event) instead of SAMPLES;
 *   - a call site is a (region, return address) pair with an id of its
 *     own, described once by a SITE2 meta entry; START events name it;
 *   - EVENTS chunks need no `used`: an event is committed by its nonzero
 *     `word`, stored last, and the stream ends at the first zero word -
 *     except START, whose word comes before its clock read (nothing may
 *     follow the read): a START cut short is one never closed, no sample.
 *
 * Chunks are carved from the file by any thread with one atomic add, so
 * they appear in allocation order, not thread order.  A chunk is owned by
 * exactly one writer; its `used` field is stored after the payload bytes
 * it covers, so a reader that sees `used` also sees those bytes - even if
 * the process was killed a moment later (the file is a shared mapping, the
 * kernel keeps the pages).  A chunk with magic 0 ends the chunk sequence.
 */
#ifndef SBTLOG_H
#define SBTLOG_H

#include <stdint.h>

#define SBT_LOG_MAGIC      "SBTMARK"          /* 8 bytes with the NUL */
#define SBT_LOG_VERSION    6u                 /* written, and read     */
#define SBT_LOG_VERSION_MIN 5u                /* the oldest still read */
#define SBT_HEADER_SIZE    4096u
#define SBT_CHUNK_MAGIC    0x43544253u        /* "SBTC" */

/* ---- file header ------------------------------------------------------ */

enum sbt_arch  { SBT_ARCH_X86_64 = 1, SBT_ARCH_AARCH64 = 2 };

/* Which clocks a sample carries.  Wall is always present. */
enum sbt_clock {
	SBT_CLOCK_WALL   = 1u << 0,   /* TSC (rdtscp) or cntvct_el0          */
	SBT_CLOCK_CYCLES = 1u << 1,   /* core cycles (rdpmc / pmccntr_el0)   */
};

/* Header flags. */
enum sbt_hflag {
	SBT_HF_CLOSED   = 1u << 0,    /* writer finished cleanly (exit/close)*/
	SBT_HF_CPU_AUX  = 1u << 1,    /* cpu fields come from TSC_AUX        */
	SBT_HF_FORKED   = 1u << 2,    /* writer is a fork child              */
};

/* Misuse and loss counters, live in the header (crash-safe).  One table:
 * X(name, key for reports, what the recorder says when it first counts). */
#define SBT_COUNTERS(X)                                                      \
	X(STOP_WITHOUT_START, "stop_without_start",                          \
	  "STOP of a region that is not open")                               \
	X(START_OPEN, "start_of_open_region",                                \
	  "START of a region that is already open")                          \
	X(CROSSED, "crossed_nesting",                                        \
	  "regions stopped out of nesting order")                            \
	X(BAD_NAME, "bad_name", "NULL, empty or over-long region name")      \
	X(TOO_DEEP, "too_deep", "regions nested deeper than 64")             \
	X(TOO_MANY_REGIONS, "too_many_regions",                              \
	  "more than 1048575 distinct regions or 16777215 call sites")       \
	X(DROPPED, "dropped", "samples dropped: no space left for the log")  \
	X(AFTER_CLOSE, "after_close", "markers after CLOSE")                 \
	X(SIGNAL, "signal_reentry",                                          \
	  "marker interrupted a marker (signal handler)")                    \
	X(OPEN_AT_EXIT, "open_at_thread_exit",                               \
	  "regions still open when a thread exited")                         \
	X(THREADS, "threads", NULL)     /* threads that recorded: no misuse */ \
	X(OS_MISSED, "os_events_missed",                                     \
	  "a thread's OS events could not be opened (fds or locked memory)") \
	X(OMP_UNRECORDED, "openmp_unrecorded",                               \
	  "an OpenMP runtime ran that neither OMPT nor libgomp's entry "     \
	  "points reach: its parallel regions are not recorded")

enum sbt_counter {
#define SBT_X_ENUM(name, key, text) SBT_CNT_##name,
	SBT_COUNTERS(SBT_X_ENUM)
#undef SBT_X_ENUM
	SBT_CNT__USED,                /* counters defined so far            */
	SBT_CNT__N = 16               /* slots in the header (room to grow) */
};
_Static_assert(SBT_CNT__USED <= SBT_CNT__N, "counter slots");

struct sbt_file_header {
	char     magic[8];            /* SBT_LOG_MAGIC                        */
	uint32_t version;             /* SBT_LOG_VERSION                      */
	uint32_t header_size;         /* SBT_HEADER_SIZE                      */
	uint32_t arch;                /* enum sbt_arch                        */
	uint32_t clocks;              /* enum sbt_clock bits                  */
	uint32_t flags;               /* enum sbt_hflag bits (live)           */
	uint32_t record_size;         /* sizeof(struct sbt_record)            */

	/* Wall clock: ns = ticks * 1e9 / tick_hz. */
	uint64_t tick_hz;             /* wall-clock frequency                 */
	uint32_t tick_quantum;        /* smallest non-zero step seen (ticks)  */
	uint32_t reserved0;
	char     tick_source[16];     /* "perf", "sysfs", "calibrated", "run"
	                                 (calibrated, then the run's rate as
	                                 the log was finished), "cntfrq"      */
	char     cycles_note[64];     /* why the cycle clock is (un)usable    */

	/* Startup calibration of an empty START/STOP pair through the real
	 * marker path, in wall ticks (and cycles when available). */
	uint64_t te_min_ticks;        /* t_e,std: the minimum                 */
	uint64_t te_p50_ticks;
	uint64_t te_p999_ticks;
	uint64_t te_min_cycles;
	uint32_t te_samples;
	uint32_t kernel_entry_ns;     /* min syscall round trip: OS floor     */

	/* Who wrote this. */
	int32_t  pid, ppid;
	int32_t  rank, nranks;        /* -1 when not launched as a rank       */
	uint64_t start_unix_ns;       /* CLOCK_REALTIME at log creation       */
	uint64_t start_ticks;         /* wall ticks at log creation           */
	uint32_t probe_period;        /* in-situ noise probe every N starts   */
	uint32_t reserved1;
	char     host[64];
	char     cpu_model[64];
	char     exe[512];

	/* Live counters (enum sbt_counter), updated while running. */
	uint64_t counters[SBT_CNT__N];
	uint64_t end_offset;          /* bytes of chunks in use (hint only)   */

	/* The kernel's record of the threads' context switches, page
	 * faults and migrations (OS META entries).  Zero in logs of
	 * recorders that predate it: "not recorded". */
	uint32_t os_events;           /* enum sbt_os_state                    */
	uint32_t os_pages;            /* ring pages per thread                */
	char     os_note[64];         /* why unavailable / off                */

	/* SBT_MAX_MB: the cap (0: none) and the thinning level reached
	 * (live: raised while running, one THIN meta entry each time).
	 * Zero in logs of recorders that predate it. */
	uint32_t max_mb;
	uint32_t thin_level;          /* live                                 */

	/* Where the events' cpu numbers came from and how the clock was
	 * read.  Zero in logs of recorders that predate them: TSC_AUX
	 * taken on trust, rdtscp, the machine's cpus not said. */
	uint32_t cpu_from;            /* enum sbt_cpu_from bits: what each
					 thread's check chose (live)        */
	uint32_t clock_read;          /* enum sbt_clock_read                  */
	uint32_t ncpus;               /* cpus the machine has (configured):
					 a cpu number >= ncpus is none      */
	uint32_t fault_ns;            /* a first touch of a fresh page at
					 start, ns (header.c; 0: not
					 measured, older logs)              */

	/* What marking threads still paid for the log's memory (live): the
	 * time they spent readying pages or growing the file themselves
	 * when they took a chunk the preparer had not readied, and those
	 * bytes.  The log's opening readies its first MiB; zero in logs of
	 * recorders that predate it: not counted. */
	uint64_t log_wait_ns;
	uint64_t log_late_bytes;

	/* Page faults in a storm (with os_events ON): the kernel's record
	 * of a fault costs the thread fault_record_ns (measured at start);
	 * a thread whose faults come faster than fault_rate_max a second
	 * (what 1 % of its time affords) records 1 in K of them, each FAULT
	 * event's count the K it stands for.  Zero in logs of recorders
	 * that predate it: every fault recorded. */
	uint32_t fault_record_ns;
	uint32_t fault_rate_max;
};

/* Per thread, at its start, the recorder compares TSC_AUX (rdtscp's aux)
 * with the kernel's getcpu().  Where they agree the events' aux is
 * rdtscp's; where they disagree (a hypervisor leaves the host's value
 * there) or there is no rdtscp, aux is the cpu the kernel's rseq area
 * names, read outside the timed window (before START's clock read, after
 * STOP's), or SBT_AUX_UNKNOWN.  Either way aux is node << 12 | cpu. */
enum sbt_cpu_from {
	SBT_CPU_FROM_AUX  = 1u << 0,  /* TSC_AUX, checked against getcpu()   */
	SBT_CPU_FROM_RSEQ = 1u << 1,  /* the rseq area's cpu_id              */
	SBT_CPU_FROM_NONE = 1u << 2,  /* neither: cpus unknown               */
};

enum sbt_clock_read {
	SBT_READ_RDTSCP = 1,          /* lfence;rdtscp;lfence .. rdtscp;lfence*/
	SBT_READ_RDTSC  = 2,          /* lfence;rdtsc;lfence at both ends:
					 CPUID says no RDTSCP               */
	SBT_READ_CNTVCT = 3,          /* Armv8: isb; mrs cntvct_el0           */
};

#define SBT_AUX_UNKNOWN 0xffffffffu   /* an event's aux: cpu unknown     */

enum sbt_os_state {
	SBT_OS_NONE        = 0,       /* not recorded (older recorder)        */
	SBT_OS_ON          = 1,       /* OS entries hold the kernel's events  */
	SBT_OS_OFF         = 2,       /* turned off (SBT_OS_EVENTS=0)         */
	SBT_OS_UNAVAILABLE = 3,       /* perf_event_open refused: os_note     */
};

/* ---- chunks ----------------------------------------------------------- */

enum sbt_chunk_type {
	SBT_CHUNK_SAMPLES = 1,        /* payload: struct sbt_record[]         */
	SBT_CHUNK_META    = 2,        /* payload: struct sbt_meta entries     */
	SBT_CHUNK_PAD     = 3,        /* payload: nothing                     */
	SBT_CHUNK_EVENTS  = 4,        /* payload: struct sbt_event[] (v2)     */
};

struct sbt_chunk {
	uint32_t magic;               /* SBT_CHUNK_MAGIC                      */
	uint32_t type;                /* enum sbt_chunk_type                  */
	uint64_t size;                /* bytes including this header          */
	uint64_t used;                /* payload bytes committed (SAMPLES,
					 META; EVENTS end at a zero word)   */
	uint32_t thread;              /* sbtmark thread index, from 0         */
	int32_t  tid;                 /* kernel thread id                     */
	uint64_t prev;                /* offset of the writer's previous
					 SAMPLES / EVENTS chunk, 0: first   */
	uint64_t reserved[3];         /* pad to one cache line                */
};

/* Version 1: one timed region.  32 bytes: two samples per cache line. */
struct sbt_record {
	uint64_t start;               /* wall ticks at START                  */
	uint64_t ticks;               /* wall ticks STOP - START              */
	uint64_t cycles;              /* core cycles STOP - START, or 0       */
	uint32_t region;              /* SBT_REC_ID() | SBT_REC_FLAGS()       */
	uint16_t cpu_start;           /* cpu at START (from TSC_AUX)          */
	uint16_t cpu_stop;            /* cpu at STOP                          */
};

#define SBT_REC_ID_BITS   24
#define SBT_REC_ID(r)     ((r) & ((1u << SBT_REC_ID_BITS) - 1))
#define SBT_REC_FLAGS(r)  ((r) >> SBT_REC_ID_BITS)
#define SBT_CPU_UNKNOWN   0xffffu
#define SBT_AUX_CPU(aux)  ((aux) & 0xfffu)    /* Linux TSC_AUX: node<<12|cpu */

enum sbt_rec_flag {
	SBT_RF_PROBE   = 1u << 0,     /* empty pair at this region's start    */
	SBT_RF_CALIB   = 1u << 1,     /* startup calibration pair             */
	SBT_RF_RESET   = 1u << 2,     /* RESET event: ticks/cycles are 0      */
	SBT_RF_CROSSED = 1u << 3,     /* closed out of nesting order          */
};

/* Region id 0 is the startup calibration region "<calibration>". */
#define SBT_REGION_CALIB  0u

/* ---- version 2: events ---------------------------------------------------- */

/*
 * One event of a thread's stream.  16 bytes, 8-aligned.  `word` is stored
 * last: a zero word ends the stream (chunk space starts out zero), so a
 * reader never sees a half-written event as one.
 *
 *   START    t = wall ticks at START, id = site            (SBT_META_SITE2)
 *   STOP     t = wall ticks at STOP,  id = the site of the START it closes
 *   RESET    t = wall ticks,          id = region
 *   CYCLES   t = core cycles at the START or STOP just before it
 *   SKIP     t = calls of site `id` on this thread not recorded since
 *                the START before it (version 3: sparse recording).
 *                Written as 0 with that START and counted up in place,
 *                so the count in the file is exact at any moment.
 *   COUNT    t = a value of the thread's counters (version 4:
 *                SBT_EVENTS), read around a START or STOP: after the
 *                START (and its CYCLES) or the STOP (and its CYCLES)
 *                come id SBT_COUNT_ENABLED, SBT_COUNT_RUNNING (of the
 *                first perf group, ns), then one per counter, id = the
 *                counter's index (SBT_META_COUNTER).  START reads them
 *                before its clock, STOP after its own.  A reading with
 *                ENABLED 0 failed: no count from it.
 *
 * A STOP closes the innermost open START with the same site id; it is
 * innermost unless flagged CROSSED.  STARTs never closed (in flight at a
 * crash, open at thread exit) are not samples.  Flags are SBT_RF_*.
 */
struct sbt_event {
	uint64_t t;
	uint32_t word;                /* kind << 28 | flags << 24 | id        */
	uint32_t aux;                 /* TSC_AUX at the read (x86), else 0    */
};

enum sbt_ev_kind {
	SBT_EV_START = 1, SBT_EV_STOP = 2, SBT_EV_RESET = 3, SBT_EV_CYCLES = 4,
	SBT_EV_SKIP = 5, SBT_EV_COUNT = 6,
	SBT_EV_SPEED = 7,             /* version 5: a speed probe, see below  */
	SBT_EV_JOIN = 8,              /* version 6: see below                 */
	SBT_EV_RELEASE = 9,           /* version 6: see below                 */
};

/* Version 6: a thread's wait at a team's closing barrier, ended by
 * another thread (libgomp, whose barrier the recorder does not enter):
 *   JOIN     right after the START of the wait, which it marks as one
 *            whose end is another thread's: id = the START's site,
 *            t = SBT_JOIN_T(master, instance), aux = 0.  The wait's STOP
 *            follows as usual, its t the thread's own (its arrival); the
 *            sample ends instead at
 *   RELEASE  written by the team's master (sbtmark thread `master`) when
 *            the region returned to it, after every thread of the team
 *            arrived: t = wall ticks then, id = instance (the master's
 *            count of its recorded teams, modulo 2^24), aux = TSC_AUX.
 * A JOIN's sample ends at the first RELEASE of (master, instance) at or
 * after its START; none (the master's log cut short): it keeps its STOP. */
#define SBT_JOIN_T(master, inst) \
	((uint64_t)(uint32_t)(master) << 32 | ((uint32_t)(inst) & 0xffffffu))
#define SBT_JOIN_MASTER(t) ((uint32_t)((t) >> 32))
#define SBT_JOIN_INST(t)   ((uint32_t)(t) & 0xffffffu)

/* Version 5: a speed probe (SBT_SPEED_US).  A fixed register-only
 * workload (struct sbt_meta_speed says which) timed between the same
 * serialized reads as a region:
 *   SPEED    t = wall ticks at the probe's first read,
 *            id = the probe's duration in wall ticks (clamped to
 *            SBT_EV_ID_BITS), aux = TSC_AUX at the first read.
 * Its place in the stream is where it ran; see FORMAT.md for how a
 * probe inside an open region is accounted.  Flagged SBT_SPEED_SPAN, a
 * SPEED event is no probe: the recorder left the marker path while
 * regions of the thread were open, from wall tick t for id ticks (a
 * probe - a speed probe or an in-situ PROBE pair -, a drain of the
 * kernel's events); the reader takes that span out
 * of every sample open across it.  A PROBE pair's span, when the START
 * that ran it opens a window, ends at that START's clock read (its word
 * stored again once that read is made: the stream is whole in between,
 * with the shorter span).   With no region open, every tick still
 * writes its span (t its start): where the thread left the application,
 * whose next calls the analyzer treats as it does those after a probe. */
#define SBT_SPEED_SPAN 1u             /* SPEED flag: a detour's span    */

/* The speed probes' cadence when SBT_SPEED_US is not set (us): the
 * recorder's default, and the reader's for a log that states none. */
#define SBT_SPEED_US_DEFAULT 100u

/* COUNT ids: the group's time enabled and running (ns; scale a delta by
 * enabled / running when multiplexed), and counters 0 .. SBT_COUNT_MAX-1. */
#define SBT_COUNT_ENABLED 0xfffffeu
#define SBT_COUNT_RUNNING 0xffffffu
#define SBT_COUNT_MAX     8u

#define SBT_EV_ID_BITS    24
#define SBT_EV_WORD(kind, flags, id) \
	((uint32_t)(kind) << 28 | (uint32_t)(flags) << 24 | (uint32_t)(id))
#define SBT_EV_KIND(w)    ((w) >> 28)
#define SBT_EV_FLAGS(w)   (((w) >> 24) & 0xfu)
#define SBT_EV_ID(w)      ((w) & ((1u << SBT_EV_ID_BITS) - 1))
#define SBT_SITE_CALIB    0u          /* site id of the calibration pairs */
#define SBT_MAX_SITES     (1u << SBT_EV_ID_BITS)

/* ---- meta entries ------------------------------------------------------ */

/* Meta entries are packed in META chunks, each 8-byte aligned:
 *   struct sbt_meta, then `len` payload bytes, then padding to 8.        */
struct sbt_meta {
	uint16_t type;                /* enum sbt_meta_type                   */
	uint16_t reserved;
	uint32_t len;                 /* payload bytes after this struct      */
};

enum sbt_meta_type {
	/* Payload: struct sbt_meta_region, then the name (len - 16 bytes,
	 * not NUL-terminated). */
	SBT_META_REGION = 1,
	/* Payload: struct sbt_meta_module, then the path. */
	SBT_META_MODULE = 2,
	/* Version 1.  Payload: struct sbt_meta_site, then `depth` uint64_t
	 * frames (frame 0 is the call site itself). */
	SBT_META_SITE   = 3,
	/* Version 2: one per (region, call site).  Payload: struct
	 * sbt_meta_site2, then `depth` uint64_t frames, frame 0 the call
	 * site (the return address of the marker call). */
	SBT_META_SITE2  = 4,
	/* Payload: struct sbt_meta_os, then struct sbt_os_event[]: a run
	 * of one thread's OS events, in time order, drained from the
	 * kernel's ring off the hot path.  Runs of a thread follow each
	 * other in the order of their `seq`. */
	SBT_META_OS     = 5,
	/* Any version (older readers skip it).  Payload: struct
	 * sbt_meta_buildid, then `len` bytes: the GNU build-id of the module
	 * whose MODULE entry has the same `lo`. */
	SBT_META_BUILDID = 6,
	/* Version 4: one per event named in SBT_EVENTS.  Payload: struct
	 * sbt_meta_counter, then the name as given (not NUL-terminated). */
	SBT_META_COUNTER = 7,
	/* Any version (older readers skip it).  Payload: struct
	 * sbt_meta_thin: SBT_MAX_MB raised the thinning level to `level`
	 * at wall tick `t`; from then on every region records one call in
	 * N_r * 2^level on average.  One per level, in any order. */
	SBT_META_THIN = 8,
	/* Version 5.  Payload: struct sbt_meta_speed: the speed probe's
	 * workload and cadence, once per log (absent: no probes). */
	SBT_META_SPEED = 9,
	/* Version 5.  Payload: struct sbt_meta_thread, then the thread's
	 * name (comm, pthread_setname_np; not NUL-terminated).  Written when
	 * a thread is first seen and again whenever what it says changes
	 * (a later entry of the same thread holds from its `t` on). */
	SBT_META_THREAD = 10,
	/* Any version (older readers skip it).  Payload: struct
	 * sbt_meta_names, then `zlen` bytes: a zlib stream of the names
	 * table (struct sbt_names_head ...).  Appended after the run by
	 * `sbt-analyze --embed-names` (sbt-run does it), in a META chunk of
	 * its own tagged SBT_NAMES_TAG; a later valid one replaces an
	 * earlier one. */
	SBT_META_NAMES = 11,
	/* Any version (older readers skip it).  Payload: struct
	 * sbt_meta_memlat, then `n` struct sbt_memlat: a run of one
	 * thread's memory-latency probes, taken with its speed probes (a
	 * second axis of the machine's speed).  A thread's runs follow in
	 * time order; its last run, fewer than SBT_MEMLAT_RUN probes, may be
	 * missing when the thread was still running at the log's end. */
	SBT_META_MEMLAT = 12,
};

/* Which API a region came in through: X(name, value, report name). */
#define SBT_APIS(X)                                                          \
	X(SBTMARK, 0, "sbtmark") X(LIKWID, 1, "likwid")                      \
	X(PAPI_HL, 2, "papi-hl") X(ITT, 3, "itt") X(NVTX, 4, "nvtx")         \
	X(INTERNAL, 5, "internal") X(OPENMP, 6, "openmp")                   \
	X(KOKKOS, 7, "kokkos") X(CALIPER, 8, "caliper")

enum sbt_api {
#define SBT_X_ENUM(name, value, text) SBT_API_##name = value,
	SBT_APIS(SBT_X_ENUM)
#undef SBT_X_ENUM
	SBT_API__N
};

struct sbt_meta_region {
	uint32_t id;
	uint16_t api;                 /* enum sbt_api                         */
	uint16_t reserved;
	uint64_t site;                /* first call site (return address)     */
};

struct sbt_meta_module {
	uint64_t base;                /* load bias (dlpi_addr)                */
	uint64_t lo, hi;              /* lowest / highest mapped address      */
};

struct sbt_meta_buildid {
	uint64_t lo;                  /* the module's lowest address          */
	uint32_t len;                 /* bytes of build-id that follow        */
	uint32_t reserved;
};

#define SBT_BUILDID_MAX 64

struct sbt_meta_site {
	uint32_t region;
	uint32_t depth;               /* number of frames that follow         */
};

struct sbt_meta_site2 {
	uint32_t id;                  /* site id, 1 .. SBT_MAX_SITES-1        */
	uint32_t region;
	uint32_t depth;               /* number of frames that follow         */
	uint32_t reserved;
};

/* An event of SBT_EVENTS: counted as COUNT id `index`, or unavailable
 * (index SBT_COUNTER_NONE, `err` the errno perf_event_open gave, -1 for
 * a name no table knows). */
struct sbt_meta_counter {
	uint32_t index;               /* COUNT id, or SBT_COUNTER_NONE        */
	int32_t  err;                 /* errno when unavailable, else 0       */
	uint32_t type;                /* perf_event_attr type and config      */
	uint32_t flags;               /* enum sbt_counter_flag                */
	uint64_t config;
};

#define SBT_COUNTER_NONE 0xffffffffu

struct sbt_meta_thin {
	uint64_t t;                   /* wall ticks when the level rose       */
	uint32_t level;               /* 1, 2, ...: the new level             */
	uint32_t reserved;
};

struct sbt_meta_speed {
	uint32_t ops;                 /* dependent ops the workload runs      */
	uint32_t cadence_us;          /* a probe every this much marking      */
	uint64_t reserved[2];
};

/* The memory-latency probe: `loads` dependent loads chasing one random
 * cycle through the cache lines of a buffer of `bytes` (a few times the
 * L2, from the machine's cache sizes at start-up), timed between the
 * same serialized reads as a region, right after a speed probe.  Each
 * thread resumes the cycle where its last probe left it, so a line
 * comes round again only after bytes / 64 / loads probes: the loads go
 * to the caches past the L2 or to memory, and their time moves with
 * what else uses them (another process's streaming, the host's). */
#define SBT_MEMLAT_RUN 32u            /* probes a META MEMLAT run holds */
struct sbt_meta_memlat {
	uint32_t thread;              /* sbtmark thread index                 */
	uint32_t n;                   /* probes that follow                   */
	uint32_t loads;               /* dependent loads a probe chases       */
	uint32_t reserved;
	uint64_t bytes;               /* the chased buffer's size             */
};

struct sbt_memlat {
	uint64_t t;                   /* wall ticks at the probe's first read */
	uint32_t ticks;               /* its duration in wall ticks           */
	uint32_t aux;                 /* TSC_AUX at its first read            */
};
_Static_assert(sizeof(struct sbt_meta_memlat) == 24, "memlat run head");
_Static_assert(sizeof(struct sbt_memlat) == 16, "memlat probe");

struct sbt_meta_thread {
	uint32_t thread;              /* sbtmark thread index                 */
	int32_t  tid;                 /* kernel thread id                     */
	int32_t  omp_thread;          /* OpenMP thread number, -1: unknown    */
	uint32_t omp_level;           /* OpenMP nesting level, 0: none        */
	uint64_t t;                   /* wall ticks from which this holds     */
};

/* The names section (SBT_META_NAMES): the log's code addresses - its
 * call sites' frames and its regions' first sites - resolved to source
 * frames where the binaries were at hand, so that a log is analyzed
 * alike without them.  Version SBT_NAMES_VERSION of its table. */
#define SBT_NAMES_VERSION  1u
#define SBT_NAMES_TAG      0x53454d414e544253ull  /* "SBTNAMES", chunk
						     reserved[0]         */
#define SBT_NAMES_ZMAX     ((1u << 20) - 4096)  /* zlen at most: the entry
						   fits a reader's 1 MiB */
#define SBT_NAMES_RAWMAX   (16u << 20) /* raw_len at most            */
#define SBT_NAMES_FRAMES   8u          /* source frames per address  */

struct sbt_meta_names {
	uint32_t version;             /* SBT_NAMES_VERSION                    */
	uint32_t raw_len;             /* bytes of the table, inflated         */
	uint32_t crc;                 /* CRC-32 (zlib's) of those bytes       */
	uint32_t zlen;                /* bytes of the zlib stream that follow */
};

/* The table, inflated: a head, then nmod modules, naddr addresses (by
 * addr, ascending, each once), nframe frames and nstr bytes of
 * NUL-terminated strings (the last byte a NUL).  Strings are offsets
 * into those bytes. */
struct sbt_names_head {
	uint32_t nmod, naddr, nframe, nstr;
};

struct sbt_names_mod {
	uint64_t lo;                  /* the MODULE entry's lo: a check       */
	uint32_t index;               /* its MODULE entry, 0 the first in the
					 file                               */
	uint32_t state;               /* 0 debug info read, 3 symbol table
					 only (no debug info)               */
};

struct sbt_names_addr {
	uint64_t addr;                /* a return address as the log has it  */
	uint32_t mod;                 /* index into the table's modules       */
	uint32_t frame0;              /* its first frame                      */
	uint32_t nframes;             /* 0 .. SBT_NAMES_FRAMES, innermost first*/
	uint32_t flags;               /* SBT_NAMES_ENTRY                      */
};

/* The address is a function's entry, named as such: an OpenMP
 * construct's outlined body (libgomp's path), its frame the pragma's
 * line (the function's first line-table row), not a return address's. */
#define SBT_NAMES_ENTRY 1u

struct sbt_names_frame {
	uint32_t function;            /* string: demangled, "" unknown        */
	uint32_t file;                /* string: as the debug info names it   */
	int32_t  line;                /* 0 unknown                            */
	uint32_t inlined;             /* 1: inlined into the next frame       */
};

_Static_assert(sizeof(struct sbt_names_addr) == 24, "names address");

#define SBT_THIN_MAX 32u              /* the highest level ever written  */

enum sbt_counter_flag {
	/* In the group whose ENABLED / RUNNING the COUNT events carry: a
	 * delta is scaled by enabled / running.  Others (software events,
	 * never multiplexed) are exact as read. */
	SBT_COUNTER_SCALED = 1u << 0,
	SBT_COUNTER_USER   = 1u << 1,     /* counts user mode only        */
};

/* OS events of one thread (SBT_META_OS).  Every drain ends with a run
 * (empty when nothing happened) whose `until` says the thread's record is
 * whole up to then: samples later than a thread's last `until` (it was
 * still running at exit) have no record. */
struct sbt_meta_os {
	uint32_t thread;              /* sbtmark thread index                 */
	int32_t  tid;
	uint32_t seq;                 /* run number within the thread         */
	uint32_t n;                   /* events that follow                   */
	uint64_t until;               /* wall ticks: all events up to here
					 are in this run or earlier ones    */
};

/* One event the kernel saw on the thread.  `t` is in wall ticks (the
 * recorder maps the kernel's CLOCK_MONOTONIC onto them); a switch-out
 * is the moment the thread left its cpu, a switch-in when it came back. */
struct sbt_os_event {
	uint64_t t;
	uint16_t kind;                /* enum sbt_os_kind                     */
	uint16_t cpu;                 /* cpu the kernel reported              */
	uint32_t count;               /* LOST: events lost (0: some, the ring
					 was full when drained); FAULT: the
					 faults it stands for (K > 1 in a
					 storm, file header); else 1       */
};

enum sbt_os_kind {
	SBT_OS_SWITCH_OUT = 1,        /* left the cpu of its own accord       */
	SBT_OS_PREEMPTED  = 2,        /* left the cpu, preempted              */
	SBT_OS_SWITCH_IN  = 3,        /* back on a cpu                        */
	SBT_OS_FAULT      = 4,        /* page fault                           */
	SBT_OS_MIGRATE    = 5,        /* moved to another cpu                 */
	SBT_OS_LOST       = 6,        /* ring overflow: `count` events lost   */
};

_Static_assert(sizeof(struct sbt_os_event) == 16, "os event size");

_Static_assert(sizeof(struct sbt_file_header) <= SBT_HEADER_SIZE,
	       "header must fit its page");
_Static_assert(sizeof(struct sbt_chunk) == 64, "chunk header is a line");
_Static_assert(sizeof(struct sbt_record) == 32, "two records per line");
_Static_assert(sizeof(struct sbt_event) == 16, "four events per line");

#endif /* SBTLOG_H */
