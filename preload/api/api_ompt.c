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
 *     parallel" STARTs.  The initial task (flag ompt_task_initial) is
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
 * The ABI below is ours, written from the OpenMP 5.1 specification
 * (section 4, "OMPT interface"): libomp-14-dev's omp-tools.h sits in a
 * clang-versioned directory that gcc does not search, so it is not
 * included; tests/openmp/ompt_abi.c checks these values against it.
 */
#include "api_omp.h"
#include "api_common.h"

#include <stdint.h>
#include <string.h>

/* ---- the OMPT ABI (OpenMP 5.1, 4.4) ------------------------------------ */

typedef union { uint64_t value; void *ptr; } ompt_data_t;
typedef void (*ompt_interface_fn_t)(void);
typedef ompt_interface_fn_t (*ompt_function_lookup_t)(const char *);
typedef int (*ompt_set_callback_t)(int event, void (*cb)(void));
typedef int (*ompt_initialize_t)(ompt_function_lookup_t, int,
				 ompt_data_t *);
typedef void (*ompt_finalize_t)(ompt_data_t *);
typedef struct {
	ompt_initialize_t initialize;
	ompt_finalize_t finalize;
	ompt_data_t tool_data;
} ompt_start_tool_result_t;

enum {
	ompt_callback_parallel_begin = 3, ompt_callback_parallel_end = 4,
	ompt_callback_task_create = 5, ompt_callback_task_schedule = 6,
	ompt_callback_implicit_task = 7, ompt_callback_sync_region_wait = 16,
	ompt_callback_work = 20, ompt_callback_sync_region = 23,
};
enum { ompt_set_error = 0, ompt_set_never = 1 };
enum { ompt_scope_begin = 1, ompt_scope_end = 2, ompt_scope_beginend = 3 };
enum {
	ompt_sync_region_barrier = 1, ompt_sync_region_barrier_implicit = 2,
	ompt_sync_region_barrier_explicit = 3,
	ompt_sync_region_barrier_implementation = 4,
	ompt_sync_region_barrier_implicit_workshare = 8,
	ompt_sync_region_barrier_implicit_parallel = 9,
	ompt_sync_region_barrier_teams = 10,
};
enum { ompt_task_initial = 1, ompt_task_implicit = 2, ompt_task_explicit = 4 };
enum { ompt_task_complete = 1, ompt_task_cancel = 3 };
enum { ompt_work_loop = 1, ompt_work_sections = 2,
       ompt_work_single_executor = 3 };

/* ---- state ---------------------------------------------------------------- */

int sbt_ompt_active;

/* ---- callbacks -------------------------------------------------------------- */

static void on_parallel_begin(ompt_data_t *task, const void *frame,
			      ompt_data_t *par, unsigned req, int flags,
			      const void *ra)
{
	(void)task, (void)frame, (void)req, (void)flags;
	if (par)
		par->ptr = (void *)sbt_omp_site(SBT_OMP_PARALLEL, ra);
}

/* parallel_data holds the construct (parallel_begin ran before any
 * implicit task of the region). */
static void on_implicit_task(int endpoint, ompt_data_t *par,
			     ompt_data_t *task, unsigned n, unsigned index,
			     int flags)
{
	struct sbt_omp_thr *o;

	(void)task, (void)n;
	if (flags & ompt_task_initial)
		return;
	if (!(o = sbt_omp_thr()))
		return;
	if (endpoint == ompt_scope_begin)
		sbt_omp_enter(o, par ? par->ptr : NULL, (int)index); else if (endpoint == ompt_scope_end) {
		sbt_omp_leave(o);
	}
}

static int closing_kind(int kind)
{
	return kind == ompt_sync_region_barrier_implicit_parallel ||
	       kind == ompt_sync_region_barrier_implicit;
}

static void on_sync_region(int kind, int endpoint, ompt_data_t *par,
			   ompt_data_t *task, const void *ra)
{
	struct sbt_omp_thr *o;

	(void)par, (void)task, (void)ra;
	if (endpoint == ompt_scope_begin && closing_kind(kind) &&
	    (o = sbt_omp_thr()))
		sbt_omp_share_end(o);
}

static void on_sync_region_wait(int kind, int endpoint, ompt_data_t *par,
				ompt_data_t *task, const void *ra)
{
	struct sbt_omp_thr *o = sbt_omp_thr();

	(void)par, (void)task;
	if (!o)
		return;
	if (endpoint == ompt_scope_end) {
		sbt_omp_wait_end(o);
		return;
	}
	if (endpoint != ompt_scope_begin)
		return;
	if (kind == ompt_sync_region_barrier_implicit_parallel ||
	    (kind == ompt_sync_region_barrier_implicit && !ra))
		sbt_omp_wait_begin(o, NULL);      /* the closing barrier */
	else if (!ra)
		return;                           /* nowhere to name it */
	else if (kind == ompt_sync_region_barrier ||
		 kind == ompt_sync_region_barrier_implicit ||
		 kind == ompt_sync_region_barrier_explicit ||
		 kind == ompt_sync_region_barrier_implicit_workshare)
		sbt_omp_wait_begin(o, sbt_omp_site(SBT_OMP_BARRIER, ra));
}

/* ---- SBT_OMP_DETAIL: worksharing and explicit tasks ------------------------ */

static void on_work(int wstype, int endpoint, ompt_data_t *par,
		    ompt_data_t *task, uint64_t count, const void *ra)
{
	struct sbt_omp_thr *o = sbt_omp_thr();
	struct sbt_omp_lv *v;
	unsigned kind = wstype == ompt_work_loop ? SBT_OMP_LOOP :
			wstype == ompt_work_sections ? SBT_OMP_SECTIONS :
			wstype == ompt_work_single_executor ? SBT_OMP_SINGLE :
			SBT_OMP__N;

	(void)par, (void)task, (void)count;
	if (!o || kind == SBT_OMP__N || o->level == 0 ||
	    o->level > SBT_OMP_DEPTH)
		return;
	v = &o->lv[o->level - 1];
	if (endpoint == ompt_scope_begin && !v->work) {
		const struct sbt_omp_site *w = sbt_omp_site(kind, ra);
		if (w && sbt_hot_start_id(w->id, w->ra) == SBT_OK)
			v->work = w->id;
	} else if (endpoint == ompt_scope_end && v->work) {
		(void)sbt_hot_stop_id(v->work);
		v->work = 0;
	}
}

/* An explicit task's data holds its construct; a task runs between the
 * schedule that switches to it and the one that switches away (done or
 * suspended: each stretch on a thread is a sample). */
static void on_task_create(ompt_data_t *enc, const void *frame,
			   ompt_data_t *task, int flags, int deps,
			   const void *ra)
{
	(void)enc, (void)frame, (void)deps;
	if (task)
		task->ptr = (flags & ompt_task_explicit) ?
			    (void *)sbt_omp_site(SBT_OMP_TASK, ra) : NULL;
}

static void on_task_schedule(ompt_data_t *prior, int status,
			     ompt_data_t *next)
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

static int detail = -1;          /* SBT_OMP_DETAIL, read once */

static int set(ompt_set_callback_t set_cb, int event, void (*cb)(void))
{
	int r = set_cb(event, cb);
	return r != ompt_set_error && r != ompt_set_never;
}

static int initialize(ompt_function_lookup_t lookup, int dev,
		      ompt_data_t *data)
{
	ompt_set_callback_t set_cb;

	(void)dev, (void)data;
	*(void **)&set_cb = (void *)lookup("ompt_set_callback");
	if (!set_cb)
		return 0;                 /* 0: the runtime drops the tool */
	/* Without these four there is nothing to record. */
	if (!set(set_cb, ompt_callback_parallel_begin,
		 (void (*)(void))on_parallel_begin) ||
	    !set(set_cb, ompt_callback_implicit_task,
		 (void (*)(void))on_implicit_task) ||
	    !set(set_cb, ompt_callback_sync_region,
		 (void (*)(void))on_sync_region) ||
	    !set(set_cb, ompt_callback_sync_region_wait,
		 (void (*)(void))on_sync_region_wait)) {
		sbt_warn("OMPT: the OpenMP runtime refused a callback; its "
			 "parallel regions are not recorded");
		return 0;
	}
	if (sbt_api_env_flag("SBT_OMP_DETAIL", &detail)) {
		(void)set(set_cb, ompt_callback_work, (void (*)(void))on_work);
		(void)set(set_cb, ompt_callback_task_create,
			  (void (*)(void))on_task_create);
		(void)set(set_cb, ompt_callback_task_schedule,
			  (void (*)(void))on_task_schedule);
	}
	__atomic_store_n(&sbt_ompt_active, 1, __ATOMIC_RELEASE);
	return 1;
}

static void finalize(ompt_data_t *data)
{
	(void)data;
}

/* The runtime calls this once when it starts (OpenMP 5.1, 4.2.1);
 * NULL declines.  An inert recorder (SBT_DISABLE, secure-exec) has no
 * thread state to give: sbt_rec_active() says so only after a log is
 * open, so ask the thread layer instead. */
SBT_API ompt_start_tool_result_t *ompt_start_tool(unsigned omp_version,
						  const char *runtime)
{
	static ompt_start_tool_result_t res = { initialize, finalize,
						{ 0 } };

	(void)omp_version, (void)runtime;
	return sbt_rec_thread_init() == SBT_OK ? &res : NULL;
}
