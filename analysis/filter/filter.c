/*
 * filter.c - filter_cost and filter_os (paper sections 5.4.1 and 5.4.2).
 *
 * filter_os scores every sample with an isolation forest (iforest.c) and
 * then runs the paper's beta search over score cuts.  Two methods:
 *
 * SBT_OS_PAPER - the procedure as printed, with the paper's open points
 *   resolved as follows (each one is tested in tests/filter/):
 *
 *   Cuts.  c_k = -(60 + k)/100 for k = 0, 1, ..., K, where c_K is the
 *     first cut at or below the lowest score ("down to the lowest score":
 *     the walk ends at the cut that keeps every point, so the jump caused
 *     by the most anomalous points is part of the sequence).  A point is
 *     kept at cut c when score >= c (ties with the cut are kept).
 *   Maximum.  M_k = max of the measured value over the points kept at c_k.
 *     In 2-D the measured value is x, the wall clock: OS noise is time
 *     the region spends off the CPU or in the kernel, which a wall clock
 *     always contains and a cycle counter may not (halted or user-only
 *     counting), x is what the report states, and the floor below is in
 *     its units.  Cuts that keep no point have no maximum and are skipped.
 *   Jump.  D_k = M_{k+1} - M_k >= 0; the best cut is c_k for the first k
 *     (walking from -0.6 down) with D_k > mean(D): the cut *before* the
 *     jump, since the points that enter at c_{k+1} are the ones that make
 *     it and they must be the ones dropped.  Equal differences: the first
 *     wins.  All differences equal (e.g. all zero) - no jump, nothing cut.
 *   No score below -0.6.  K = 0, no difference: nothing is dropped.
 *   Tiny N.  Below SBT_OS_MIN_N = 8 points nothing is dropped: psi = n,
 *     the forest has depth <= 3, and its scores cannot reach the paper's
 *     -0.6 scale in any meaningful way (with 2 points every score is -0.5).
 *   Identical values.  Every tree is one leaf, every score is exactly
 *     -2^(-c(psi)/c(psi)) = -0.5, nothing is dropped.
 *
 * SBT_OS_DEFAULT - the same search, fixing its two failure modes:
 *
 *   Quantized clocks.  Tied values cannot be split, so a leaf of ties
 *     keeps a long path (depth + c(n)) and a far outlier that was not in
 *     a tree's subsample lands in that leaf and scores like the normal
 *     points.  We score x + q*u instead of x, u uniform in (-1/2, 1/2) and
 *     a pure function of (seed, index), q the clock quantum.  Why this is
 *     sound: a reading v from a clock of quantum q says only that the
 *     true value lies within a quantum of v, so the dithered point is as
 *     consistent with the measurement as v itself; and since distinct
 *     readings differ by at least q, |u_i - u_j| q < q keeps every strict
 *     order - dithering only breaks ties, at random, which restores the
 *     continuous-data assumption the forest's c(n) correction is built
 *     on.  Statistics, the maxima above and the report use the original
 *     values.  q comes from opts.quantum (quantum_y for y); when 0 it is
 *     estimated: among <= 4096 evenly spaced samples, if more than a
 *     quarter are ties, q = the smallest positive gap between distinct
 *     values (a multiple of the true quantum, and <= every gap seen, so
 *     the order argument still holds); otherwise the data is treated as
 *     continuous (q = 0).  Negative: no dither.
 *   No noise, and noise at several scales.  The mean of D has no
 *     absolute scale: on clean data the first jump above it is a step of
 *     the jitter tail, or a rare true mode; and one 10 ms preemption
 *     inflates it so much that the 20-60 us interrupts beside it never
 *     clear it and are kept (seen on the demo).  So the default replaces
 *     the mean test by an absolute one: the best cut is the one before
 *     the first jump that clears a physical floor (opts.floor, in units
 *     of x): OS noise means at least one trip into
 *     the kernel, so no noise event can be shorter than the machine's
 *     kernel entry/exit cost (the recorder measures it: kernel_entry_ns).
 *     Default SBT_OS_FLOOR_DEFAULT = 500 ns: below the lightest interrupt
 *     on current servers (entry + handler + exit, 0.5-2 us; a context
 *     switch costs more), above what the hardware alone adds to a short
 *     region (a DRAM miss plus page walk, 100-300 ns).  A real mode that
 *     differs by more than the floor cannot be told from noise by this
 *     filter; the per-region report shows what was dropped.
 *   Plausible shares.  OS events arrive at a bounded rate (at most
 *     SBT_OS_MAX_RATE per second per cpu), so only a share of about
 *     rate x (sample time + floor) of the samples can have met one: 4 %
 *     of 300 ns samples, all of 1 ms ones.  A cut that takes more than
 *     that (opts.max_share) has taken the code's own slow mode (seen: a
 *     real 10 % mode 300 ns up, dropped whole); then only the
 *     max_share x n longest of what it took are dropped - the OS's
 *     events are the longest - and the rest is kept and counted
 *     (result.spared).
 *   Only longer samples.  OS noise only adds time (tau_os >= 0),
 *     so a sample below the cut but no longer than the longest sample
 *     kept at the cut (M_k, reported as max_kept) carries no noise the
 *     search has seen: it is kept.  The literal method drops every point
 *     below the cut, whatever its value - e.g. the rare fast sample, or
 *     the few far-from-median ticks of a dithered quantized clock.
 */
#include "filter.h"
#include "sort.h"
#include "iforest.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sbt_filter_cost(double *x, double *y, size_t n, double cost,
		     double cost_y)
{
	for (size_t i = 0; i < n; i++)
		x[i] -= cost;
	if (y)
		for (size_t i = 0; i < n; i++)
			y[i] -= cost_y;
}

/* ---- quantum estimate ----------------------------------------------------- */

#define QSAMPLE 4096

/* The clock quantum implied by ties in v, or 0 when v looks continuous. */
static double estimate_quantum(const double *v, size_t n)
{
	size_t m = n < QSAMPLE ? n : QSAMPLE, distinct = 0;
	double *s = malloc(m * sizeof *s), q = INFINITY, big = 0;
	if (!s || m < 2) {
		free(s);
		return 0;
	}
	for (size_t k = 0; k < m; k++) {
		s[k] = v[(size_t)((unsigned __int128)k * n / m)];
		if (isfinite(s[k]))
			big = fmax(big, fabs(s[k]));
	}
	qsort(s, m, sizeof *s, sbt_cmp_double);
	double eps = big * 1e-12;    /* gaps below this are rounding, not time */
	for (size_t k = 0; k < m; k++) {
		if (k == 0 || s[k] != s[k - 1])
			distinct++;
		if (k > 0 && s[k] - s[k - 1] > eps && isfinite(s[k] - s[k - 1]))
			q = fmin(q, s[k] - s[k - 1]);
	}
	free(s);
	if (4 * (m - distinct) <= m || !isfinite(q))
		return 0;
	return q;
}

static double pick_quantum(double opt, const double *v, size_t n)
{
	if (opt > 0)
		return opt;
	return opt < 0 || !v ? 0 : estimate_quantum(v, n);
}

/* ---- the beta search -------------------------------------------------------- */

#define CUT_TOP 60            /* c_0 = -0.60, in hundredths */
#define NCUT    (100 - CUT_TOP + 1)

static double cut_value(int k)
{
	return -(double)(CUT_TOP + k) / 100.0;
}

/* Index of the first cut at which score s is kept (c_k <= s). */
static int first_cut(float s)
{
	double sd = s;
	if (!(sd < cut_value(0)))
		return 0;             /* also NaN: treated as not anomalous */
	int k = (int)(-100.0 * sd) - CUT_TOP;
	if (k < 0) k = 0;
	while (k > 0 && cut_value(k - 1) <= sd)
		k--;
	while (k < NCUT - 1 && cut_value(k) > sd)
		k++;
	return k;
}

/* Choose the cut index (or -1: nothing dropped) from the scores; *mk
 * receives the largest value kept at that cut. */
static int beta_search(const double *x, const float *score, size_t n,
		       double floor, double *mk)
{
	double top[NCUT];             /* max of x over points entering at k */
	int K = 0;
	for (int k = 0; k < NCUT; k++)
		top[k] = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		int k = first_cut(score[i]);
		if (x[i] > top[k])    /* NaN never wins a max */
			top[k] = x[i];
		if (k > K)
			K = k;
	}
	/* M_k is the running max of top[]; skip cuts that keep nothing. */
	double M[NCUT];
	int k0 = -1;
	for (int k = 0; k <= K; k++) {
		M[k] = k ? fmax(M[k - 1], top[k]) : top[k];
		if (k0 < 0 && M[k] > -INFINITY)
			k0 = k;
	}
	if (k0 < 0 || K - k0 < 1)
		return -1;
	double mean = (M[K] - M[k0]) / (K - k0);     /* telescoped mean of D */
	for (int k = k0; k < K; k++) {
		double d = M[k + 1] - M[k];
		/* default: an absolute test; paper: relative to the mean */
		if (floor > 0 ? d >= floor : d > mean) {
			*mk = M[k];
			return k;
		}
	}
	return -1;
}

/* The beta search and the drop: keep[] (all 1 on entry) and r from the
 * scores.  r->floor is the floor to apply (0 for the paper method). */
static int cmp_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x < y) - (x > y);
}

/* Keep all but the `limit` longest of the dropped points. */
static void spare(const double *x, size_t n, size_t limit, uint8_t *keep,
		  struct sbt_os_result *r)
{
	double *d = malloc((r->dropped ? r->dropped : 1) * sizeof *d), t;
	size_t k = 0, left = limit;

	if (!d)
		return;         /* keep the cut as it was */
	for (size_t i = 0; i < n; i++)
		if (!keep[i])
			d[k++] = x[i];
	qsort(d, k, sizeof *d, cmp_desc);
	t = limit ? d[limit - 1] : INFINITY;   /* the shortest still dropped */
	free(d);
	for (size_t i = 0; i < n; i++) {
		if (keep[i])
			continue;
		if (x[i] >= t && left) {
			left--;
			continue;
		}
		keep[i] = 1;
		r->spared++;
	}
	r->dropped -= r->spared;
	r->kept += r->spared;
}

double sbt_os_max_share(double typical_ns, double floor_ns, size_t n)
{
	double p = fmin(1, SBT_OS_MAX_RATE * 1e-9 * (fmax(typical_ns, 0) +
						    fmax(floor_ns, 0)));

	return n ? fmin(1, p + 3 * sqrt(p * (1 - p) / (double)n)) : 1;
}

static void decide(const double *x, const float *sc, size_t n, int paper,
		   double max_share, uint8_t *keep, struct sbt_os_result *r)
{
	double mk = INFINITY;
	int best = n < SBT_OS_MIN_N ? -1 :
		   beta_search(x, sc, n, r->floor, &mk);
	if (best < 0)
		return;
	r->cut = cut_value(best);
	r->max_kept = mk;
	for (size_t i = 0; i < n; i++)
		if (first_cut(sc[i]) > best && (paper || !(x[i] <= mk))) {
			keep[i] = 0;
			r->dropped++;
		}
	r->kept = n - r->dropped;
	if (!paper && max_share > 0 &&
	    (double)r->dropped > max_share * (double)n)
		spare(x, n, (size_t)(max_share * (double)n), keep, r);
}

int sbt_filter_os(const double *x, const double *y, size_t n,
		  const struct sbt_os_opts *o, uint8_t *keep, float *score,
		  struct sbt_os_result *res)
{
	struct sbt_os_result r = { .cut = NAN, .kept = n,
				   .max_kept = INFINITY };
	int paper = o->method == SBT_OS_PAPER;
	memset(keep, 1, n);

	struct sbt_if_params p = { .ntrees = o->ntrees, .psi = o->psi,
				   .seed = o->seed };
	if (!paper) {
		p.qx = pick_quantum(o->quantum, x, n);
		p.qy = y ? pick_quantum(o->quantum_y, y, n) : 0;
		r.quantum = p.qx;
		r.quantum_y = p.qy;
		r.floor = o->floor > 0 ? o->floor :
			  o->floor < 0 ? 0 : SBT_OS_FLOOR_DEFAULT;
	}
	float *sc = score ? score : malloc((n ? n : 1) * sizeof *sc);
	if (!sc || sbt_if_score(x, y, n, &p, sc) != 0) {
		if (sc != score)
			free(sc);
		if (res)
			*res = r;
		return -1;
	}
	decide(x, sc, n, paper, o->max_share, keep, &r);
	if (sc != score)
		free(sc);
	if (res)
		*res = r;
	return 0;
}
