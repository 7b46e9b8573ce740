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
#include "analyze.h"
#include "sort.h"

#include <math.h>
#include <stdlib.h>

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
