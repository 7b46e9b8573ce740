/*
 * sparse.c - sparse recording (SBT_SAMPLE, SBT_MAX_MB): a sampled
 * region's sites skip calls at random, each counted in a SKIP event of
 * the log; a skipped call sits on the open-region stack with no event, so
 * nesting and misuse are counted as for any call.  The inline markers
 * skip by themselves (sbtmark_hot.h: sbt__skip_fast); here are the rest and
 * the drawing of gaps.  Under SBT_MAX_MB every region is sampled, and
 * gaps grow with the thinning level (cap.h), read when a gap is drawn.
 */
#include "sparse.h"
#include "cap.h"
#include "path.h"
#include "stop.h"

#include <math.h>

/* Whether a region's calls go through the sampled path: under SBT_MAX_MB
 * all of them, but only once level 0 ended (cap.h). */
int sbt_sparse_on(sbt_id id)
{
	return sbt_regions_gap(id) > 1 || sbt_cap_thinning();
}

/* Calls to skip before the next recorded one: geometric with mean n - 1,
 * so that one call in n is recorded on average, at random - a fixed
 * every-n-th would alias with periodic work. */
static uint32_t draw_gap(struct sbt_thread *t, double n)
{
	double u, k;

	if (n <= 1)
		return 0;
	t->rng ^= t->rng << 13, t->rng ^= t->rng >> 7, t->rng ^= t->rng << 17;
	u = (double)((t->rng >> 11) + 1) * 0x1p-53;      /* (0, 1] */
	k = floor(log(u) / log1p(-1.0 / n));
	return k < 4e9 ? (uint32_t)k : 4000000000u;
}

/* START of a sampled region, busy gate closed by the caller.  The slot
 * of the site (thread.h) runs through a gap: `left` - 1 calls skipped,
 * then one recorded, then left = 0 and the next call draws the next gap
 * and writes the SKIP event that counts it - so each SKIP event counts
 * calls made after the previous recorded call of its site.  A thread's
 * first call of a site (or the first after its slot went to another
 * site) is recorded, so that a SKIP event always has a recorded call
 * before it.  The inline markers (again_ok) skip and record themselves:
 * after drawing, SBT__AGAIN sends them back to do it, so that a recorded
 * call takes the same path - and the same time - as any. */
int sbt_sparse_start(struct sbt_thread *t, uint32_t word, sbt_id region,
		     const char *tag, int again_ok)
{
	uint32_t site = SBT_EV_ID(word), d = t->hot.depth;
	struct sbt__skip *k = &t->hot.skip[site % SBT_HOT_SKIPS];
	struct sbt_event *e;

	if (sbt_path_misuse(t, region))
		return SBT_EMISUSE;
	if (k->site != site) {
		*k = (struct sbt__skip){ site, 0, NULL };
		return sbt_path_start(t, word, region, tag);
	}
	if (k->left == 0) {
		uint32_t gap = draw_gap(t, ldexp(sbt_regions_gap(region),
						 (int)sbt_cap_level()));
		k->count = NULL;
		if (gap && !(e = sbt_path_append(t, 0, 0, SBT_EV_WORD(
						SBT_EV_SKIP, 0, site))))
			gap = 0;        /* no room to count: record (or drop) */
		if (gap)
			k->count = &e->t;
		k->left = gap + 1;
		/* Only when the inline markers will take it: a skip needs
		 * an open gate, a recorded call room before hot.end. */
		struct sbt__ev *end = SBT__END(&t->hot);
		if (again_ok && __atomic_load_n(&t->hot.end_saved,
						__ATOMIC_RELAXED) &&
		    !sbt_gate_top_skipped(t) &&
		    (k->left > 1 || (end && t->hot.cur < end))) {
			sbt_gate_open(t);
			return SBT_AGAIN;
		}
	}
	if (k->left == 1) {
		k->left = 0;
		return sbt_path_start(t, word, region, tag);
	}
	k->left--;
	++*k->count;                    /* in the log: a crash loses no call */
	t->hot.stack[d] = (struct sbt__open){
		tag, NULL, SBT_EV_WORD(SBT_EV_SKIP, 0, site), region };
	t->hot.depth = d + 1;
	t->hot.nskip++;
	sbt_stop_skip(t);
	sbt_gate_open(t);
	return SBT_OK;
}
