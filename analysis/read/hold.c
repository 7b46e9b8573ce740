/*
 * hold.c - a single log over the sample budget, counted and thinned in
 * one reading (live thinning), holding what counting it first, planning
 * (thin.c) and then reading it holds.
 *
 * Why it is the same: a region's share from the water-filling plan only
 * falls as totals grow (a higher total lowers the level and is divided
 * by), so the share planned from the counts so far bounds the final one
 * from above.  Samples are held at such a bound, and whenever more than
 * c->hold_max are held, the plan is made again from the counts so far
 * and the held samples compacted to it; at the end, once more at the
 * final shares.  A sample is held at share p when its hash is below p
 * (thin.h) or it is its thread's first of its site, so thinning at p
 * then at p' <= p holds exactly what thinning at p' does; and a sample
 * dropped folds its calls (1 + its own skipped) into the last one held
 * before it of its thread and site, where thinning at p' from the start
 * would have put them.  The bounds are raised by 2^-30 of themselves, as
 * the plan's rounding must not put one below the final share.
 *
 * That bound alone holds ever fewer of each new sample, and the samples
 * held at an earlier, higher one pile up: a compaction each time the
 * log's counts grow by half again.  So the shares are also guessed: the
 * plan of the counts so far scaled to the whole log (as if the rest of
 * it were like what was read), raised by a fifth, first when a 32nd of
 * the log is read; the lower of the two is held at, and on a log alike
 * throughout the guess holds about 1.2 times the budget with one
 * compaction before the final one.  A
 * guess can be wrong (a region's calls all early in the log): then a
 * share was below the final one, samples the plan holds may be lost,
 * and the log is read again, counted first (sbt_hold_missed).
 */
#include "bigmem.h"
#include "logread.h"
#include "jobs.h"
#include "thin.h"

#include <stdlib.h>
#include <string.h>

#define SLACK (1 + 0x1p-30)
#define GUESS 1.2                      /* the guess's margin */

/* The region of site_info k, with samples counted: a placeholder was
 * made at its first (OP_REGION), as counting the log makes it. */
static long region_of(const struct ctx *c, size_t k)
{
	uint32_t raw = c->info[k].raw;

	if (raw < c->map.n && c->map.ds[raw] >= 0)
		return c->map.ds[raw];
	return raw >= c->max_id ? c->stray : -1;
}

/* The plan of the counts so far, in a scratch dataset of their regions
 * (the log's own keep their shares and totals until the final plan). */
static int plan_so_far(struct ctx *c, double *sh)
{
	struct sbt_dataset tmp = { 0 };
	size_t *idx = malloc(c->ninfo * sizeof *idx);
	int rc = -1;

	if (!idx)
		return -1;
	for (size_t k = 0; k < c->ninfo; k++) {
		long g = c->counts[k] ? region_of(c, k) : -1;
		if (g < 0)
			continue;
		const struct sbt_region *reg = &c->ds->regions[g];
		long r = sbt_ds_region(&tmp, reg->name, strlen(reg->name),
				       reg->api);
		if (r < 0)
			goto out;
		idx[k] = (size_t)r;
		tmp.regions[r].total += c->counts[k];
	}
	(void)sbt_thin_plan(&tmp, c->live);
	for (size_t k = 0; k < c->ninfo; k++) {
		double p = c->counts[k] && region_of(c, k) >= 0 ?
			   tmp.regions[idx[k]].keep : 1;
		sh[k] = p >= 1 ? 1 : p * SLACK < 1 ? p * SLACK : 1;
	}
	/* the guess: the counts scaled to the whole log */
	if (c->bytes_done && c->bytes_done < c->bytes_total) {
		double scale = (double)c->bytes_total / (double)c->bytes_done;
		for (size_t r = 0; r < tmp.nregions; r++) {
			tmp.regions[r].keep = 1;
			tmp.regions[r].total = (uint64_t)
				((double)tmp.regions[r].total * scale);
		}
		(void)sbt_thin_plan(&tmp, c->live);
		for (size_t k = 0; k < c->ninfo; k++)
			if (c->counts[k] && region_of(c, k) >= 0 &&
			    tmp.regions[idx[k]].keep * GUESS < sh[k])
				sh[k] = tmp.regions[idx[k]].keep * GUESS;
	}
	rc = 0;
out:
	sbt_ds_free(&tmp);
	free(idx);
	return rc;
}

/* The final plan: the regions' totals and shares in c->ds, made as
 * counting the log first makes them. */
static int plan_final(struct ctx *c, double *sh)
{
	struct sbt_dataset *ds = c->ds;

	if (sbt_log_totals(c) != 0)
		return -1;
	(void)sbt_thin_plan(ds, c->live);
	for (size_t k = 0; k < c->ninfo; k++) {
		long r = region_of(c, k);
		sh[k] = r >= 0 ? ds->regions[r].keep : 1;
	}
	return 0;
}

double *sbt_hold_plan(struct ctx *c, int final)
{
	double *sh = malloc(c->ninfo * sizeof *sh);

	if (!c->min_share && !(c->min_share = malloc(c->ninfo *
						     sizeof *sh))) {
		free(sh);
		return NULL;
	}
	if (sh && (final ? plan_final(c, sh) : plan_so_far(c, sh)) != 0) {
		free(sh);
		return NULL;
	}
	for (size_t k = 0; sh && !final && k < c->ninfo; k++)
		if (c->nshares == 0 || sh[k] < c->min_share[k])
			c->min_share[k] = sh[k];
	return sh;
}

int sbt_hold_missed(const struct ctx *c)
{
	for (size_t k = 0; k < c->ninfo; k++)
		if (c->counts[k] && c->min_share[k] < c->share[k])
			return 1;
	return 0;
}

/* The hash's verdict on each sample from c->first on at c->share
 * (held[i - c->first]), in fixed blocks on -j threads: a sample's own,
 * whatever was held before it (thin.h).  What depends on the samples
 * before it (a thread's first of a site, the folds) is the compaction's. */
struct verdicts {
	const struct ctx *c;
	uint8_t *held;
	size_t n, nb;
};

static int held_at(const struct ctx *c, const struct sbt_sample *s)
{
	size_t k;
	const struct site_info *in = sbt_seg_info(c, s->region, &k);

	return sbt_seg_held(c, in, c->share[k], s->thread, s->t_ns);
}

static void verdict_block(void *arg, size_t b, int w)
{
	const struct verdicts *v = arg;
	const struct sbt_sample *s = v->c->ds->s + v->c->first;

	(void)w;
	for (size_t i = b * v->n / v->nb, hi = (b + 1) * v->n / v->nb;
	     i < hi; i++)
		v->held[i] = (uint8_t)held_at(v->c, &s[i]);
}

void sbt_hold_compact(struct ctx *c, int jobs)
{
	struct sbt_dataset *ds = c->ds;
	struct tstate *ts = NULL;
	size_t j = c->first;
	struct verdicts v = { c, NULL, ds->n - c->first,
			      sbt_jobs_blocks(ds->n - c->first, 1024) };

	/* without room for them, each is made in the walk */
	if ((v.held = big_alloc(v.n)))
		sbt_jobs_each(v.nb, jobs, verdict_block, &v);
	/* the last held of each site: made again from what stays */
	for (size_t t = 0; t < c->nthreads; t++) {
		struct tstate *x = c->threads[t];
		if (x->last_of)
			memset(x->last_of, 0, x->cap_last *
			       sizeof *x->last_of);
		x->nlast = 0;
	}
	for (size_t i = c->first; i < ds->n; i++) {
		struct sbt_sample *s = &ds->s[i];
		if (!ts || ts->thread != s->thread)
			ts = sbt_seg_thread(c, s->thread);
		if (!ts) {              /* carried, so found: never */
			ds->s[j++] = *s;
			continue;
		}
		int held = v.held ? v.held[i - c->first] : held_at(c, s);
		if (!(s->flags & SBT_SF_PROBE)) {
			struct last *e = sbt_seg_last(ts, s->region);
			if (!held && e) {
				sbt_thin_fold(&ds->s[e->v], s->skipped);
			} else {
				held = 1;
				/* no growth: the table held these before */
				(void)sbt_seg_set_last(ts, s->region, j);
			}
		}
		/* a CYCLES event to come completes the thread's last */
		if (ts->lastk == LAST_SLOT && ts->lastv == i) {
			ts->lastv = j;
			ts->lastk = held ? LAST_SLOT : LAST_NONE;
		}
		if (held)
			ds->s[j++] = *s;
	}
	ds->n = j;
	big_free(v.held, v.n);
}
