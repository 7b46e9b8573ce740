/*
 * score.c - the per-region figures: t_min, t_diff, spread and modes
 * (numbers; report/say.c puts them in words).
 *
 * The model (the paper's section 5).  A sample of a region whose true
 * time is t is t + tau_e after filter_cost; tau_e is the timer's noise,
 * which an empty pair timed at the region's start (a probe) samples in
 * the region's own cache state.  Solving the paper's two conditions for
 * a constant workload:
 *
 *   t_min:  CV = std(tau)/(t + mean(tau)) < eps  <=>  t > std/eps - mean
 *   t_diff: two constant workloads t and t + D give samples t + tau and
 *           t + D + tau; the overlap is P(t + D + tau < t + max tau)
 *           = P(tau < max - D) <= alpha  <=>  D >= max - Q_alpha
 *
 * where Q_alpha is the order statistic x[floor(alpha n)] of the n sorted
 * probes.  Those are the paper's figures, kept as t_min_paper_ns and
 * t_diff_paper_ns.
 *
 * Robust figures (used).  max(tau) is one probe: a region probed a few
 * hundred times gets a t_diff set by its single largest sub-microsecond
 * hiccup (seen: 3 to 13.5 quanta across identical runs of a 300 ns
 * region, while 317 of 318 probes read 2 or 3 quanta), and with it every
 * verdict gated by t_diff.  The estimate used replaces max by Q_hi, the
 * 1 - SBT_SCORE_TAIL (99th percentile) order statistic, and std by the
 * std of the probes between the 1st and 99th percentiles:
 *
 *   t_diff = Q_hi - Q_alpha + q,   t_min = std_trim/eps - mean.
 *
 * Why a quantile rather than a bound on the max: the condition asks that
 * two workloads D apart overlap in at most alpha of their samples; a
 * hiccup holding < 1 % of the samples adds at most 1 % of overlap, well
 * inside alpha = 5 %, so the 99th percentile meets the paper's own
 * criterion while no single probe can move it (with 300 probes it takes
 * three).  The rarer hiccups are the OS filter's and the mode finder's
 * business (features < 1 % are not modes).  Measured on a 10 ns TSC, ten
 * identical runs of a 300 ns region: t_diff 20-30 ns (paper's: 30-180).
 *
 * Two resolutions.  t_min and t_diff say what ONE reading can tell.  A
 * population of N readings tells more: shifts of its centre far below
 * t_diff.  shift_resolution_ns = Z sqrt(2) se is the smallest difference
 * between two such populations' 10 %-trimmed means resolved at 99.9 %
 * (se: Tukey-McLaughlin, from the winsorized variance; trimming keeps the
 * OS's survivors from inflating it).  On a quantized clock a mean moves
 * with a sub-quantum shift only if the readings dither across ticks: when
 * the winsorized std is under q/4 (two ticks, < 7 % on the rarer) they
 * hardly do, and the resolution is q.
 * Findings (mode separations, steps, slow groups) must also be worth
 * telling: at least min_shift = min(t_diff, eps median), but a quantum -
 * see sbt_min_shift().  So with 10^4 samples a step of a few quanta is
 * found whatever one probe read.
 *
 * Quantum.  A clock with quantum q cannot tell apart two workloads less
 * than a tick apart (both read the same tick most of the time), so
 * t_diff >= q whatever its source.  Moreover a reading is the difference
 * of two ticks taken at an unknown phase: noise of width w read on top
 * of a duration d spans up to floor(w/q) + 2 ticks, but on top of an
 * empty pair (d = 0, the probes) only floor(w/q) + 1.  So the probes'
 * max - Q_alpha can fall one tick short of what the region's own samples
 * show, and the in-situ t_diff is max - Q_alpha + q (which also makes
 * it >= q; on a 0.4 ns TSC the term is negligible, on a 10 ns clock it
 * is what keeps a constant region "constant").  A constant workload read
 * through such a clock lands on two adjacent ticks; at the worst phase
 * half of the samples on each, std = q/2, so an *estimated* t_min is at
 * least q/(2 eps) (50 ticks at 1 %).  A profile's figures are
 * measurements of readings and are taken as they are, but for the floor
 * t_diff >= q.  When the caller does not know q (CSV input), it is
 * guessed from ties in the kept samples, by filter.c's rule; without it
 * a profile's 3 ns t_diff would turn every 10 ns tick into a "mode".
 *
 * Too few probes.  max(tau) is the extreme of the sample: with n probes
 * it estimates roughly the 1 - 1/n quantile, and Q_alpha needs alpha n
 * >= 1 to be more than the minimum.  Below SBT_SCORE_MIN_PROBES (30:
 * Q_alpha is then the second order statistic and std is within ~13 %)
 * the in-situ estimate is computed and reported (out->insitu) but not
 * used; the chain falls back to the profile, and
 * without one to "quantum": t_diff = q, t_min = q/(2 eps), the best any
 * clock of that resolution could do.  That is a lower bound, which is why
 * the label says so rather than pretending to be a measurement.  No
 * quantum either: "none", and no verdict on t_min or modes.
 *
 * OS noise in probes.  A probe hit by an interrupt is not timer noise,
 * and one of them would make max(tau) - and t_diff - microseconds.
 * Probes above median + os_floor are dropped before the estimate, with
 * the same physical floor filter_os uses (see filter.c): no OS event is
 * shorter than a kernel entry.
 *
 * Spread.  variation_ns = x[ceil(0.99 (n-1))] - x[floor(0.01 (n-1))] of
 * the kept samples: the last stray sample that filter_os let through
 * does not move it, and it ignores exactly what the mode finder ignores
 * (features holding < 1 % of the samples).  Order statistics rather than
 * interpolated quantiles keep it a multiple of the quantum on quantized
 * data, so a constant region read on two adjacent ticks has spread q =
 * t_diff: no variation.  The spread is judged against the probes' own
 * p1..p99 spread: the excess (spread - noise spread - q: a duration
 * spans one tick more than an empty pair, as above) beyond max(t_diff,
 * eps median) is a broad distribution, a finding without modes.
 *
 * Outside one window.  The spread's test reads the extremes and asks
 * more than one sample can tell; the population tells more.  A constant
 * workload's readings fall within t_diff of each other but for about
 * alpha of them (that is what t_diff is: max - Q_alpha of the timer's
 * own noise), so all but ~alpha lie in one window w = max(t_diff, eps
 * median) wide (on a quantized clock, + q/2: the ticks are not exactly
 * t_diff apart).  `outside` is the share of samples outside the
 * heaviest such window; beyond SBT_SCORE_OUTSIDE (2 alpha) by
 * SBT_SCORE_OUTSIDE_Z binomial deviations, the samples are wider than
 * one workload reads: broad.  Why it is needed: two workloads two ticks
 * apart, each half on its own two ticks, read as four flat ticks (seen:
 * 24, 26, 24, 26 %) - no dip, no break of log-concavity (lattice.h), a
 * p1..p99 spread of 3 q, which the spread's test forgives - but a
 * quarter of the samples outside any 3-tick window, where constant
 * regions leave 0-5 % (tools/accuracy.py logs, loop and straight-line
 * work, quiet and loaded: 120 of them).
 *
 * Modes.  A Gaussian kernel density with sigma = max(t_diff, q)/2 (here
 * t_diff is min_shift, at least a quantum).  Why: two spikes of equal
 * weight d apart give a bimodal kernel sum iff d > 2 sigma, so with
 * sigma = t_diff/2 the estimate splits exactly the differences the timer
 * can resolve and merges the rest.  On a quantized clock sigma = q/2
 * leaves two adjacent ticks (d = q, what one constant workload produces)
 * flat-topped, one mode, and peaks closer than 1.5 q are merged below
 * anyway; two workloads two ticks apart, each on its own two adjacent
 * ticks, leave the tick between them lower than both (seen: 36, 13, 38,
 * 12 %), a dip a wider kernel (the former 1.5 q / 2) filled in.  Where
 * even that leaves one mode, counts per tick that break log-concavity
 * still split two (lattice.h): a 10 % workload two ticks up leaves no
 * dip, only a shoulder no single workload's jitter makes.  The
 * density is evaluated on a grid (linear binning, step sigma/4, at most
 * SBT_GRID_MAX points over the 0.1-99.9 % range: O(n + grid)), so 10^7
 * samples cost a sort and a pass.  Peaks are found by a persistence
 * sweep (grid points by falling density, union-find): when two peaks'
 * basins meet at a saddle s, the lower peak h survives as a mode only if
 *   - the dip is beyond sampling noise: h - s >= Z sqrt(h + s), Z = 4,
 *     with the kernel normalized to 1 at its centre so the density is an
 *     effective count whose variance is at most the count (Poisson);
 *   - it lies at least t_diff from the higher peak.
 * Surviving peaks split the line at the density minimum between
 * neighbours; each mode's centre is the median of its samples (on the
 * grid for quantized data); neighbours whose centres are < t_diff apart
 * are merged; modes holding < 1 % of the samples are not reported (their
 * samples are "unassigned"), at most SBT_SCORE_MAX_MODES (the largest)
 * are, and shares are of the assigned samples.
 */
#include "score.h"
#include "lattice.h"
#include "sort.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SBT_GRID_MAX  (1u << 18)  /* density grid points, at most      */
#define SBT_MODE_Z    4.0         /* dip significance, in sigmas        */
#define SBT_SPREAD_P  0.01        /* spread = p99 - p1                  */
#define SBT_SCORE_OUTSIDE   0.10  /* outside one window: 2 alpha ...     */
#define SBT_SCORE_OUTSIDE_Z 5.0   /* ... by this many deviations        */
#define SBT_RANGE_P   0.001       /* density grid over p0.1 .. p99.9    */

/* Median of ascending x[0..n), n > 0. */
static double median_sorted(const double *x, size_t n)
{
	return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* Mean and sample std of x[0..n), n > 0 (Welford: big mean, tiny
 * spread). */
static double mean_std(const double *x, size_t n, double *std)
{
	double mean = 0, m2 = 0;

	for (size_t i = 0; i < n; i++) {
		double d = x[i] - mean;
		mean += d / (double)(i + 1);
		m2 += d * (x[i] - mean);
	}
	*std = n > 1 ? sqrt(m2 / (double)(n - 1)) : 0;
	return mean;
}

int sbt_noise_model(const double *tau, size_t n, double quantum_ns,
		    double os_floor_ns, double eps, double alpha,
		    struct sbt_noise_est *out)
{
	double *x, med, floor_ns;
	size_t m, k;

	memset(out, 0, sizeof *out);
	if (n == 0)
		return 0;
	if (eps <= 0) eps = SBT_SCORE_EPS;
	if (alpha <= 0) alpha = SBT_SCORE_ALPHA;
	x = malloc(n * sizeof *x);
	if (!x)
		return -1;
	memcpy(x, tau, n * sizeof *x);
	if (sbt_sort_doubles(x, n) != 0) {
		free(x);
		return -1;
	}

	/* OS screen: keep x <= median + floor; x is sorted, so cut the tail */
	med = median_sorted(x, n);
	floor_ns = os_floor_ns == 0 ? SBT_OS_FLOOR_DEFAULT : os_floor_ns;
	m = n;
	if (floor_ns > 0)
		while (m > 1 && x[m - 1] > med + floor_ns)
			m--;
	out->n = m;
	out->screened = n - m;

	out->mean = mean_std(x, m, &out->std);
	out->max = x[m - 1];
	k = (size_t)floor(alpha * (double)m);
	if (k > m - 1)
		k = m - 1;
	out->q_alpha = x[k];
	/* the robust tail: the 1 - TAIL order statistic, and the std of the
	 * probes between the two tails (see the top comment) */
	size_t lo = (size_t)floor(SBT_SCORE_TAIL * (double)(m - 1));
	size_t hi = (size_t)ceil((1 - SBT_SCORE_TAIL) * (double)(m - 1));
	out->q_hi = x[hi];
	mean_std(x + lo, hi - lo + 1, &out->std_trim);
	out->t_min_ns = out->std_trim / eps - out->mean;
	out->t_diff_ns = out->q_hi - out->q_alpha;
	out->t_min_paper_ns = out->std / eps - out->mean;
	out->t_diff_paper_ns = out->max - out->q_alpha;
	if (quantum_ns > 0) {
		out->t_diff_ns += quantum_ns;
		out->t_diff_paper_ns += quantum_ns;
		out->t_min_ns = fmax(out->t_min_ns, quantum_ns / (2 * eps));
		out->t_min_paper_ns = fmax(out->t_min_paper_ns,
					   quantum_ns / (2 * eps));
	}
	out->t_min_ns = fmax(out->t_min_ns, 0);
	out->t_min_paper_ns = fmax(out->t_min_paper_ns, 0);
	free(x);
	return 0;
}

/* ---- choosing the metrics ------------------------------------------ */

static int use_insitu(struct sbt_score *o, size_t min_probes)
{
	if (o->insitu.n < min_probes || !(o->insitu.t_diff_ns > 0))
		return 0;
	o->t_min_ns = o->insitu.t_min_ns;
	o->t_diff_ns = o->insitu.t_diff_ns;
	o->metric_source = SBT_SRC_INSITU;
	return 1;
}

static int use_profile(struct sbt_score *o, const struct sbt_score_in *in)
{
	if (!(in->profile_t_min_ns > 0) || !(in->profile_t_diff_ns > 0))
		return 0;
	o->t_min_ns = in->profile_t_min_ns;
	/* the quantum floor holds for any source (see the top comment) */
	o->t_diff_ns = fmax(in->profile_t_diff_ns, in->quantum_ns);
	o->metric_source = SBT_SRC_PROFILE;
	o->metric_level = in->profile_label ? in->profile_label : "?";
	return 1;
}

static int use_quantum(struct sbt_score *o, const struct sbt_score_in *in,
		       double eps)
{
	if (!(in->quantum_ns > 0))
		return 0;
	o->t_min_ns = in->quantum_ns / (2 * eps);
	o->t_diff_ns = in->quantum_ns;
	o->metric_source = SBT_SRC_QUANTUM;
	return 1;
}

/* In-situ first by default: its probes ran in the region's own cache
 * state and process (the conditions that region ran in),
 * while a profile level is a user's choice or a conservative default.
 * A user who named a level explicitly gets SBT_PREFER_PROFILE. */
static void choose_metrics(struct sbt_score *o, const struct sbt_score_in *in,
			   double eps, size_t min_probes)
{
	int ok;

	if (in->prefer == SBT_PREFER_PROFILE)
		ok = use_profile(o, in) || use_insitu(o, min_probes);
	else
		ok = use_insitu(o, min_probes) || use_profile(o, in);
	if (!ok && !use_quantum(o, in, eps)) {
		o->t_min_ns = o->t_diff_ns = NAN;
		o->metric_source = SBT_SRC_NONE;
	}
}

/* ---- modes ------------------------------------------------------------ */

struct grid {
	double lo, step, sigma;
	size_t len;
	double *c;             /* kernel density as an effective count      */
};

/* Density of ascending x[0..n) on a grid over its central range. */
static int grid_build(const double *x, size_t n, double sigma,
		      struct grid *g)
{
	size_t ilo = (size_t)floor(SBT_RANGE_P * (double)(n - 1));
	size_t ihi = (size_t)ceil((1 - SBT_RANGE_P) * (double)(n - 1));
	double lo = x[ilo] - 4 * sigma, hi = x[ihi] + 4 * sigma;
	double *w;
	long half;

	g->step = fmax(sigma / 4, (hi - lo) / (SBT_GRID_MAX - 1));
	/* a grid coarser than the kernel: the grid step is the resolution */
	g->sigma = fmax(sigma, g->step);
	g->lo = lo;
	g->len = (size_t)ceil((hi - lo) / g->step) + 1;
	if (g->len > SBT_GRID_MAX)
		g->len = SBT_GRID_MAX;
	w = calloc(g->len, sizeof *w);
	g->c = calloc(g->len, sizeof *g->c);
	if (!w || !g->c) {
		free(w);
		free(g->c);
		return -1;
	}
	/* linear binning: each sample's unit weight split between the two
	 * grid points around it */
	for (size_t i = ilo; i <= ihi; i++) {
		double u = (x[i] - lo) / g->step;
		size_t j = (size_t)u;
		double f = u - (double)j;
		if (j + 1 >= g->len) {
			w[g->len - 1] += 1;
			continue;
		}
		w[j] += 1 - f;
		w[j + 1] += f;
	}
	/* sigma / step <= 4 by construction: at most 17 kernel taps */
	double kern[20];
	half = (long)ceil(4 * g->sigma / g->step);
	if (half > 18)
		half = 18;
	for (long k = 0; k <= half; k++) {
		double d = (double)k * g->step / g->sigma;
		kern[k] = exp(-0.5 * d * d);
	}
	for (long j = 0; j < (long)g->len; j++) {
		if (w[j] == 0)
			continue;
		long a = j - half < 0 ? 0 : j - half;
		long b = j + half >= (long)g->len ? (long)g->len - 1 : j + half;
		for (long k = a; k <= b; k++)
			g->c[k] += w[j] * kern[labs(k - j)];
	}
	free(w);
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static int cmp_by_density(const void *a, const void *b, void *arg)
{
	const double *c = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	if (c[i] != c[j])
		return c[i] > c[j] ? -1 : 1;
	return (i > j) - (i < j);   /* ties by position: deterministic */
}

/* cmp_by_density's order in linear time (a fine grid has hundreds of
 * thousands of cells, most of them often empty): the cells of density
 * > 0 by a stable radix sort on the negated density, then the empty ones
 * (the lowest, all tied) in position order; qsort_r where its scratch is
 * lacking.  Densities are sums of non-negative terms. */
void sbt_density_order(const double *c, size_t len, uint32_t *order)
{
	double *key = len < UINT32_MAX ? malloc((len ? len : 1) *
						  sizeof *key) : NULL;
	size_t m = 0;

	if (key) {
		for (size_t i = 0; i < len; i++)
			if (c[i] != 0) {
				key[m] = -c[i];
				order[m++] = (uint32_t)i;
			}
		for (size_t i = 0, z = m; i < len; i++)
			if (c[i] == 0)
				order[z++] = (uint32_t)i;
		if (sbt_sort_keyed(key, order, m) == 0) {
			free(key);
			return;
		}
	}
	free(key);
	for (size_t i = 0; i < len; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, len, sizeof *order, cmp_by_density, (void *)c);
}

static uint32_t uf_find(uint32_t *parent, uint32_t i)
{
	while (parent[i] != i) {
		parent[i] = parent[parent[i]];
		i = parent[i];
	}
	return i;
}

/* Persistence sweep: the grid indices of the surviving peaks, ascending,
 * in *peaks (malloc'd); returns their count, or -1 on OOM. */
static long find_peaks(const struct grid *g, double t_diff, uint32_t **peaks)
{
	size_t len = g->len;
	uint32_t *order = malloc(len * sizeof *order);
	uint32_t *parent = malloc(len * sizeof *parent);
	uint32_t *top = malloc(len * sizeof *top);     /* root -> its peak */
	uint8_t *alive = calloc(len, 1);
	uint32_t *out = malloc(len * sizeof *out);
	long nout = 0;

	if (!order || !parent || !top || !alive || !out) {
		free(order); free(parent); free(top); free(alive); free(out);
		return -1;
	}
	sbt_density_order(g->c, len, order);

	for (size_t r = 0; r < len; r++) {
		uint32_t i = order[r];
		double s = g->c[i];
		int joined = 0;
		parent[i] = i;
		top[i] = i;
		alive[i] = 1;
		for (int side = -1; side <= 1; side += 2) {
			long nb = (long)i + side;
			if (nb < 0 || nb >= (long)len || !alive[nb])
				continue;
			uint32_t rb = uf_find(parent, (uint32_t)nb);
			if (!joined) {          /* a slope: i extends a basin */
				parent[i] = rb;
				joined = 1;
				continue;
			}
			/* a saddle: i joins two basins */
			uint32_t ra = uf_find(parent, i);
			if (ra == rb)
				continue;
			uint32_t pa = top[ra], pb = top[rb];
			/* pa: the higher peak (earlier in the sweep) */
			if (g->c[pb] > g->c[pa] ||
			    (g->c[pb] == g->c[pa] && pb < pa)) {
				uint32_t t = pa; pa = pb; pb = t;
			}
			double h = g->c[pb];
			double dist = fabs((double)pa - (double)pb) * g->step;
			if (h > s && h - s >= SBT_MODE_Z * sqrt(h + s) &&
			    dist >= t_diff)
				out[nout++] = pb;     /* pb's basin ends here */
			parent[rb] = ra;
			top[ra] = pa;
		}
	}
	/* the highest peak never meets a higher one */
	if (len > 0)
		out[nout++] = order[0];
	qsort(out, (size_t)nout, sizeof *out, cmp_u32);
	free(order); free(parent); free(top); free(alive);
	*peaks = out;
	return nout;
}

/* A run of ascending samples, [lo, hi), that one mode holds. */
struct span { size_t lo, hi; double center; };

/* Split ascending x[0..n) at the density minima between the peaks; one
 * span per peak.  Returns the number of spans. */
static size_t spans_from_peaks(const double *x, size_t n, const struct grid *g,
			       const uint32_t *pk, size_t npk, struct span *sp)
{
	size_t i = 0;

	for (size_t k = 0; k < npk; k++) {
		sp[k].lo = i;
		if (k + 1 < npk) {
			uint32_t b = pk[k];
			for (uint32_t j = pk[k]; j <= pk[k + 1]; j++)
				if (g->c[j] < g->c[b])
					b = j;
			double cut = g->lo + (double)b * g->step;
			while (i < n && x[i] < cut)
				i++;
		} else {
			i = n;
		}
		sp[k].hi = i;
	}
	return npk;
}

/* Drop empty spans, set centres, merge neighbours < t_diff apart. */
static size_t spans_settle(const double *x, struct span *sp, size_t m,
			   double t_diff)
{
	size_t w = 0;

	for (size_t k = 0; k < m; k++)
		if (sp[k].hi > sp[k].lo) {
			sp[w] = sp[k];
			sp[w].center = median_sorted(x + sp[w].lo,
						     sp[w].hi - sp[w].lo);
			w++;
		}
	m = w;
	for (int changed = 1; changed && m > 1; ) {
		changed = 0;
		for (size_t k = 0; k + 1 < m; k++) {
			if (sp[k + 1].center - sp[k].center >= t_diff)
				continue;
			sp[k].hi = sp[k + 1].hi;
			sp[k].center = median_sorted(x + sp[k].lo,
						     sp[k].hi - sp[k].lo);
			memmove(&sp[k + 1], &sp[k + 2],
				(m - k - 2) * sizeof *sp);
			m--;
			changed = 1;
		}
	}
	return m;
}

static int cmp_span_size(const void *a, const void *b)
{
	const struct span *p = a, *q = b;
	size_t np = p->hi - p->lo, nq = q->hi - q->lo;
	if (np != nq)
		return np > nq ? -1 : 1;
	return (p->lo > q->lo) - (p->lo < q->lo);
}

static int cmp_span_pos(const void *a, const void *b)
{
	const struct span *p = a, *q = b;
	return (p->lo > q->lo) - (p->lo < q->lo);
}

/* Two modes where the counts per tick break log-concavity (lattice.h):
 * two workloads a couple of ticks apart that leave the kernel density
 * no dip.  Kept only as modes the kernel density's would be: each side
 * holding SBT_SCORE_MIN_SHARE of the samples, their medians at least
 * sep apart (find_modes' merge distance).  0 (o unchanged when there is
 * no such break), -1 on OOM. */
static int lattice_modes(const double *x, size_t n, double q, double sep,
			 struct sbt_score *o)
{
	size_t lo, hi;
	int rc = sbt_lattice_split(x, n, q, &lo, &hi, NULL);

	if (rc <= 0)
		return rc;
	double min = SBT_SCORE_MIN_SHARE * (double)n;
	if ((double)lo < min || (double)(n - hi) < min)
		return 0;
	double c0 = median_sorted(x, lo), c1 = median_sorted(x + hi, n - hi);
	if (c1 - c0 < sep)
		return 0;
	double both = (double)(lo + (n - hi));
	o->modes[0] = (struct sbt_mode){ c0, (double)lo / both };
	o->modes[1] = (struct sbt_mode){ c1, (double)(n - hi) / both };
	o->nmodes = 2;
	o->assigned = both / (double)n;
	return 0;
}

/* Fill o->modes from ascending x[0..n), n > 0, t_diff > 0 (here: the
 * smallest separation reported, sbt_min_shift). */
static int find_modes(const double *x, size_t n, double t_diff, double q,
		      struct sbt_score *o)
{
	struct grid g;
	uint32_t *pk;
	struct span *sp;
	long npk;
	size_t m, kept = 0, total = 0;

	if (grid_build(x, n, fmax(t_diff, q) / 2, &g) < 0)
		return -1;
	o->bandwidth_ns = g.sigma;
	npk = find_peaks(&g, t_diff, &pk);
	if (npk < 0) {
		free(g.c);
		return -1;
	}
	sp = malloc((size_t)npk * sizeof *sp);
	if (!sp) {
		free(g.c);
		free(pk);
		return -1;
	}
	m = spans_from_peaks(x, n, &g, pk, (size_t)npk, sp);
	free(pk);
	free(g.c);
	m = spans_settle(x, sp, m, fmax(t_diff, 1.5 * q));

	/* the largest modes with >= 1 % of the samples, back in position
	 * order */
	qsort(sp, m, sizeof *sp, cmp_span_size);
	for (size_t k = 0; k < m && kept < SBT_SCORE_MAX_MODES; k++) {
		size_t c = sp[k].hi - sp[k].lo;
		if ((double)c < SBT_SCORE_MIN_SHARE * (double)n)
			break;
		sp[kept++] = sp[k];
		total += c;
	}
	qsort(sp, kept, sizeof *sp, cmp_span_pos);
	for (size_t k = 0; k < kept; k++) {
		o->modes[k].center_ns = sp[k].center;
		o->modes[k].share = (double)(sp[k].hi - sp[k].lo) /
				    (double)total;
	}
	o->nmodes = (int)kept;
	o->assigned = (double)total / (double)n;
	free(sp);
	if (kept < 2 && q > 0)
		return lattice_modes(x, n, q, fmax(t_diff, 1.5 * q), o);
	return 0;
}

/* The quantum of ascending x[0..n) when the caller does not know it:
 * as filter.c does, if more than a quarter of neighbours tie, the data
 * is quantized and q is the smallest positive gap (a multiple of the
 * true quantum, and no larger than any gap seen); otherwise 0. */
static double guess_quantum(const double *x, size_t n)
{
	size_t ties = 0;
	double q = INFINITY;

	for (size_t i = 1; i < n; i++) {
		double d = x[i] - x[i - 1];
		if (d == 0)
			ties++;
		else if (d < q)
			q = d;
	}
	return n > 1 && ties > (n - 1) / 4 && isfinite(q) ? q : 0;
}

double sbt_min_shift(double t_diff_ns, double median_ns, double quantum_ns,
		     double eps)
{
	double e = eps > 0 ? eps : SBT_SCORE_EPS;

	if (!isfinite(t_diff_ns))
		return NAN;
	if (!(median_ns > 0))
		return t_diff_ns;
	return fmax(fmin(t_diff_ns, e * median_ns), fmin(t_diff_ns, quantum_ns));
}

double sbt_score_window(const struct sbt_score *s)
{
	return fmax(s->t_diff_ns, s->eps * fabs(s->median_ns));
}

void sbt_trimmed_mean(const double *x, size_t n, double *mean, double *se)
{
	size_t g = (size_t)floor(SBT_SCORE_TRIM * (double)n), m;
	double s = 0, w = 0, wm, lo, hi;

	*mean = *se = NAN;
	if (n == 0)
		return;
	m = n - 2 * g;
	for (size_t i = g; i < n - g; i++)
		s += x[i];
	*mean = s / (double)m;
	/* winsorized variance: the g lowest and highest set to their
	 * neighbours; its square root over (1 - 2 trim) sqrt(n) is the
	 * standard error of the trimmed mean */
	lo = x[g], hi = x[n - g - 1];
	wm = (s + (double)g * (lo + hi)) / (double)n;
	for (size_t i = 0; i < n; i++) {
		double v = x[i] < lo ? lo : x[i] > hi ? hi : x[i];
		w += (v - wm) * (v - wm);
	}
	*se = n > 1 ? sqrt(w / (double)(n - 1)) /
		      ((double)m / (double)n * sqrt((double)n)) : NAN;
}

/* The share of ascending x[0..n) outside the heaviest window [x[i],
 * x[i] + w]: one pass, two cursors. */
static double outside_window(const double *x, size_t n, double w)
{
	size_t best = 0;

	for (size_t i = 0, j = 0; i < n; i++) {
		while (j < n && x[j] <= x[i] + w)
			j++;
		if (j - i > best)
			best = j - i;
	}
	return n ? 1 - (double)best / (double)n : 0;
}

/* p1..p99 spread of the probes, screened as the noise model screens
 * them; NAN with fewer than min_probes. */
static double probe_spread(const double *p, size_t n, size_t min_probes,
			   double os_floor_ns)
{
	double *x, med, fl, r = NAN;
	size_t m = n;

	if (n < min_probes || !(x = malloc(n * sizeof *x)))
		return NAN;
	memcpy(x, p, n * sizeof *x);
	if (sbt_sort_doubles(x, n) == 0) {
		med = median_sorted(x, n);
		fl = os_floor_ns == 0 ? SBT_OS_FLOOR_DEFAULT : os_floor_ns;
		if (fl > 0)
			while (m > 1 && x[m - 1] > med + fl)
				m--;
		r = x[(size_t)ceil((1 - SBT_SPREAD_P) * (double)(m - 1))] -
		    x[(size_t)floor(SBT_SPREAD_P * (double)(m - 1))];
	}
	free(x);
	return r;
}

int sbt_score_metrics(const double *kept, size_t n, const double *probes,
		      size_t nprobes, const struct sbt_score_in *in,
		      struct sbt_score *o)
{
	struct sbt_score_in use = *in;
	double eps = in->eps > 0 ? in->eps : SBT_SCORE_EPS;
	double alpha = in->alpha > 0 ? in->alpha : SBT_SCORE_ALPHA;
	size_t min_probes = in->min_probes ? in->min_probes :
			    SBT_SCORE_MIN_PROBES;

	memset(o, 0, sizeof *o);
	o->n = n;
	o->eps = eps;
	if (!(use.quantum_ns > 0)) {
		use.quantum_ns = guess_quantum(kept, n);
		o->quantum_guessed = use.quantum_ns > 0;
	}
	o->quantum_ns = use.quantum_ns;
	if (probes && nprobes &&
	    sbt_noise_model(probes, nprobes, use.quantum_ns, in->os_floor_ns,
			    eps, alpha, &o->insitu) < 0)
		return -1;
	choose_metrics(o, &use, eps, min_probes);
	o->noise_spread_ns = in->noise_spread_ns >= 0 ? in->noise_spread_ns :
			     probes ? probe_spread(probes, nprobes, min_probes,
						   in->os_floor_ns) : NAN;
	return 0;
}

int sbt_score_group(const double *kept, size_t n, const double *probes,
		    size_t nprobes, const struct sbt_score_in *in,
		    struct sbt_score *o)
{
	double eps = in->eps > 0 ? in->eps : SBT_SCORE_EPS;
	double *x = NULL;
	const double *s = kept;

	memset(o, 0, sizeof *o);
	if (n > 0 && !in->sorted) {
		x = malloc(n * sizeof *x);
		if (!x)
			goto oom;
		memcpy(x, kept, n * sizeof *x);
		if (sbt_sort_doubles(x, n) != 0)
			goto oom;
		s = x;
	}
	if (sbt_score_metrics(s, n, probes, nprobes, in, o) < 0)
		goto oom;
	o->median_ns = o->p_lo_ns = o->p_hi_ns = NAN;
	o->variation_ns = o->variation_tdiff = o->excess_ns = NAN;
	o->outside = NAN;
	o->min_shift_ns = o->trim_mean_ns = o->trim_se_ns = NAN;
	o->shift_resolution_ns = NAN;
	o->resolvable = o->variation = -1;
	if (n == 0) {
		free(x);
		return 0;
	}
	o->median_ns = median_sorted(s, n);
	o->p_lo_ns = s[(size_t)floor(SBT_SPREAD_P * (double)(n - 1))];
	o->p_hi_ns = s[(size_t)ceil((1 - SBT_SPREAD_P) * (double)(n - 1))];
	o->variation_ns = o->p_hi_ns - o->p_lo_ns;
	sbt_trimmed_mean(s, n, &o->trim_mean_ns, &o->trim_se_ns);
	o->shift_resolution_ns = SBT_SCORE_Z * sqrt(2.0) * o->trim_se_ns;
	/* no dither across ticks: a sub-quantum shift may not move a reading
	 * (winsorized std = se (1 - 2 trim) sqrt(n)) */
	if (o->quantum_ns > 0 && o->trim_se_ns * (1 - 2 * SBT_SCORE_TRIM) *
	    sqrt((double)n) < o->quantum_ns / 4)
		o->shift_resolution_ns = fmax(o->shift_resolution_ns,
					      o->quantum_ns);
	if (isfinite(o->t_diff_ns)) {
		o->resolvable = o->median_ns >= o->t_min_ns;
		o->variation_tdiff = o->variation_ns / o->t_diff_ns;
		o->min_shift_ns = in->min_shift_ns > 0 ? in->min_shift_ns :
				  sbt_min_shift(o->t_diff_ns, o->median_ns,
						o->quantum_ns, eps);
		if (find_modes(s, n, o->min_shift_ns, o->quantum_ns, o) < 0)
			goto oom;
		/* broad: the samples spread wider than the timer's own noise
		 * by more than one sample can tell and more than 1 % */
		o->excess_ns = fmax(0, o->variation_ns -
				    (isfinite(o->noise_spread_ns) ?
				     o->noise_spread_ns : 0) -
				    (o->quantum_ns > 0 ? o->quantum_ns : 0));
		double w = sbt_score_window(o);
		o->outside = outside_window(s, n, w + (o->quantum_ns > 0 ?
						      o->quantum_ns / 2 : 0));
		o->broad = o->excess_ns > w ||
			   o->outside > SBT_SCORE_OUTSIDE + SBT_SCORE_OUTSIDE_Z *
			   sqrt(SBT_SCORE_OUTSIDE * (1 - SBT_SCORE_OUTSIDE) /
				(double)n);
		o->variation = o->broad || o->nmodes >= 2;
	}
	free(x);
	return 0;
oom:
	free(x);
	return -1;
}
