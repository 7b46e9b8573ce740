/*
 * phase.c - phases over time: binary segmentation with a rank CUSUM.
 *
 * Zhang and Gu, "A real-time online evaluation method for helper thread
 * prefetching quality" (doc/DESIGN.md), call a stretch of a run a phase
 * while a metric (there CPI) stays steady, and declare a change when the
 * mean of the metric in two detection windows differs by more than a
 * threshold (5 %).  We keep the
 * idea and make both halves of the test principled for timing data:
 *
 *   Size.  Consecutive phases must differ in level by at least t_diff,
 *     the timer's own sensitivity: a smaller shift is not one the clock
 *     can tell apart from its noise (a percentage has no such meaning
 *     for a 30 ns region).
 *   Solidity.  The cut must also be statistically solid.  Timing data is
 *     skewed and has stray samples, so the test is on ranks: within a
 *     segment of m samples with (mid)ranks r_i, the standardized sum of
 *     the first s ranks
 *       Z(s) = (S_s - s rbar) / sqrt(s (m - s) var(r) / (m - 1))
 *     is the Mann-Whitney statistic of "before s" against "after s", tie
 *     corrected (quantized clocks tie a lot).  The cut is at the s with
 *     the largest |Z|, and taken when |Z| >= 5: under no change, the
 *     maximum over s of this standardized bridge exceeds x with
 *     probability about x phi(x) log(m^2/min_seg^2) (its asymptotic
 *     tail), and min_seg >= m/1000 below, so for x = 5 that is ~1e-4
 *     per examined segment at any m (30 stationary series of 20000
 *     samples, three shapes, give no phase in tests/score).
 *   Binary segmentation.  A cut with |Z| >= 5 splits its segment, and
 *     both halves are examined in turn (first in, first out, so the
 *     large-scale structure is cut first), up to SBT_PHASE_CUTS cuts.
 *     The size test is applied afterwards, not per cut: an excursion in
 *     the middle of a run (300 -> 360 -> 300 ns) gives a very solid first
 *     cut whose two sides have nearly the same level; only once the
 *     excursion is cut out on both ends do the phases differ.  So all
 *     solid cuts are kept, then neighbouring phases whose levels differ
 *     by less than t_diff are merged (the closest pair first, repeatedly,
 *     until every neighbour pair differs by >= t_diff and at most
 *     SBT_PHASE_MAX phases remain).  A phase holds at least
 *     SBT_PHASE_MIN_SEG samples and SBT_PHASE_MIN_FRAC of the group (a
 *     warm-up of 0.1 % of the run still shows).  A slow drift becomes a
 *     staircase of phases about t_diff apart.
 *
 *   Level.  A phase's level is its 10 %-trimmed mean (seg_level): on a
 *     quantized clock the median jumps a whole tick when a sub-quantum
 *     shift tips it over a tick boundary, which would pass the size test.
 *
 * Cost.  The samples are sorted by value once; every segment keeps its
 * values sorted (split() partitions them in O(m), merging two phases
 * merges their runs in O(m)), so levels and medians read order
 * statistics off them.  Examining a segment of m samples makes two passes
 * over it; the segments of one level of the binary tree are disjoint, so
 * a level costs O(N log N), and with at most SBT_PHASE_CUTS cuts,
 * examined breadth-first, there are O(log SBT_PHASE_CUTS) levels for
 * balanced cuts (at most SBT_PHASE_CUTS in the worst case, a constant).  Deterministic: ties are ordered by
 * index, no randomness.
 */
#include "phase.h"
#include "stats.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sort.h"
#include "bigmem.h"

#define SBT_PHASE_CUTS  63      /* solid cuts looked for, at most */

struct ctx {
	const double *ns;
	size_t n;
	uint32_t *order;   /* all indices by (value, index), sorted once  */
	double *sv;        /* sv[i] == ns[order[i]]: values, in order's order */
	uint32_t *idx;     /* scratch: a segment's indices, by value      */
	double *rank;      /* scratch: midrank within the current segment */
	size_t min_seg;
};

/* Invariant: for every segment [lo, hi) still to be tested, c->order[lo,
 * hi) holds exactly the indexes lo .. hi-1, ordered by (value, index),
 * and c->sv[lo, hi) their values.  It holds for [0, n) after the initial
 * sort; split() keeps it for both halves of a cut in O(segment), so no
 * segment is ever sorted again.  Every phase found keeps sv sorted;
 * merge_close merges the two runs of the phases it joins. */
static void split(struct ctx *c, size_t lo, size_t hi, size_t k)
{
	size_t a = lo, b = 0;

	for (size_t i = lo; i < hi; i++) {
		uint32_t x = c->order[i];
		double v = c->sv[i];
		if (x < k) {
			c->order[a] = x;
			c->sv[a++] = v;
		} else {
			c->idx[b] = x;          /* scratch for the right part */
			c->rank[b++] = v;
		}
	}
	memcpy(c->order + a, c->idx, b * sizeof *c->idx);
	memcpy(c->sv + a, c->rank, b * sizeof *c->rank);
}

/* Median of ns[lo, hi), hi > lo, off its sorted values. */
static double seg_median(const struct ctx *c, size_t lo, size_t hi)
{
	return sbt_quantile_sorted(c->sv + lo, hi - lo, 0.5);
}

/* The level of ns[lo, hi): its 10 %-trimmed mean, its two bounds off its
 * sorted values.  Unlike the median it moves continuously on a
 * quantized clock: a sub-quantum shift that tips the median over a tick
 * boundary moves it by the shift, not by a whole tick.  The sum runs in
 * time order (the order of a sum's rounding is part of its value). */
static double seg_level(const struct ctx *c, size_t lo, size_t hi)
{
	size_t m = hi - lo, g = (size_t)floor(0.1 * (double)m);
	size_t n_le_lo = 0, n_lt_hi = 0;
	double a, b, sum = 0;

	a = sbt_quantile_sorted(c->sv + lo, m, m > 1 ? (double)g /
				(double)(m - 1) : 0);
	b = sbt_quantile_sorted(c->sv + lo, m, m > 1 ? (double)(m - 1 - g) /
				(double)(m - 1) : 0);
	if (a == b)
		return a;
	for (size_t i = lo; i < hi; i++) {
		double x = c->ns[i];
		n_le_lo += x <= a;
		n_lt_hi += x < b;
		if (x > a && x < b)
			sum += x;
	}
	sum += (double)(n_le_lo - g) * a + (double)(m - g - n_lt_hi) * b;
	return sum / (double)(m - 2 * g);
}

/* Midranks of ns[lo, hi) within the segment into c->rank[lo, hi);
 * returns their population variance. */
static double seg_ranks(struct ctx *c, size_t lo, size_t hi)
{
	size_t m = hi - lo, r = 0;
	double mean = 0.5 * ((double)m + 1), ss = 0;

	const uint32_t *ord = c->order + lo;
	const double *sv = c->sv + lo;

	/* equal values are consecutive: the group at r .. e-1 takes ranks
	 * r+1 .. e, and each member gets their mean */
	while (r < m) {
		double v = sv[r];
		size_t e = r + 1;
		while (e < m && sv[e] == v)
			e++;
		double mid = 0.5 * ((double)r + 1 + (double)e);
		for (size_t q = r; q < e; q++)
			c->rank[ord[q]] = mid;
		ss += (double)(e - r) * (mid - mean) * (mid - mean);
		r = e;
	}
	return ss / (double)m;
}

/* The best cut of [lo, hi): its position in *cut and its |Z|; 0 when the
 * segment is too short or constant. */
static double best_cut(struct ctx *c, size_t lo, size_t hi, size_t *cut)
{
	size_t m = hi - lo;
	double var, mean, s = 0, best = 0;

	if (m < 2 * c->min_seg)
		return 0;
	var = seg_ranks(c, lo, hi);
	if (!(var > 0))
		return 0;
	mean = 0.5 * ((double)m + 1);
	double vm = var / (double)(m - 1);
	for (size_t k = 1; k < m; k++) {
		s += c->rank[lo + k - 1];
		if (k < c->min_seg || m - k < c->min_seg)
			continue;
		/* a position clearly below the best so far needs no root:
		 * z^2 < best^2 with room for the few roundings between the
		 * two ways of computing it */
		double d = s - (double)k * mean;
		if (d * d < best * best * ((double)k * (double)(m - k) * vm) *
		    (1 - 1e-9))
			continue;
		double sd = sqrt((double)k * (double)(m - k) * var /
				 (double)(m - 1));
		double z = fabs(d) / sd;
		if (z > best) {
			best = z;
			*cut = lo + k;
		}
	}
	return best;
}

/* All solid cuts, ascending, into cuts[] with their |Z| in zc[]. */
static int segment(struct ctx *c, size_t *cuts, double *zc)
{
	size_t qlo[2 * SBT_PHASE_CUTS + 1], qhi[2 * SBT_PHASE_CUTS + 1];
	int head = 0, tail = 0, ncuts = 0;

	qlo[tail] = 0; qhi[tail++] = c->n;
	while (head < tail && ncuts < SBT_PHASE_CUTS) {
		size_t lo = qlo[head], hi = qhi[head++], k = 0;
		double z = best_cut(c, lo, hi, &k);
		if (z < SBT_PHASE_Z)
			continue;
		split(c, lo, hi, k);
		cuts[ncuts] = k;
		zc[ncuts++] = z;
		qlo[tail] = lo; qhi[tail++] = k;
		qlo[tail] = k;  qhi[tail++] = hi;
	}
	/* few cuts: insertion sort, carrying z along */
	for (int i = 1; i < ncuts; i++)
		for (int j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
			size_t t = cuts[j]; cuts[j] = cuts[j - 1]; cuts[j - 1] = t;
			double u = zc[j]; zc[j] = zc[j - 1]; zc[j - 1] = u;
		}
	return ncuts;
}

struct seg { size_t lo, hi; double level, z; };

/* Merge the sorted runs c->sv[lo, mid) and [mid, hi) into one, through
 * c->rank. */
static void merge_runs(struct ctx *c, size_t lo, size_t mid, size_t hi)
{
	const double *x = c->sv;
	size_t i = lo, j = mid, o = 0;

	while (i < mid && j < hi)
		c->rank[o++] = x[j] < x[i] ? x[j++] : x[i++];
	while (i < mid)
		c->rank[o++] = x[i++];
	while (j < hi)
		c->rank[o++] = x[j++];
	memcpy(c->sv + lo, c->rank, (hi - lo) * sizeof *c->rank);
}

/* Merge neighbours closer than t_diff in level (closest pair first),
 * and beyond SBT_PHASE_MAX.  Returns the new count. */
static int merge_close(struct ctx *c, struct seg *sg, int m, double t_diff)
{
	while (m > 1) {
		int best = -1;
		double bd = INFINITY;
		for (int k = 0; k + 1 < m; k++) {
			double d = fabs(sg[k + 1].level - sg[k].level);
			if (d < bd) {
				bd = d;
				best = k;
			}
		}
		if (bd >= t_diff && m <= SBT_PHASE_MAX)
			break;
		merge_runs(c, sg[best].lo, sg[best].hi, sg[best + 1].hi);
		sg[best].hi = sg[best + 1].hi;
		sg[best].level = seg_level(c, sg[best].lo, sg[best].hi);
		memmove(&sg[best + 1], &sg[best + 2],
			(size_t)(m - best - 2) * sizeof *sg);
		m--;
	}
	return m;
}

int sbt_phase_detect(const double *t_ns, const double *ns, size_t n,
		     double t_diff_ns, struct sbt_phases *out)
{
	struct ctx c = { .ns = ns, .n = n };
	size_t cuts[SBT_PHASE_CUTS];
	double zc[SBT_PHASE_CUTS];
	struct seg sg[SBT_PHASE_CUTS + 1];
	int ncuts = 0, m;

	memset(out, 0, sizeof *out);
	if (n == 0)
		return 0;
	if (n >= UINT32_MAX)
		return -2;
	for (size_t i = 1; i < n; i++)
		if (!(t_ns[i] >= t_ns[i - 1]))
			return -2;
	c.min_seg = (size_t)ceil(SBT_PHASE_MIN_FRAC * (double)n);
	if (c.min_seg < SBT_PHASE_MIN_SEG)
		c.min_seg = SBT_PHASE_MIN_SEG;
	c.idx = big_alloc(n * sizeof *c.idx);
	c.rank = big_alloc(n * sizeof *c.rank);
	c.order = big_alloc(n * sizeof *c.order);
	c.sv = big_alloc(n * sizeof *c.sv);
	if (!c.idx || !c.rank || !c.order || !c.sv)
		goto oom;
	/* a stable sort of (value, index) pairs: ties stay in index order */
	memcpy(c.sv, ns, n * sizeof *c.sv);
	for (size_t i = 0; i < n; i++)
		c.order[i] = (uint32_t)i;
	if (sbt_sort_keyed(c.sv, c.order, n) != 0)
		goto oom;

	/* no t_diff, no size test: no shift can be judged */
	if (t_diff_ns > 0)
		ncuts = segment(&c, cuts, zc);
	for (int k = 0; k <= ncuts; k++) {
		sg[k].lo = k ? cuts[k - 1] : 0;
		sg[k].hi = k < ncuts ? cuts[k] : n;
		sg[k].z = k ? zc[k - 1] : 0;
		sg[k].level = seg_level(&c, sg[k].lo, sg[k].hi);
	}
	m = merge_close(&c, sg, ncuts + 1, t_diff_ns > 0 ? t_diff_ns : 0);

	for (int k = 0; k < m; k++) {
		struct sbt_phase *p = &out->ph[k];
		p->first = sg[k].lo;
		p->n = sg[k].hi - sg[k].lo;
		p->t_begin_ns = t_ns[sg[k].lo];
		p->t_end_ns = t_ns[sg[k].hi - 1];
		p->level_ns = sg[k].level;
		p->median_ns = seg_median(&c, sg[k].lo, sg[k].hi);
		out->z[k] = sg[k].z;
	}
	out->nphases = m;
	out->untimed = n > 1 && t_ns[n - 1] == t_ns[0];
	big_free(c.idx, n * sizeof *c.idx);
	big_free(c.rank, n * sizeof *c.rank);
	big_free(c.order, n * sizeof *c.order);
	big_free(c.sv, n * sizeof *c.sv);
	return 0;
oom:
	big_free(c.idx, n * sizeof *c.idx);
	big_free(c.rank, n * sizeof *c.rank);
	big_free(c.order, n * sizeof *c.order);
	big_free(c.sv, n * sizeof *c.sv);
	return -1;
}
/* ---- naming the phases ------------------------------------------------ */

/* The warm-up: the longest prefix of phases, ending within the first
 * SBT_PHASE_WARMUP_NS and holding at most SBT_PHASE_WARMUP_FRAC of the
 * samples, each slower than the phase after it by min_shift.  Returns
 * the number of phases in it. */
static int find_warmup(const struct sbt_phases *p, size_t n, double min_shift)
{
	int best = 0;
	size_t sum = 0;

	for (int j = 1; j < p->nphases; j++) {
		const struct sbt_phase *w = &p->ph[j - 1];
		sum += w->n;
		if (w->t_end_ns > SBT_PHASE_WARMUP_NS ||
		    (double)sum > SBT_PHASE_WARMUP_FRAC * (double)n)
			break;
		int slow = 1;
		for (int i = 0; i < j && slow; i++)
			slow = p->ph[i].level_ns >= p->ph[j].level_ns +
						     min_shift;
		if (slow)
			best = j;
	}
	return best;
}

/* Could phase j be a level: long enough, and the run's own? */
static int is_level(const struct sbt_phases *p, int j, size_t n)
{
	return (double)p->ph[j].n >= SBT_PHASE_TRANS_FRAC * (double)n &&
	       p->ph[j].kind != SBT_PH_MACHINE;
}

/* Is phase j at level b rather than at level a (the levels of a step)? */
static int at_level(const struct sbt_phase *ph, double b, double a,
		    double min_shift)
{
	double db = fabs(ph->level_ns - b);
	return db < min_shift && db < fabs(ph->level_ns - a);
}

/* Where the new level of a step from level phase a to level phase b
 * begins.  Short phases between them (host slowdowns cut the new level
 * into pieces) that sit at b's level are the new level already: the
 * earliest such piece, with none at a's level after it, is the step's
 * start.  Each piece is named a level; the excursions between stay
 * transients.  Returns the phase that starts the new level. */
static int new_level_start(struct sbt_phases *p, int a, int b,
			   double min_shift)
{
	double la = p->ph[a].level_ns, lb = p->ph[b].level_ns;
	int j = b;

	for (int k = b - 1; k > a; k--) {
		struct sbt_phase *ph = &p->ph[k];
		if (ph->kind == SBT_PH_MACHINE || ph->machine ||
		    at_level(ph, la, lb, min_shift))
			break;
		if (at_level(ph, lb, la, min_shift))
			j = k;
	}
	for (int k = j; k < b; k++)
		if (at_level(&p->ph[k], lb, la, min_shift))
			p->ph[k].kind = SBT_PH_LEVEL;
	return j;
}

/* The long level next to phase i in direction d (-1, +1) with only short
 * phases between, or -1: none before a machine phase or the end. */
static int next_level(const struct sbt_phases *p, int i, int d, int first,
		      size_t n)
{
	for (int j = i + d; j >= first && j < p->nphases; j += d) {
		if (p->ph[j].kind == SBT_PH_MACHINE)
			return -1;
		if (is_level(p, j, n))
			return j;
	}
	return -1;
}

/* Short phases at the level the region holds around them are that
 * level's pieces, cut apart by excursions, not excursions themselves:
 * within min_shift of the long level before them, or after them at the
 * run's start and end; across a step, those at the level before it.
 * (Pieces of a new level before its first long phase: new_level_start.) */
static void level_pieces(struct sbt_phases *p, int first, size_t n,
			 double min_shift)
{
	for (int i = first; i < p->nphases; i++) {
		if (p->ph[i].kind != SBT_PH_TRANSIENT)
			continue;
		int a = next_level(p, i, -1, first, n);
		int b = next_level(p, i, +1, first, n);
		if (a < 0 && b < 0)
			continue;
		double la = p->ph[a >= 0 ? a : b].level_ns;
		double lb = p->ph[b >= 0 ? b : a].level_ns;
		/* across a step, only the level before it (the pieces
		 * after it are new_level_start's) */
		if (fabs(lb - la) < min_shift ? fabs(p->ph[i].level_ns - la) <
		    min_shift || fabs(p->ph[i].level_ns - lb) < min_shift :
		    at_level(&p->ph[i], la, lb, min_shift))
			p->ph[i].kind = SBT_PH_LEVEL;
	}
}

void sbt_phase_classify(struct sbt_phases *p, size_t n, double min_shift)
{
	int k = p->nphases, first, last = -1;

	p->min_shift_ns = min_shift;
	p->nsteps = 0;
	p->warmup_n = p->transient_n = 0;
	p->ntransients = 0;
	p->transient_max = 0;
	for (int i = 0; i < k; i++)
		if (p->ph[i].kind != SBT_PH_MACHINE)
			p->ph[i].kind = SBT_PH_LEVEL;
	if (k <= 1 || !(min_shift > 0))
		return;
	first = find_warmup(p, n, min_shift);
	for (int i = 0; i < first; i++) {
		if (p->ph[i].kind == SBT_PH_MACHINE)
			continue;
		p->ph[i].kind = SBT_PH_WARMUP;
		p->warmup_n += p->ph[i].n;
	}
	/* Excursions: phases holding less than SBT_PHASE_TRANS_FRAC of the
	 * samples each.  A level of the run holds more; what holds less
	 * left a level for a moment (an interrupt storm, a co-runner, a
	 * frequency dip) or is the end of the run caught mid-way.  With no
	 * level in the run at all, all are levels. */
	int any_level = 0;
	for (int i = first; i < k; i++)
		any_level |= is_level(p, i, n);
	for (int i = first; i < k && any_level; i++)
		if (!is_level(p, i, n) && p->ph[i].kind != SBT_PH_MACHINE)
			p->ph[i].kind = SBT_PH_TRANSIENT;
	/* Steps: changes between consecutive levels, each dated where its
	 * new level begins (new_level_start names the new level's short
	 * pieces before its first long phase levels). */
	for (int i = first; i < k; i++) {
		if (p->ph[i].kind != SBT_PH_LEVEL ||
		    (any_level && !is_level(p, i, n)))
			continue;
		/* a change the machine made (machine.c) is not a step */
		if (last >= 0 && !p->ph[i].machine &&
		    fabs(p->ph[i].level_ns - p->ph[last].level_ns) >=
		    min_shift) {
			p->step_from_ns[p->nsteps] = p->ph[last].level_ns;
			p->step[p->nsteps++] = new_level_start(p, last, i,
							       min_shift);
		}
		last = i;
	}
	level_pieces(p, first, n, min_shift);
	/* The excursions' size, from the level before them (after them
	 * for those at the start). */
	for (int i = first; i < k; i++) {
		if (p->ph[i].kind != SBT_PH_TRANSIENT)
			continue;
		double base = NAN;
		for (int j = i - 1; j >= first && isnan(base); j--)
			if (p->ph[j].kind == SBT_PH_LEVEL)
				base = p->ph[j].level_ns;
		for (int j = i + 1; j < k && isnan(base); j++)
			if (p->ph[j].kind == SBT_PH_LEVEL)
				base = p->ph[j].level_ns;
		p->transient_n += p->ph[i].n;
		if (i == first || p->ph[i - 1].kind != SBT_PH_TRANSIENT)
			p->ntransients++;
		double r = (p->ph[i].level_ns - base) / base;
		if (fabs(r) > fabs(p->transient_max))
			p->transient_max = r;
	}
}
