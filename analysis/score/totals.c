/*
 * totals.c - how much of the run each region took: its total time
 * (inclusive), its own time without the regions nested in it
 * (exclusive), and both as a share of the time of the threads it ran on.
 *
 * Nesting is read from the samples' windows, per thread: a sample lies
 * in another when it starts no earlier and ends no later (START reads
 * the clock after its bookkeeping and STOP before, so a nested window is
 * strictly inside its parent's).  Its innermost such sample is its
 * parent.  Sorted by start, longer first on a tie, one sweep with a stack
 * of open windows finds every parent.  A sample that overlaps the top of
 * the stack without lying in it (regions stopped out of nesting order)
 * closes it: it and what follows are not counted as nested in it.
 *
 * Durations are the analyzed ones (filter_cost applied), of every call;
 * a sample the OS-noise filter cut counts at its group's median: its
 * excess is the OS's (a preemption of milliseconds in a 10 ns region
 * would otherwise make it look like the run's hot spot), its call still
 * took the region's typical time.  A sample recorded
 * for 1 + skipped calls (SBT_SAMPLE, a capped log, the sample budget)
 * counts that many times, as the call estimates do; its own time is its
 * duration less its recorded children's.  So for any nesting
 *   inclusive(parent) = exclusive(parent) + sum of inclusive(children)
 * sample by sample, exactly when every call is recorded.
 *
 * A thread's time is the span from its first sample's start to its last
 * sample's end (the log knows no thread's birth or death).
 */
#include "analyze.h"
#include "bigmem.h"
#include "sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Samples that are timed regions (not probes, calibration, resets). */
static int counted(const struct sbt_sample *s)
{
	return !(s->flags & (SBT_SF_PROBE | SBT_SF_CALIB | SBT_SF_RESET |
			     SBT_SF_BEFORE_RESET));
}

/* Thread numbers dense over the dataset: source-major.  base[src] is
 * the first of source src's; base[nsources] the count. */
static uint32_t *thread_base(const struct sbt_dataset *ds)
{
	uint32_t *base = calloc(ds->nsources + 1, sizeof *base);

	if (!base)
		return NULL;
	for (size_t i = 0; i < ds->n; i++) {
		const struct sbt_sample *s = &ds->s[i];
		if (s->thread + 1 > base[s->source + 1])
			base[s->source + 1] = s->thread + 1;
	}
	for (size_t k = 0; k < ds->nsources; k++)
		base[k + 1] += base[k];
	return base;
}

/* The analyzed duration of sample s. */
static double dur(const struct sbt_dataset *ds, const struct sbt_options *o,
		  const struct sbt_sample *s)
{
	if (!(o->filters & SBT_F_COST))
		return s->ns;
	return s->ns - (o->cost_ns >= 0 ? o->cost_ns :
			ds->sources[s->source].te_ns);
}

/* ix[0..n): the counted samples, sorted by start (longer first on a
 * tie) into out[], grouped by thread (stable).  key[] is scratch. */
static int order(const struct sbt_dataset *ds, const uint32_t *base,
		 size_t nth, uint32_t *ix, double *key, size_t n,
		 uint32_t *out)
{
	uint32_t *cnt = calloc(nth + 1, sizeof *cnt);

	if (!cnt)
		return -1;
	for (size_t k = 0; k < n; k++)
		key[k] = -ds->s[ix[k]].ns;
	if (sbt_sort_keyed(key, ix, n) != 0)
		goto fail;
	for (size_t k = 0; k < n; k++)
		key[k] = ds->s[ix[k]].t_ns;
	if (sbt_sort_keyed(key, ix, n) != 0)
		goto fail;
	for (size_t k = 0; k < n; k++) {
		const struct sbt_sample *s = &ds->s[ix[k]];
		cnt[base[s->source] + s->thread + 1]++;
	}
	for (size_t t = 1; t < nth; t++)
		cnt[t] += cnt[t - 1];
	for (size_t k = 0; k < n; k++) {
		const struct sbt_sample *s = &ds->s[ix[k]];
		out[cnt[base[s->source] + s->thread]++] = ix[k];
	}
	free(cnt);
	return 0;
fail:
	free(cnt);
	return -1;
}

/* own[i] -= each child's time eff[]; parent[i] set on the parents. */
static int sweep(const struct sbt_dataset *ds, const double *eff,
		 const uint32_t *base, const uint32_t *by, size_t n,
		 double *own, uint8_t *parent)
{
	uint32_t *st = malloc((n + 1) * sizeof *st), cur = UINT32_MAX;
	size_t sp = 0;

	if (!st)
		return -1;
	for (size_t k = 0; k < n; k++) {
		const struct sbt_sample *s = &ds->s[by[k]];
		uint32_t th = base[s->source] + s->thread;
		double end = s->t_ns + s->ns;
		if (th != cur)
			sp = 0, cur = th;
		while (sp && ds->s[st[sp - 1]].t_ns + ds->s[st[sp - 1]].ns <
		       end)
			sp--;
		if (sp) {
			own[st[sp - 1]] -= eff[by[k]];
			parent[st[sp - 1]] = 1;
		}
		st[sp++] = by[k];
	}
	free(st);
	return 0;
}

int sbt_totals(const struct sbt_dataset *ds, const struct sbt_options *o,
	       struct sbt_result *res)
{
	uint32_t *base = thread_base(ds), *ix = NULL, *by = NULL;
	uint32_t *mark = NULL;
	uint8_t *parent = NULL;
	double *key = NULL, *own = NULL, *eff = NULL, *t0 = NULL, *t1 = NULL;
	size_t n = 0, nth, sz = (ds->n + 1);
	int rc = -1;

	if (!base)
		return -1;
	nth = base[ds->nsources];
	if (!(ix = big_alloc(sz * sizeof *ix)) ||
	    !(by = big_alloc(sz * sizeof *by)) ||
	    !(key = big_alloc(sz * sizeof *key)) ||
	    !(own = big_alloc(sz * sizeof *own)) ||
	    !(eff = big_alloc(sz * sizeof *eff)) ||
	    !(parent = big_alloc(sz)) ||
	    !(t0 = malloc((nth + 1) * sizeof *t0)) ||
	    !(t1 = malloc((nth + 1) * sizeof *t1)) ||
	    !(mark = malloc((nth + 1) * sizeof *mark)))
		goto out;
	memset(parent, 0, sz);
	for (size_t k = 0; k < nth; k++)
		t0[k] = INFINITY, t1[k] = -INFINITY, mark[k] = UINT32_MAX;
	/* each sample's time: as analyzed, a cut one its group's median */
	for (size_t i = 0; i < ds->n; i++)
		eff[i] = dur(ds, o, &ds->s[i]);
	for (size_t k = 0; k < res->ngroups; k++) {
		const struct sbt_group *g = &res->g[k];
		if (!g->dropped || !isfinite(g->st.median))
			continue;
		for (size_t j = g->first; j < g->first + g->n; j++)
			if (ds->s[res->order[j]].flags & SBT_SF_DROPPED)
				eff[res->order[j]] = g->st.median;
	}
	for (size_t i = 0; i < ds->n; i++) {
		const struct sbt_sample *s = &ds->s[i];
		if (!counted(s))
			continue;
		uint32_t th = base[s->source] + s->thread;
		own[i] = eff[i];
		if (s->t_ns < t0[th]) t0[th] = s->t_ns;
		if (s->t_ns + s->ns > t1[th]) t1[th] = s->t_ns + s->ns;
		ix[n++] = (uint32_t)i;
	}
	if (order(ds, base, nth, ix, key, n, by) != 0 ||
	    sweep(ds, eff, base, by, n, own, parent) != 0)
		goto out;
	for (size_t k = 0; k < res->ngroups; k++) {
		struct sbt_group *g = &res->g[k];
		double tot = 0, ex = 0, span = 0;
		g->nested = 0;
		for (size_t j = g->first; j < g->first + g->n; j++) {
			uint32_t i = res->order[j];
			const struct sbt_sample *s = &ds->s[i];
			if (!counted(s))
				continue;
			double w = 1 + (double)s->skipped;
			uint32_t th = base[s->source] + s->thread;
			tot += w * eff[i];
			ex += w * own[i];
			g->nested |= parent[i];
			if (mark[th] != k) {
				mark[th] = (uint32_t)k;
				span += t1[th] - t0[th];
			}
		}
		g->total_ns = tot;
		g->excl_ns = ex;
		g->thread_ns = span;
		g->share = span > 0 ? tot / span : NAN;
		g->excl_share = span > 0 ? ex / span : NAN;
	}
	rc = 0;
out:
	free(t0), free(t1), free(mark), free(base);
	big_free(ix, sz * sizeof *ix);
	big_free(by, sz * sizeof *by);
	big_free(key, sz * sizeof *key);
	big_free(own, sz * sizeof *own);
	big_free(eff, sz * sizeof *eff);
	big_free(parent, sz);
	return rc;
}
