/*
 * totals.c - how much of the run each region took: its total time
 * (inclusive), its own time without the regions nested in it
 * (exclusive), and both as a share of the time of the threads it ran on.
 *
 * Nesting is read from the samples' windows, per thread: a sample lies
 * in another when it starts no earlier and ends no later (START reads
 * the clock after its bookkeeping and STOP before, so a nested window is
 * strictly inside its parent's).  A thread's samples taken in the order
 * they ended - the order the reader pairs them in, checked, else sorted -
 * are a post-order walk of the nesting: when a sample ends, the samples
 * on the stack that started after it are its children (their own
 * children were taken off when they ended), and it goes on the stack.
 * Regions stopped out of nesting order (a window overlapping another
 * without lying in it) are not nested in it.  One pass, a stack, no sort.
 *
 * Durations are every call's own, as recorded less the timer's cost
 * (filter_cost), whatever the verdict left out: a call the OS preempted
 * for milliseconds took those milliseconds of its thread, and a total a
 * user sums from the samples (--dump) must be found here.  What the
 * verdict judged, the samples the OS filter kept, is summed beside it
 * (kept_ns).  A sample recorded for 1 + skipped
 * calls (SBT_SAMPLE, a capped log, the sample budget) counts that many
 * times, as the call estimates do; its own time is its time less its
 * recorded children's.  So for any nesting
 *   inclusive(parent) = exclusive(parent) + sum of inclusive(children)
 * sample by sample, exactly when every call is recorded.
 *
 * A thread's time is the span from its first sample's start to its last
 * sample's end (the log knows no thread's birth or death).
 */
#include "totals.h"
#include "bigmem.h"
#include "jobs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Samples that are timed regions (not probes, calibration, resets). */
static int counted(const struct sbt_sample *s)
{
	return !(s->flags & (SBT_SF_PROBE | SBT_SF_CALIB | SBT_SF_RESET |
			     SBT_SF_BEFORE_RESET));
}

/* Thread numbers dense over the dataset, source-major: base[src] is the
 * first of source src's, base[nsources] how many.  Each source's count
 * is the highest of its threads': found per block of samples on `jobs`
 * threads (part[b]), the blocks' then taken in turn. */
struct tcount {
	const struct sbt_dataset *ds;
	uint32_t *part;               /* [nb][nsources] */
	size_t nb;
};

static void tcount_block(void *arg, size_t b, int w)
{
	const struct tcount *c = arg;
	const struct sbt_dataset *ds = c->ds;
	uint32_t *top = c->part + b * ds->nsources;
	size_t lo = (size_t)((unsigned __int128)b * ds->n / c->nb);
	size_t hi = (size_t)((unsigned __int128)(b + 1) * ds->n / c->nb);

	(void)w;
	for (size_t i = lo; i < hi; i++) {
		const struct sbt_sample *s = &ds->s[i];
		if (s->thread + 1 > top[s->source])
			top[s->source] = s->thread + 1;
	}
}

static uint32_t *thread_base(const struct sbt_dataset *ds, int jobs)
{
	uint32_t *base = calloc(ds->nsources + 1, sizeof *base);
	struct tcount c = { ds, NULL, sbt_jobs_blocks(ds->n, ((size_t)1 << 20)
						       / (ds->nsources + 1)) };

	if (!base || !(c.part = calloc(c.nb * ds->nsources + 1,
				       sizeof *c.part))) {
		free(base);
		return NULL;
	}
	sbt_jobs_each(c.nb, jobs, tcount_block, &c);
	for (size_t b = 0; b < c.nb; b++)
		for (size_t k = 0; k < ds->nsources; k++)
			if (c.part[b * ds->nsources + k] > base[k + 1])
				base[k + 1] = c.part[b * ds->nsources + k];
	for (size_t k = 0; k < ds->nsources; k++)
		base[k + 1] += base[k];
	free(c.part);
	return base;
}

struct totals {
	const struct sbt_dataset *ds;
	const struct sbt_options *o;
	const struct sbt_result *res;
	const uint32_t *gid;          /* sample -> group, UINT32_MAX: none */
	double *tot, *ex, *kept;      /* per group                         */
	double *cut;                  /* per group: calls of cut samples   */
	int *nested;                  /* per group                         */
	size_t *clamped;              /* per group: calls whose children
					 took more than their own time    */
};

/* Where a sample's window ended on the clock: a detour inside it (a
 * speed probe, a drain) was taken out of its ns but not out of the
 * time its children started and ended in. */
static double end_of(const struct sbt_sample *s)
{
	return s->t_ns + s->ns + s->detour_ns;
}

/* The time sample i counts for: its own, less the timer's cost. */
static double eff(const struct totals *t, uint32_t i)
{
	const struct sbt_sample *s = &t->ds->s[i];
	double d = s->ns;

	if (t->o->filters & SBT_F_COST)
		d -= t->o->cost_ns >= 0 ? t->o->cost_ns :
		     t->ds->sources[s->source].te_ns;
	return d;
}

/* For the rare thread whose samples are not in the order they ended
 * (CSV input): by end, the inner one first on a tie (qsort_r: arg the
 * samples). */
static int cmp_end(const void *a, const void *b, void *arg)
{
	const struct sbt_sample *s = arg;
	const struct sbt_sample *x = &s[*(const uint32_t *)a];
	const struct sbt_sample *y = &s[*(const uint32_t *)b];
	double ex = end_of(x), ey = end_of(y);

	if (ex != ey)
		return ex < ey ? -1 : 1;
	return (x->t_ns < y->t_ns) - (x->t_ns > y->t_ns);
}

/* What a walk found of a sample: its children's time, to come off its
 * group's own (sub); whether it had any (HAD_KIDS) and whether they took
 * more than its own time (CLAMPED). */
enum { HAD_KIDS = 1, CLAMPED = 2 };

static void account(struct totals *t, uint32_t g, double sub, int how)
{
	if (how & HAD_KIDS)
		t->nested[g] = 1;
	if (how & CLAMPED)
		t->clamped[g]++;
	t->ex[g] -= sub;
}

/* One thread's samples th[0..n), in the order they ended: each parent's
 * children off the stack st[].  What it finds of th[k] goes to sub[k]
 * and how[k] when they are given (threads walked side by side, their
 * findings accounted after in walk order: floating-point sums in the
 * same order), else to the totals at once. */
static void thread_walk(struct totals *t, uint32_t *th, size_t n,
			uint32_t *st, double *sub, uint8_t *how)
{
	const struct sbt_sample *s = t->ds->s;
	size_t sp = 0;

	for (size_t k = 1; k < n; k++)
		if (end_of(&s[th[k]]) < end_of(&s[th[k - 1]])) {
			qsort_r(th, n, sizeof *th, cmp_end, (void *)s);
			break;
		}
	for (size_t k = 0; k < n; k++) {
		uint32_t p = th[k];
		double w = 1 + (double)s[p].skipped, b = s[p].t_ns;
		double kids = 0, own;
		int found = 0;
		while (sp && s[st[sp - 1]].t_ns >= b) {
			kids += eff(t, st[--sp]);
			found = HAD_KIDS;
		}
		/* a parent with the cost taken out once where its children
		 * had it taken out each can be shorter than they: its own
		 * time is then none, not less than none */
		own = eff(t, p);
		if (kids > own) {
			kids = fmax(own, 0);
			found |= CLAMPED;
		}
		if (sub)
			sub[k] = w * kids, how[k] = (uint8_t)found;
		else
			account(t, t->gid[p], w * kids, found);
		st[sp++] = p;
	}
}

/* The walks of threads side by side (sbt_jobs_each: thread k, its
 * samples by[from[k] .. from[k + 1]) and as much of the stack). */
struct walks {
	struct totals *t;
	uint32_t *by, *st;
	const uint32_t *end;          /* per thread: its run's end in by */
	double *sub;
	uint8_t *how;
};

static void walk_thread(void *arg, size_t k, int w)
{
	const struct walks *p = arg;
	size_t from = k ? p->end[k - 1] : 0;

	(void)w;
	thread_walk(p->t, p->by + from, p->end[k] - from, p->st + from,
		    p->sub + from, p->how + from);
}

/* Every thread's walk: side by side where there are threads and -j
 * threads to spare, then accounted in turn; else in turn. */
static void walks(struct totals *t, uint32_t *by, uint32_t *st,
		  const uint32_t *end, size_t nth, int jobs)
{
	size_t n = nth ? end[nth - 1] : 0;
	struct walks p = { t, by, st, end, NULL, NULL };

	if (nth > 1 && sbt_jobs(jobs) > 1 &&
	    (p.sub = big_alloc((n + 1) * sizeof *p.sub)) &&
	    (p.how = big_alloc(n + 1))) {
		sbt_jobs_each(nth, jobs, walk_thread, &p);
		for (size_t k = 0; k < n; k++)
			account(t, t->gid[by[k]], p.sub[k], p.how[k]);
	} else {
		for (size_t k = 0, from = 0; k < nth; from = end[k++])
			thread_walk(t, by + from, end[k] - from, st, NULL,
				    NULL);
	}
	if (p.sub)
		big_free(p.sub, (n + 1) * sizeof *p.sub);
	if (p.how)
		big_free(p.how, n + 1);
}

/* The passes over every sample run on o->jobs threads, in fixed blocks
 * of samples (sbt_jobs_blocks: by the sample count, never the thread
 * count): each block sums its own part of each group's total and counts
 * its samples of each thread, and the parts are added in block order, so
 * the totals are the same for any -j.  The walks (a stack per thread)
 * are one pass each, in turn. */
struct pass {
	struct totals *t;
	const uint32_t *base;
	size_t n, nb, ng, nth;
	double *part;                 /* [nb][ng]: block's inclusive sums   */
	double *kpart;                /* [nb][ng]: the same of kept samples */
	double *dpart;                /* [nb][ng]: calls of cut samples     */
	uint32_t *bcnt;               /* [nb][nth]: block's samples, then
	                                 where they go in by[]              */
	double *t0, *t1;              /* [workers][nth]: thread spans        */
	uint32_t *by, *st;
	uint32_t *gid;
	const struct sbt_result *res;
};

static size_t blk_lo(const struct pass *p, size_t b)
{
	return (size_t)((unsigned __int128)b * p->n / p->nb);
}

/* gid[] of block b's samples: UINT32_MAX, then their groups' (a
 * group's positions in res->order lie in this block's range of them).
 * The walks' stack is touched here too: a thread's samples that nest in
 * nothing stay on it, so it fills, and its fresh pages are zeroed on
 * -j threads rather than in the walk. */
static void pass_clear(void *arg, size_t b, int w)
{
	struct pass *p = arg;
	size_t lo = blk_lo(p, b), m = blk_lo(p, b + 1) - lo;

	(void)w;
	memset(p->gid + lo, 0xff, m * sizeof *p->gid);
	memset(p->st + lo, 0, m * sizeof *p->st);
}

static void pass_gid(void *arg, size_t b, int w)
{
	struct pass *p = arg;
	const struct sbt_result *res = p->res;
	size_t lo = (size_t)((unsigned __int128)b * res->norder / p->nb);
	size_t hi = (size_t)((unsigned __int128)(b + 1) * res->norder /
			     p->nb);
	size_t k = 0, a = 0, z = res->ngroups;

	(void)w;
	while (a < z) {                 /* the group holding position lo */
		size_t m = a + (z - a) / 2;
		if (res->g[m].first + res->g[m].n <= lo)
			a = m + 1;
		else
			z = m;
	}
	for (k = a; k < res->ngroups && lo < hi; k++) {
		const struct sbt_group *g = &res->g[k];
		size_t e = g->first + g->n < hi ? g->first + g->n : hi;
		for (size_t j = lo > g->first ? lo : g->first; j < e; j++)
			p->gid[res->order[j]] = (uint32_t)k;
		lo = e > lo ? e : lo;
	}
}

static void pass_sum(void *arg, size_t b, int w)
{
	struct pass *p = arg;
	struct totals *t = p->t;
	const struct sbt_dataset *ds = t->ds;
	double *part = p->part + b * p->ng, *kpart = p->kpart + b * p->ng;
	double *dpart = p->dpart + b * p->ng;
	uint32_t *cnt = p->bcnt + b * p->nth;
	double *t0 = p->t0 + (size_t)w * p->nth, *t1 = p->t1 +
		     (size_t)w * p->nth;

	for (size_t i = blk_lo(p, b), hi = blk_lo(p, b + 1); i < hi; i++) {
		const struct sbt_sample *s = &ds->s[i];
		if (!counted(s) || t->gid[i] == UINT32_MAX)
			continue;
		uint32_t th = p->base[s->source] + s->thread;
		double d = eff(t, (uint32_t)i) * (1 + (double)s->skipped);
		part[t->gid[i]] += d;
		if (!(t->res->mark[i] & SBT_MK_DROPPED))
			kpart[t->gid[i]] += d;
		else
			dpart[t->gid[i]] += 1 + (double)s->skipped;
		if (s->t_ns < t0[th]) t0[th] = s->t_ns;
		if (end_of(s) > t1[th]) t1[th] = end_of(s);
		cnt[th]++;
	}
}

/* Samples by thread, stably: block b's of thread th from bcnt[b][th]. */
static void pass_by(void *arg, size_t b, int w)
{
	struct pass *p = arg;
	const struct sbt_dataset *ds = p->t->ds;
	uint32_t *at = p->bcnt + b * p->nth;

	(void)w;
	for (size_t i = blk_lo(p, b), hi = blk_lo(p, b + 1); i < hi; i++) {
		const struct sbt_sample *s = &ds->s[i];
		if (counted(s) && p->gid[i] != UINT32_MAX)
			p->by[at[p->base[s->source] + s->thread]++] =
				(uint32_t)i;
	}
}

/* Each group's figures, the groups on -j threads: a group's threads'
 * time is the sum of its threads' spans, each counted once (mark[th],
 * the worker's own: the last group that counted thread th), in the
 * order its samples first name them, whatever the thread count. */
struct spans {
	const struct totals *t;
	const uint32_t *base;
	const double *t0, *t1;
	uint32_t *mark;               /* [workers][nth] */
	size_t nth;
	struct sbt_group *g;          /* res->g: one writer per group   */
};

/* The standard error of a total estimated from n recorded calls of
 * all `calls`, sum and sq their durations' sum and sum of squares:
 * random sampling without replacement, calls x the mean's error with
 * the finite-population correction. */
static double total_se(double calls, double n, double sum, double sq)
{
	if (n < 2 || n >= calls)
		return 0;
	double var = (sq - sum * sum / n) / (n - 1);
	return calls * sqrt((var > 0 ? var : 0) / n * (1 - n / calls));
}

static void group_span(void *arg, size_t k, int w)
{
	const struct spans *p = arg;
	const struct totals *t = p->t;
	const struct sbt_dataset *ds = t->ds;
	struct sbt_group *g = &p->g[k];
	uint32_t *mark = p->mark + (size_t)w * p->nth;
	double span = 0, n = 0, sum = 0, sq = 0;

	for (size_t j = g->first; j < g->first + g->n; j++) {
		uint32_t i = t->res->order[j];
		const struct sbt_sample *s = &ds->s[i];
		uint32_t th = p->base[s->source] + s->thread;
		if (!counted(s))
			continue;
		double d = eff(t, i);
		n++, sum += d, sq += d * d;
		if (mark[th] == k)
			continue;
		mark[th] = (uint32_t)k;
		span += p->t1[th] - p->t0[th];
	}
	g->total_ns = t->tot[k];
	g->total_se_ns = total_se((double)g->calls, n, sum, sq);
	g->kept_ns = t->kept[k];
	/* the verdict's weight: a cut call at the median, its excess the
	 * OS's (a preemption of milliseconds in a 10 ns region would
	 * otherwise make it the run's hot spot) */
	g->judged_ns = t->kept[k] + (t->cut[k] > 0 && isfinite(g->st.median) ?
				     t->cut[k] * g->st.median : 0);
	g->excl_ns = t->ex[k];
	g->nested = t->nested[k];
	g->excl_clamped = t->clamped[k];
	g->thread_ns = span;
	g->share = span > 0 ? t->tot[k] / span : NAN;
	g->excl_share = span > 0 ? t->ex[k] / span : NAN;
}

int sbt_totals(const struct sbt_dataset *ds, const struct sbt_options *o,
	       struct sbt_result *res)
{
	uint32_t *base = thread_base(ds, o->jobs), *gid = NULL, *by = NULL;
	uint32_t *cnt = NULL, *mark = NULL, *st = NULL, *bcnt = NULL;
	double *t0 = NULL, *t1 = NULL, *tot = NULL, *ex = NULL, *part = NULL;
	double *kpart = NULL, *kept = NULL, *dpart = NULL, *cut = NULL;
	int *nested = NULL;
	size_t *clamped = NULL;
	size_t nth, sz = ds->n + 1, ng = res->ngroups + 1;
	int rc = -1;

	if (!base)
		return -1;
	nth = base[ds->nsources];
	/* per-block arrays of at most some 2^22 entries */
	size_t nb = sbt_jobs_blocks(ds->n, ((size_t)1 << 22) / (ng + nth + 1));
	int nw = sbt_jobs_width(nb, o->jobs);
	if (!(gid = big_alloc(sz * sizeof *gid)) ||
	    !(by = big_alloc(sz * sizeof *by)) ||
	    !(st = big_alloc(sz * sizeof *st)) ||
	    !(cnt = calloc(nth + 1, sizeof *cnt)) ||
	    !(bcnt = calloc(nb * (nth + 1), sizeof *bcnt)) ||
	    !(part = calloc(nb * ng, sizeof *part)) ||
	    !(kpart = calloc(nb * ng, sizeof *kpart)) ||
	    !(kept = calloc(ng, sizeof *kept)) ||
	    !(dpart = calloc(nb * ng, sizeof *dpart)) ||
	    !(cut = calloc(ng, sizeof *cut)) ||
	    !(t0 = malloc((size_t)nw * (nth + 1) * sizeof *t0)) ||
	    !(t1 = malloc((size_t)nw * (nth + 1) * sizeof *t1)) ||
	    !(mark = malloc((size_t)sbt_jobs_width(res->ngroups, o->jobs) *
			    (nth + 1) * sizeof *mark)) ||
	    !(tot = calloc(ng, sizeof *tot)) ||
	    !(ex = calloc(ng, sizeof *ex)) ||
	    !(nested = calloc(ng, sizeof *nested)) ||
	    !(clamped = calloc(ng, sizeof *clamped)))
		goto out;
	gid[ds->n] = UINT32_MAX;
	struct totals t = { ds, o, res, gid, tot, ex, kept, cut, nested,
			    clamped };
	struct pass p = { .t = &t, .base = base, .n = ds->n, .nb = nb,
			  .ng = ng, .nth = nth + 1, .part = part, .kpart = kpart,
			  .dpart = dpart,
			  .bcnt = bcnt, .t0 = t0, .t1 = t1, .by = by,
			  .st = st, .gid = gid, .res = res };
	/* inclusive totals; threads' spans; samples by thread (stable) */
	for (size_t k = 0; k < (size_t)nw * (nth + 1); k++)
		t0[k] = INFINITY, t1[k] = -INFINITY;
	sbt_jobs_each(nb, o->jobs, pass_clear, &p);
	sbt_jobs_each(nb, o->jobs, pass_gid, &p);
	sbt_jobs_each(nb, o->jobs, pass_sum, &p);
	for (size_t b = 0; b < nb; b++)
		for (size_t k = 0; k < res->ngroups; k++)
			tot[k] += part[b * ng + k],
			kept[k] += kpart[b * ng + k],
			cut[k] += dpart[b * ng + k];
	memcpy(ex, tot, ng * sizeof *ex);
	for (int w = 1; w < nw; w++)
		for (size_t k = 0; k < nth; k++) {
			double *a0 = t0 + (size_t)w * (nth + 1);
			double *a1 = t1 + (size_t)w * (nth + 1);
			if (a0[k] < t0[k]) t0[k] = a0[k];
			if (a1[k] > t1[k]) t1[k] = a1[k];
		}
	for (size_t k = 0; k < (size_t)sbt_jobs_width(res->ngroups, o->jobs) *
	     (nth + 1); k++)
		mark[k] = UINT32_MAX;
	/* where each block's samples of each thread go in by[]; cnt[th]
	 * the end of thread th's run */
	for (size_t k = 0, at = 0; k < nth; k++) {
		for (size_t b = 0; b < nb; b++) {
			uint32_t c = bcnt[b * (nth + 1) + k];
			bcnt[b * (nth + 1) + k] = (uint32_t)at;
			at += c;
		}
		cnt[k] = (uint32_t)at;
	}
	sbt_jobs_each(nb, o->jobs, pass_by, &p);
	walks(&t, by, st, cnt, nth, o->jobs);
	struct spans sp = { &t, base, t0, t1, mark, nth + 1, res->g };
	sbt_jobs_each(res->ngroups, o->jobs, group_span, &sp);
	rc = 0;
out:
	free(t0), free(t1), free(mark), free(cnt), free(base);
	free(tot), free(ex), free(nested), free(clamped), free(bcnt);
	free(part), free(kpart), free(kept), free(dpart), free(cut);
	big_free(gid, sz * sizeof *gid);
	big_free(by, sz * sizeof *by);
	big_free(st, sz * sizeof *st);
	return rc;
}

void sbt_group_total(const struct sbt_group *g, double *total_ns,
		     double *se_ns)
{
	*total_ns = g->total_ns;
	*se_ns = g->total_se_ns;
}
