/*
 * analyze.c - the pipeline: group the samples (grouping.c), decide the
 * preemption rule (preempt.c), filter and summarize each group on -j
 * threads (run.c, pool.c), find the machine's events and check them
 * against the speed probes (witness.c), score again, decompose, judge.
 */
#include "analyze.h"
#include "afterprobe.h"
#include "axes.h"
#include "decomp.h"
#include "groups.h"
#include "grouping.h"
#include "machine.h"
#include "modetime.h"
#include "pool.h"
#include "preempt.h"
#include "totals.h"
#include "verdict.h"
#include "witness.h"
#include "bigmem.h"
#include "jobs.h"

#include <stdlib.h>
#include <string.h>

/* Groups by region name, then region, log and key (qsort_r: arg the
 * dataset; no shared state, so analyses may run side by side). */
static int cmp_group(const void *a, const void *b, void *arg)
{
	const struct sbt_dataset *ds = arg;
	const struct sbt_group *x = a, *y = b;
	int c = strcmp(ds->regions[x->region].name,
		       ds->regions[y->region].name);

	if (c)
		return c;
	if (x->region != y->region)
		return x->region < y->region ? -1 : 1;
	if (x->source != y->source)
		return x->source < y->source ? -1 : 1;
	return (x->key > y->key) - (x->key < y->key);
}

/* Each group's samples left out and why, from the final marks (item k
 * of sbt_jobs_each: group k, its one writer); each sample under the first
 * reason of enum sbt_left it has. */
static void left_count(void *arg, size_t k, int w)
{
	/* SBT_LEFT_OS: a sample the processor's, the machine's or a
	 * transient's marks left out whose thread, or another thread of
	 * its process (one it may wait for), the kernel's record shows
	 * preempted in it: that time is the OS's first */
	static const uint8_t flag[SBT_LEFT__N] = {
		SBT_MK_DROPPED, SBT_MK_SPEED | SBT_MK_MACHINE |
		SBT_MK_TRANSIENT, SBT_MK_SPEED, SBT_MK_MACHINE,
		SBT_MK_AFTER_PROBE, SBT_MK_TRANSIENT };
	const struct pool *p = arg;
	const struct sbt_result *res = p->res;
	struct sbt_group *g = &res->g[k];

	(void)w;
	g->left_n = 0;
	memset(g->left, 0, sizeof g->left);
	for (size_t i = g->first; i < g->first + g->n && i < res->norder;
	     i++) {
		uint32_t f = p->ds->s[res->order[i]].flags;
		if (f & (SBT_SF_PROBE | SBT_SF_CALIB | SBT_SF_RESET |
			 SBT_SF_BEFORE_RESET))
			continue;
		g->left_n++;
		for (int r = 0; r < SBT_LEFT__N; r++)
			if ((res->mark[res->order[i]] & flag[r]) &&
			    (r != SBT_LEFT_OS || (f & (SBT_SF_PREEMPTED |
						  SBT_SF_TEAM_PREEMPTED)))) {
				g->left[r]++;
				break;
			}
	}
}

int sbt_analyze(const struct sbt_dataset *ds, const struct sbt_options *o,
		struct sbt_result *res)
{
	uint8_t *leave_pre = NULL;
	uint32_t *gid = NULL;
	struct sbt_score_in *in = NULL;
	struct pool pool = { 0 };
	size_t ng;
	int rc = -1;

	memset(res, 0, sizeof *res);
	/* the probes as the readers leave them (dataset.h): never sorted
	 * here, where the dataset is only read */
	if (!sbt_ds_probes_sorted(ds))
		return -1;
	res->nmark = ds->n;
	if (!(gid = big_alloc(ds->n * sizeof *gid)) ||
	    !(res->mark = calloc(ds->n ? ds->n : 1, 1)) ||
	    (o->scores && !(res->score = calloc(ds->n ? ds->n : 1,
						 sizeof *res->score))) ||
	    sbt_group_samples(ds, o, res, gid) != 0)
		goto out;
	ng = res->ngroups;
	if (!(in = malloc((ng ? ng : 1) * sizeof *in)))
		goto out;
	if (!(leave_pre = sbt_preempt_rule(ds, o->jobs)))
		goto out;
	pool = (struct pool){ .ds = ds, .o = o, .res = res, .in = in,
			      .leave_pre = leave_pre };
	/* The processor first: its shifts are nobody's code. */
	if (sbt_after_probe_mark(ds, o->jobs, res->mark) != 0 ||
	    sbt_speed_analyze(ds, o->by == SBT_BY_CPU ? 1 :
			      o->by == SBT_BY_HOST ? 2 : 0, &res->speed,
			      res->mark) ||
	    sbt_axes_analyze(ds, res) != 0 ||
	    sbt_pool_start(&pool, o->jobs) != 0 || sbt_pool_run(&pool, STAGE_GROUP) ||
	    sbt_machine_events(ds, res, gid) != 0 ||
	    sbt_machine_witness(ds, res) != 0 ||
	    sbt_pool_run(&pool, STAGE_RESCORE) || sbt_totals(ds, o, res) != 0)
		goto out;
	sbt_pool_drop(&pool);
	qsort_r(res->g, res->ngroups, sizeof *res->g, cmp_group, (void *)ds);
	if (o->by != SBT_BY_NONE)
		sbt_groups_compare(res, SBT_SCORE_EPS);
	if (o->by == SBT_BY_THREAD)
		sbt_groups_omp(res, ds);
	sbt_groups_barriers(res, ds, o->by == SBT_BY_THREAD ? 1 :
			    o->by == SBT_BY_NONE ? 0 : -1);
	if (sbt_decomp_run(ds, o, res) != 0)
		goto out;
	sbt_probe_blind(res);
	sbt_modes_in_time(ds, o, res);
	for (size_t k = 0; k < res->ngroups; k++)
		sbt_verdict(&res->g[k], o);
	sbt_jobs_each(res->ngroups, o->jobs, left_count, &pool);
	rc = 0;
out:
	sbt_pool_end(&pool);
	free(in), free(leave_pre);
	big_free(gid, ds->n * sizeof *gid);
	if (rc != 0)
		sbt_result_free(res);
	return rc;
}

void sbt_result_free(struct sbt_result *res)
{
	for (size_t k = 0; res->g && k < res->ngroups; k++)
		free(res->g[k].wphases);
	free(res->g);
	free(res->order);
	free(res->ev);
	free(res->ev_probes);
	free(res->mark);
	free(res->score);
	sbt_speed_free(&res->speed);
	sbt_axes_free(res);
	memset(res, 0, sizeof *res);
}
