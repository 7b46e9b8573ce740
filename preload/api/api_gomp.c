/*
 * api_gomp.c - OpenMP under GCC's libgomp, which has no OMPT: its
 * parallel entry points interposed (the recorder is preloaded, so ours
 * come first), forwarded to the next definition (dlsym RTLD_NEXT).
 *
 * GCC outlines a parallel region's body into fn(data) and calls one of
 *   GOMP_parallel                      (parallel; parallel for, static)
 *   GOMP_parallel_loop_{static,dynamic,guided,runtime,
 *     nonmonotonic_dynamic,nonmonotonic_guided,nonmonotonic_runtime,
 *     maybe_nonmonotonic_runtime}      (parallel for, other schedules)
 *   GOMP_parallel_sections             (parallel sections)
 *   GOMP_parallel_reductions           (parallel with task reductions)
 * (gcc 12, checked with objdump -d of tests/openmp/omp_app.c).  Every
 * thread of the team runs fn(data); we pass trampoline(&w) instead,
 * which runs it between the same region records as OMPT gives
 * (api_omp.h): the thread's share, then its wait at the closing barrier.
 *
 * The wait is derived, not waited for again: libgomp's closing barrier
 * releases the team once every thread arrived, and the master returns
 * from the entry point only then.  So a worker records its arrival (the
 * wait's START, a JOIN naming the team instance, and its STOP right
 * away, both at the share's STOP's clock read: one serialized read on
 * its way to the barrier) and returns to libgomp's barrier; the master,
 * back in the entry
 * point, closes its own wait there and writes a RELEASE event for the
 * instance; the reader ends each worker's wait at that release
 * (format/sbtlog.h, version 6).  Each thread writes only its own log;
 * the team instance (master's sbtmark number, its count of teams) is
 * written by the master into `w` before the team starts, and only read
 * by the team.  A thread that alone entered a barrier of its own would
 * break the team's count, so every thread of a team goes the same way,
 * chosen by the master: when the master has no recorder state (out of
 * memory) there is no one to write the release, and the team takes the
 * old way - a GOMP_barrier() of our own right where the region's closing
 * one is, timed around (every thread reaches it, it runs the tasks still
 * pending as that one would, and the region's own barrier then finds the
 * team already arrived).  Tasks a worker runs in libgomp's barrier come
 * after its wait's STOP in its stream (the derived way: their regions
 * are not nested in the wait).
 *
 * The barriers inside a region (explicit and worksharing ones) are
 * interposed too (the end of this file).
 *
 * Not covered: GCC's pre-4.9 entry points (GOMP_parallel_start/_end:
 * the encountering thread calls fn itself, outside any entry point;
 * counted as openmp_unrecorded), teams, the barrier inside
 * single copyprivate (GOMP_single_copy_start/_end), and worksharing
 * detail (SBT_OMP_DETAIL is OMPT's).  A runtime
 * serving both paths (LLVM's libomp exports GOMP_*) is recorded through
 * OMPT only: these pass straight through once OMPT is on.
 */
#include "api_omp.h"

#include <dlfcn.h>
#include <stdlib.h>

typedef void (*gomp_fn)(void *);

/* One region instance, on the master's stack for as long as its team
 * runs.  Written by the master before the team starts (entered: by the
 * master alone, in the team), read by the team. */
struct wrap {
	gomp_fn fn;
	void *data;
	const struct sbt_omp_site *site; /* named by fn: its pragma's line */
	const void *ra;                  /* the entry point's call site    */
	struct sbt_omp_thr *master;      /* NULL: the barrier way          */
	uint64_t link;                   /* SBT_JOIN_T of this instance    */
	int entered;                     /* the master's trampoline ran    */
};

/* libgomp's omp_get_thread_num and GOMP_barrier: resolved by wrap_on()
 * before any trampoline runs, read by the team's threads. */
static void *thread_num_fn, *barrier_fn;

/* The next definition of `name` (libgomp's), looked up once. */
static void *next(void **cache, const char *name)
{
	void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);

	if (SBT_UNLIKELY(!f)) {
		if (!(f = dlsym(RTLD_NEXT, name))) {
			sbt_warn("OpenMP: no %s after libsbtmark.so", name);
			abort();         /* the app linked it: unreachable */
		}
		__atomic_store_n(cache, f, __ATOMIC_RELEASE);
	}
	return f;
}

/* The barrier way: every thread of the team calls barrier(), recorded
 * or not (no state: out of memory, inert): a barrier some threads
 * skipped would hang the rest. */
static void wait_barrier(struct sbt_omp_thr *o)
{
	void (*barrier)(void);

	*(void **)&barrier = __atomic_load_n(&barrier_fn, __ATOMIC_ACQUIRE);
	barrier();
	if (o) {
		sbt_omp_wait_end(o);
		sbt_omp_leave(o);
	}
}

static void trampoline(void *p)
{
	struct wrap *w = p;
	struct sbt_omp_thr *o = sbt_omp_thr();
	int (*thread_num)(void);
	sbt_id wait;
	uint64_t t1 = 0;
	uint32_t aux = 0;
	int same = 0;                    /* the wait began at t1 */

	*(void **)&thread_num = __atomic_load_n(&thread_num_fn,
						__ATOMIC_ACQUIRE);
	if (o)
		sbt_omp_enter(o, w->site, thread_num(), w->ra);
	w->fn(w->data);
	if (o)
		same = sbt_omp_share_to_wait(o, &t1, &aux);
	if (!w->master) {
		wait_barrier(o);
		return;
	}
	if (o == w->master) {
		/* the master's wait ends where the region returns to it
		 * (released()) */
		w->entered = 1;
		return;
	}
	if (o) {
		/* arrived: the wait ends at the master's RELEASE, so its
		 * STOP here needs no clock of its own (the reader's end is
		 * the release's) where its START took t1 */
		if ((wait = sbt_omp_waiting(o)))
			(void)sbt_rec_join(wait, w->link);
		if (same)
			sbt_omp_stop_at(o, 1, t1, aux);
		else
			sbt_omp_wait_end(o);
		sbt_omp_leave(o);
	}
}

/* Whether to record this region: the functions we call in the team
 * found, and OMPT not already recording it.  The construct is named by
 * its outlined function fn, whose entry GCC gives the pragma's line (the
 * call's return address, the line of whatever came before the pragma);
 * its samples' site is the call.  Then the way its waits are recorded:
 * derived (the calling thread, the master, can write the release: it
 * has state) or the barrier way. */
static int wrap_on(const void *ra, struct wrap *w, gomp_fn fn, void *data)
{
	struct sbt_omp_thr *o;
	int64_t me;

	if (sbt_rec_inert() || __atomic_load_n(&sbt_ompt_active,
						  __ATOMIC_ACQUIRE))
		return 0;
	(void)next(&thread_num_fn, "omp_get_thread_num");
	(void)next(&barrier_fn, "GOMP_barrier");
	*w = (struct wrap){ fn, data,
			    sbt_omp_site(SBT_OMP_PARALLEL,
					 (const void *)(uintptr_t)fn),
			    ra, NULL, 0, 0 };
	if (!w->site)
		return 0;
	if ((o = sbt_omp_thr()) && (me = sbt_rec_thread_index()) >= 0) {
		w->master = o;
		w->link = SBT_JOIN_T(me, ++o->teams);
	}
	return 1;
}

/* The region returned to its master: the team was released.  The
 * release's clock is read first; the master's own wait ends there, and
 * the RELEASE follows it in the master's stream. */
static void released(const struct wrap *w)
{
	struct sbt_omp_thr *o = w->master;
	uint32_t aux;
	uint64_t t1;

	if (!o)
		return;
	t1 = sbt_hot_stop_clock(&aux);
	if (w->entered) {
		sbt_omp_stop_at(o, 1, t1, aux);
		sbt_omp_leave(o);
	}
	sbt_rec_release(t1, aux, SBT_JOIN_INST(w->link));
}

#define RA __builtin_return_address(0)

SBT_API void GOMP_parallel(gomp_fn fn, void *data, unsigned n, unsigned fl)
{
	static void *real;
	void (*f)(gomp_fn, void *, unsigned, unsigned);
	struct wrap w;

	*(void **)&f = next(&real, "GOMP_parallel");
	if (wrap_on(RA, &w, fn, data)) {
		f(trampoline, &w, n, fl);
		released(&w);
	} else {
		f(fn, data, n, fl);
	}
}

SBT_API unsigned GOMP_parallel_reductions(gomp_fn fn, void *data,
					  unsigned n, unsigned fl)
{
	static void *real;
	unsigned (*f)(gomp_fn, void *, unsigned, unsigned);
	struct wrap w;
	unsigned r;

	*(void **)&f = next(&real, "GOMP_parallel_reductions");
	if (wrap_on(RA, &w, fn, data)) {
		r = f(trampoline, &w, n, fl);
		released(&w);
		return r;
	}
	return f(fn, data, n, fl);
}

SBT_API void GOMP_parallel_sections(gomp_fn fn, void *data, unsigned n,
				    unsigned count, unsigned fl)
{
	static void *real;
	void (*f)(gomp_fn, void *, unsigned, unsigned, unsigned);
	struct wrap w;

	*(void **)&f = next(&real, "GOMP_parallel_sections");
	if (wrap_on(RA, &w, fn, data)) {
		f(trampoline, &w, n, count, fl);
		released(&w);
	} else {
		f(fn, data, n, count, fl);
	}
}

/* GCC before 4.9: the encountering thread calls fn itself between
 * GOMP_parallel_start and GOMP_parallel_end, outside any entry point of
 * ours - its share cannot be timed alike.  Passed through, said at exit
 * (openmp_unrecorded). */
SBT_API void GOMP_parallel_start(gomp_fn fn, void *data, unsigned n)
{
	static void *real;
	void (*f)(gomp_fn, void *, unsigned);

	*(void **)&f = next(&real, "GOMP_parallel_start");
	__atomic_store_n(&sbt_omp_unrecorded, 1, __ATOMIC_RELAXED);
	f(fn, data, n);
}

/* The loop entry points: with a chunk size, and without (runtime). */
#define LOOP_CHUNK(name)                                                    \
SBT_API void name(gomp_fn fn, void *data, unsigned n, long start,          \
		  long end, long incr, long chunk, unsigned fl)             \
{                                                                           \
	static void *real;                                                  \
	void (*f)(gomp_fn, void *, unsigned, long, long, long, long,        \
		  unsigned);                                                \
	struct wrap w;                                                      \
	*(void **)&f = next(&real, #name);                                  \
	if (wrap_on(RA, &w, fn, data)) {                                    \
		f(trampoline, &w, n, start, end, incr, chunk, fl);          \
		released(&w);                                               \
	} else {                                                            \
		f(fn, data, n, start, end, incr, chunk, fl);                \
	}                                                                   \
}

#define LOOP_RUNTIME(name)                                                  \
SBT_API void name(gomp_fn fn, void *data, unsigned n, long start,          \
		  long end, long incr, unsigned fl)                         \
{                                                                           \
	static void *real;                                                  \
	void (*f)(gomp_fn, void *, unsigned, long, long, long, unsigned);   \
	struct wrap w;                                                      \
	*(void **)&f = next(&real, #name);                                  \
	if (wrap_on(RA, &w, fn, data)) {                                    \
		f(trampoline, &w, n, start, end, incr, fl);                 \
		released(&w);                                               \
	} else {                                                            \
		f(fn, data, n, start, end, incr, fl);                       \
	}                                                                   \
}

LOOP_CHUNK(GOMP_parallel_loop_static)
LOOP_CHUNK(GOMP_parallel_loop_dynamic)
LOOP_CHUNK(GOMP_parallel_loop_guided)
LOOP_CHUNK(GOMP_parallel_loop_nonmonotonic_dynamic)
LOOP_CHUNK(GOMP_parallel_loop_nonmonotonic_guided)
LOOP_RUNTIME(GOMP_parallel_loop_runtime)
LOOP_RUNTIME(GOMP_parallel_loop_nonmonotonic_runtime)
LOOP_RUNTIME(GOMP_parallel_loop_maybe_nonmonotonic_runtime)

/* ---- barriers inside a region ------------------------------------------------ */

/*
 * The barriers GCC emits inside a region: an explicit one, and a
 * worksharing construct's closing one without nowait (a static loop's,
 * single's and a reduction's are GOMP_barrier calls; a dynamic loop's
 * and sections' are in GOMP_loop_end and GOMP_sections_end; with
 * cancellation the _cancel variants; checked with objdump of gcc 12's
 * code).  Each is the thread's wait there, "omp barrier @ LOC" with LOC
 * the call's return address, nested in the thread's share, as OMPT
 * gives it.
 *
 * A barrier that is the last thing the outlined body does is a tail
 * call (jmp GOMP_barrier: an explicit barrier ending the region, or a
 * path GCC made where nothing follows): its return address is our
 * trampoline's, no place in the app.  Nothing of the thread's share
 * follows it, so the thread's wait at the region's end starts there:
 * the closing barrier's wait spans both (the trampoline finds it
 * open).
 *
 * NULL: no wait of its own to close - none recorded (no region of ours
 * around it: level 0; OMPT on; no state) or the closing one begun.
 * Else the thread's state, its wait open.
 */
static struct sbt_omp_thr *bar_begin(const void *ra)
{
	const struct sbt_omp_site *b;
	struct sbt_omp_thr *o;
	uint64_t t1;
	uint32_t aux;

	if (sbt_rec_inert() || __atomic_load_n(&sbt_ompt_active,
						  __ATOMIC_ACQUIRE) ||
	    !(o = sbt_omp_thr()) || o->level == 0 ||
	    o->level > SBT_OMP_DEPTH || sbt_omp_waiting(o) ||
	    !(b = sbt_omp_site(SBT_OMP_BARRIER, ra)))
		return NULL;
	if (b->ours) {
		(void)sbt_omp_share_to_wait(o, &t1, &aux);
		return NULL;
	}
	sbt_omp_wait_begin(o, b);
	return sbt_omp_waiting(o) ? o : NULL;
}

/* Every call goes on to libgomp, recorded or not. */
#define BARRIER(name)                                                       \
SBT_API void name(void)                                                     \
{                                                                           \
	static void *real;                                                  \
	void (*f)(void);                                                    \
	struct sbt_omp_thr *o;                                              \
	*(void **)&f = next(&real, #name);                                  \
	o = bar_begin(RA);                                                  \
	f();                                                                \
	if (o)                                                              \
		sbt_omp_wait_end(o);                                        \
}

/* The cancellable ones: true when the region was cancelled. */
#define BARRIER_CANCEL(name)                                                \
SBT_API _Bool name(void)                                                    \
{                                                                           \
	static void *real;                                                  \
	_Bool (*f)(void), r;                                                \
	struct sbt_omp_thr *o;                                              \
	*(void **)&f = next(&real, #name);                                  \
	o = bar_begin(RA);                                                  \
	r = f();                                                            \
	if (o)                                                              \
		sbt_omp_wait_end(o);                                        \
	return r;                                                           \
}

BARRIER(GOMP_barrier)
BARRIER(GOMP_loop_end)
BARRIER(GOMP_sections_end)
BARRIER_CANCEL(GOMP_barrier_cancel)
BARRIER_CANCEL(GOMP_loop_end_cancel)
BARRIER_CANCEL(GOMP_sections_end_cancel)
