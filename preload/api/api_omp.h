/*
 * api_omp.h - what the two OpenMP paths share: OMPT (api_ompt.c, LLVM's
 * and Intel's runtimes) and libgomp's entry points (api_gomp.c, GCC).
 *
 * Both record the same regions, per thread:
 *   "omp parallel @ LOC"  a parallel region's implicit task up to the
 *                         thread's arrival at the region's closing
 *                         barrier: the thread's share of the work;
 *   "omp barrier @ LOC"   the thread's wait at a barrier (the region's
 *                         closing one: LOC of the parallel construct;
 *                         an explicit or worksharing one: its own LOC);
 *   "omp loop @ LOC", "omp task @ LOC"   worksharing loops and explicit
 *                         tasks, with SBT_OMP_DETAIL=1 only (OMPT).
 * LOC is "<object>+0x<offset>" of the construct's code address, the
 * same in every run and every rank: the return address of the runtime
 * call the compiler emitted (OMPT's codeptr_ra; libgomp's barriers), or
 * for a parallel construct on libgomp the entry of the function GCC
 * outlined its body into (GCC's line table gives the call of
 * GOMP_parallel the line of whatever statement came before the pragma;
 * the function's entry has the pragma's own).  The analyzer shows it as
 * "file:line" (analysis/symbols/omp_names.c).  Each sample's call site
 * (the site of its START) is the runtime call's return address on both
 * paths.  Each thread's OpenMP thread number and nesting level go into
 * the log's META THREAD entries.
 */
#ifndef SBT_API_OMP_H
#define SBT_API_OMP_H

#include "hot.h"

enum sbt_omp_kind {
	SBT_OMP_PARALLEL, SBT_OMP_BARRIER, SBT_OMP_LOOP, SBT_OMP_SECTIONS,
	SBT_OMP_SINGLE, SBT_OMP_TASK, SBT_OMP__N
};

/* A construct: its code address (LOC above) and region ids.  A parallel
 * construct's `id2` is its closing barrier's region ("omp barrier" at
 * the same LOC). */
struct sbt_omp_site {
	const void *ra;
	unsigned kind;
	sbt_id id, id2;
	int ours;                  /* ra is in the recorder's own code */
};

/* The construct of `kind` at code address `ra`, made on first use
 * (cold: dladdr, the regions lock) and then found in a process-wide
 * table without a lock.  Lives for the process.  NULL when the table
 * (4096 constructs) is full (counted); its ids 0 when a name could not
 * be made or `ra` is in the recorder's own code (`ours`). */
SBT_HIDDEN const struct sbt_omp_site *sbt_omp_site(unsigned kind,
						   const void *ra);

/* Set once OMPT is on (api_ompt.c): libgomp's path (api_gomp.c) then
 * stays out of the way of a runtime that serves both (libomp exports
 * GOMP_*).  Checked at exit: a runtime neither reaches is counted. */
SBT_HIDDEN extern int sbt_ompt_active;
/* Set when a region ran that no path records (api_gomp.c: GCC's pre-4.9
 * GOMP_parallel_start); counted at exit. */
SBT_HIDDEN extern int sbt_omp_unrecorded;
SBT_HIDDEN void sbt_omp_finish(void);

/* Nesting levels tracked per thread; deeper ones are not recorded. */
#define SBT_OMP_DEPTH 8

/*
 * One thread's OpenMP state, in its SBT_SLOT_OMP block.  level is the
 * number of implicit tasks the thread is in (1: the outermost parallel
 * region); lv[level - 1] the innermost.  Invariant: a nonzero `share`
 * or `wait` is a region this thread has STARTed and not yet STOPped.
 */
struct sbt_omp_thr {
	uint32_t level;
	uint32_t outer;                   /* the outermost level entered
					     so far, 0: none yet          */
	uint32_t teams;                   /* libgomp: teams this thread
					     mastered whose waits its
					     RELEASE ends (api_gomp.c)    */
	struct sbt_omp_lv {
		sbt_id share;             /* "omp parallel" open, or 0       */
		sbt_id closing;           /* its closing barrier's region    */
		sbt_id wait;              /* a barrier wait open, or 0       */
		sbt_id work;              /* a worksharing region open, or 0 */
		const void *ra;           /* where the parallel construct
					     was called: its samples' site */
	} lv[SBT_OMP_DEPTH];
};

SBT_HIDDEN struct sbt_omp_thr *sbt_omp_thr_slow(void);

/* The calling thread's state, NULL when out of memory or inert. */
static inline struct sbt_omp_thr *sbt_omp_thr(void)
{
	struct sbt_thread *t = sbt_me;

	if (SBT_LIKELY(t != NULL) && SBT_LIKELY(t->api[SBT_SLOT_OMP] != NULL))
		return t->api[SBT_SLOT_OMP];
	return sbt_omp_thr_slow();
}

/* The runtime's omp_get_level(), looked up once: the nesting level of
 * the region the thread is in (a worker of an inner team is at level 2
 * though it never ran the outer region itself).  0 when not found. */
SBT_HIDDEN int sbt_omp_level(void);

/* The thread enters an implicit task of parallel construct `p` (NULL:
 * not recorded) as OpenMP thread `num`, the construct called from `at`
 * (NULL: p's own address): its share starts.  The START's clock read is
 * the last thing done. */
static inline void sbt_omp_enter(struct sbt_omp_thr *o,
				 const struct sbt_omp_site *p, int num,
				 const void *at)
{
	uint32_t l = o->level++, nest;

	if (l >= SBT_OMP_DEPTH)
		return;
	/* The thread is known by its number at its outermost level: one
	 * that alternates between levels 1 and 2 (nested regions) says
	 * who it is once, not twice a region. */
	nest = (uint32_t)sbt_omp_level();
	if (!nest)
		nest = l + 1;
	if (!o->outer || nest <= o->outer) {
		o->outer = nest;
		sbt_rec_thread_omp(num, nest);
	}
	if (!p) {
		o->lv[l] = (struct sbt_omp_lv){ 0 };
		return;
	}
	if (!at)
		at = p->ra;
	o->lv[l] = (struct sbt_omp_lv){ .closing = p->id2, .ra = at };
	if (p->id && sbt_hot_start_id(p->id, at) == SBT_OK)
		o->lv[l].share = p->id;
}

/* Close the current level's share (wait 0) or barrier wait (wait 1), if
 * open, at the caller's clock read (t1, aux) (sbt_hot_stop_clock). */
static inline void sbt_omp_stop_at(struct sbt_omp_thr *o, int wait,
				   uint64_t t1, uint32_t aux)
{
	sbt_id *id;

	if (o->level == 0 || o->level > SBT_OMP_DEPTH)
		return;
	id = wait ? &o->lv[o->level - 1].wait : &o->lv[o->level - 1].share;
	if (*id) {
		(void)sbt_hot_stop_id_at(*id, t1, aux);
		*id = 0;
	}
}

/* The same, the clock read first. */
static inline void sbt_omp_stop(struct sbt_omp_thr *o, int wait)
{
	uint32_t aux;
	uint64_t t1 = sbt_hot_stop_clock(&aux);

	sbt_omp_stop_at(o, wait, t1, aux);
}

/* The barrier wait open at the current level, 0: none. */
static inline sbt_id sbt_omp_waiting(const struct sbt_omp_thr *o)
{
	if (o->level == 0 || o->level > SBT_OMP_DEPTH)
		return 0;
	return o->lv[o->level - 1].wait;
}

/* The thread's share ends (it reached the closing barrier, or left the
 * implicit task without one). */
static inline void sbt_omp_share_end(struct sbt_omp_thr *o)
{
	sbt_omp_stop(o, 0);
}

/* A barrier wait begins: at barrier construct `b`, or (NULL) at the
 * closing barrier of the innermost parallel region; at the caller's
 * clock read (t0, aux) where the fast path takes it (1), else at a read
 * of its own (0; t0 = 0: always). */
static inline int sbt_omp_wait_begin_at(struct sbt_omp_thr *o,
					const struct sbt_omp_site *b,
					uint64_t t0, uint32_t aux)
{
	struct sbt_omp_lv *v;
	sbt_id bar;
	const void *ra;

	if (o->level == 0 || o->level > SBT_OMP_DEPTH)
		return 0;
	v = &o->lv[o->level - 1];
	bar = b ? b->id : v->closing;
	ra = b ? b->ra : v->ra;
	if (!bar || v->wait)
		return 0;
	if (sbt_hot_start_id_at(bar, ra, t0, aux)) {
		v->wait = bar;
		return 1;
	}
	if (sbt_hot_start_id(bar, ra) == SBT_OK)
		v->wait = bar;
	return 0;
}

static inline void sbt_omp_wait_begin(struct sbt_omp_thr *o,
				      const struct sbt_omp_site *b)
{
	(void)sbt_omp_wait_begin_at(o, b, 0, 0);
}

/* The thread's share ends at the closing barrier (*t1, *aux: that clock
 * read), and its wait there begins: 1 at the same read. */
static inline int sbt_omp_share_to_wait(struct sbt_omp_thr *o,
					uint64_t *t1, uint32_t *aux)
{
	*t1 = sbt_hot_stop_clock(aux);
	sbt_omp_stop_at(o, 0, *t1, *aux);
	return sbt_omp_wait_begin_at(o, NULL, *t1, *aux);
}

static inline void sbt_omp_wait_end(struct sbt_omp_thr *o)
{
	sbt_omp_stop(o, 1);
}

/* The thread leaves its innermost implicit task: whatever of it is still
 * open ends here. */
SBT_HIDDEN void sbt_omp_leave(struct sbt_omp_thr *o);

#endif
