/*
 * pool.c - the groups through one stage of run.h on -j threads, largest
 * first, each in scratch lent for it.
 */
#include "pool.h"
#include "jobs.h"

#include <stdlib.h>

/* Group indexes, largest first (qsort_r: arg the result). */
static int cmp_size(const void *a, const void *b, void *arg)
{
	const struct sbt_result *res = arg;
	size_t x = res->g[*(const uint32_t *)a].n;
	size_t y = res->g[*(const uint32_t *)b].n;

	return (x < y) - (x > y);
}

int sbt_pool_start(struct pool *p, int jobs)
{
	size_t n = p->res->ngroups;

	p->jobs = sbt_jobs(jobs);
	p->nw = sbt_jobs_width(n, p->jobs);
	p->inner = p->jobs / p->nw;
	p->todo = malloc((n ? n : 1) * sizeof *p->todo);
	p->w = calloc((size_t)p->nw, sizeof *p->w);
	p->lent = calloc((size_t)p->nw, 1);
	pthread_mutex_init(&p->mu, NULL);
	p->mu_made = 1;
	if (!p->todo || !p->w || !p->lent)
		return -1;
	for (size_t k = 0; k < n; k++)
		p->todo[k] = (uint32_t)k;
	qsort_r(p->todo, n, sizeof *p->todo, cmp_size, p->res);
	return 0;
}

/* The groups' scratch given back (bigmem.h keeps it for what follows:
 * fresh pages cost a fault and the kernel's zeroing each). */
void sbt_pool_drop(struct pool *p)
{
	for (int i = 0; p->w && i < p->nw; i++)
		sbt_scratch_free(&p->w[i]);
}

void sbt_pool_end(struct pool *p)
{
	sbt_pool_drop(p);
	free(p->w), free(p->todo), free(p->lent);
	if (p->mu_made)
		pthread_mutex_destroy(&p->mu);
}

/* The scratch a group of n samples is worked in: the smallest free one
 * that fits, else the largest free one (grown).  Scratch goes with the
 * group, not the thread: a worker keeping its own, the largest group's
 * second stage on another thread held a second scratch of its size
 * (about 150 MB at 4 million samples).  At most nw are lent at once, so
 * one is always free. */
static struct scratch *borrow(struct pool *p, size_t n)
{
	int best = -1;

	pthread_mutex_lock(&p->mu);
	for (int i = 0; i < p->nw; i++) {
		if (p->lent[i])
			continue;
		size_t c = p->w[i].cap, b = best < 0 ? 0 : p->w[best].cap;
		if (best < 0 || (c >= n && (b < n || c < b)) ||
		    (c < n && b < n && c > b))
			best = i;
	}
	p->lent[best] = 1;
	pthread_mutex_unlock(&p->mu);
	return &p->w[best];
}

static void give_back(struct pool *p, struct scratch *w)
{
	pthread_mutex_lock(&p->mu);
	p->lent[w - p->w] = 0;
	pthread_mutex_unlock(&p->mu);
}

/* Group todo[k] through the pool's stage (sbt_jobs_each's item). */
static void work(void *arg, size_t k, int t)
{
	struct pool *p = arg;
	size_t gi = p->todo[k];
	struct sbt_group *g = &p->res->g[gi];
	struct run r = {
		.ds = p->ds, .o = p->o, .mark = p->res->mark,
		.score = p->res->score, .g = g,
		.idx = p->res->order + g->first, .in = &p->in[gi],
		.inner = p->inner, .leave_pre = p->leave_pre[g->region],
	};
	int rc = 0;

	(void)t;
	if (atomic_load(&p->failed))
		return;
	if (p->stage == STAGE_RESCORE && !(g->phases.warmup_n ||
	    g->phases.transient_n || g->machine_n || g->speed_n ||
	    g->after_n))
		return;
	r.w = borrow(p, g->n);
	if (sbt_scratch_fit(r.w, g->n) != 0)
		rc = -1;
	else if (p->stage == STAGE_GROUP)
		rc = sbt_run_group(&r);
	else
		rc = sbt_run_rescore(&r);
	give_back(p, r.w);
	if (rc)
		atomic_store(&p->failed, 1);
}

/* Run one stage over every group, on nw threads (sbt_jobs_each).  0, or
 * -1 when a group failed. */
int sbt_pool_run(struct pool *p, enum stage stage)
{
	p->stage = stage;
	atomic_store(&p->failed, 0);
	sbt_jobs_each(p->res->ngroups, p->nw, work, p);
	return atomic_load(&p->failed) ? -1 : 0;
}
