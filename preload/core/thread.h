/*
 * thread.h - one recording thread's state, shared by recorder.c (which
 * makes, feeds and ends it) and hot.c (the marker paths that use it).
 *
 * The first member is the struct sbt_hot of markers/sbtmark_hot.h, the part
 * the app's inline markers touch; the rest is the recorder's own.
 *
 * Invariants (between markers; `hot.busy` is set while one runs):
 *   - hot.cur <= chunk_end; [hot.cur, chunk_end) is unwritten, zeroed
 *     space of `chunk` (all NULL before the first chunk).  hot.end <=
 *     chunk_end, earlier when a probe is due there (the fast path stops
 *     at hot.end; hot.cur may pass it on the general path).
 *   - every event below hot.cur in `chunk` has its word stored, except a
 *     START whose clock read is in progress (its t is stored after).
 *   - hot.stack[0 .. hot.depth) are the open regions, oldest first, with
 *     pairwise different region ids.
 *   - hot.end is NULL when pmc >= 0 or ctrs is set (cycle and COUNT
 *     events need the recorder's path) and after CLOSE.
 *   - hot.end is NULL while a skipped call (sparse recording) is open:
 *     hot.nskip > 0, its stack entry's word of kind SBT_EV_SKIP and ev
 *     NULL; hot.end_saved is what hot.end is otherwise.  hot.busy is
 *     SBT__SKIPPING between markers when the innermost open region is
 *     one, else 0.
 *   - hot.skip[site % SBT_HOT_SKIPS], when it holds `site` with left > 0,
 *     counts into a SKIP event of this thread's log.  Losing a slot to
 *     another site loses no count, only the draw: gaps are geometric,
 *     hence memoryless - a fresh draw is as good as the rest of the old.
 *   - hot.end is the nearest of the thread's deadlines (due.h: chunk
 *     end, pair probe, tick) when no reason above holds: the fast path
 *     stops there for the general path to run what is due.
 */
#ifndef SBT_THREAD_H
#define SBT_THREAD_H

#include "regions.h"
#include "tsc.h"
#include "sbtmark_hot.h"

#define SBT_CACHE_SLOTS 256            /* name cache per thread          */
/* (ra, region) cache per thread, as large as the name cache: a miss
 * takes the general path, and at 64 slots the 60 OpenMP regions of a
 * LULESH step kept evicting each other. */
#define SBT_SITE_SLOTS  256
#define SBT_HOT_SLOTS   4              /* app objects holding our pointer */
/* hot.busy while a marker waits for the recorder's lock (attaching,
 * opening the log): shut to signal handlers (bit 0), no event in flight. */
#define SBT_BUSY_WAITING 3u
#define SBT_SLOT__MAX   4              /* per-thread API states          */

/* (return address, name pointer) -> region, and its site there.  The
 * interposed APIs key it by what stands for one region at every call
 * from a site, instead of a name (hot.h: sbt_key_slot). */
struct sbt_name_slot {
	const void *ra;
	const char *name;
	uint32_t word;                 /* START word of the site          */
	sbt_id   region;
	int      flags;                /* SBT_SLOT_*: 0 for the fast path */
};

#define SBT_SLOT_VERIFY  1             /* compare name bytes every call   */
#define SBT_SLOT_SAMPLED 2             /* region sampled: hot.c decides   */
#define SBT_SLOT_STOP    4             /* an API's STOP site: region only,
					  no START word (hot.h: keys)     */
#define SBT_SITE_SAMPLED (1u << 31)    /* sbt_site_slot.region: the same  */



/*
 * ITT's task_end and NVTX's pop name a domain, not a region: they end
 * that domain's innermost open range on this thread.  The interposed
 * APIs' stack (api_common.h) keeps (domain, id) so an end stops exactly
 * that region even when domains interleave, and pairs ends with begins
 * that could not be recorded (id 0).  Beyond SBT_API_DEPTH entries
 * begins are counted and not recorded, but still paired.  It lives in
 * the thread's state, not behind a pointer: a begin and an end each find
 * it with no load beyond the thread pointer's.
 */
#define SBT_API_DEPTH 32

struct sbt_api_stack {
	uint32_t n;                    /* entries, may exceed SBT_API_DEPTH */
	uint32_t token;                /* this thread's range token (NVTX) */
	struct { const void *key; sbt_id id; } e[SBT_API_DEPTH];
};

/* (return address, region) -> START word. */
struct sbt_site_slot {
	const void *ra;
	sbt_id   region;
	uint32_t word;
};

struct sbt_thread {
	struct sbt_hot hot;            /* first: the inline markers' part */
	int32_t  pmc;                  /* rdpmc index, -1: no cycles      */
	uint32_t index;                /* sbtmark thread number           */
	int32_t  tid;
	uint32_t chunk_size;           /* next chunk's size               */
	uint64_t rng;                  /* xorshift state: probe spacing   */
	/* The deadlines (due.h writes them): */
	struct sbt__ev *pair_at;       /* a pair probe is due from here on*/
	struct sbt__ev *tick_at;       /* tick.h's tick is due from here  */
	uint32_t tick_gap;             /* events between ticks, 0: none   */
	uint32_t tick_done;            /* events since the last tick in
					  earlier chunks                  */
	struct sbt__ev *tick_from;     /* hot.cur at the last tick, or at
					  the current chunk's start       */
	uint64_t tick_seen;            /* wall ticks at the last tick     */
	uint64_t speed_due;            /* wall ticks: the next speed probe*/
	uint64_t tick_in;              /* a START inside open regions met
					  tick_at here (wall ticks), 0: no */
	struct sbt__ev *tick_ev;       /* ... and wrote this START event  */
	uint64_t pair_in;              /* wall ticks where the START now in
					  the recorder entered it, when
					  inside open regions with a pair
					  probe due; 0: not               */
	struct sbt_chunk *chunk;       /* current EVENTS chunk            */
	struct sbt__ev *chunk_end;     /* its end                         */
	struct sbt_thread *next, *prev;/* all threads, for CLOSE          */
	struct sbt_os *os;             /* the kernel's events, or NULL    */
	struct sbt_ctrs *ctrs;         /* SBT_EVENTS' group, or NULL      */
	int32_t  omp_thread;           /* OpenMP thread number, -1: none  */
	uint32_t omp_level;            /* OpenMP nesting level, 0: none   */
	/* START events of regions open across fork, for the child's log. */
	uint32_t nreplay;
	struct sbt_event replay[2 * SBT_HOT_DEPTH];
	struct sbt_hot **hot_slots[SBT_HOT_SLOTS];
	void *api[SBT_SLOT__MAX];      /* sbt_rec_api_state() blocks      */
	void (*api_fini[SBT_SLOT__MAX])(void *);
	struct sbt_api_stack apis;     /* the interposed APIs' stack      */
	uint32_t thinned;              /* the caches are of SBT_MAX_MB's
					  thinning (sampled for all), 0: of
					  level 0 (sbt_thread_limit)      */
	struct sbt_name_slot names[SBT_CACHE_SLOTS];
	struct sbt_site_slot sites[SBT_SITE_SLOTS];
} __attribute__((aligned(64)));

/* Commit a finished event of the log (sbtmark_hot.h's sbt__commit: the
 * layouts agree, recorder.c checks); append.h's writers and the marker
 * paths' own. */
static inline void sbt_ev_commit(struct sbt_event *e, uint64_t t,
				 uint32_t aux, uint32_t word)
{
	sbt__commit((struct sbt__ev *)e, t, aux, word);
}

/* The calling thread's state, NULL before its first marker. */
extern __thread struct sbt_thread *sbt_me
	__attribute__((tls_model("initial-exec"), visibility("hidden")));

/* Ready the calling thread for a marker: attach it, open the process's
 * log when none is open yet (then *fresh is its header, for the caller to
 * calibrate; else NULL).  NULL (nothing counted) when the recorder is
 * inert, closed or the log could not be opened. */
SBT_HIDDEN struct sbt_thread *sbt_thread_enter(struct sbt_file_header **fresh);

/* Attach the calling thread without opening a log (NULL: inert). */
SBT_HIDDEN struct sbt_thread *sbt_thread_attach(void);

/* 1 while the log is open, -1 after CLOSE, 0 otherwise. */
SBT_HIDDEN int sbt_thread_log_state(void);

/* Make room for `n` events: a new chunk when the current one has less.
 * Returns 0 when there is none (log full, closed, or not open). */
SBT_HIDDEN int sbt_thread_refill(struct sbt_thread *t, uint32_t n);

/* The chunk at offset `off` of the log (0: none), for walking a thread's
 * chunks back through their `prev` links. */
SBT_HIDDEN const struct sbt_chunk *sbt_thread_chunk_at(uint64_t off);

/* Where the fast path must stop next: at the nearest deadline (due.h),
 * or never while the thread has a reason to see every marker. */
SBT_HIDDEN void sbt_thread_limit(struct sbt_thread *t);

/* A tick's kernel-event chore: drain the ring when it is past half
 * full.  1 when it drained. */
SBT_HIDDEN int sbt_thread_os_tick(struct sbt_thread *t);

/* The wall clock's rate (0 before any log was opened). */
SBT_HIDDEN uint64_t sbt_thread_tick_hz(void);

#endif
