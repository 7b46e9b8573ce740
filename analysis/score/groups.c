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

/* Groups g[a..b) of one barrier region, one source src: the least
 * waiting thread, the others' mean excess over its wait. */
static void judge_waits(struct sbt_result *res, const struct sbt_dataset *ds,
			size_t a, size_t b, uint32_t src)
{
	struct sbt_group *slow = NULL;
	double sum = 0, var = 0;
	size_t k = 0;

	for (size_t i = a; i < b; i++) {
		struct sbt_group *g = &res->g[i];
		if (g->source != src || !isfinite(g->score.trim_mean_ns) ||
		    !isfinite(g->score.trim_se_ns))
			continue;
		if (!slow || g->score.trim_mean_ns < slow->score.trim_mean_ns)
			slow = g;
	}
	if (!slow)
		return;
	for (size_t i = a; i < b; i++) {
		const struct sbt_group *g = &res->g[i];
		if (g == slow || g->source != src ||
		    !isfinite(g->score.trim_mean_ns) ||
		    !isfinite(g->score.trim_se_ns))
			continue;
		sum += g->score.trim_mean_ns;
		var += g->score.trim_se_ns * g->score.trim_se_ns;
		k++;
	}
	if (!k)
		return;
	double others = sum / (double)k, se = sqrt(var) / (double)k;
	double d = others - slow->score.trim_mean_ns;
	double r = SBT_SCORE_Z * sqrt(slow->score.trim_se_ns *
				      slow->score.trim_se_ns + se * se);
	double q = slow->score.quantum_ns > 0 ? slow->score.quantum_ns : 0;
	if (!(d > r && d >= q))
		return;
	long p = parallel_of(ds, slow->region);
	struct sbt_group *pg = NULL;
	for (size_t i = 0; p >= 0 && i < res->ngroups && !pg; i++)
		if (res->g[i].region == (uint32_t)p &&
		    res->g[i].source == src && res->g[i].key == slow->key)
			pg = &res->g[i];
	double base = others_mean(res, (uint32_t)p, src, slow->key);
	if (pg && isfinite(pg->score.trim_mean_ns))
		base = pg->score.trim_mean_ns;
	for (size_t i = a; i < b; i++) {
		struct sbt_group *g = &res->g[i];
		if (g->source != src)
			continue;
		g->wait_slow_key = slow->key;
		g->wait_slow_ns = slow->score.trim_mean_ns;
		g->wait_others_ns = d;
		g->wait_base_ns = base;
		g->delta_resolution_ns = r;
	}
	if (pg) {
		pg->wait_slow_key = slow->key;
		pg->wait_slow_ns = slow->score.trim_mean_ns;
		pg->wait_others_ns = d;
		pg->wait_base_ns = base;
	}
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
		if (!bar || !by_thread)
			continue;
		for (size_t i = a; i < b; i++) {
			size_t j;
			for (j = a; j < i && res->g[j].source !=
			     res->g[i].source; j++)
				;
			if (j == i)     /* each source once */
				judge_waits(res, ds, a, b, res->g[i].source);
		}
	}
}
