/*
 * preempt.c - per region, whether its preempted samples are left out.
 */
#include "preempt.h"
#include "jobs.h"
#include "stats.h"

#include <stdlib.h>

/* Per region: are its preempted samples left out (SBT_PRE_LEAVE)?  Not
 * where half its calls or more were preempted (SBT_PRE_HALF: a long
 * region, or one that shares its cpu all the time: that is its time), nor
 * where more were than the OS can preempt (SBT_PRE_OWN, the bound the
 * OS filter uses at the region's median: the region gives its cpu away
 * itself, as MPI progress loops do with sched_yield).  Per region, not
 * per group, so that a sample is classed the same in every view (--by).
 * Only where some sample was preempted is a median taken.
 *
 * The passes over the samples run in fixed blocks on -j threads: counts
 * and highest floors per block (sums and maxima: any order gives them),
 * then each block's times of a region gathered at its own offset (a
 * median does not depend on the order of its values), then the medians
 * one region per item. */
struct prule {
	const struct sbt_dataset *ds;
	size_t nb, nr;
	size_t *n, *pre;              /* [nb + 1][nr]: calls, preempted
					 ones (row nb: the sums)         */
	double *floor;                /* [nb + 1][nr]: highest kernel
					 entry (row nb: of all)          */
	size_t *at;                   /* [nb][nr]: where its times go in v */
	size_t *start;                /* per region: its times in v        */
	uint8_t *rule;
	double *v;
};

static int is_call(const struct sbt_sample *s)
{
	return !(s->flags & (SBT_SF_PROBE | SBT_SF_BEFORE_RESET));
}

static void prule_count(void *arg, size_t b, int w)
{
	struct prule *p = arg;
	const struct sbt_dataset *ds = p->ds;
	size_t *n = p->n + b * p->nr, *pre = p->pre + b * p->nr;
	double *floor = p->floor + b * p->nr;

	(void)w;
	for (size_t i = b * ds->n / p->nb, hi = (b + 1) * ds->n / p->nb;
	     i < hi; i++) {
		const struct sbt_sample *s = &ds->s[i];
		double f = ds->sources[s->source].kernel_entry_ns;
		if (!is_call(s))
			continue;
		n[s->region]++;
		pre[s->region] += sbt_os_class(s) == SBT_OSC_PREEMPTED;
		if (f > floor[s->region])
			floor[s->region] = f;
	}
}

static void prule_gather(void *arg, size_t b, int w)
{
	struct prule *p = arg;
	const struct sbt_dataset *ds = p->ds;
	size_t *at = p->at + b * p->nr;

	(void)w;
	for (size_t i = b * ds->n / p->nb, hi = (b + 1) * ds->n / p->nb;
	     i < hi; i++) {
		const struct sbt_sample *s = &ds->s[i];
		if (p->start[s->region] != SIZE_MAX && is_call(s))
			p->v[at[s->region]++] = s->ns;
	}
}

/* Region r's median against the OS's bound (item r). */
static void prule_median(void *arg, size_t r, int w)
{
	struct prule *p = arg;
	size_t all = p->nb * p->nr + r, m = p->n[all];

	(void)w;
	if (p->start[r] == SIZE_MAX)
		return;
	double share = sbt_os_max_share(sbt_quantile(p->v + p->start[r], m,
						     0.5),
					p->floor[all] > 0 ? p->floor[all] :
					SBT_OS_FLOOR_DEFAULT, m);
	if ((double)p->pre[all] > share * (double)m)
		p->rule[r] = SBT_PRE_OWN;
}

uint8_t *sbt_preempt_rule(const struct sbt_dataset *ds, int jobs)
{
	size_t nr = ds->nregions ? ds->nregions : 1, tot = 0;
	struct prule p = { .ds = ds, .nr = nr,
			   .nb = sbt_jobs_blocks(ds->n, ((size_t)1 << 20) /
						 (nr + 1)) };
	uint8_t *rule = malloc(nr);

	p.n = calloc((p.nb + 1) * nr, sizeof *p.n);
	p.pre = calloc((p.nb + 1) * nr, sizeof *p.pre);
	p.floor = calloc((p.nb + 1) * nr, sizeof *p.floor);
	p.at = malloc(p.nb * nr * sizeof *p.at);
	p.start = malloc(nr * sizeof *p.start);
	if (!rule || !p.n || !p.pre || !p.floor || !p.at || !p.start)
		goto oom;
	sbt_jobs_each(p.nb, jobs, prule_count, &p);
	size_t *n = p.n + p.nb * nr, *pre = p.pre + p.nb * nr;
	double *floor = p.floor + p.nb * nr;
	for (size_t b = 0; b < p.nb; b++)
		for (size_t r = 0; r < nr; r++) {
			n[r] += p.n[b * nr + r];
			pre[r] += p.pre[b * nr + r];
			if (p.floor[b * nr + r] > floor[r])
				floor[r] = p.floor[b * nr + r];
		}
	/* the regions whose median is wanted: their calls' times, each
	 * region's from start[r], block by block */
	for (size_t r = 0; r < nr; r++) {
		rule[r] = 2 * pre[r] < n[r] ? SBT_PRE_LEAVE : SBT_PRE_HALF;
		p.start[r] = SIZE_MAX;
		if (rule[r] != SBT_PRE_LEAVE || !pre[r])
			continue;
		p.start[r] = tot;
		for (size_t b = 0; b < p.nb; b++) {
			p.at[b * nr + r] = tot;
			tot += p.n[b * nr + r];
		}
	}
	if (tot && !(p.v = malloc(tot * sizeof *p.v)))
		goto oom;
	if (tot)
		sbt_jobs_each(p.nb, jobs, prule_gather, &p);
	p.rule = rule;
	if (tot)
		sbt_jobs_each(nr, jobs, prule_median, &p);
	free(p.n), free(p.pre), free(p.floor), free(p.at), free(p.start);
	free(p.v);
	return rule;
oom:
	free(p.n), free(p.pre), free(p.floor), free(p.at), free(p.start);
	free(p.v), free(rule);
	return NULL;
}
