/*
 * recorder.h - the recorder's internal API.
 *
 * Every way a region reaches sbtmark - our own markers (markers.c, and
 * the inline markers of sbtmark.h through their slow path), the
 * interposed LIKWID / PAPI-HL / ITT / NVTX entry points (api_*.c, through
 * api_common.h) - calls these.
 *
 * Layers, each calling only those below it:
 *   markers.c  api_*.c -> api_common.c
 *   hot.h          the entry points' fast path, inlined into them
 *   hot.c          the marker paths (sbt_rec_start_slow ... sbt_rec_totals)
 *   recorder.c     process and threads: the log, chunks, fork, CLOSE
 *   header.c  regions.c  logfile.c  clock.c
 *   diag.c         warnings, counters, environment
 *
 * All functions are safe to call before init (they initialize lazily),
 * after close (counted and ignored), from any thread, from a signal
 * handler (a marker interrupted by one is counted, the handler's refused),
 * and with bad arguments (counted).
 */
#ifndef SBT_RECORDER_H
#define SBT_RECORDER_H

#include <stddef.h>
#include <stdint.h>
#include "sbtlog.h"
#include "diag.h"
#include "regions.h"
#include "tsc.h"
#include "sbtmark_hot.h"

#define SBT_API __attribute__((visibility("default")))

/* Return codes. */
enum {
	SBT_OK        =  0,
	SBT_EMISUSE   = -1,    /* counted in the log header                  */
	SBT_EOFF      = -2,    /* recorder inert (closed, secure-exec, ...)  */
	SBT_AGAIN     = SBT__AGAIN, /* sbt_rec_start_at: inline markers, run
				  the skip path again (sparse recording) */
};

/* Intern `name` (len bytes; len == (size_t)-1: NUL-terminated) for `api`,
 * with `ra` its first call site.  Cold path: takes a lock, hashes.
 * Returns 0 for a bad name (NULL, empty, too long) and counts it. */
SBT_HIDDEN sbt_id sbt_rec_intern(const char *name, size_t len, unsigned api,
				 const void *ra);

/*
 * The general path of START and STOP: what the fast path (hot.h's
 * sbt_hot_*, sbtmark.h's inline markers) refused or could not find in
 * the thread's caches.  These do not try the fast path again; call
 * hot.h's functions, not these.  A STOP's clock was read by its caller,
 * before anything else, as (t1, aux).
 *
 * By name: (ra, name pointer) looked up in the thread's cache, interned
 * on a miss.  `ra` is the app's call site (the caller's
 * __builtin_return_address(0)).  Names in writable memory are compared
 * with the cached name on every call, so a reused buffer is safe.
 */
SBT_HIDDEN int sbt_rec_start_slow(const char *name, unsigned api,
				  const void *ra);
SBT_HIDDEN int sbt_rec_stop_slow(const char *name, unsigned api,
				 const void *ra, uint64_t t1, uint32_t aux);

/* By id, for APIs that hand out handles (ITT string handles, NVTX
 * registered strings, Fortran names after a first lookup). */
SBT_HIDDEN int sbt_rec_start_id_slow(sbt_id id, const void *ra);
SBT_HIDDEN int sbt_rec_stop_id_slow(sbt_id id, uint64_t t1, uint32_t aux);

/* The same START, and the thread's name cache learns that `key` stands
 * for region `id` at `ra` (hot.h: sbt_key_slot), so the API's next call
 * there finds both in one probe.  key NULL: sbt_rec_start_id_slow. */
SBT_HIDDEN int sbt_rec_start_key_slow(const void *key, sbt_id id,
				      const void *ra);
/* A STOP site's: `key` at `ra` ends region `id` (no START word).  Cold:
 * after the API's own lookup; no effect while the thread is in a marker. */
SBT_HIDDEN void sbt_rec_key_stop(const void *key, sbt_id id, const void *ra);

/* The inline markers' general path: START also fills the call site's
 * slot `cs` (read-only names; a sampled region's way holds its SKIP
 * word) and hands out the thread's fast-path state in *hot. */
SBT_HIDDEN int sbt_rec_start_at(const char *name, struct sbt_csite *cs,
				struct sbt_hot **hot, unsigned abi,
				const void *ra);
SBT_HIDDEN int sbt_rec_stop_at(const char *name, uint64_t t1, uint32_t aux,
			       const void *ra);

/* RESET: this thread's earlier samples of the region no longer count. */
SBT_HIDDEN int sbt_rec_reset_id(sbt_id id);

/* The calling thread's sbtmark number (its chunks' `thread`), -1 when
 * it has no state (out of memory, inert). */
SBT_HIDDEN int64_t sbt_rec_thread_index(void);

/* A JOIN event (sbtlog.h): the wait of region `id` the thread opened
 * last ends at the RELEASE that `link` (SBT_JOIN_T) names.  Written only
 * when that START is the innermost open region and was recorded (not a
 * skipped call, not dropped): 1 written, else 0 (its STOP alone then
 * says how long it was). */
SBT_HIDDEN int sbt_rec_join(sbt_id id, uint64_t link);

/* A RELEASE event (sbtlog.h) at (t, aux), a clock read of the caller's
 * (t 0: none; read now), for the team instance `inst` the calling
 * thread mastered. */
SBT_HIDDEN void sbt_rec_release(uint64_t t, uint32_t aux, uint32_t inst);

/* Per-thread running totals of a region since its last reset (for
 * LIKWID's GetRegion, PAPI_hl_read).  Returns 0 and fills the outputs, or
 * a negative code when the region is unknown on this thread.  With `ev`
 * (room for SBT_COUNT_MAX) also the SBT_EVENTS counters summed over the
 * samples that have them, scaled where multiplexed, in COUNT id order;
 * *nev their number (0: the thread counts none). */
SBT_HIDDEN int sbt_rec_totals(sbt_id id, uint64_t *count, double *seconds,
			      double *ev, uint32_t *nev);

/* Per-thread state of an interposed API, kept in the recorder's thread
 * state so that no API needs TLS of its own (the library must stay
 * dlopen-able: INTEL_LIBITTNOTIFY64 / NVTX_INJECTION64_PATH load it that
 * way).  Returns the calling thread's zeroed block of `size` bytes for
 * `slot`, allocated on first use; at thread exit fini(block) runs (when
 * not NULL) and the block is freed.  NULL when out of memory or inert. */
enum sbt_slot { SBT_SLOT_NAMES, SBT_SLOT_KOKKOS, SBT_SLOT_OMP };
SBT_HIDDEN void *sbt_rec_api_state(unsigned slot, size_t size,
				   void (*fini)(void *));

/* The calling thread's OpenMP thread number and nesting level (OMPT,
 * libgomp's entry points).  A META THREAD entry says so from now on when
 * they changed and the thread already records; a thread's first entry,
 * with its tid and name, comes with its first chunk.  Cold: a compare
 * when nothing changed, never inside a timed window. */
SBT_HIDDEN void sbt_rec_thread_omp(int32_t omp_thread, uint32_t level);

/* 1 when some call may be skipped (SBT_SAMPLE names a region, or
 * SBT_MAX_MB is set): the entry points' STOP then tests for a skipped
 * call before its clock read.  Set before main, never changed. */
SBT_HIDDEN extern int sbt_rec_skips;

/* The library's constructors that must run in order, before those of
 * no priority (the APIs'): the configuration, then the early log. */
#define SBT_CTOR_SETUP 101
#define SBT_CTOR_EARLY 102

/* 1 when this process is the program SBT_EARLY names (sbt-run's), whose
 * log opens before main: the recorder's one-off work (clock and
 * page-fault measurements, t_e,std, the log's set-up) then lands in no
 * region of the app's own tools.  Only that program: a shell or
 * launcher between sbt-run and it opens no log of its own. */
SBT_HIDDEN int sbt_rec_early(void);

/* Process-level. */
SBT_HIDDEN int sbt_rec_init(void);          /* open the log now          */
SBT_HIDDEN int sbt_rec_thread_init(void);   /* attach this thread now    */
SBT_HIDDEN int sbt_rec_close(void);         /* finish; markers go inert  */
/* fn runs at the process's exit, before the log is finished (from a
 * constructor: the APIs above the recorder register what they need). */
SBT_HIDDEN void sbt_rec_at_exit(void (*fn)(void));
SBT_HIDDEN int sbt_rec_active(void);        /* 1 if recording            */
SBT_HIDDEN int sbt_rec_inert(void);         /* 1: SBT_DISABLE, secure-exec */
SBT_HIDDEN const char *sbt_rec_log_path(void); /* NULL until open       */
/* The calling thread's last sample (calibration tools). */
SBT_HIDDEN int sbt_rec_last(uint64_t *ticks, uint64_t *cycles);

#endif /* SBT_RECORDER_H */
