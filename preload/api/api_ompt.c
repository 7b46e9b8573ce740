/*
 * api_ompt.c - libsbtmark.so as an OpenMP tool (OMPT, OpenMP 5.x):
 * LLVM's libomp (clang -fopenmp) and Intel's runtime call our
 * ompt_start_tool when they start, and then the callbacks registered
 * below.  Regions recorded: api_omp.h.
 *
 * What each callback does, per thread:
 *   parallel_begin (the encountering thread, once per region): the
 *     construct's regions, found by codeptr_ra, into parallel_data for
 *     the team's threads;
 *   implicit_task begin: OpenMP thread `index`, level + 1; "omp
 *     parallel" STARTs.  The initial task (flag SBT_OMPT_TASK_INITIAL) is
 *     not a parallel region's: not recorded.
 *   sync_region begin of the closing barrier (implicit_parallel, or
 *     5.0's implicit barrier at the task's level): the share STOPs;
 *   sync_region_wait begin / end: "omp barrier" STARTs / STOPs - the
 *     time the thread waited there (tasks it ran meanwhile included);
 *   implicit_task end: anything still open STOPs, level - 1.
 * With SBT_OMP_DETAIL=1 also work (loops, sections, single: each
 * thread's part) and explicit tasks (task_create names a task by its
 * codeptr_ra, task_schedule STARTs it when it runs, STOPs it when it
 * completes or is switched out).  They are off by default: their
 * callbacks come per loop and per task, the regions' per region.
 *
 * The ABI (ompt_abi.h) is ours, written from the OpenMP 5.1
 * specification: libomp-14-dev's omp-tools.h sits in a clang-versioned
 * directory gcc does not search; tests/openmp/ompt_abi.c checks ours
 * against it.
 */
#include "api_omp.h"
#include "api_common.h"
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "ompt_abi.h"

/* ---- state ---------------------------------------------------------------- */

int sbt_ompt_active;

/* ---- callbacks -------------------------------------------------------------- */

static void on_parallel_begin(sbt_ompt_data *task, const void *frame,
			      sbt_ompt_data *par, unsigned req, int flags,
			      const void *ra)
{
	(void)task, (void)frame, (void)req, (void)flags;
	if (par)
		par->ptr = (void *)sbt_omp_site(SBT_OMP_PARALLEL, ra);
}

/* parallel_data holds the construct (parallel_begin ran before any
 * implicit task of the region). */
static void on_implicit_task(int endpoint, sbt_ompt_data *par,
			     sbt_ompt_data *task, unsigned n, unsigned index,
			     int flags)
{
	struct sbt_omp_thr *o;

	(void)task, (void)n;
	if (flags & SBT_OMPT_TASK_INITIAL)
		return;
	if (!(o = sbt_omp_thr()))
		return;
	if (endpoint == SBT_OMPT_BEGIN)
		sbt_omp_enter(o, par ? par->ptr : NULL, (int)index, NULL);
	else if (endpoint == SBT_OMPT_END)
		sbt_omp_leave(o);
}

/* The region's closing barrier: 5.1's implicit_parallel; before it (5.0
 * runtimes) "implicit", told from a worksharing construct's by its code
 * address - none, or the parallel construct's own. */
static int closing(const struct sbt_omp_thr *o, int kind, const void *ra)
{
	if (kind == SBT_OMPT_BARRIER_IMPLICIT_PARALLEL)
		return 1;
	return kind == SBT_OMPT_BARRIER_IMPLICIT && (!ra ||
	       (o->level > 0 && o->level <= SBT_OMP_DEPTH &&
		ra == o->lv[o->level - 1].ra));
}

static void on_sync_region(int kind, int endpoint, sbt_ompt_data *par,
			   sbt_ompt_data *task, const void *ra)
{
	struct sbt_omp_thr *o;

	(void)par, (void)task;
	if (endpoint == SBT_OMPT_BEGIN && (o = sbt_omp_thr()) &&
	    closing(o, kind, ra))
		sbt_omp_share_end(o);
}

static void on_sync_region_wait(int kind, int endpoint, sbt_ompt_data *par,
				sbt_ompt_data *task, const void *ra)
{
	struct sbt_omp_thr *o = sbt_omp_thr();

	(void)par, (void)task;
	if (!o)
		return;
	if (endpoint == SBT_OMPT_END) {
		sbt_omp_wait_end(o);
		return;
	}
	if (endpoint != SBT_OMPT_BEGIN)
		return;
	if (closing(o, kind, ra))
		sbt_omp_wait_begin(o, NULL);
	else if (!ra)
		return;                           /* nowhere to name it */
	else if (kind == SBT_OMPT_BARRIER ||
		 kind == SBT_OMPT_BARRIER_IMPLICIT ||
		 kind == SBT_OMPT_BARRIER_EXPLICIT ||
		 kind == SBT_OMPT_BARRIER_IMPLICIT_WORKSHARE)
		sbt_omp_wait_begin(o, sbt_omp_site(SBT_OMP_BARRIER, ra));
}

/* ---- SBT_OMP_DETAIL: worksharing and explicit tasks ------------------------ */

static void on_work(int wstype, int endpoint, sbt_ompt_data *par,
		    sbt_ompt_data *task, uint64_t count, const void *ra)
{
	struct sbt_omp_thr *o = sbt_omp_thr();
	struct sbt_omp_lv *v;
	unsigned kind = wstype == SBT_OMPT_WORK_LOOP ? SBT_OMP_LOOP :
			wstype == SBT_OMPT_WORK_SECTIONS ? SBT_OMP_SECTIONS :
			wstype == SBT_OMPT_WORK_SINGLE_EXECUTOR ? SBT_OMP_SINGLE :
			SBT_OMP__N;

	(void)par, (void)task, (void)count;
	if (!o || kind == SBT_OMP__N || o->level == 0 ||
	    o->level > SBT_OMP_DEPTH)
		return;
	v = &o->lv[o->level - 1];
	if (endpoint == SBT_OMPT_BEGIN && !v->work) {
		const struct sbt_omp_site *w = sbt_omp_site(kind, ra);
		if (w && sbt_hot_start_id(w->id, w->ra) == SBT_OK)
			v->work = w->id;
	} else if (endpoint == SBT_OMPT_END && v->work) {
		(void)sbt_hot_stop_id(v->work);
		v->work = 0;
	}
}

/* An explicit task's data holds its construct; a task runs between the
 * schedule that switches to it and the one that switches away (done or
 * suspended: each stretch on a thread is a sample). */
static void on_task_create(sbt_ompt_data *enc, const void *frame,
			   sbt_ompt_data *task, int flags, int deps,
			   const void *ra)
{
	(void)enc, (void)frame, (void)deps;
	if (task)
		task->ptr = (flags & SBT_OMPT_TASK_EXPLICIT) ?
			    (void *)sbt_omp_site(SBT_OMP_TASK, ra) : NULL;
}

static void on_task_schedule(sbt_ompt_data *prior, int status,
			     sbt_ompt_data *next)
{
	const struct sbt_omp_site *p = prior ? prior->ptr : NULL;
	const struct sbt_omp_site *n = next ? next->ptr : NULL;

	(void)status;
	if (p && p->kind == SBT_OMP_TASK)
		(void)sbt_hot_stop_id(p->id);
	if (n && n->kind == SBT_OMP_TASK)
		(void)sbt_hot_start_id(n->id, n->ra);
}

/* ---- the tool's entry points ------------------------------------------------ */

static int set(sbt_ompt_set_callback set_cb, int event, void (*cb)(void))
{
	int r = set_cb(event, cb);
	return r != SBT_OMPT_SET_ERROR && r != SBT_OMPT_SET_NEVER;
}

static int initialize(sbt_ompt_lookup lookup, int dev,
		      sbt_ompt_data *data)
{
	sbt_ompt_set_callback set_cb;

	(void)dev, (void)data;
	*(void **)&set_cb = (void *)lookup("ompt_set_callback");
	if (!set_cb)
		return 0;                 /* 0: the runtime drops the tool */
	/* Without these four there is nothing to record. */
	if (!set(set_cb, SBT_OMPT_CB_PARALLEL_BEGIN,
		 (sbt_ompt_fn)on_parallel_begin) ||
	    !set(set_cb, SBT_OMPT_CB_IMPLICIT_TASK,
		 (sbt_ompt_fn)on_implicit_task) ||
	    !set(set_cb, SBT_OMPT_CB_SYNC_REGION,
		 (sbt_ompt_fn)on_sync_region) ||
	    !set(set_cb, SBT_OMPT_CB_SYNC_REGION_WAIT,
		 (sbt_ompt_fn)on_sync_region_wait)) {
		sbt_warn("OMPT: the OpenMP runtime refused a callback; its "
			 "parallel regions are not recorded");
		return 0;
	}
	if (sbt_cfg(SBT_CFG_OMP_DETAIL)) {
		(void)set(set_cb, SBT_OMPT_CB_WORK, (sbt_ompt_fn)on_work);
		(void)set(set_cb, SBT_OMPT_CB_TASK_CREATE,
			  (sbt_ompt_fn)on_task_create);
		(void)set(set_cb, SBT_OMPT_CB_TASK_SCHEDULE,
			  (sbt_ompt_fn)on_task_schedule);
	}
	__atomic_store_n(&sbt_ompt_active, 1, __ATOMIC_RELEASE);
	return 1;
}

static void finalize(sbt_ompt_data *data)
{
	(void)data;
}

/* The runtime calls this once when it starts (OpenMP 5.1, 4.2.1);
 * NULL declines.  An inert recorder (SBT_DISABLE, secure-exec) has no
 * thread state to give: sbt_rec_active() says so only after a log is
 * open, so ask the thread layer instead. */
SBT_API sbt_ompt_start_result *ompt_start_tool(unsigned omp_version,
						  const char *runtime)
{
	static sbt_ompt_start_result res = { initialize, finalize,
						{ 0 } };

	(void)omp_version, (void)runtime;
	return sbt_rec_thread_init() == SBT_OK ? &res : NULL;
}
