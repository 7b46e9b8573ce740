/*
 * compare.c - a baseline against a new side, region by region.
 *
 * Each side is analyzed by the pipeline as any input would be (filters,
 * machine events, phases), and a row compares the steady samples of a
 * region (or a region's thread / rank / host under --by: like with like,
 * matched by name, not by the analyzer's internal numbers) on both sides.
 *
 * The typical time is the 10 %-trimmed mean, for the reasons groups.c
 * gives.  A change d = new - base counts when it is beyond each of:
 *   - the populations' resolution: Z sqrt(se_b^2 + se_n^2) (Z = 3.29,
 *     99.9 %), floored at a clock quantum when the readings do not dither
 *     across ticks (score.c's shift_resolution, both sides);
 *   - with >= 2 runs a side, the run-to-run spread: the runs' trimmed
 *     means scatter by s (pooled over both sides, df = k_b + k_n - 2), so
 *     the sides' means differ by t_df s sqrt(1/k_b + 1/k_n) by chance
 *     (Student's t at 99.9 %: with 2 runs a side t = 31.6, which is what
 *     two runs can tell);
 *   - the smallest finding, sbt_min_shift(): 1 % of the region's time or
 *     t_diff, whichever is smaller.  10^6 samples resolve a few hundredths
 *     of a ns; a change below one sample's t_diff and below 1 % is not
 *     one a person should act on (DESIGN.md: two resolutions).
 * The largest of the three is what bounds the verdict, and is named.
 *
 * Fair to the machine.  Where a side's logs carry speed probes (a fixed
 * register-only workload timed now and then on every thread), a probe
 * slower than its run's typical probe by more than max(2 %, 5 robust
 * standard deviations of the probes) marks a slow window of the
 * processor: the samples of its thread between the probe before it and
 * the probe after it are left out of both trimmed means, so no window of
 * a busy host decides the verdict.  With probes on both sides, the
 * steady probes' per-op times give the processor's speed ratio r = new /
 * base, and the change is also given normalized: new / r against base,
 * its resolution widened by r's own (added in quadrature).  The gate
 * then trips only on a change both as measured and normalized.  Without
 * probes on both sides the comparison assumes an equal machine, and says
 * so.
 *
 * What a person reads first: the ratio of the medians.  Every row with
 * SBT_CMP_MIN_N samples a side gets r = median(new) / median(base) of
 * every call of it (probes aside; times less the timing cost, at least
 * one clock quantum) and an interval for r.  Calls of one run are not
 * independent (a co-runner slows a stretch of them), so the interval
 * comes from units that are:
 *   - with >= 2 runs a side, the runs: each run's median, the change of
 *     the mean log medians, its standard error from the runs' scatter;
 *   - else batches (the batch-means method of simulation output): each
 *     side's calls in time order cut into SBT_CMP_BATCHES consecutive
 *     batches, the standard error of log r from the scatter of the
 *     batches' log medians (var(log median) ~ var(batch's) / batches).
 *     This sees the drift within a run, not what differs between runs:
 *     the report says that the runs' spread is unknown and calls no row
 *     slower or faster.
 * The interval is log r +- t se (Student's t, Welch-Satterthwaite df),
 * at least one clock quantum wide, at the level 1 - SBT_CMP_ALPHA / m
 * for each of the m rows estimated (Bonferroni): all m intervals hold
 * together with 95 %, so on two runs of the same thing any row beyond
 * its interval is there with at most 5 % probability.
 */
#include "compare.h"
#include "sort.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOW_MIN      0.02     /* a probe this much slower marks a window */
#define SLOW_SIGMAS   5.0      /* ... or this many robust sds if more      */
#define SHARE_MIN     0.05     /* a mode's share (change) worth naming     */
#define MODE_TOL      0.10     /* modes this close (relative) are one      */

/* Student's t, two-sided 99.9 % (0.9995 quantile), df degrees of
 * freedom; Z beyond the table. */
static double t999(int df)
{
	static const double t[] = { 0, 636.62, 31.60, 12.92, 8.61, 6.87,
		5.96, 5.41, 5.04, 4.78, 4.59, 4.44, 4.32, 4.22, 4.14, 4.07,
		4.01, 3.97, 3.92, 3.88, 3.85, 3.82, 3.79, 3.77, 3.75, 3.73,
		3.71, 3.69, 3.67, 3.66, 3.65 };

	if (df < 1)
		return NAN;
	if (df <= 30)
		return t[df];
	return df <= 60 ? 3.55 : df <= 120 ? 3.46 : SBT_SCORE_Z;
}

/* ---- Student's t ------------------------------------------------------- */

/* The continued fraction of the incomplete beta function (Lentz). */
static double beta_cf(double a, double b, double x)
{
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = 1 / (fabs(d) < 1e-300 ? 1e-300 : d);
	h = d;
	for (int m = 1; m <= 300; m++) {
		for (int k = 0; k < 2; k++) {
			double num = k == 0 ?
				m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)) :
				-(a + m) * (a + b + m) * x /
				((a + 2 * m) * (a + 2 * m + 1));
			d = 1 + num * d;
			c = 1 + num / c;
			d = 1 / (fabs(d) < 1e-300 ? 1e-300 : d);
			if (fabs(c) < 1e-300)
				c = 1e-300;
			h *= d * c;
			if (k == 1 && fabs(d * c - 1) < 1e-14)
				return h;
		}
	}
	return h;
}

/* The regularized incomplete beta function I_x(a, b). */
static double inc_beta(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double lb = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		    b * log1p(-x);
	if (x < (a + 1) / (a + b + 2))
		return exp(lb) * beta_cf(a, b, x) / a;
	return 1 - exp(lb) * beta_cf(b, a, 1 - x) / b;
}

/* P(|T| > t), T Student's t with df degrees of freedom. */
static double t_tail2(double t, double df)
{
	return inc_beta(df / 2, 0.5, df / (df + t * t));
}

/* The t with P(|T| > t) = p: bisection, on a log scale once above 1
 * (the tail falls monotonely; t reaches 10^6 at 1 df and small p). */
static double t_two_sided(double p, double df)
{
	double lo = 0, hi = 1e7;

	for (int i = 0; i < 300 && hi - lo > 1e-9 * hi; i++) {
		double mid = lo >= 1 ? sqrt(lo * hi) : 0.5 * (lo + fmin(hi, 2));
		if (t_tail2(mid, df) > p)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* ---- the processor's slow windows (speed probes) ----------------------- */

struct probe { uint64_t key; double t, op_ns; int slow; };

/* One side's speed probes, sorted by (source, thread, time). */
struct speed {
	struct probe *p;
	size_t n;
};

static uint64_t thread_key(uint32_t source, uint32_t thread)
{
	return (uint64_t)source << 32 | thread;
}

static int cmp_probe(const void *a, const void *b)
{
	const struct probe *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->t > y->t) - (x->t < y->t);
}

static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof *v, sbt_cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Mark the slow probes among p[a..b), the probes of one source. */
static int mark_slow(struct probe *p, size_t a, size_t b)
{
	size_t n = b - a;
	double *v = malloc((n ? n : 1) * sizeof *v), med, mad;

	if (!v)
		return -1;
	for (size_t i = 0; i < n; i++)
		v[i] = p[a + i].op_ns;
	med = median_of(v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = fabs(p[a + i].op_ns - med);
	mad = 1.4826 * median_of(v, n);
	free(v);
	double lim = med + fmax(SLOW_MIN * med, SLOW_SIGMAS * mad);
	for (size_t i = a; i < b; i++)
		p[i].slow = p[i].op_ns > lim;
	return 0;
}

/* Read side s's probes into sp, mark the slow ones, and estimate its
 * steady speed.  0, or -1 when out of memory. */
static int speed_read(const struct sbt_cmp_side *s, struct speed *sp,
		      struct sbt_cmp_speed *out)
{
	const struct sbt_dataset *ds = s->ds;
	double *v;
	size_t k = 0;

	memset(out, 0, sizeof *out);
	out->per_op_ns = out->se_ns = NAN;
	sp->n = 0;
	if (!ds->nprobes)
		return sp->p = NULL, 0;
	if (!(sp->p = malloc(ds->nprobes * sizeof *sp->p)))
		return -1;
	for (size_t i = 0; i < ds->nprobes; i++) {
		const struct sbt_probe *q = &ds->probes[i];
		const struct sbt_source *src = &ds->sources[q->source];
		double ns = q->ns - sbt_cost_of(s->o, src);
		if (!(ns > 0))
			continue;     /* no workload left: nothing to scale */
		sp->p[sp->n++] = (struct probe){
			.key = thread_key(q->source, q->thread), .t = q->t_ns,
			.op_ns = ns / (src->speed_ops ? src->speed_ops : 1) };
	}
	qsort(sp->p, sp->n, sizeof *sp->p, cmp_probe);
	for (size_t a = 0, b; a < sp->n; a = b) {   /* source by source */
		for (b = a + 1; b < sp->n &&
		     sp->p[b].key >> 32 == sp->p[a].key >> 32; b++)
			;
		if (mark_slow(sp->p, a, b) != 0)
			return -1;
	}
	if (!(v = malloc((sp->n ? sp->n : 1) * sizeof *v)))
		return -1;
	for (size_t i = 0; i < sp->n; i++)
		if (!sp->p[i].slow)
			v[k++] = sp->p[i].op_ns;
	out->probes = sp->n;
	out->slow_probes = sp->n - k;
	if (k && sbt_sort_doubles(v, k) == 0)
		sbt_trimmed_mean(v, k, &out->per_op_ns, &out->se_ns);
	free(v);
	return 0;
}

/* The ops of the probes' workload in ds (0: no META SPEED), -1 when its
 * logs disagree, -2 without probes. */
static long probe_ops(const struct sbt_dataset *ds)
{
	long ops = -2;

	for (size_t k = 0; k < ds->nprobes; k++) {
		long o = (long)ds->sources[ds->probes[k].source].speed_ops;
		if (ops != -2 && ops != o)
			return -1;
		ops = o;
	}
	return ops;
}

/* Is a sample of (source, thread) starting at t in a slow window: is the
 * probe before it or the one after it on its thread slow? */
static int in_slow_window(const struct speed *sp, uint32_t source,
			  uint32_t thread, double t)
{
	uint64_t key = thread_key(source, thread);
	size_t lo = 0, hi = sp->n;

	while (lo < hi) {                 /* first probe >= (key, t) */
		size_t mid = lo + (hi - lo) / 2;
		const struct probe *q = &sp->p[mid];
		if (q->key < key || (q->key == key && q->t < t))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < sp->n && sp->p[lo].key == key && sp->p[lo].slow)
		return 1;
	return lo > 0 && sp->p[lo - 1].key == key && sp->p[lo - 1].slow;
}

/* ---- cells: a region (x group) on one side ---------------------------- */

struct cell {
	const char *name;
	struct sbt_cmp_label label;
	size_t *gi;                   /* its groups in res->g             */
	size_t ng;
};

static struct sbt_cmp_label label_of(const struct sbt_dataset *ds,
				     const struct sbt_group *g, enum sbt_by by)
{
	const struct sbt_source *src = &ds->sources[g->source];
	struct sbt_cmp_label l = { .by = by, .key = g->key };

	if (by == SBT_BY_RANK) {
		/* no rank: each process its own, unmatched */
		l.pid = src->rank < 0;
		l.key = (uint32_t)(src->rank >= 0 ? src->rank : src->pid);
	} else if (by == SBT_BY_HOST) {
		l.host = src->host;
	} else if (by != SBT_BY_THREAD && by != SBT_BY_CPU) {
		l.key = 0;          /* one row a region */
	}
	return l;
}

/* a and b in the order their words sort ("cpu 10" < "cpu 2" < "cpu
 * unknown", "pid 7" < "rank 1"), the order the reports have listed the
 * rows in. */
static int cmp_label(const struct sbt_cmp_label *a,
		     const struct sbt_cmp_label *b)
{
	char x[16], y[16];

	if (a->by == SBT_BY_HOST)
		return strcmp(a->host, b->host);
	if (a->pid != b->pid)
		return a->pid ? -1 : 1;
	if (a->by == SBT_BY_CPU &&
	    (a->key == SBT_CPU_UNKNOWN || b->key == SBT_CPU_UNKNOWN))
		return (a->key == SBT_CPU_UNKNOWN) - (b->key == SBT_CPU_UNKNOWN);
	snprintf(x, sizeof x, "%u", a->key);
	snprintf(y, sizeof y, "%u", b->key);
	return strcmp(x, y);
}

static int cmp_cell(const void *a, const void *b)
{
	const struct cell *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : cmp_label(&x->label, &y->label);
}

static void cells_free(struct cell *c, size_t n)
{
	if (c && n)
		free(c[0].gi);      /* one array for all cells */
	free(c);
}

/* One cell per (region name, label) of side s, sorted.  NULL on OOM. */
static struct cell *cells_make(const struct sbt_cmp_side *s, enum sbt_by by,
			       size_t *ncells)
{
	const struct sbt_result *res = s->res;
	struct cell *c = calloc(res->ngroups + 1, sizeof *c);
	size_t *gi = malloc((res->ngroups + 1) * sizeof *gi), n = 0;

	if (!c || !gi) {
		free(c), free(gi);
		return NULL;
	}
	/* a cell per group, sorted, then runs of equal ones merged: the
	 * first of a run owns the index array of them all */
	for (size_t i = 0; i < res->ngroups; i++) {
		c[i].name = s->ds->regions[res->g[i].region].name;
		c[i].label = label_of(s->ds, &res->g[i], by);
		c[i].ng = i;            /* the group, until merged */
	}
	qsort(c, res->ngroups, sizeof *c, cmp_cell);
	for (size_t i = 0, j; i < res->ngroups; i = j) {
		size_t first = n == 0 ? 0 : (size_t)(c[n - 1].gi - gi) +
					    c[n - 1].ng;
		for (j = i; j < res->ngroups && !cmp_cell(&c[i], &c[j]); j++)
			gi[first + j - i] = c[j].ng;
		struct cell t = c[i];
		t.gi = gi + first, t.ng = j - i;
		c[n++] = t;
	}
	if (n == 0)
		free(gi);
	*ncells = n;
	return c;
}

/* ---- one side of a row -------------------------------------------------- */

/* The cell's samples into v (less the timing cost) and src: with
 * steady, its steady samples (below), counting in *slow those the
 * processor's slow windows hold; without, every sample the filters kept.
 * Their number. */
static size_t gather(const struct sbt_cmp_side *s, const struct cell *c,
		     const struct speed *sp, int steady, double *v,
		     uint32_t *src, size_t *slow)
{
	const struct sbt_dataset *ds = s->ds;
	const struct sbt_result *res = s->res;
	unsigned skip = SBT_MK_DROPPED | (steady ? SBT_MK_TRANSIENT |
			SBT_MK_AFTER_PROBE : 0);
	size_t n = 0;

	for (size_t k = 0; k < c->ng; k++) {
		const struct sbt_group *g = &res->g[c->gi[k]];
		for (size_t i = g->first; i < g->first + g->n; i++) {
			const struct sbt_sample *x = &ds->s[res->order[i]];
			unsigned mk = res->mark[res->order[i]];
			if ((x->flags & SBT_SF_PROBE) || (mk & skip))
				continue;
			/* the processor's: a shift the speed timeline found
			 * (speed.c), or a slow probe beside it (here) */
			if (steady && ((mk & SBT_MK_SPEED) ||
			    (sp->n && in_slow_window(sp, x->source, x->thread,
						     x->t_ns)))) {
				(*slow)++;
				continue;
			}
			/* the machine's (machine.c), after the processor's:
			 * regions moving together in a slow window are the
			 * processor moving them */
			if (steady && (mk & SBT_MK_MACHINE))
				continue;
			v[n] = x->ns - sbt_cost_of(s->o,
						   &ds->sources[x->source]);
			src[n++] = x->source;
		}
	}
	return n;
}

/* The trimmed mean, its resolution and the runs' spread of the cell's
 * steady samples (kept, not in a warm-up, excursion or machine shift,
 * not in a slow window); when a side has none (a co-runner's slowdowns
 * can cover a whole short run), of every sample the filters kept, and
 * e->all_kept says so.  0, or -1 when out of memory. */
static int estimate(const struct sbt_cmp_side *s, const struct cell *c,
		    const struct speed *sp, struct sbt_cmp_est *e)
{
	const struct sbt_dataset *ds = s->ds;
	const struct sbt_result *res = s->res;
	size_t total = 0, n = 0;
	double q = 0;
	double *v, *w;
	uint32_t *src;
	int rc = -1;

	memset(e, 0, sizeof *e);
	e->tm_ns = e->se_ns = e->res_ns = e->run_sd_ns = NAN;
	for (size_t k = 0; k < c->ng; k++) {
		const struct sbt_group *g = &res->g[c->gi[k]];
		total += g->n;
		if (g->quantum_ns > q)
			q = g->quantum_ns;
		if (!e->g || g->kept > e->g->kept)
			e->g = g;
	}
	v = malloc((total ? total : 1) * sizeof *v);
	w = malloc((total ? total : 1) * sizeof *w);
	src = malloc((total ? total : 1) * sizeof *src);
	if (!v || !w || !src)
		goto out;
	n = gather(s, c, sp, 1, v, src, &e->slow);
	if (n == 0) {       /* every kept sample was set aside: say so */
		n = gather(s, c, sp, 0, v, src, NULL);
		e->all_kept = n > 0;
	}
	e->n = n;
	if (n == 0) {
		rc = 0;
		goto out;
	}
	if (sbt_sort_keyed(v, src, n) != 0)
		goto out;
	sbt_trimmed_mean(v, n, &e->tm_ns, &e->se_ns);
	e->res_ns = SBT_SCORE_Z * sqrt(2.0) * e->se_ns;
	if (q > 0 && e->se_ns * (1 - 2 * SBT_SCORE_TRIM) * sqrt((double)n) <
	    q / 4)    /* no dither across ticks (score.c) */
		e->res_ns = fmax(e->res_ns, q);

	/* Runs: each source is one, unless the cell pools the ranks of one
	 * run (then their spread is the ranks', not the runs'). */
	int mpi = 0;
	for (size_t i = 1; i < n; i++)
		if (src[i] != src[0] && ds->sources[src[i]].rank >= 0 &&
		    ds->sources[src[i]].rank != ds->sources[src[0]].rank)
			mpi = 1;
	double sum = 0, sum2 = 0;
	for (uint32_t r = 0; r < ds->nsources && !mpi; r++) {
		size_t m = 0;
		double tm, se;
		for (size_t i = 0; i < n; i++)   /* ascending already */
			if (src[i] == r)
				w[m++] = v[i];
		if (m < 2)
			continue;
		sbt_trimmed_mean(w, m, &tm, &se);
		e->runs++;
		sum += tm, sum2 += tm * tm;
	}
	if (e->runs >= 2)
		e->run_sd_ns = sqrt(fmax(0, (sum2 - sum * sum / e->runs) /
					 (e->runs - 1)));
	rc = 0;
out:
	free(v), free(w), free(src);
	return rc;
}

/* ---- the ratio of the medians and its interval -------------------------- */

struct call { double v, t; uint32_t source; };

static int cmp_call(const void *a, const void *b)
{
	const struct call *x = a, *y = b;

	if (x->source != y->source)
		return x->source < y->source ? -1 : 1;
	return (x->t > y->t) - (x->t < y->t);
}

/* The median of calls k[a..b)'s values, w room for b - a of them. */
static double calls_median(const struct call *k, size_t a, size_t b,
			   double *w)
{
	for (size_t i = a; i < b; i++)
		w[i - a] = k[i].v;
	return median_of(w, b - a);
}

/* Every call of cell c on side s but the probes, in (run, time) order:
 * its time less the timing cost, at least one clock quantum.  *q: the
 * largest quantum.  NULL when out of memory. */
static struct call *calls_of(const struct sbt_cmp_side *s,
			     const struct cell *c, size_t *n, double *q)
{
	const struct sbt_result *res = s->res;
	size_t total = 0, m = 0;

	*q = 1.0, *n = 0;
	for (size_t k = 0; k < c->ng; k++)
		total += res->g[c->gi[k]].n;
	struct call *v = malloc((total ? total : 1) * sizeof *v);
	if (!v)
		return NULL;
	for (size_t k = 0; k < c->ng; k++) {
		const struct sbt_group *g = &res->g[c->gi[k]];
		double qf = fmax(g->quantum_ns, 1.0);
		*q = fmax(*q, qf);
		for (size_t i = g->first; i < g->first + g->n; i++) {
			const struct sbt_sample *x = &s->ds->s[res->order[i]];
			if (x->flags & SBT_SF_PROBE)
				continue;
			double ns = x->ns - sbt_cost_of(s->o,
						&s->ds->sources[x->source]);
			v[m++] = (struct call){ fmax(ns, qf), x->t_ns,
						x->source };
		}
	}
	qsort(v, m, sizeof *v, cmp_call);
	*n = m;
	return v;
}

/* The log medians of a side's units into u: by run, or in batches of
 * consecutive calls.  Their number. */
static int unit_logs(const struct call *k, size_t n, int by_runs,
		     double *w, double *u)
{
	int m = 0;

	if (by_runs) {
		for (size_t a = 0, b; a < n; a = b) {
			for (b = a; b < n && k[b].source == k[a].source; b++)
				;
			u[m++] = log(calls_median(k, a, b, w));
		}
		return m;
	}
	for (int j = 0; j < SBT_CMP_BATCHES; j++) {
		size_t a = n * (size_t)j / SBT_CMP_BATCHES;
		size_t b = n * (size_t)(j + 1) / SBT_CMP_BATCHES;
		if (b > a)
			u[m++] = log(calls_median(k, a, b, w));
	}
	return m;
}

static void mean_var(const double *u, int m, double *mean, double *var)
{
	double s = 0, s2 = 0;

	for (int i = 0; i < m; i++)
		s += u[i];
	*mean = s / m;
	for (int i = 0; i < m; i++)
		s2 += (u[i] - *mean) * (u[i] - *mean);
	*var = m > 1 ? s2 / (m - 1) : 0;
}

/* Runs among calls k[0..n) (sorted by run). */
static int runs_in(const struct call *k, size_t n)
{
	int r = 0;

	for (size_t i = 0; i < n; i++)
		r += i == 0 || k[i].source != k[i - 1].source;
	return r;
}

/* Row's log ratio and its standard error from cells cb and cn (the
 * interval waits for the number of rows: ratio_interval).  0, or -1
 * when out of memory. */
static int ratio_row(const struct sbt_cmp_side *sb, const struct cell *cb,
		     const struct sbt_cmp_side *sn, const struct cell *cn,
		     struct sbt_cmp_ratio *e)
{
	size_t nb, nn;
	double qb, qn;
	struct call *kb = calls_of(sb, cb, &nb, &qb);
	struct call *kn = calls_of(sn, cn, &nn, &qn);
	size_t most = (nb > nn ? nb : nn) + SBT_CMP_BATCHES;
	double *w = malloc(most * sizeof *w);
	double *ub = malloc(most * sizeof *ub), *un = malloc(most * sizeof *un);
	double mb, vb, mn, vn;
	int rc = -1;

	memset(e, 0, sizeof *e);
	e->nb = nb, e->nn = nn;
	if (!kb || !kn || !w || !ub || !un)
		goto out;
	rc = 0;
	if (nb < SBT_CMP_MIN_N || nn < SBT_CMP_MIN_N)
		goto out;
	e->have = 1;
	e->med_b_ns = calls_median(kb, 0, nb, w);
	e->med_n_ns = calls_median(kn, 0, nn, w);
	e->by_runs = runs_in(kb, nb) >= 2 && runs_in(kn, nn) >= 2;
	e->units_b = unit_logs(kb, nb, e->by_runs, w, ub);
	e->units_n = unit_logs(kn, nn, e->by_runs, w, un);
	mean_var(ub, e->units_b, &mb, &vb);
	mean_var(un, e->units_n, &mn, &vn);
	e->log_ratio = e->by_runs ? mn - mb :
		       log(e->med_n_ns) - log(e->med_b_ns);
	double xb = vb / e->units_b, xn = vn / e->units_n;
	e->se = sqrt(xb + xn);
	/* Welch-Satterthwaite; both spreads 0: the units' own df */
	e->df = xb + xn > 0 ? (xb + xn) * (xb + xn) /
		(xb * xb / (e->units_b - 1) + xn * xn / (e->units_n - 1)) :
		e->units_b + e->units_n - 2;
	if (!(e->df >= 1))
		e->df = 1;
	e->floor_log = log1p(fmax(qb, qn) / fmin(e->med_b_ns, e->med_n_ns));
out:
	free(kb), free(kn), free(w), free(ub), free(un);
	return rc;
}

/* Row e's interval, one of m rows estimated (Bonferroni). */
static void ratio_interval(struct sbt_cmp_ratio *e, size_t m)
{
	double t = t_two_sided(SBT_CMP_ALPHA / (double)m, e->df);
	double h = fmax(t * e->se, e->floor_log);

	e->ratio = exp(e->log_ratio);
	e->lo = exp(e->log_ratio - h);
	e->hi = exp(e->log_ratio + h);
	e->change = e->lo > 1 ? 1 : e->hi < 1 ? -1 : 0;
}

/* ---- each side's runs: wall time and the OS's share -------------------- */

/* Each source's wall time into wall: its first call's start to its last
 * one's end, probes too (what --dump lists). */
static void walls(const struct sbt_dataset *ds, double *wall, double *lo)
{
	for (size_t i = 0; i < ds->nsources; i++)
		lo[i] = INFINITY, wall[i] = -INFINITY;
	for (size_t k = 0; k < ds->n; k++) {
		const struct sbt_sample *x = &ds->s[k];
		if (x->source >= ds->nsources)
			continue;
		lo[x->source] = fmin(lo[x->source], x->t_ns);
		wall[x->source] = fmax(wall[x->source],
				       x->t_ns + x->ns + x->detour_ns);
	}
	for (size_t i = 0; i < ds->nsources; i++)
		wall[i] = wall[i] >= lo[i] ? wall[i] - lo[i] : 0;
}

/* Side s's runs into w.  0, or -1 when out of memory. */
static int runs_of(const struct sbt_cmp_side *s, struct sbt_cmp_runs *w)
{
	const struct sbt_dataset *ds = s->ds;
	size_t n = ds->nsources;
	double *wall = malloc((n ? n : 1) * sizeof *wall);
	double *pmax = malloc((n ? n : 1) * sizeof *pmax);

	memset(w, 0, sizeof *w);
	w->run_wall_ns = malloc((n ? n : 1) * sizeof *w->run_wall_ns);
	if (!wall || !pmax || !w->run_wall_ns) {
		free(wall), free(pmax);
		return -1;
	}
	walls(ds, wall, pmax);      /* pmax: room for the starts, first */
	memcpy(w->run_wall_ns, wall, n * sizeof *wall);
	w->n = (int)n;
	w->os = n > 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct sbt_source *src = &ds->sources[i];
		pmax[i] = src->os_preempt_max_ns;
		if (src->os_state != SBT_OS_ON || !(src->os_span_ns > 0))
			w->os = 0;
		w->span_ns += src->os_span_ns;
		w->preempt_ns += src->os_preempt_ns;
		w->sleep_ns += src->os_sleep_ns;
	}
	if (n) {
		w->wall_ns = median_of(wall, n);       /* sorts wall */
		w->wall_min_ns = wall[0], w->wall_max_ns = wall[n - 1];
		w->preempt_max_ns = median_of(pmax, n);
	}
	free(wall), free(pmax);
	return 0;
}

/* ---- the verdict's numbers (report/say.c words them) -------------------- */


/* d against the thresholds of row r (extra: a resolution added in
 * quadrature, the speed ratio's). */
static void decide(const struct sbt_cmp_row *r, double base, double nw,
		   double extra_ns, struct sbt_cmp_change *c)
{
	double pop = sqrt(r->pop_res_ns * r->pop_res_ns +
			  extra_ns * extra_ns);

	c->delta_ns = nw - base;
	c->rel = base != 0 ? c->delta_ns / base : NAN;
	c->resolution_ns = pop;
	c->bound = SBT_CMP_POPULATION;
	if (isfinite(r->runs_res_ns) && r->runs_res_ns > pop) {
		c->resolution_ns = r->runs_res_ns;
		c->bound = SBT_CMP_RUNS;
	}
	c->threshold_ns = c->resolution_ns;
	if (isfinite(r->floor_ns) && r->floor_ns > c->threshold_ns) {
		c->threshold_ns = r->floor_ns;
		c->bound = SBT_CMP_FLOOR;
	}
	c->change = !(fabs(c->delta_ns) > c->threshold_ns) ? 0 :
		    c->delta_ns > 0 ? 1 : -1;
	/* runs that cannot tell 10 % apart say nothing either way (as the
	 * class "unresolved" of one run) */
	c->unresolved = !c->change && !(base > 0 && c->threshold_ns <
					 SBT_CLASS_UNRESOLVED * base);
}

/* A share change of mode pair (pb, pn) beyond binomial noise. */
static int share_moved(double pb, double pn, size_t nb, size_t nn)
{
	double p = 0.5 * (pb + pn);
	double sd = sqrt(p * (1 - p) * (1.0 / (double)nb + 1.0 / (double)nn));

	return fabs(pn - pb) >= SHARE_MIN && fabs(pn - pb) > SBT_SCORE_Z * sd;
}

/* A side's modes with those closer than MODE_TOL to their neighbour
 * merged (the finder splits one mode on a few ns of a 10 ns clock):
 * shares summed, centers weighted by them.  Returns how many. */
static int merged(const struct sbt_score *s, struct sbt_mode *m)
{
	int k = 0;

	for (int i = 0; i < s->nmodes; i++) {      /* ascending centers */
		const struct sbt_mode *x = &s->modes[i];
		if (k && x->center_ns - m[k - 1].center_ns <=
		    MODE_TOL * m[k - 1].center_ns) {
			double w = m[k - 1].share + x->share;
			m[k - 1].center_ns = w > 0 ? (m[k - 1].center_ns *
				m[k - 1].share + x->center_ns * x->share) / w :
				m[k - 1].center_ns;
			m[k - 1].share = w;
		} else {
			m[k++] = *x;
		}
	}
	return k;
}

/* The mode of m[0..k) within MODE_TOL of center c (the nearest), or -1. */
static int near_mode(const struct sbt_mode *m, int k, double c)
{
	int best = -1;

	for (int i = 0; i < k; i++)
		if (fabs(c - m[i].center_ns) <= MODE_TOL * m[i].center_ns &&
		    (best < 0 || fabs(c - m[i].center_ns) <
				 fabs(c - m[best].center_ns)))
			best = i;
	return best;
}

/* The modes and steps that changed between r's two groups, into r.
 * Each side's modes merged where the finder split one (merged()), a new
 * mode is matched to the nearest base mode within MODE_TOL; shares of
 * new modes matching one base mode add up before they are compared. */
static void distribution(struct sbt_cmp_row *r)
{
	const struct sbt_group *gb = r->b.g, *gn = r->n.g;
	struct sbt_mode mb[SBT_SCORE_MAX_MODES], mn[SBT_SCORE_MAX_MODES];
	int kb = merged(&gb->score, mb), kn = merged(&gn->score, mn);
	double got[SBT_SCORE_MAX_MODES] = { 0 };
	int seen[SBT_SCORE_MAX_MODES] = { 0 };

	r->nmodes = 0;
	/* one mode a side: its move is the change itself */
	for (int j = 0; kb + kn > 2 && j < kn; j++) {
		int i = near_mode(mb, kb, mn[j].center_ns);
		if (i >= 0) {
			got[i] += mn[j].share;
			seen[i] = 1;
		} else if (mn[j].share >= SHARE_MIN) {  /* else noise */
			r->modes[r->nmodes++] = (struct sbt_cmp_mode){
				SBT_CMP_MODE_NEW, mn[j].center_ns, 0,
				mn[j].share };
		}
	}
	for (int i = 0; kb + kn > 2 && i < kb; i++) {
		if (!seen[i] && mb[i].share >= SHARE_MIN)
			r->modes[r->nmodes++] = (struct sbt_cmp_mode){
				SBT_CMP_MODE_GONE, mb[i].center_ns,
				mb[i].share, 0 };
		else if (seen[i] && share_moved(mb[i].share, got[i],
						gb->score.n, gn->score.n))
			r->modes[r->nmodes++] = (struct sbt_cmp_mode){
				SBT_CMP_MODE_SHARE, mb[i].center_ns,
				mb[i].share, got[i] };
	}
	/* Steps: only where one side has none (this VM's host moves a
	 * region by a few % now and then: steps in both are its). */
	r->steps = gb->phases.nsteps == 0 && gn->phases.nsteps > 0 ? 1 :
		   gb->phases.nsteps > 0 && gn->phases.nsteps == 0 ? -1 : 0;
}

static int named(const char *list, const char *name)
{
	size_t len = strlen(name);

	if (!list)
		return 1;
	for (const char *p = list; *p; ) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == len && !strncmp(p, name, len))
			return 1;
		p += l + (e != NULL);
	}
	return 0;
}

/* A change slower by more than pct percent and beyond its resolution. */
static int slower_than(const struct sbt_cmp_change *x, double pct)
{
	return x->change > 0 && 100 * x->rel > pct;
}

static void row_both(struct sbt_cmp *c, struct sbt_cmp_row *r)
{
	const struct sbt_group *gb = r->b.g, *gn = r->n.g;
	double tb = fmax(gb->score.t_diff_ns, gn->score.t_diff_ns);
	double q = fmax(gb->score.quantum_ns, gn->score.quantum_ns);

	r->pop_res_ns = sqrt(0.5 * (r->b.res_ns * r->b.res_ns +
				    r->n.res_ns * r->n.res_ns));
	r->runs_res_ns = NAN;
	if (r->b.runs >= 2 && r->n.runs >= 2) {
		int kb = r->b.runs, kn = r->n.runs, df = kb + kn - 2;
		double sp = sqrt(((kb - 1) * r->b.run_sd_ns * r->b.run_sd_ns +
				  (kn - 1) * r->n.run_sd_ns * r->n.run_sd_ns) /
				 df);
		r->runs_res_ns = t999(df) * sp * sqrt(1.0 / kb + 1.0 / kn);
	}
	r->floor_ns = sbt_min_shift(isfinite(tb) ? tb : NAN, r->b.tm_ns, q,
				    SBT_SCORE_EPS);
	if (!r->b.n || !r->n.n) {
		r->raw.delta_ns = r->norm.delta_ns = NAN;
		return;
	}
	decide(r, r->b.tm_ns, r->n.tm_ns, 0, &r->raw);
	if (c->speed) {
		double nn = r->n.tm_ns / c->speed_ratio;
		decide(r, r->b.tm_ns, nn, nn * c->speed_res, &r->norm);
	}
	distribution(r);
	/* Apart beyond their populations while the probes read the same
	 * speed: the probes time a register-only chain, so this is the
	 * code's, or a slowdown they do not see: say so. */
	r->probe_blind = c->speed && fabs(r->raw.delta_ns) > r->pop_res_ns &&
			 fabs(c->speed_ratio - 1) <= c->speed_res &&
			 fabs(r->raw.rel) > c->speed_res;  /* they could
							       have seen it */
	/* The gate trips on a change both as measured and normalized: a
	 * slower machine alone moves only the first, a probe that does not
	 * follow this region's code (another unit, another phase) only the
	 * second - seen here: two runs of one binary whose probes read 4 %
	 * apart while their regions did not move. */
	r->gated = named(c->co.regions, r->name);
	r->tripped = r->gated && isfinite(c->co.fail_pct) &&
		     slower_than(&r->raw, c->co.fail_pct) &&
		     (!c->speed || slower_than(&r->norm, c->co.fail_pct));
	c->ntripped += r->tripped;
}

/* ---- the comparison ---------------------------------------------------- */

static int add_row(struct sbt_cmp *c, size_t *cap, struct sbt_cmp_row **r)
{
	if (c->nrows == *cap) {
		size_t n = *cap ? 2 * *cap : 16;
		void *m = realloc(c->rows, n * sizeof *c->rows);
		if (!m)
			return -1;
		c->rows = m, *cap = n;
	}
	*r = &c->rows[c->nrows++];
	memset(*r, 0, sizeof **r);
	(*r)->b.tm_ns = (*r)->n.tm_ns = NAN;
	(*r)->raw.delta_ns = (*r)->norm.delta_ns = NAN;
	return 0;
}

int sbt_compare(const struct sbt_cmp_side *base,
		const struct sbt_cmp_side *nw, const struct sbt_cmp_opts *co,
		struct sbt_cmp *c)
{
	struct speed sb = { 0 }, sn = { 0 };
	struct cell *cb = NULL, *cn = NULL;
	size_t nb = 0, nn = 0, cap = 0, i = 0, j = 0;
	int rc = -1;

	memset(c, 0, sizeof *c);
	c->co = *co;
	c->runs_b = base->runs, c->runs_n = nw->runs;
	if (speed_read(base, &sb, &c->sb) != 0 ||
	    speed_read(nw, &sn, &c->sn) != 0 ||
	    runs_of(base, &c->wb) != 0 || runs_of(nw, &c->wn) != 0)
		goto out;
	c->probes_b = c->sb.probes > 0, c->probes_n = c->sn.probes > 0;
	/* per-op times compare only between the same workload */
	c->speed = c->probes_b && c->probes_n &&
		   probe_ops(base->ds) == probe_ops(nw->ds) &&
		   isfinite(c->sb.per_op_ns) && isfinite(c->sn.per_op_ns) &&
		   c->sb.per_op_ns > 0;
	if (c->speed) {
		c->speed_ratio = c->sn.per_op_ns / c->sb.per_op_ns;
		c->speed_res = SBT_SCORE_Z *
			       hypot(c->sb.se_ns / c->sb.per_op_ns,
				     c->sn.se_ns / c->sn.per_op_ns);
	}
	if (!(cb = cells_make(base, co->by, &nb)) ||
	    !(cn = cells_make(nw, co->by, &nn)))
		goto out;
	while (i < nb || j < nn) {   /* merge by (name, label) */
		int k = i == nb ? 1 : j == nn ? -1 : cmp_cell(&cb[i], &cn[j]);
		struct sbt_cmp_row *r;
		if (add_row(c, &cap, &r) != 0)
			goto out;
		const struct cell *x = k <= 0 ? &cb[i] : &cn[j];
		r->name = x->name;
		r->label = x->label;
		r->side = k;
		if (k <= 0 && estimate(base, &cb[i], &sb, &r->b) != 0)
			goto out;
		if (k >= 0 && estimate(nw, &cn[j], &sn, &r->n) != 0)
			goto out;
		if (k == 0) {
			row_both(c, r);
			if (ratio_row(base, &cb[i], nw, &cn[j], &r->est) != 0)
				goto out;
			c->nest += r->est.have;
		}
		i += k <= 0, j += k >= 0;
	}
	for (size_t k = 0; k < c->nrows; k++)
		if (c->rows[k].est.have)
			ratio_interval(&c->rows[k].est, c->nest);
	c->by_runs = c->runs_b >= 2 && c->runs_n >= 2;
	rc = 0;
out:
	free(sb.p), free(sn.p);
	cells_free(cb, nb), cells_free(cn, nn);
	if (rc != 0)
		sbt_compare_free(c);
	return rc;
}

int sbt_cmp_unmatched(const struct sbt_cmp *c, char *name, size_t len)
{
	for (const char *p = c->co.regions; p && *p; ) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p), i;
		for (i = 0; i < c->nrows; i++)
			if (!c->rows[i].side && strlen(c->rows[i].name) == l &&
			    !strncmp(c->rows[i].name, p, l))
				break;
		if (i == c->nrows) {
			snprintf(name, len, "%.*s", (int)l, p);
			return 1;
		}
		p += l + (e != NULL);
	}
	return 0;
}

void sbt_compare_free(struct sbt_cmp *c)
{
	free(c->wb.run_wall_ns), free(c->wn.run_wall_ns);
	c->wb.run_wall_ns = c->wn.run_wall_ns = NULL;
	free(c->rows);
	c->rows = NULL, c->nrows = 0;
}
