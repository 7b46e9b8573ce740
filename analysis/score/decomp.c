/*
 * decomp.c - whose is a region's time, and whose its spread.
 *
 * Of its time: the OS's part of a call, its mean page faults and
 * switches times what one costs on this machine.  The cost is measured
 * where it can be: a robust fit of the region's times on its counts,
 * where the counts vary from call to call; else the same fit pooled over
 * the regions of the run whose counts do vary (each region about its own
 * centre, so that regions of different work do not pass for a cost).
 * Where no region's counts vary, the cost the recorder measured at start
 * (fresh pages touched one by one: the header's fault_ns) prices the
 * faults; a log without it leaves the cost, and the OS's time, unknown.
 *
 * Of its spread, the sum of squares about the mean (each effect is
 * estimated robustly, by trimmed means and a Huber fit; the accounting
 * is the analysis of variance's, whose parts add up, over the calls that
 * are not wild: mark_wild), taken apart in turn, each component fitted
 * on what the ones before left:
 *   OS       a robust (Huber) fit of the time on the faults and switches
 *            of each call: the calls with more events took longer;
 *   COUNTERS the same on each event SBT_EVENTS counted (but clocks and
 *            cycles, which are the time itself), one at a time: the
 *            time one more cache miss, branch miss, ... costs;
 *   PROC     the calls while the speed probes saw the processor off its
 *            speed against the others (speed.c's windows);
 *   TIME     levels over the run: the calls cut into up to 16 spans of
 *            equal count in time order, each span's trimmed mean;
 *   GROUPS   a steady offset between its threads (trimmed means), and
 *            where the threads differ mode by mode, each thread's modes
 *            against the fastest thread's (group_modes);
 *   MODES    distinct modes of what is left (score.c's finder), found
 *            within the groups: two threads 5 % apart that are each
 *            bimodal make two modes and a group offset, not four modes;
 *   REST     what nothing recorded explains: the code's own variation,
 *            or a cause that was not recorded.
 * A component is claimed only where it is resolved: its size beyond
 * SBT_SCORE_Z of its standard error and at least the smallest finding
 * (sbt_min_shift); it is taken out only then and only when that lowers
 * the sum of squares, so the shares are >= 0 and sum to 1.  Means are
 * 10 %-trimmed (they move continuously on a quantized clock, and one
 * stray call cannot move them).  Everything is in the samples' order in
 * the dataset, whatever the grouping: the same for every --by.
 */
#include "decomp.h"
#include "bigmem.h"
#include "jobs.h"
#include "score.h"
#include "sort.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HUBER_K     1.345   /* 95 % efficiency at the normal          */
#define IRLS_ROUNDS 8
#define TIME_BINS   16
#define TIME_MIN    30      /* calls a span at least                  */
#define TIME_Z      4.42    /* 99.9 % over the 120 pairs of 16 spans  */

/* Median of v[0..n), which it sorts; NAN when empty. */
static double med(double *v, size_t n)
{
	if (!n || sbt_sort_doubles(v, n) != 0)
		return NAN;
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Sum of squares of r[0..n) about their mean, over the calls `keep`
 * marks (all: NULL): what taking a group's offset out always lowers (the
 * analysis of variance's identity), where about the median a skewed
 * region's would rise. */
static double ss_mean(const double *r, size_t n, const uint8_t *keep)
{
	double m = 0, ss = 0;
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		if (!keep || keep[i])
			m += r[i], c++;
	if (!c)
		return 0;
	m /= (double)c;
	for (size_t i = 0; i < n; i++)
		if (!keep || keep[i])
			ss += (r[i] - m) * (r[i] - m);
	return ss;
}

/* Median of v[0..n) sorted (med()'s, without the sort). */
static double med_sorted(const double *v, size_t n)
{
	if (!n)
		return NAN;
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* 1.4826 MAD of r[0..n) about m, their median; w scratch. */
static double mad_about(const double *r, size_t n, double m, double *w)
{
	for (size_t i = 0; i < n; i++)
		w[i] = fabs(r[i] - m);
	return 1.4826 * med(w, n);
}

/* 1.4826 MAD of r[0..n) about their median; w scratch. */
static double mad_sd(const double *r, size_t n, double *w)
{
	memcpy(w, r, n * sizeof *w);
	return mad_about(r, n, med(w, n), w);
}

/* Trimmed mean and its standard error of w[0..n) (sorted here). */
static void tmean(double *w, size_t n, double *m, double *se)
{
	*m = *se = NAN;
	if (n && sbt_sort_doubles(w, n) == 0)
		sbt_trimmed_mean(w, n, m, se);
}

/* ---- the OS: a robust fit on the counts ---------------------------------- */

/* Invert the m x m matrix a (m <= 3) into v.  0, or -1 when singular. */
static int invert(int m, double a[3][3], double v[3][3])
{
	double t[3][6];

	for (int i = 0; i < m; i++)
		for (int j = 0; j < 2 * m; j++)
			t[i][j] = j < m ? a[i][j] : (j - m == i);
	for (int c = 0; c < m; c++) {
		int p = c;
		for (int r = c + 1; r < m; r++)
			if (fabs(t[r][c]) > fabs(t[p][c]))
				p = r;
		if (!(fabs(t[p][c]) > 1e-12 * (fabs(a[c][c]) + 1e-300)))
			return -1;
		for (int j = 0; j < 2 * m; j++) {
			double x = t[c][j];
			t[c][j] = t[p][j], t[p][j] = x;
		}
		double d = t[c][c];
		for (int j = 0; j < 2 * m; j++)
			t[c][j] /= d;
		for (int r = 0; r < m; r++) {
			double f = t[r][c];
			if (r == c || f == 0)
				continue;
			for (int j = 0; j < 2 * m; j++)
				t[r][j] -= f * t[c][j];
		}
	}
	for (int i = 0; i < m; i++)
		for (int j = 0; j < m; j++)
			v[i][j] = t[i][m + j];
	return 0;
}

/* Huber fit of y on an intercept and the k <= 2 columns x[]: b[0] the
 * intercept, b[1..k] the slopes, se[] their standard errors (the robust
 * scale times the weighted design's inverse).  w, e: scratch of n.  0,
 * or -1 when the columns are collinear. */
static int huber(const double *y, const double *const *x, int k, size_t n,
		 double *b, double *se, double *w, double *e, double *scr)
{
	double a[3][3], v[3][3], sigma = 0;
	int m = k + 1;

	for (size_t i = 0; i < n; i++)
		w[i] = 1;
	for (int round = 0; round < IRLS_ROUNDS; round++) {
		double xy[3] = { 0 };
		memset(a, 0, sizeof a);
		for (size_t i = 0; i < n; i++) {
			double row[3] = { 1, k > 0 ? x[0][i] : 0,
					  k > 1 ? x[1][i] : 0 };
			for (int p = 0; p < m; p++) {
				xy[p] += w[i] * row[p] * y[i];
				for (int q = 0; q < m; q++)
					a[p][q] += w[i] * row[p] * row[q];
			}
		}
		if (invert(m, a, v) != 0)
			return -1;
		for (int p = 0; p < m; p++) {
			b[p] = 0;
			for (int q = 0; q < m; q++)
				b[p] += v[p][q] * xy[q];
		}
		for (size_t i = 0; i < n; i++)
			e[i] = y[i] - b[0] - (k > 0 ? b[1] * x[0][i] : 0) -
			       (k > 1 ? b[2] * x[1][i] : 0);
		sigma = mad_sd(e, n, scr);
		if (!(sigma > 0)) {
			double s2 = 0;
			for (size_t i = 0; i < n; i++)
				s2 += e[i] * e[i];
			sigma = sqrt(s2 / (double)n);
		}
		if (!(sigma > 0))
			break;          /* an exact fit */
		for (size_t i = 0; i < n; i++)
			w[i] = fabs(e[i]) <= HUBER_K * sigma ? 1 :
			       HUBER_K * sigma / fabs(e[i]);
	}
	/* (X'WX)^-1 scaled by the robust variance, for a weighted design
	 * whose weights sum to about n */
	double sw = 0;
	for (size_t i = 0; i < n; i++)
		sw += w[i];
	for (int p = 0; p < m; p++)
		se[p] = sigma * sqrt(fmax(0, v[p][p]) * sw / (double)n);
	return 0;
}

/* What a pass finds from the calls alone, whichever the spread's shares
 * are taken over (the median, the metrics and the OS fit are of every
 * call): found once, the second pass (decompose) takes it from the
 * first. */
struct again {
	int metrics;                  /* 1: median and m set            */
	double median;
	struct sbt_score m;
	int os;                       /* 1: os_m, os_b, os_se set       */
	int os_m;                     /* os_part's columns after huber  */
	double os_b[3], os_se[3];
	/* rest_part's median and robust sd of the final residuals: what
	 * mark_wild needs, of the same residuals (rest 1: set) */
	int rest;
	double rest_med, rest_sd;
};

struct work {
	double *r, *w, *e, *u;        /* residuals and scratch, n each */
	double *ts;                   /* times, sorted with ix          */
	uint32_t *ix;
	/* The calls the spread's shares are taken over: all (keep NULL),
	 * or those not wild (far out of what every component left: see
	 * mark_wild), n each. */
	uint8_t *tame;
	const uint8_t *keep;
	struct again *ag;             /* NULL: nothing kept across passes */
};

/* Within-region least squares of y on the faults alone, for the cost
 * pooled over the run. */
static void pool_sums(const struct sbt_decomp_in *in, struct sbt_decomp *d)
{
	double fm = 0, ym = 0, sxy = 0, sxx = 0, syy = 0;
	size_t n = in->n;

	for (size_t i = 0; i < n; i++)
		fm += in->f[i], ym += in->y[i];
	fm /= (double)n, ym /= (double)n;
	for (size_t i = 0; i < n; i++) {
		double a = in->f[i] - fm, c = in->y[i] - ym;
		sxy += a * c, sxx += a * a, syy += c * c;
	}
	if (!(sxx > 0) || n < 3)
		return;
	d->sxy_f = sxy, d->sxx_f = sxx;
	d->see_f = fmax(0, syy - sxy * sxy / sxx);
	d->dof_f = n - 2;
}

/* The OS component and the region's own costs. */
static void os_part(const struct sbt_decomp_in *in, struct sbt_decomp *d,
		    struct work *k, double ss0)
{
	struct sbt_comp_est *c = &d->c[SBT_COMP_OS];
	const double *col[2], *all[2] = { in->f, in->sw };
	double lo[2], b[3] = { 0 }, se[3] = { 0 };
	int which[2], m = 0;
	size_t n = in->n;

	if (!in->f)
		return;
	for (int j = 0; j < 2; j++) {
		double mn = INFINITY, sum = 0;
		size_t above = 0;
		for (size_t i = 0; i < n; i++)
			mn = fmin(mn, all[j][i]), sum += all[j][i];
		for (size_t i = 0; i < n; i++)
			above += all[j][i] > mn;
		if (j == 0)
			d->faults = sum / (double)n;
		else
			d->switches = sum / (double)n;
		/* counts that vary in a handful of calls cannot tell their
		 * cost from whatever else those calls met (two calls with a
		 * fault and a stall of the host once fitted 7 ms a fault) */
		if (above >= SBT_FEW_SAMPLES) {
			d->os_counts_vary = 1;
			lo[m] = mn, which[m] = j, col[m++] = all[j];
		}
	}
	if (m && which[0] == 0)
		pool_sums(in, d);
	if (k->ag && k->ag->os) {       /* the first pass's: the same fit */
		m = k->ag->os_m;
		memcpy(b, k->ag->os_b, sizeof b);
		memcpy(se, k->ag->os_se, sizeof se);
	} else {
		while (m > 0 && huber(in->y, col, m, n, b, se, k->w, k->e,
				      k->u) != 0)
			m--;            /* collinear: faults alone */
		if (k->ag) {
			k->ag->os = 1;
			k->ag->os_m = m;
			memcpy(k->ag->os_b, b, sizeof b);
			memcpy(k->ag->os_se, se, sizeof se);
		}
	}
	if (m == 0)
		return;
	int res[2] = { 0, 0 };
	for (int j = 0; j < m; j++) {
		res[j] = b[j + 1] > 0 && b[j + 1] > SBT_SCORE_Z * se[j + 1];
		if (!res[j])
			continue;
		if (which[j] == 0) {
			d->fault_cost_ns = b[j + 1];
			d->fault_cost_se_ns = se[j + 1];
			d->fault_cost_from = SBT_COST_REGION;
		} else {
			d->switch_cost_ns = b[j + 1];
			d->switch_cost_se_ns = se[j + 1];
			d->switch_cost_from = SBT_COST_REGION;
		}
		c->parts++;
	}
	if (!c->parts)
		return;
	double sum = 0, sq = 0;
	for (size_t i = 0; i < n; i++) {
		double os = 0;
		for (int j = 0; j < m; j++)
			if (res[j])
				os += b[j + 1] * (col[j][i] - lo[j]);
		k->r[i] = in->y[i] - os;
		sum += os, sq += os * os;
		c->count += os > 0;
	}
	double ss1 = ss_mean(k->r, n, k->keep);
	if (!(ss1 < ss0)) {             /* explains nothing: not taken out */
		memcpy(k->r, in->y, n * sizeof *k->r);
		c->parts = 0;
		c->count = 0;
		return;
	}
	c->resolved = 1;
	c->var_share = (ss0 - ss1) / ss0;
	c->time_ns = sum / (double)n;
	c->size_ns = sqrt(fmax(0, sq / (double)n - c->time_ns * c->time_ns));
	c->resolution_ns = SBT_SCORE_Z * (which[0] == 0 && res[0] ? se[1] :
					  se[m]);
}

/* ---- counted events ---------------------------------------------------- */

/* A column that counts time (cycles, clocks): it explains the time by
 * being it. */
static int is_clock(const char *name)
{
	return strstr(name, "cycles") || strstr(name, "clock") ||
	       strstr(name, "time");
}

static double take_out(struct work *k, size_t n, const double *off, double ss,
		       struct sbt_comp_est *c, double ss0);

static double counters_part(const struct sbt_decomp_in *in,
			    struct sbt_decomp *d, struct work *k, double ss,
			    double ss0)
{
	struct sbt_comp_est *c = &d->c[SBT_COMP_COUNTERS];
	size_t n = in->n;
	double *y = NULL, *x = NULL, *sc = NULL, best = 0;

	if (!in->cnt || !in->ncol)
		return ss;
	y = malloc(n * sizeof *y), x = malloc(n * sizeof *x);
	sc = malloc(n * sizeof *sc);
	for (uint32_t j = 0; y && x && sc && j < in->ncol; j++) {
		size_t m = 0;
		double lo = INFINITY, hi = -INFINITY, sum = 0, b[3], se[3];
		const double *col[1] = { x };
		if (!in->use[j])
			continue;
		for (size_t i = 0; i < n; i++) {
			double v = in->cnt[i * in->ncol + j];
			if (!isfinite(v))
				continue;
			y[m] = k->r[i], x[m++] = v, sum += v;
			lo = fmin(lo, v), hi = fmax(hi, v);
		}
		if (!m)
			continue;
		d->cnt_mean[j] = sum / (double)m;
		/* most calls counted, and counts that differ */
		if (m < SBT_FEW_SAMPLES || 10 * m < 9 * n || !(hi > lo) ||
		    huber(y, col, 1, m, b, se, k->w, k->e, sc) != 0 ||
		    !(b[1] > 0 && b[1] > SBT_SCORE_Z * se[1]))
			continue;
		struct sbt_comp_est one = { 0 };
		double before = ss;
		for (size_t i = 0; i < n; i++) {
			double v = in->cnt[i * in->ncol + j];
			k->u[i] = isfinite(v) ? b[1] * (v - lo) : 0;
		}
		double t = 0;
		for (size_t i = 0; i < n; i++)
			t += k->u[i];
		memcpy(k->ts, k->u, n * sizeof *k->ts);
		ss = take_out(k, n, k->ts, ss, &one, ss0);
		if (!(ss < before))
			continue;
		d->cnt_cost_ns[j] = b[1];
		d->cnt_share[j] = one.var_share;
		c->resolved = 1;
		c->parts++;
		c->var_share += one.var_share;
		c->time_ns = (isfinite(c->time_ns) ? c->time_ns : 0) +
			     t / (double)n;
		if (one.var_share > best) {
			best = one.var_share;
			c->key = j;
			c->size_ns = b[1];
			c->resolution_ns = SBT_SCORE_Z * se[1];
		}
	}
	free(y), free(x), free(sc);
	return ss;
}

/* ---- the processor, time, groups ---------------------------------------- */

/* Take a resolved offset out: r[i] -= off[i]; kept only when the sum of
 * squares falls.  Returns the new sum of squares, or ss when not kept
 * (r restored). */
static double take_out(struct work *k, size_t n, const double *off, double ss,
		       struct sbt_comp_est *c, double ss0)
{
	for (size_t i = 0; i < n; i++)
		k->r[i] -= off[i];
	double s1 = ss_mean(k->r, n, k->keep);
	if (!(s1 < ss)) {
		for (size_t i = 0; i < n; i++)
			k->r[i] += off[i];
		c->resolved = 0;
		return ss;
	}
	c->var_share = (ss - s1) / ss0;
	return s1;
}

static double proc_part(const struct sbt_decomp_in *in, struct sbt_decomp *d,
			struct work *k, double min_shift, double ss, double ss0)
{
	struct sbt_comp_est *c = &d->c[SBT_COMP_PROC];
	size_t n = in->n, a = 0, b = 0;
	double ma, sa, mb, sb;

	if (!in->sp)
		return ss;
	for (size_t i = 0; i < n; i++)
		if (in->sp[i])
			k->w[a++] = k->r[i];
		else
			k->u[b++] = k->r[i];
	if (a < SBT_FEW_SAMPLES || b < SBT_FEW_SAMPLES)
		return ss;
	tmean(k->w, a, &ma, &sa);
	tmean(k->u, b, &mb, &sb);
	double dlt = ma - mb, res = SBT_SCORE_Z * sqrt(sa * sa + sb * sb);
	c->size_ns = dlt;
	c->count = a;
	c->resolution_ns = res;
	c->parts = 2;
	if (!(fabs(dlt) > res && fabs(dlt) >= min_shift))
		return ss;
	c->resolved = 1;
	c->time_ns = dlt > 0 ? dlt * (double)a / (double)n :
		     -dlt * (double)b / (double)n;
	for (size_t i = 0; i < n; i++)
		k->e[i] = in->sp[i] ? dlt : 0;
	return take_out(k, n, k->e, ss, c, ss0);
}

/* A shift rounded to the clock's quantum: an offset taken out keeps the
 * readings on their lattice (the mode finder reads ticks). */
static double on_lattice(double x, double q)
{
	return q > 0 ? q * round(x / q) : x;
}

static double time_part(const struct sbt_decomp_in *in, struct sbt_decomp *d,
			struct work *k, double min_shift, double q, double ss,
			double ss0)
{
	struct sbt_comp_est *c = &d->c[SBT_COMP_TIME];
	size_t n = in->n;
	double lvl[TIME_BINS], se[TIME_BINS];
	int nb = (int)(n / TIME_MIN), hi = 0, lo = 0;

	if (!in->t || nb < 2)
		return ss;
	if (nb > TIME_BINS)
		nb = TIME_BINS;
	for (size_t i = 0; i < n; i++)
		k->ts[i] = in->t[i], k->ix[i] = (uint32_t)i;
	if (sbt_sort_keyed(k->ts, k->ix, n) != 0)
		return ss;
	for (int bi = 0; bi < nb; bi++) {
		size_t a = (size_t)bi * n / (size_t)nb;
		size_t z = (size_t)(bi + 1) * n / (size_t)nb;
		for (size_t i = a; i < z; i++)
			k->w[i - a] = k->r[k->ix[i]];
		tmean(k->w, z - a, &lvl[bi], &se[bi]);
		if (lvl[bi] > lvl[hi]) hi = bi;
		if (lvl[bi] < lvl[lo]) lo = bi;
	}
	double dlt = lvl[hi] - lvl[lo];
	double res = TIME_Z * sqrt(se[hi] * se[hi] + se[lo] * se[lo]);
	c->size_ns = dlt;
	c->resolution_ns = res;
	c->parts = nb;
	c->t_ns = in->t[k->ix[(size_t)hi * n / (size_t)nb]];
	if (!(dlt > res && dlt >= min_shift))
		return ss;
	c->resolved = 1;
	double sum = 0;
	for (int bi = 0; bi < nb; bi++) {
		size_t a = (size_t)bi * n / (size_t)nb;
		size_t z = (size_t)(bi + 1) * n / (size_t)nb;
		double off = on_lattice(lvl[bi] - lvl[lo], q);
		for (size_t i = a; i < z; i++)
			k->e[k->ix[i]] = off;
		sum += off * (double)(z - a);
		c->count += off > 0 ? z - a : 0;
	}
	c->time_ns = sum / (double)n;
	return take_out(k, n, k->e, ss, c, ss0);
}

/* qsort_r: arg the keys (regions are decomposed at once, -j) */
static int cmp_by_key(const void *a, const void *b, void *arg)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const uint64_t *cmp_key = arg;

	if (cmp_key[x] != cmp_key[y])
		return cmp_key[x] < cmp_key[y] ? -1 : 1;
	return (x > y) - (x < y);
}

#define MAX_GROUPS 256

/* k->ix: the samples by group (key), from[0..*ng] where each begins.
 * -1 when there are more than MAX_GROUPS (too many to weigh). */
static int by_group(const struct sbt_decomp_in *in, struct work *k,
		    size_t *from, int *ng)
{
	size_t n = in->n;

	int sorted = 1;         /* one thread's samples: so already */
	for (size_t i = 0; i < n; i++) {
		k->ix[i] = (uint32_t)i;
		sorted &= i == 0 || in->key[i - 1] <= in->key[i];
	}
	if (!sorted)
		qsort_r(k->ix, n, sizeof *k->ix, cmp_by_key, (void *)in->key);
	*ng = 0;
	from[0] = 0;
	for (size_t a = 0, z; a < n; a = z) {
		for (z = a + 1; z < n && in->key[k->ix[z]] ==
		     in->key[k->ix[a]]; z++)
			;
		if (*ng == MAX_GROUPS)
			return -1;
		from[++*ng] = z;
	}
	return 0;
}

static double group_part(const struct sbt_decomp_in *in, struct sbt_decomp *d,
			 struct work *k, double min_shift, double q, double ss,
			 double ss0)
{
	struct sbt_comp_est *c = &d->c[SBT_COMP_GROUPS];
	size_t from[MAX_GROUPS + 1];
	double lvl[MAX_GROUPS], se[MAX_GROUPS];
	int ng = 0, hi = -1, lo = -1;

	if (!in->key || by_group(in, k, from, &ng) != 0)
		return ss;
	for (int g = 0; g < ng; g++) {
		size_t a = from[g], z = from[g + 1];
		for (size_t i = a; i < z; i++)
			k->w[i - a] = k->r[k->ix[i]];
		if (z - a >= SBT_FEW_SAMPLES)
			tmean(k->w, z - a, &lvl[g], &se[g]);
		else
			lvl[g] = se[g] = NAN;
		if (isfinite(lvl[g])) {
			if (hi < 0 || lvl[g] > lvl[hi]) hi = g;
			if (lo < 0 || lvl[g] < lvl[lo]) lo = g;
		}
	}
	if (hi < 0 || hi == lo)
		return ss;
	double dlt = lvl[hi] - lvl[lo];
	double res = SBT_SCORE_Z * sqrt(se[hi] * se[hi] + se[lo] * se[lo]);
	c->size_ns = dlt;
	c->resolution_ns = res;
	c->parts = ng;
	c->key = (uint32_t)(in->key[k->ix[from[hi]]] & 0xffffffffu);
	c->key_lo = (uint32_t)(in->key[k->ix[from[lo]]] & 0xffffffffu);
	if (!(dlt > res && dlt >= min_shift))
		return ss;
	c->resolved = 1;
	double sum = 0;
	for (int g = 0; g < ng; g++) {
		double off = isfinite(lvl[g]) ? on_lattice(lvl[g] - lvl[lo], q)
					      : 0;
		for (size_t i = from[g]; i < from[g + 1]; i++)
			k->e[k->ix[i]] = off;
		sum += off * (double)(from[g + 1] - from[g]);
		c->count += off > 0 ? from[g + 1] - from[g] : 0;
	}
	c->time_ns = sum / (double)in->n;
	return take_out(k, in->n, k->e, ss, c, ss0);
}

/* ---- modes, and what is left --------------------------------------------- */

/* Modes of the residuals pooled, score.c's finder at min_shift, into s. */
static int pooled_modes(const struct sbt_decomp_in *in, struct work *k,
			double min_shift, struct sbt_score *s)
{
	struct sbt_score_in si = in->score;

	memcpy(k->w, k->r, in->n * sizeof *k->w);
	if (sbt_sort_doubles(k->w, in->n) != 0)
		return -1;
	si.sorted = 1;
	si.min_shift_ns = min_shift;
	return sbt_score_group(k->w, in->n, in->probes, in->np, &si, s);
}

#define GROUP_MODES_MIN 30      /* calls a group, to seek its own modes */

/* Do group g's modes gm[0..m) align with group r's (calls ng, nr)?  The
 * same work: each mode's share the same within the sampling error of a
 * proportion (99.7 %), and nearer the same mode of r than either of its
 * neighbours. */
static int aligned(const struct sbt_mode *gm, size_t ng,
		   const struct sbt_mode *rm, size_t nr, int m)
{
	for (int j = 0; j < m; j++) {
		double p = (gm[j].share * (double)ng + rm[j].share *
			    (double)nr) / (double)(ng + nr);
		double tol = fmax(0.05, 3 * sqrt(p * (1 - p) *
				  (1 / (double)ng + 1 / (double)nr)));
		double off = fabs(gm[j].center_ns - rm[j].center_ns);
		if (fabs(gm[j].share - rm[j].share) > tol)
			return 0;
		if (j > 0 && !(off < 0.5 * (rm[j].center_ns -
					    rm[j - 1].center_ns)))
			return 0;
		if (j + 1 < m && !(off < 0.5 * (rm[j + 1].center_ns -
						rm[j].center_ns)))
			return 0;
	}
	return 1;
}

/* Whether two neighbouring pooled modes s are held by different groups
 * (each by two thirds of its calls or more): only then can the groups'
 * own modes merge them, and only then are they sought (a search a group
 * costs what the pooled one does). */
static int split_by_group(const struct work *k, const size_t *from, int ng,
			  const struct sbt_score *s)
{
	size_t tot[SBT_SCORE_MAX_MODES] = { 0 };
	size_t best[SBT_SCORE_MAX_MODES] = { 0 };
	int who[SBT_SCORE_MAX_MODES];
	int nm = s->nmodes;

	for (int g = 0; g < ng; g++) {
		size_t c[SBT_SCORE_MAX_MODES] = { 0 };
		for (size_t i = from[g]; i < from[g + 1]; i++) {
			double r = k->r[k->ix[i]];
			int b = 0;
			for (int m = 1; m < nm; m++)
				if (fabs(r - s->modes[m].center_ns) <
				    fabs(r - s->modes[b].center_ns))
					b = m;
			c[b]++;
		}
		for (int m = 0; m < nm; m++) {
			tot[m] += c[m];
			if (c[m] > best[m])
				best[m] = c[m], who[m] = g;
		}
	}
	for (int m = 0; m + 1 < nm; m++)
		if (best[m] && best[m + 1] && who[m] != who[m + 1] &&
		    3 * best[m] >= 2 * tot[m] && 3 * best[m + 1] >= 2 * tot[m + 1])
			return 1;
	return 0;
}

/* The groups, mode by mode.  A thread on a slower core is slower in
 * each of its modes by as much as the mode is long (5 %: 10 ns on a
 * 300 ns mode, 50 ns on a 1.1 us one), which no one offset takes out:
 * the pooled finder then sees each mode once per thread.  So where the
 * pooled residuals have more modes than each group has on its own, and
 * every group of GROUP_MODES_MIN calls or more has the same modes (see
 * aligned), each call's offset is its group's nearest mode minus the
 * fastest group's same mode.  Kept, as the groups' component, when that
 * lowers the sum of squares and the pooled finder then sees fewer
 * modes; s holds the pooled modes, sought again.  0, or -1 when out of
 * memory. */
static int group_modes(const struct sbt_decomp_in *in, struct sbt_decomp *d,
		       struct work *k, double min_shift, double q, double *ss,
		       double ss0, struct sbt_score *s)
{
	struct sbt_comp_est *c = &d->c[SBT_COMP_GROUPS], one = { 0 };
	struct sbt_score_in si = in->score;
	struct sbt_score gs, s2;
	size_t from[MAX_GROUPS + 1], n = in->n;
	struct sbt_mode (*gm)[SBT_SCORE_MAX_MODES] = NULL;
	int ng, m = 0, ref = -1, used = 0, rc = -1;

	/* group_part named the slowest and fastest (their levels differ) */
	if (!in->key || s->nmodes < 2 || !isfinite(c->size_ns) ||
	    by_group(in, k, from, &ng) != 0 || ng < 2 ||
	    !split_by_group(k, from, ng, s))
		return 0;
	if (!(gm = malloc((size_t)ng * sizeof *gm)))
		return -1;
	si.sorted = 1;
	si.min_shift_ns = min_shift;
	for (int g = 0; g < ng; g++) {
		size_t a = from[g], z = from[g + 1];
		gm[g][0].share = 0;     /* 0: too few calls, left as they are */
		if (z - a < GROUP_MODES_MIN)
			continue;
		for (size_t i = a; i < z; i++)
			k->w[i - a] = k->r[k->ix[i]];
		if (sbt_sort_doubles(k->w, z - a) != 0 ||
		    sbt_score_group(k->w, z - a, in->probes, in->np, &si,
				    &gs) != 0)
			goto out;
		if (gs.nmodes < 1 || (m && gs.nmodes != m))
			goto none;
		if (!m)
			m = gs.nmodes, ref = g;
		memcpy(gm[g], gs.modes, sizeof gm[g]);
		used++;
	}
	if (used < 2 || m >= s->nmodes)
		goto none;
	/* against the fastest group's modes (group_part's), where it has
	 * its own: its calls were not moved, so the modes stay where its
	 * calls are */
	for (int g = 0; g < ng; g++)
		if (gm[g][0].share > 0 && (uint32_t)in->key[k->ix[from[g]]] ==
		    c->key_lo)
			ref = g;
	for (int g = 0; g < ng; g++)
		if (gm[g][0].share > 0 &&
		    !aligned(gm[g], from[g + 1] - from[g], gm[ref],
			     from[ref + 1] - from[ref], m))
			goto none;
	double sum = 0;
	size_t moved = 0;
	for (int g = 0; g < ng; g++)
		for (size_t i = from[g]; i < from[g + 1]; i++) {
			size_t x = k->ix[i];
			int b = 0;
			k->e[x] = 0;
			if (!(gm[g][0].share > 0))
				continue;
			for (int j = 1; j < m; j++)
				if (fabs(k->r[x] - gm[g][j].center_ns) <
				    fabs(k->r[x] - gm[g][b].center_ns))
					b = j;
			k->e[x] = on_lattice(gm[g][b].center_ns -
					     gm[ref][b].center_ns, q);
			sum += k->e[x];
			moved += k->e[x] != 0;
		}
	double s1 = take_out(k, n, k->e, *ss, &one, ss0);
	if (!(s1 < *ss))
		goto none;              /* take_out put r back */
	if (pooled_modes(in, k, min_shift, &s2) != 0)
		goto out;
	if (s2.nmodes >= s->nmodes) {
		for (size_t i = 0; i < n; i++)
			k->r[i] += k->e[i];
		goto none;
	}
	*s = s2;
	*ss = s1;
	if (!c->resolved) {
		c->resolved = 1;
		c->time_ns = 0;
		c->count = moved;
		/* resolved by the modes: what the finder tells apart */
		c->resolution_ns = min_shift;
	}
	c->var_share += one.var_share;
	c->time_ns += sum / (double)n;
none:
	rc = 0;
out:
	free(gm);
	return rc;
}

static int modes_part(const struct sbt_decomp_in *in, struct sbt_decomp *d,
		      struct work *k, double min_shift, double q, double *ss,
		      double ss0, double *t_diff)
{
	struct sbt_comp_est *c = &d->c[SBT_COMP_MODES];
	struct sbt_score s;
	size_t n = in->n;

	if (pooled_modes(in, k, min_shift, &s) != 0)
		return -1;
	*t_diff = s.t_diff_ns;
	if (group_modes(in, d, k, min_shift, q, ss, ss0, &s) != 0)
		return -1;
	if (s.nmodes < 2)
		return 0;
	d->nmodes = s.nmodes;
	memcpy(d->modes, s.modes, sizeof d->modes);
	c->parts = s.nmodes;
	c->size_ns = s.modes[s.nmodes - 1].center_ns - s.modes[0].center_ns;
	c->resolution_ns = s.min_shift_ns;
	c->time_ns = 0;
	for (int m = 1; m < s.nmodes; m++)
		c->time_ns += s.modes[m].share * (s.modes[m].center_ns -
						  s.modes[0].center_ns);
	c->resolved = 1;
	/* each call to its nearest mode, that mode's offset out */
	for (size_t i = 0; i < n; i++) {
		int best = 0;
		for (int m = 1; m < s.nmodes; m++)
			if (fabs(k->r[i] - s.modes[m].center_ns) <
			    fabs(k->r[i] - s.modes[best].center_ns))
				best = m;
		k->e[i] = s.modes[best].center_ns - s.modes[0].center_ns;
		c->count += best > 0;
	}
	take_out(k, n, k->e, *ss, c, ss0);
	return 0;
}

static void rest_part(struct sbt_decomp *d, struct work *k, size_t n,
		      double ss0, double t_diff, double q)
{
	struct sbt_comp_est *c = &d->c[SBT_COMP_REST];
	double share = 1;

	for (int j = 0; j < SBT_COMP_REST; j++)
		share -= d->c[j].var_share;
	c->var_share = ss0 > 0 ? fmax(0, share) : 0;
	c->time_ns = NAN;
	c->count = n;
	/* the residuals sorted once (k->u, free here): their median, the
	 * MAD about it, and p1..p99 */
	memcpy(k->u, k->r, n * sizeof *k->u);
	if (sbt_sort_doubles(k->u, n) != 0) {
		c->size_ns = mad_sd(k->r, n, k->w);
		return;
	}
	double m = med_sorted(k->u, n);
	c->size_ns = mad_about(k->r, n, m, k->w);
	if (k->ag) {
		k->ag->rest = 1;
		k->ag->rest_med = m;
		k->ag->rest_sd = c->size_ns;
	}
	/* resolved: its p1..p99 wider than the timer's own t_diff */
	double lo = k->u[(size_t)floor(0.01 * (double)(n - 1))];
	double hi = k->u[(size_t)ceil(0.99 * (double)(n - 1))];
	c->resolution_ns = (isfinite(t_diff) ? t_diff : 0) + (q > 0 ? q : 0);
	c->resolved = hi - lo > c->resolution_ns && c->size_ns > 0;
}

/* One pass of sbt_decomp_region in k's arrays (of in->n each at least,
 * or NULL: out of memory), the spread's shares over the calls k->keep
 * marks (NULL: all, and wild 0). */
static int decompose_pass(const struct sbt_decomp_in *in,
			  struct sbt_decomp *d, struct work *kp, size_t wild)
{
	size_t n = in->n;
	struct work k = *kp;
	struct sbt_score m;
	double q = in->score.quantum_ns, t_diff = NAN;
	int rc = -1;

	memset(d, 0, sizeof *d);
	d->n = n;
	d->wild = wild;
	d->median_ns = d->mean_ns = d->os_time_ns = NAN;
	d->fault_cost_ns = d->fault_cost_se_ns = NAN;
	d->switch_cost_ns = d->switch_cost_se_ns = NAN;
	d->faults = d->switches = NAN;
	for (int j = 0; j < SBT_CNT_COLS; j++)
		d->cnt_mean[j] = d->cnt_cost_ns[j] = d->cnt_share[j] = NAN;
	for (int j = 0; j < SBT_NCOMP; j++) {
		d->c[j].key = d->c[j].key_lo = SBT_FIND_NOKEY;
		d->c[j].t_ns = d->c[j].size_ns = d->c[j].time_ns = NAN;
		d->c[j].resolution_ns = NAN;
	}
	if (!n)
		return 0;
	if (!k.r || !k.w || !k.e || !k.u || !k.ts || !k.ix)
		goto out;
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		if (!k.keep || k.keep[i])
			sum += in->y[i];
	d->mean_ns = sum / (double)(n - wild);  /* the calls not wild */
	struct again *ag = k.ag && k.ag->metrics ? k.ag : NULL;
	if (k.ag)
		k.ag->rest = 0;
	int sorted = 0;
	if (ag) {
		d->median_ns = ag->median;
	} else {
		memcpy(k.w, in->y, n * sizeof *k.w);
		d->median_ns = med(k.w, n); /* k.w: y sorted, for below */
		sorted = !isnan(d->median_ns);
	}
	double ss0 = ss_mean(in->y, n, k.keep);
	d->var_ns2 = ss0 / (double)(n - d->wild);
	memcpy(k.r, in->y, n * sizeof *k.r);
	if (in->f) {
		double fs = 0, ss = 0;
		for (size_t i = 0; i < n; i++)
			fs += in->f[i], ss += in->sw ? in->sw[i] : 0;
		d->faults = fs / (double)n;
		d->switches = ss / (double)n;
	}
	if (n < SBT_FEW_SAMPLES) {      /* too few to take apart */
		rc = 0;
		goto out;
	}
	/* the smallest finding: as the groups' scores have it (on y
	 * sorted: med() left it in k.w; sorted again only if it could not) */
	if (ag) {
		m = ag->m;
	} else {
		if (!sorted) {
			memcpy(k.w, in->y, n * sizeof *k.w);
			if (sbt_sort_doubles(k.w, n) != 0)
				goto out;
		}
		struct sbt_score_in si = in->score;
		si.sorted = 1;
		if (sbt_score_metrics(k.w, n, in->probes, in->np, &si,
				      &m) != 0)
			goto out;
		if (k.ag) {
			k.ag->metrics = 1;
			k.ag->median = d->median_ns;
			k.ag->m = m;
		}
	}
	double min_shift = sbt_min_shift(m.t_diff_ns, d->median_ns,
					 m.quantum_ns, SBT_SCORE_EPS);
	if (!isfinite(min_shift))
		min_shift = fmax(SBT_SCORE_EPS * fabs(d->median_ns), q);
	if (q <= 0)
		q = m.quantum_ns;
	if (!(ss0 > 0)) {
		d->c[SBT_COMP_REST].var_share = 0;
		rc = 0;
		goto out;
	}
	os_part(in, d, &k, ss0);
	double ss = ss_mean(k.r, n, k.keep);
	ss = counters_part(in, d, &k, ss, ss0);
	ss = proc_part(in, d, &k, min_shift, ss, ss0);
	ss = time_part(in, d, &k, min_shift, q, ss, ss0);
	ss = group_part(in, d, &k, min_shift, q, ss, ss0);
	if (modes_part(in, d, &k, min_shift, q, &ss, ss0, &t_diff) != 0)
		goto out;
	rest_part(d, &k, n, ss0, t_diff, q);
	rc = 0;
out:
	if (rc == 0)
		sbt_decomp_cost(d, 0, 0);
	return rc;
}

/* The calls far out of what every component left: beyond WILD_SD
 * robust sd of the final residuals k->r from their median (and beyond
 * WILD_STEPS clock steps q, so that a quantized constant region has
 * none), marked 0 in k->tame; how many.  A handful of such calls (a stall
 * of the host, a long fault) would own the mean square and make every
 * steady cause read "0 % of the spread": the shares are taken without
 * them, a robust equivalent of the variance; the estimates never saw
 * them as more than one call each (trimmed means, robust fits). */
#define WILD_SD    5.0
#define WILD_STEPS 3.0
#define WILD_OWN   0.1
static size_t mark_wild(struct work *k, size_t n, double q)
{
	double sd, m, bound;
	size_t wild = 0;

	if (k->ag && k->ag->rest) {     /* rest_part's, of these residuals */
		sd = k->ag->rest_sd;
		m = k->ag->rest_med;
	} else {
		sd = mad_sd(k->r, n, k->w);
		memcpy(k->w, k->r, n * sizeof *k->w);
		m = med(k->w, n);
	}
	bound = fmax(WILD_SD * sd, WILD_STEPS * (q > 0 ? q : 0));
	if (!isfinite(m) || !(bound > 0))
		return 0;
	for (size_t i = 0; i < n; i++) {
		k->tame[i] = fabs(k->r[i] - m) <= bound;
		wild += !k->tame[i];
	}
	return wild;
}

/* sbt_decomp_region in k's arrays: once over every call, and again
 * without the wild ones (mark_wild) where they own WILD_OWN of the mean
 * square or more. */
static int decompose(const struct sbt_decomp_in *in, struct sbt_decomp *d,
		     struct work *k)
{
	struct again ag = { 0 };
	size_t wild;

	k->keep = NULL;
	k->ag = &ag;
	int rc = decompose_pass(in, d, k, 0);
	if (rc != 0 || in->n < SBT_FEW_SAMPLES || !k->tame || !k->r ||
	    !(wild = mark_wild(k, in->n, in->score.quantum_ns)) ||
	    wild >= in->n / 2) {
		k->ag = NULL;
		return rc;
	}
	/* a second pass only where the wild calls own a tenth or more of
	 * the mean square: elsewhere the shares would hardly move */
	if (ss_mean(in->y, in->n, k->tame) > (1 - WILD_OWN) *
	    ss_mean(in->y, in->n, NULL))
		return rc;
	k->keep = k->tame;
	rc = decompose_pass(in, d, k, wild);
	k->keep = NULL;
	k->ag = NULL;
	return rc;
}

static int work_alloc(struct work *k, size_t n)
{
	k->r = big_alloc(n * sizeof *k->r);
	k->w = big_alloc(n * sizeof *k->w);
	k->e = big_alloc(n * sizeof *k->e);
	k->u = big_alloc(n * sizeof *k->u);
	k->ts = big_alloc(n * sizeof *k->ts);
	k->ix = big_alloc(n * sizeof *k->ix);
	k->tame = big_alloc(n);
	return k->r && k->w && k->e && k->u && k->ts && k->ix && k->tame ?
	       0 : -1;
}

static void work_free(struct work *k, size_t n)
{
	big_free(k->r, n * sizeof *k->r), big_free(k->w, n * sizeof *k->w);
	big_free(k->e, n * sizeof *k->e), big_free(k->u, n * sizeof *k->u);
	big_free(k->ts, n * sizeof *k->ts), big_free(k->ix, n * sizeof *k->ix);
	big_free(k->tame, n);
}

int sbt_decomp_region(const struct sbt_decomp_in *in, struct sbt_decomp *d)
{
	struct work k = { 0 };

	if (in->n)
		(void)work_alloc(&k, in->n);    /* NULLs: decompose() says */
	int rc = decompose(in, d, &k);
	if (in->n)
		work_free(&k, in->n);
	return rc;
}

/* The OS's time of a call from the costs known. */
static void os_time(struct sbt_decomp *d)
{
	double t = 0;
	int known = 0;

	if (d->faults > 0 && isfinite(d->fault_cost_ns))
		t += d->faults * d->fault_cost_ns, known = 1;
	if (d->switches > 0 && isfinite(d->switch_cost_ns))
		t += d->switches * d->switch_cost_ns, known = 1;
	/* A part larger than the whole call by more than the call's own
	 * spread could make it (10 %): the costs (often the run's, fitted
	 * on other regions) do not fit this one, so nothing is claimed.
	 * Within that, the part is at most the whole. */
	if (known && t > 1.1 * d->mean_ns)
		known = 0;
	else if (known && t > d->mean_ns)
		t = d->mean_ns;
	d->os_time_ns = known ? t : NAN;
}

void sbt_decomp_cost(struct sbt_decomp *d, size_t n, double measured_ns)
{
	double sxy = 0, sxx = 0, see = 0, cost = NAN, se = NAN;
	size_t dof = 0;

	for (size_t i = 0; i < n; i++)
		if (d[i].sxx_f > 0) {
			sxy += d[i].sxy_f, sxx += d[i].sxx_f;
			see += d[i].see_f, dof += d[i].dof_f;
		}
	if (sxx > 0 && dof > 0) {
		double b = sxy / sxx, s = sqrt(see / (double)dof / sxx);
		if (b > 0 && b > SBT_SCORE_Z * s)
			cost = b, se = s;
	}
	for (size_t i = 0; i < n; i++)
		if (d[i].fault_cost_from != SBT_COST_REGION && isfinite(cost)) {
			d[i].fault_cost_ns = cost;
			d[i].fault_cost_se_ns = se;
			d[i].fault_cost_from = SBT_COST_RUN;
		} else if (d[i].fault_cost_from == SBT_COST_NONE &&
			   measured_ns > 0 && d[i].faults > 0) {
			/* no fit anywhere: what a fresh page cost the
			 * recorder at start, a measure, not a fit of these
			 * calls (its spread unknown) */
			d[i].fault_cost_ns = measured_ns;
			d[i].fault_cost_se_ns = NAN;
			d[i].fault_cost_from = SBT_COST_RECORDER;
		}
	if (n == 0)
		os_time(d);
	for (size_t i = 0; i < n; i++)
		os_time(&d[i]);
}

/* ---- every region of a result -------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static int counted(const struct sbt_sample *s)
{
	return !(s->flags & (SBT_SF_PROBE | SBT_SF_CALIB | SBT_SF_RESET |
			     SBT_SF_BEFORE_RESET));
}

struct bufs {
	struct work k;                /* decompose()'s, of `big` each   */
	uint32_t *ix;
	double *y, *f, *sw, *t, *pr, *cnt;
	uint8_t *sp;
	uint64_t *key;
};

/* Region groups g[a..b): gather, decompose into *d. */
static int one_region(const struct sbt_dataset *ds,
		      const struct sbt_options *o, const struct sbt_result *res,
		      size_t a, size_t b, struct bufs *u, struct sbt_decomp *d)
{
	size_t m = 0, n = 0, np = 0;
	uint32_t nc = ds->cnt ? ds->cnt->ncol : 0;   /* counted events */
	int os = 1, one_src = 1;
	double q = 0, floor_ns = 0;

	for (size_t k = a; k < b; k++)
		for (size_t j = 0; j < res->g[k].n; j++)
			u->ix[m++] = res->order[res->g[k].first + j];
	int sorted = 1;         /* one group's order is ascending already */
	for (size_t i = 1; i < m && sorted; i++)
		sorted = u->ix[i - 1] < u->ix[i];
	if (!sorted)
		qsort(u->ix, m, sizeof *u->ix, cmp_u32);
	/* as analyze.c leaves them out: its rule, per region */
	int leave = (o->filters & SBT_F_OS) &&
		    res->g[a].os.keep_pre == SBT_PRE_LEAVE;
	/* preempted more often than the OS preempts: the region gives
	 * its cpu away itself, and the report says so (preempted_own) */
	int own = res->g[a].os.keep_pre == SBT_PRE_OWN;
	for (size_t i = 0; i < m; i++) {
		const struct sbt_sample *s = &ds->s[u->ix[i]];
		const struct sbt_source *src = &ds->sources[s->source];
		double cost = sbt_cost_of(o, src);
		if (src->quantum_ns > q)
			q = src->quantum_ns;
		if (src->kernel_entry_ns > floor_ns)
			floor_ns = src->kernel_entry_ns;
		if (s->flags & SBT_SF_PROBE) {
			u->pr[np++] = s->ns - cost;
			continue;
		}
		if (!counted(s) || (leave && sbt_os_class(s) ==
				    SBT_OSC_PREEMPTED))
			continue;
		os &= src->os_state == SBT_OS_ON;
		one_src &= s->source == ds->s[u->ix[0]].source;
		u->y[n] = s->ns - cost;
		u->f[n] = s->faults;
		/* the OS's switches are its preemptions; a call that
		 * waited or yielded gave the cpu away itself (sbt_os_class,
		 * the same class as every view's), as did a region whose
		 * preemptions are its own */
		u->sw[n] = sbt_os_class(s) == SBT_OSC_PREEMPTED &&
			   !own ? s->switches : 0;
		u->t[n] = s->t_ns;
		u->sp[n] = !!(res->mark[u->ix[i]] & SBT_MK_SPEED);
		u->key[n] = (uint64_t)s->source << 32 | s->thread;
		for (uint32_t k = 0; k < nc; k++)
			u->cnt[n * nc + k] = sbt_cnt_get(ds, u->ix[i], k);
		n++;
	}
	struct sbt_decomp_in in = {
		.y = u->y, .f = os ? u->f : NULL, .sw = os ? u->sw : NULL,
		.t = one_src ? u->t : NULL, .sp = u->sp, .key = u->key,
		.cnt = nc ? u->cnt : NULL, .ncol = nc,
		.n = n, .probes = u->pr, .np = np,
		.score = {
			.quantum_ns = q,
			.profile_t_min_ns = o->profile_t_min_ns,
			.profile_t_diff_ns = o->profile_t_diff_ns,
			.profile_label = o->profile_label,
			.os_floor_ns = floor_ns,
			.prefer = o->prefer_profile ? SBT_PREFER_PROFILE :
				  SBT_PREFER_INSITU,
			.noise_spread_ns = -1,
		},
	};
	for (uint32_t k = 0; k < nc && k < SBT_CNT_COLS; k++)
		in.use[k] = !is_clock(ds->cnt->name[k]);
	return decompose(&in, d, &u->k);
}

/* The recorder's page-fault cost, the mean over the logs that measured
 * it (0: none did). */
static double measured_fault_ns(const struct sbt_dataset *ds)
{
	double sum = 0;
	size_t n = 0;

	for (size_t i = 0; i < ds->nsources; i++)
		if (ds->sources[i].fault_ns > 0)
			sum += ds->sources[i].fault_ns, n++;
	return n ? sum / (double)n : 0;
}

static int bufs_alloc(struct bufs *u, size_t big, size_t ncnt)
{
	u->ix = big_alloc(big * sizeof *u->ix);
	u->y = big_alloc(big * sizeof *u->y);
	u->f = big_alloc(big * sizeof *u->f);
	u->sw = big_alloc(big * sizeof *u->sw);
	u->t = big_alloc(big * sizeof *u->t);
	u->pr = big_alloc(big * sizeof *u->pr);
	u->sp = big_alloc(big);
	u->key = big_alloc(big * sizeof *u->key);
	u->cnt = big_alloc(ncnt * sizeof *u->cnt);
	return work_alloc(&u->k, big) != 0 || !u->ix || !u->y || !u->f ||
	       !u->sw || !u->t || !u->pr || !u->sp || !u->key || !u->cnt ?
	       -1 : 0;
}

static void bufs_free(struct bufs *u, size_t big, size_t ncnt)
{
	big_free(u->ix, big * sizeof *u->ix), big_free(u->y, big * sizeof *u->y);
	big_free(u->f, big * sizeof *u->f), big_free(u->sw, big * sizeof *u->sw);
	big_free(u->t, big * sizeof *u->t), big_free(u->pr, big * sizeof *u->pr);
	big_free(u->sp, big), big_free(u->key, big * sizeof *u->key);
	big_free(u->cnt, ncnt * sizeof *u->cnt);
	work_free(&u->k, big);
}

/* The regions decomposed at once (sbt_jobs_each): region r is groups
 * [at[r], at[r + 1]), into d[r]; each thread its own buffers, made
 * when it takes its first region. */
struct regions {
	const struct sbt_dataset *ds;
	const struct sbt_options *o;
	const struct sbt_result *res;
	const size_t *at;
	struct sbt_decomp *d;
	int *failed;                    /* per region                    */
	size_t big, ncnt;
	struct bufs u[SBT_JOBS_MAX];
	int made[SBT_JOBS_MAX];         /* 1 made, -1 out of memory      */
};

static void region_work(void *arg, size_t r, int t)
{
	struct regions *p = arg;

	if (!p->made[t])
		p->made[t] = bufs_alloc(&p->u[t], p->big, p->ncnt) ? -1 : 1;
	p->failed[r] = p->made[t] < 0 ||
		       one_region(p->ds, p->o, p->res, p->at[r], p->at[r + 1],
				  &p->u[t], &p->d[r]) != 0;
}

int sbt_decomp_run(const struct sbt_dataset *ds, const struct sbt_options *o,
		   struct sbt_result *res)
{
	struct regions *p = calloc(1, sizeof *p);
	size_t big = 1, nr = 0;
	int rc = -1;

	if (!p)
		return -1;
	size_t *at = malloc((res->ngroups + 1) * sizeof *at);
	for (size_t a = 0, b; at && a < res->ngroups; a = b) {
		size_t m = 0;
		for (b = a; b < res->ngroups &&
		     res->g[b].region == res->g[a].region; b++)
			m += res->g[b].n;
		if (m > big)
			big = m;
		at[nr++] = a;
	}
	if (at)
		at[nr] = res->ngroups;
	*p = (struct regions){ .ds = ds, .o = o, .res = res, .at = at,
		.d = calloc(nr ? nr : 1, sizeof *p->d),
		.failed = calloc(nr ? nr : 1, sizeof *p->failed), .big = big,
		.ncnt = big * (ds->cnt && ds->cnt->ncol ? ds->cnt->ncol : 1) };
	if (!at || !p->d || !p->failed)
		goto out;
	sbt_jobs_each(nr, o->jobs, region_work, p);
	for (size_t r = 0; r < nr; r++)
		if (p->failed[r])
			goto out;
	struct sbt_decomp *d = p->d;
	sbt_decomp_cost(d, nr, measured_fault_ns(ds));
	nr = 0;
	for (size_t a = 0, b; a < res->ngroups; a = b, nr++) {
		double tot = 0, span = 0;
		for (b = a; b < res->ngroups &&
		     res->g[b].region == res->g[a].region; b++)
			if (isfinite(res->g[b].judged_ns) &&
			    res->g[b].thread_ns > 0)
				tot += res->g[b].judged_ns,
				span += res->g[b].thread_ns;
		d[nr].region_share = span > 0 ? tot / span : NAN;
		for (size_t k = a; k < b; k++)
			res->g[k].decomp = d[nr];
	}
	rc = 0;
out:
	for (int t = 0; t < SBT_JOBS_MAX; t++)
		if (p->made[t])
			bufs_free(&p->u[t], p->big, p->ncnt);
	free(p->d), free(p->failed), free(at), free(p);
	return rc;
}
