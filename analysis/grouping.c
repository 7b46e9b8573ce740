/*
 * grouping.c - every sample into its group: a dense number for each
 * (region, --by key), and the samples laid out group by group.
 *
 * Grouping is linear: by region alone, a group's number is its region's
 * rank by first appearance; by a key, a hash map (densemap.h) numbers
 * each pair as it first appears.  Then one counting sort lays the samples
 * out group by group (res->order).
 */
#include "grouping.h"
#include "densemap.h"
#include "jobs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint32_t key_of(const struct sbt_dataset *ds,
		       const struct sbt_options *o, const struct sbt_sample *s)
{
	const struct sbt_source *src = &ds->sources[s->source];

	switch (o->by) {
	case SBT_BY_THREAD: return s->thread;
	case SBT_BY_CPU:    return s->cpu_start;
	case SBT_BY_RANK:   return (uint32_t)(src->rank >= 0 ? src->rank
							  : src->pid);
	case SBT_BY_HOST:
		/* hosts are keyed by their first source */
		for (uint32_t i = 0; i < s->source; i++)
			if (!strcmp(ds->sources[i].host, src->host))
				return i;
		return s->source;
	case SBT_BY_SITE:   /* dataset-wide already */
		return s->site < ds->nsites || !o->site_fallback ? s->site :
		       o->site_fallback[s->region];
	default:            return 0;
	}
}

/* Grouping's passes over the samples, in fixed blocks on -j threads
 * (sbt_jobs_blocks: by the sample count only, so the same for any -j):
 * per region, where it first appears (by region alone: its group number
 * is its rank in that order); then every sample's group; per group, how
 * many samples each block holds, and they laid out from there. */
struct gpass {
	const struct sbt_dataset *ds;
	uint32_t *gid;
	size_t nb, nr, ng;
	size_t *fst;                  /* [nb][nr]: block's first sample   */
	const uint32_t *rg;           /* region -> group                  */
	uint32_t *at;                 /* [nb][ng]: block's count, then
					 where its samples go in order   */
	uint32_t *order;
};

static size_t gp_lo(const struct gpass *p, size_t b)
{
	return (size_t)((unsigned __int128)b * p->ds->n / p->nb);
}

static void gp_first(void *arg, size_t b, int w)
{
	struct gpass *p = arg;
	size_t *fst = p->fst + b * p->nr;

	(void)w;
	for (size_t i = gp_lo(p, b), hi = gp_lo(p, b + 1); i < hi; i++) {
		const struct sbt_sample *s = &p->ds->s[i];
		if (!(s->flags & SBT_SF_BEFORE_RESET) &&
		    fst[s->region] == SIZE_MAX)
			fst[s->region] = i;
	}
}

static void gp_gid(void *arg, size_t b, int w)
{
	struct gpass *p = arg;

	(void)w;
	for (size_t i = gp_lo(p, b), hi = gp_lo(p, b + 1); i < hi; i++) {
		const struct sbt_sample *s = &p->ds->s[i];
		p->gid[i] = s->flags & SBT_SF_BEFORE_RESET ? UINT32_MAX :
			    p->rg[s->region];
	}
}

static void gp_count(void *arg, size_t b, int w)
{
	struct gpass *p = arg;
	uint32_t *at = p->at + b * p->ng;

	(void)w;
	for (size_t i = gp_lo(p, b), hi = gp_lo(p, b + 1); i < hi; i++)
		if (p->gid[i] != UINT32_MAX)
			at[p->gid[i]]++;
}

static void gp_lay(void *arg, size_t b, int w)
{
	struct gpass *p = arg;
	uint32_t *at = p->at + b * p->ng;

	(void)w;
	for (size_t i = gp_lo(p, b), hi = gp_lo(p, b + 1); i < hi; i++)
		if (p->gid[i] != UINT32_MAX)
			p->order[at[p->gid[i]]++] = (uint32_t)i;
}

/* Regions by where they first appear (qsort_r: arg the first samples). */
static int cmp_first(const void *a, const void *b, void *arg)
{
	const size_t *fst = arg;
	size_t x = fst[*(const uint32_t *)a], y = fst[*(const uint32_t *)b];

	return (x > y) - (x < y);
}

/* By region alone: group numbers in order of each region's first
 * sample, gid[] from them.  Returns the number of groups, or -1 when
 * out of memory. */
static long group_regions(struct gpass *p, int jobs)
{
	size_t nr = p->nr, ng = 0;
	uint32_t *rg = malloc(nr * sizeof *rg), *by = malloc(nr * sizeof *by);
	size_t *first = malloc(nr * sizeof *first);

	p->fst = malloc(p->nb * nr * sizeof *p->fst);
	if (!rg || !by || !first || !p->fst) {
		free(rg), free(by), free(first), free(p->fst);
		return -1;
	}
	memset(p->fst, 0xff, p->nb * nr * sizeof *p->fst);
	sbt_jobs_each(p->nb, jobs, gp_first, p);
	for (size_t r = 0; r < nr; r++) {
		first[r] = SIZE_MAX;
		for (size_t b = 0; b < p->nb && first[r] == SIZE_MAX; b++)
			first[r] = p->fst[b * nr + r];
		if (first[r] != SIZE_MAX)
			by[ng++] = (uint32_t)r;
		rg[r] = UINT32_MAX;
	}
	qsort_r(by, ng, sizeof *by, cmp_first, first);
	for (size_t k = 0; k < ng; k++)
		rg[by[k]] = (uint32_t)k;
	p->rg = rg;
	sbt_jobs_each(p->nb, jobs, gp_gid, p);
	free(rg), free(by), free(first), free(p->fst);
	p->rg = NULL, p->fst = NULL;
	return (long)ng;
}

/* By a key (o->by): a dense number for each (region, key) in order of
 * appearance, in turn.  Returns the number of groups, or -1. */
static long group_keys(const struct sbt_dataset *ds,
		       const struct sbt_options *o, uint32_t *gid)
{
	struct sbt_densemap m = { 0 };
	long n = -1;

	for (size_t i = 0; i < ds->n; i++) {
		const struct sbt_sample *s = &ds->s[i];
		if (s->flags & SBT_SF_BEFORE_RESET) {
			gid[i] = UINT32_MAX;
			continue;
		}
		uint64_t key = (uint64_t)s->region << 32 |
			       key_of(ds, o, s);
		if (o->by == SBT_BY_THREAD)
			key ^= (uint64_t)s->source << 20;
		long g = sbt_densemap_get(&m, key);
		if (g < 0)
			goto out;
		gid[i] = (uint32_t)g;
	}
	n = (long)m.n;
out:
	sbt_densemap_free(&m);
	return n;
}

/* Every sample but those a reset discarded into its group: a dense
 * number for each (region, o->by's key) in gid[] (UINT32_MAX: none),
 * res->g with each group's first and n, and res->order, the samples laid
 * out group by group (a counting sort: stable, so each group stays in
 * log order).  A group's region, source and key are its last sample's.
 * 0, or -1 when out of memory. */
int sbt_group_samples(const struct sbt_dataset *ds,
		      const struct sbt_options *o, struct sbt_result *res,
		      uint32_t *gid)
{
	struct gpass p = { .ds = ds, .gid = gid,
			   .nr = ds->nregions + 1 };
	long ng;

	p.nb = sbt_jobs_blocks(ds->n, ((size_t)1 << 20) / (p.nr + 1));
	ng = o->by == SBT_BY_NONE ? group_regions(&p, o->jobs) :
	     group_keys(ds, o, gid);
	if (ng < 0)
		return -1;
	res->ngroups = (size_t)ng;
	res->g = calloc(ng ? (size_t)ng : 1, sizeof *res->g);
	res->order = malloc((ds->n ? ds->n : 1) * sizeof *res->order);
	if (!res->g || !res->order)
		return -1;
	/* the counting sort's blocks: per-block counts of some 2^22
	 * entries at most */
	p.ng = (size_t)ng;
	p.nb = sbt_jobs_blocks(ds->n, ((size_t)1 << 22) / (p.ng + 1));
	p.order = res->order;
	if (!(p.at = calloc(p.nb * p.ng + 1, sizeof *p.at)))
		return -1;
	sbt_jobs_each(p.nb, o->jobs, gp_count, &p);
	size_t at = 0;
	for (size_t k = 0; k < p.ng; k++) {
		res->g[k].first = at;
		for (size_t b = 0; b < p.nb; b++) {
			uint32_t c = p.at[b * p.ng + k];
			p.at[b * p.ng + k] = (uint32_t)at;
			at += c;
		}
		res->g[k].n = at - res->g[k].first;
	}
	sbt_jobs_each(p.nb, o->jobs, gp_lay, &p);
	free(p.at);
	res->norder = at;
	for (size_t k = 0; k < p.ng; k++) {
		struct sbt_group *g = &res->g[k];
		const struct sbt_sample *s = &ds->s[res->order[g->first +
							       g->n - 1]];
		g->region = s->region;
		g->source = s->source;
		g->key = key_of(ds, o, s);
		g->others_wait_ns = g->others_wait_rel = NAN;
		g->omp_thread = -1;
		g->wait_slow_key = SBT_FIND_NOKEY;
		g->wait_slow_ns = g->wait_others_ns = NAN;
		g->wait_base_ns = NAN;
		g->wait_extra_ns = NAN;
		g->wait_long = g->wait_os = 0;
		g->wait_flags = 0;
	}
	return 0;
}
