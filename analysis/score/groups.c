/*
 * groups.c - is one thread / cpu / rank / host of a region different from
 * the others?
 *
 * Each group's typical time is its 10 %-trimmed mean (score.c): unlike the
 * median it moves continuously on a quantized clock, so a shift of a
 * fraction of a tick still shows in 10^4 samples, and unlike the mean one
 * stray sample cannot move it.  A group is compared with the median of
 * the other groups' trimmed means: not with the rest pooled, where one
 * rank 80 % slower would make all seven others "11 % faster".  The
 * difference is flagged when it is both
 *   - beyond what the populations resolve: |d| > Z sqrt(se^2 + se_ref^2),
 *     Z = 3.29 (99.9 %, two-sided), se_ref the median's standard error
 *     (sqrt(pi/2) rms(se) / sqrt(k) for k >= 3 others, the mean's below);
 *   - at least sbt_min_shift(t_diff, typical time): 1 % of the region's
 *     time for short regions, t_diff for long ones.  The second test is
 *     what keeps identical ranks quiet: 10^5 samples resolve shifts of a
 *     few hundredths of a ns, far below anything a person should chase.
 */
#include "groups.h"
#include "sort.h"
#include "threads.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Median of the trimmed means of g[0..m) but g[self], and its standard
 * error; tm[] is scratch for m values.  NAN without another group. */
static double reference(const struct sbt_group *g, size_t m, size_t self,
			double *tm, double *se_ref)
{
	size_t k = 0;
	double v = 0;

	for (size_t i = 0; i < m; i++) {
		const struct sbt_score *s = &g[i].score;
		if (i == self || !isfinite(s->trim_mean_ns) ||
		    !isfinite(s->trim_se_ns))
			continue;
		tm[k++] = s->trim_mean_ns;
		v += s->trim_se_ns * s->trim_se_ns;
	}
	if (k == 0 || sbt_sort_doubles(tm, k) != 0)
		return *se_ref = NAN;
	*se_ref = sqrt(v / (double)k) / sqrt((double)k) *
		  (k >= 3 ? sqrt(M_PI / 2) : 1);
	return k % 2 ? tm[k / 2] : 0.5 * (tm[k / 2 - 1] + tm[k / 2]);
}

static void compare_run(struct sbt_group *g, size_t m, double eps)
{
	double *tm = malloc(m * sizeof *tm);

	if (!tm)
		return;         /* no comparison is better than a wrong one */
	for (size_t i = 0; i < m; i++) {
		const struct sbt_score *s = &g[i].score;
		double ref, se_ref, d, res;

		if (!isfinite(s->trim_mean_ns) || !isfinite(s->trim_se_ns))
			continue;
		ref = reference(g, m, i, tm, &se_ref);
		if (!isfinite(ref))
			continue;
		d = s->trim_mean_ns - ref;
		res = SBT_SCORE_Z * sqrt(s->trim_se_ns * s->trim_se_ns +
					 se_ref * se_ref);
		g[i].delta_ns = d;
		g[i].delta_rel = ref != 0 ? d / ref : NAN;
		g[i].delta_resolution_ns = res;
		g[i].flagged = fabs(d) > res &&
			       fabs(d) >= sbt_min_shift(s->t_diff_ns, ref,
							s->quantum_ns, eps);
	}
	free(tm);
}
void sbt_groups_compare(struct sbt_result *res, double eps)
{
	size_t i = 0;

	for (size_t k = 0; k < res->ngroups; k++) {
		res->g[k].flagged = 0;
		res->g[k].delta_ns = res->g[k].delta_rel = NAN;
		res->g[k].delta_resolution_ns = NAN;
	}
	while (i < res->ngroups) {
		size_t j = i + 1;
		while (j < res->ngroups && res->g[j].region == res->g[i].region)
			j++;
		if (j - i >= 2)
			compare_run(res->g + i, j - i, eps);
		i = j;
	}
}

/* ---- OpenMP: what a slow thread costs the others ------------------------- */

/* The region "omp barrier @ LOC" of parallel region r ("omp parallel @
 * LOC", api openmp), or -1. */
static long barrier_of(const struct sbt_dataset *ds, uint32_t r)
{
	static const char par[] = "omp parallel @ ", bar[] = "omp barrier @ ";
	const struct sbt_region *g = &ds->regions[r];

	if (g->api != SBT_API_OPENMP || strncmp(g->name, par, sizeof par - 1))
		return -1;
	for (size_t k = 0; k < ds->nregions; k++) {
		const struct sbt_region *h = &ds->regions[k];
		if (h->api == SBT_API_OPENMP &&
		    !strncmp(h->name, bar, sizeof bar - 1) &&
		    !strcmp(h->name + sizeof bar - 1, g->name + sizeof par - 1))
			return (long)k;
	}
	return -1;
}

/* Mean of the trimmed means of region r's groups in source src, but
 * thread `self`'s; NAN when none. */
static double others_mean(const struct sbt_result *res, uint32_t r,
			  uint32_t src, uint32_t self)
{
	double sum = 0;
	size_t n = 0;

	for (size_t k = 0; k < res->ngroups; k++) {
		const struct sbt_group *g = &res->g[k];
		if (g->region != r || g->source != src || g->key == self ||
		    !isfinite(g->score.trim_mean_ns))
			continue;
		sum += g->score.trim_mean_ns;
		n++;
	}
	return n ? sum / (double)n : NAN;
}

/*
 * A thread slower in its share makes the others wait for it at the
 * closing barrier: that wait, per region instance and as a share of
 * their time in the region, is the imbalance's cost.  The others' mean
 * is over threads of the same process; quadratic in groups, which are
 * threads x regions: small.
 *
 * A share is flagged only when it is slower by SBT_OMP_IMBALANCE or
 * more, besides the general test: four threads of equal shares on this
 * 2-cpu VM differed by up to 0.9 % unloaded, and by up to 5.2 % with a
 * busy loop on a cpu (24 runs of tests/openmp/omp_app.c, libomp's
 * spinning team sharing the cpus with it) - cores run at different
 * speeds, which no schedule balances - while 200 samples resolve a
 * fraction of a percent.  Twice the worst seen.  A faster share is no
 * imbalance to chase: the slow one is.  Smaller differences stay in
 * delta_rel and the per-thread table.
 */
#define SBT_OMP_IMBALANCE 0.10
void sbt_groups_omp(struct sbt_result *res, const struct sbt_dataset *ds)
{
	for (size_t k = 0; k < res->ngroups; k++) {
		struct sbt_group *g = &res->g[k];
		const struct sbt_source *src = &ds->sources[g->source];
		long b = barrier_of(ds, g->region);
		double wait, share;

		g->others_wait_ns = g->others_wait_rel = NAN;
		const struct sbt_thread_info *ti = sbt_threads_find(src, g->key);
		g->omp_thread = ti && !(ti->flags & SBT_TI_OMP_VARIES)
				? ti->omp_thread : -1;
		if (b < 0)
			continue;
		if (g->flagged && !(g->delta_rel >= SBT_OMP_IMBALANCE))
			g->flagged = 0;
		wait = others_mean(res, (uint32_t)b, g->source, g->key);
		share = others_mean(res, g->region, g->source, g->key);
		if (!isfinite(wait) || !isfinite(share) || wait + share <= 0)
			continue;
		g->others_wait_ns = wait;
		g->others_wait_rel = wait / (share + wait);
	}
}

/* ---- barriers: the waiter is not the slow one ------------------------- */

/* The region "omp parallel @ LOC" of barrier b ("omp barrier @ LOC"),
 * or -1. */
static long parallel_of(const struct sbt_dataset *ds, uint32_t b)
{
	static const char par[] = "omp parallel @ ", bar[] = "omp barrier @ ";
	const struct sbt_region *g = &ds->regions[b];

	if (g->api != SBT_API_OPENMP || strncmp(g->name, bar, sizeof bar - 1))
		return -1;
	for (size_t k = 0; k < ds->nregions; k++) {
		const struct sbt_region *h = &ds->regions[k];
		if (h->api == SBT_API_OPENMP &&
		    !strncmp(h->name, par, sizeof par - 1) &&
		    !strcmp(h->name + sizeof par - 1, g->name + sizeof bar - 1))
			return (long)k;
	}
	return -1;
}

static int is_barrier(const struct sbt_dataset *ds, uint32_t r)
{
	static const char bar[] = "omp barrier @ ";
	const struct sbt_region *g = &ds->regions[r];

	return g->api == SBT_API_OPENMP &&
	       !strncmp(g->name, bar, sizeof bar - 1);
}

/*
 * Who arrives last at a barrier is the thread that waits least there: the
 * slow one.  Judged on every recorded wait (what was left out as the
 * OS's is part of the question), thread by thread by their medians: on
 * libgomp a waiter's wait holds its switches (it sleeps, or it spins on
 * the cpu the slow thread needs), so a fit of the time a switch costs
 * takes its wait out and leaves the waiter looking the fastest.
 *
 * The others' wait is then set against what the slow thread's share
 * took longer than theirs: a wait far beyond that (more than twice it,
 * beyond the resolution) is not its work.  The kernel's record tells
 * whose it is: a long wait where the waiter, or the slow thread in a
 * sample beside it, was preempted is the OS's.  Else it is unexplained.
 */
struct bsamp {
	uint32_t thread;
	double t, end, ns;
	int pre;
};

static int cmp_bsamp(const void *a, const void *b)
{
	const struct bsamp *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->t > y->t) - (x->t < y->t);
}

/* The samples of region r, source src, by thread then start: *n of them;
 * NULL when none or out of memory. */
static struct bsamp *collect(const struct sbt_result *res,
			     const struct sbt_dataset *ds, uint32_t r,
			     uint32_t src, size_t *n)
{
	const uint32_t skip = SBT_SF_PROBE | SBT_SF_CALIB | SBT_SF_RESET |
			      SBT_SF_BEFORE_RESET;
	struct bsamp *v = NULL;
	size_t m = 0, cap = 0;

	*n = 0;
	for (size_t k = 0; k < res->ngroups; k++) {
		const struct sbt_group *g = &res->g[k];
		if (g->region != r || g->source != src)
			continue;
		for (size_t i = 0; i < g->n; i++) {
			const struct sbt_sample *x =
				&ds->s[res->order[g->first + i]];
			if (x->flags & skip || !isfinite(x->ns))
				continue;
			if (m == cap) {
				size_t c = cap ? 2 * cap : 256;
				void *nv = realloc(v, c * sizeof *v);
				if (!nv) {
					free(v);
					return NULL;
				}
				v = nv, cap = c;
			}
			v[m++] = (struct bsamp){ x->thread, x->t_ns,
				x->t_ns + x->ns + x->detour_ns, x->ns,
				!!(x->flags & SBT_SF_PREEMPTED) };
		}
	}
	if (m)
		qsort(v, m, sizeof *v, cmp_bsamp);
	*n = m;
	return v;
}

/* One thread's run of samples: its median and the median's standard
 * error (from the MAD: robust to the few waits the OS stretched). */
struct tstat {
	uint32_t thread;
	size_t a, z;            /* its samples in the sorted array */
	double med, se;
};

static double median_sorted(const double *w, size_t n)
{
	return n % 2 ? w[n / 2] : 0.5 * (w[n / 2 - 1] + w[n / 2]);
}

static int thread_stats(const struct bsamp *v, size_t n, struct tstat *ts,
			size_t max, size_t *nt)
{
	double *w = malloc((n ? n : 1) * sizeof *w);

	*nt = 0;
	if (!w)
		return -1;
	for (size_t a = 0, z; a < n && *nt < max; a = z) {
		for (z = a; z < n && v[z].thread == v[a].thread; z++)
			;
		size_t m = z - a;
		for (size_t i = 0; i < m; i++)
			w[i] = v[a + i].ns;
		if (sbt_sort_doubles(w, m) != 0)
			break;
		double med = median_sorted(w, m);
		for (size_t i = 0; i < m; i++)
			w[i] = fabs(w[i] - med);
		if (sbt_sort_doubles(w, m) != 0)
			break;
		double mad = 1.4826 * median_sorted(w, m);
		ts[(*nt)++] = (struct tstat){ v[a].thread, a, z, med,
			1.2533 * mad / sqrt((double)m) };
	}
	free(w);
	return 0;
}

static const struct tstat *stat_of(const struct tstat *ts, size_t nt,
				   uint32_t thread)
{
	for (size_t i = 0; i < nt; i++)
		if (ts[i].thread == thread)
			return &ts[i];
	return NULL;
}

/* Whether one of thread t's samples in v (its run in ts) overlapping
 * [t0, t1] was preempted. */
static int preempted_beside(const struct bsamp *v, const struct tstat *ts,
			    double t0, double t1)
{
	if (!ts)
		return 0;
	for (size_t i = ts->a; i < ts->z && v[i].t <= t1; i++)
		if (v[i].end >= t0 && v[i].pre)
			return 1;
	return 0;
}

#define SBT_BARRIER_MAX_THREADS 256

struct judged {
	uint32_t slow;
	double slow_ns, others_ns, res_ns, extra_ns;
	size_t nlong, nos;
	int flags;
};

/* Barrier b, source src: 1 and *j where a slow thread is resolved. */
static int judge_barrier(const struct sbt_result *res,
			 const struct sbt_dataset *ds, uint32_t b,
			 uint32_t src, double q, struct judged *j)
{
	struct tstat *bt = NULL, *pt = NULL;
	struct bsamp *bv = NULL, *pv = NULL;
	size_t nb, np = 0, nbt = 0, npt = 0;
	long p = parallel_of(ds, b);
	int ok = 0;

	bv = collect(res, ds, b, src, &nb);
	if (p >= 0)
		pv = collect(res, ds, (uint32_t)p, src, &np);
	bt = malloc(SBT_BARRIER_MAX_THREADS * sizeof *bt);
	pt = malloc(SBT_BARRIER_MAX_THREADS * sizeof *pt);
	if (!bv || !bt || !pt ||
	    thread_stats(bv, nb, bt, SBT_BARRIER_MAX_THREADS, &nbt) != 0 ||
	    thread_stats(pv, np, pt, SBT_BARRIER_MAX_THREADS, &npt) != 0)
		goto out;
	const struct tstat *slow = NULL;
	for (size_t i = 0; i < nbt; i++)
		if (bt[i].z - bt[i].a >= SBT_FEW_SAMPLES &&
		    (!slow || bt[i].med < slow->med))
			slow = &bt[i];
	if (!slow)
		goto out;
	double sum = 0, var = 0, psum = 0;
	size_t k = 0, pk = 0;
	for (size_t i = 0; i < nbt; i++) {
		if (&bt[i] == slow || bt[i].z - bt[i].a < SBT_FEW_SAMPLES)
			continue;
		sum += bt[i].med;
		var += bt[i].se * bt[i].se;
		k++;
		const struct tstat *o = stat_of(pt, npt, bt[i].thread);
		if (o)
			psum += o->med, pk++;
	}
	if (!k)
		goto out;
	double se = sqrt(var) / (double)k;
	j->slow = slow->thread;
	j->slow_ns = slow->med;
	j->others_ns = sum / (double)k - slow->med;
	j->res_ns = SBT_SCORE_Z * sqrt(slow->se * slow->se + se * se);
	if (!(j->others_ns > j->res_ns && j->others_ns >= q))
		goto out;
	ok = 1;
	const struct tstat *ps = stat_of(pt, npt, slow->thread);
	j->extra_ns = ps && pk ? ps->med - psum / (double)pk : NAN;
	double extra = isfinite(j->extra_ns) && j->extra_ns > 0 ?
		       j->extra_ns : 0;
	j->nlong = j->nos = 0;
	j->flags = 0;
	/* no share of its own to set the wait against (a barrier inside
	 * a region, under its own line): whose the wait is stays unsaid */
	if (!isfinite(j->extra_ns) ||
	    !(j->others_ns > 2 * extra + j->res_ns))
		goto out;
	/* far beyond the share: each long wait, and the record beside it */
	double cut = slow->med + extra + 0.5 * (j->others_ns - extra);
	for (size_t i = 0; i < nbt; i++) {
		if (&bt[i] == slow)
			continue;
		for (size_t x = bt[i].a; x < bt[i].z; x++) {
			if (!(bv[x].ns > cut))
				continue;
			j->nlong++;
			j->nos += bv[x].pre ||
				  preempted_beside(bv, slow, bv[x].t,
						   bv[x].end) ||
				  preempted_beside(pv, ps, bv[x].t,
						   bv[x].end);
		}
	}
	j->flags = j->nlong && 2 * j->nos >= j->nlong ? SBT_FX_WAIT_OS :
		   SBT_FX_WAIT_UNEXPL;
out:
	free(bv), free(pv), free(bt), free(pt);
	return ok;
}

static void set_wait(struct sbt_group *g, const struct judged *j,
		     double base)
{
	g->wait_slow_key = j->slow;
	g->wait_slow_ns = j->slow_ns;
	g->wait_others_ns = j->others_ns;
	g->wait_base_ns = base;
	g->wait_extra_ns = j->extra_ns;
	g->wait_long = j->nlong;
	g->wait_os = j->nos;
	g->wait_flags = j->flags;
}

/* Groups g[a..b) of one barrier region, one source src: the slow
 * thread, the others' wait for it, on the barrier's groups and (by
 * thread) the slow thread's parallel group. */
static void judge_waits(struct sbt_result *res, const struct sbt_dataset *ds,
			size_t a, size_t b, uint32_t src, int by_thread)
{
	struct judged j = { 0 };
	double q = res->g[a].score.quantum_ns > 0 ? res->g[a].score.quantum_ns
						  : 0;

	if (!judge_barrier(res, ds, res->g[a].region, src, q, &j))
		return;
	long p = parallel_of(ds, res->g[a].region);
	struct sbt_group *pg = NULL;
	double base = NAN, psum = 0;
	size_t pk = 0;
	for (size_t i = 0; p >= 0 && i < res->ngroups; i++) {
		struct sbt_group *g = &res->g[i];
		if (g->region != (uint32_t)p || g->source != src ||
		    !isfinite(g->score.trim_mean_ns))
			continue;
		if (by_thread && g->key == j.slow)
			pg = g;
		psum += g->score.trim_mean_ns, pk++;
	}
	base = pg ? pg->score.trim_mean_ns : pk ? psum / (double)pk : NAN;
	for (size_t i = a; i < b; i++) {
		struct sbt_group *g = &res->g[i];
		if (g->source != src)
			continue;
		set_wait(g, &j, base);
		g->delta_resolution_ns = j.res_ns;
	}
	if (pg)
		set_wait(pg, &j, base);
}

/* The typical time of barrier group b's parallel region in its source
 * and key: what the others' wait is a share of (a barrier's own time is
 * mostly the wait itself); NAN when there is none. */
static double parallel_typical(const struct sbt_result *res,
			       const struct sbt_dataset *ds,
			       const struct sbt_group *b)
{
	long p = parallel_of(ds, b->region);

	for (size_t i = 0; p >= 0 && i < res->ngroups; i++)
		if (res->g[i].region == (uint32_t)p &&
		    res->g[i].source == b->source && res->g[i].key == b->key)
			return res->g[i].score.trim_mean_ns;
	return NAN;
}

void sbt_groups_barriers(struct sbt_result *res, const struct sbt_dataset *ds,
			 int by_thread)
{
	for (size_t a = 0, b; a < res->ngroups; a = b) {
		for (b = a; b < res->ngroups &&
		     res->g[b].region == res->g[a].region; b++)
			;
		int bar = is_barrier(ds, res->g[a].region);
		for (size_t i = a; i < b; i++) {
			res->g[i].barrier = bar;
			if (bar) {
				res->g[i].flagged = 0;  /* a wait is no work */
				res->g[i].wait_base_ns =
					parallel_typical(res, ds, &res->g[i]);
			}
		}
		if (!bar || by_thread < 0)
			continue;
		for (size_t i = a; i < b; i++) {
			size_t j;
			for (j = a; j < i && res->g[j].source !=
			     res->g[i].source; j++)
				;
			if (j == i)     /* each source once */
				judge_waits(res, ds, a, b, res->g[i].source,
					    by_thread);
		}
	}
}
