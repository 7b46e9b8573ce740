/*
 * groups.c - is one thread / cpu / rank / host of a region different from
 * the others?
 *
 * Each group's typical time is its 10 %-trimmed mean (score.c): unlike the
 * median it moves continuously on a quantized clock, so a shift of a
 * fraction of a tick still shows in 10^4 samples, and unlike the mean one
 * stray sample cannot move it.  A group is compared with the rest of its
 * region pooled (weighted by kept samples); the difference is flagged when
 * it is both
 *   - beyond what the two populations resolve: |d| > Z sqrt(se^2 +
 *     se_rest^2), Z = 3.29 (99.9 %, two-sided), and
 *   - at least sbt_min_shift(t_diff, typical time): 1 % of the region's
 *     time for short regions, t_diff for long ones.  The second test is
 *     what keeps identical ranks quiet: 10^5 samples resolve shifts of a
 *     few hundredths of a ns, far below anything a person should chase.
 */
#include "analyze.h"

#include <math.h>

static void compare_run(struct sbt_group *g, size_t m, double eps)
{
	double sum_n = 0, sum_tm = 0, sum_v = 0;

	for (size_t i = 0; i < m; i++) {
		const struct sbt_score *s = &g[i].score;
		if (!isfinite(s->trim_mean_ns) || !isfinite(s->trim_se_ns))
			continue;
		sum_n += (double)s->n;
		sum_tm += (double)s->n * s->trim_mean_ns;
		sum_v += (double)s->n * (double)s->n * s->trim_se_ns *
			 s->trim_se_ns;
	}
	for (size_t i = 0; i < m; i++) {
		const struct sbt_score *s = &g[i].score;
		double n = (double)s->n, rn = sum_n - n, rest, rse, d, res;

		if (!isfinite(s->trim_mean_ns) || !isfinite(s->trim_se_ns) ||
		    !(rn > 0))
			continue;
		rest = (sum_tm - n * s->trim_mean_ns) / rn;
		rse = sqrt(fmax(0, sum_v - n * n * s->trim_se_ns *
				   s->trim_se_ns)) / rn;
		d = s->trim_mean_ns - rest;
		res = SBT_SCORE_Z * sqrt(s->trim_se_ns * s->trim_se_ns +
					 rse * rse);
		g[i].delta_ns = d;
		g[i].delta_rel = rest != 0 ? d / rest : NAN;
		g[i].delta_resolution_ns = res;
		g[i].flagged = fabs(d) > res &&
			       fabs(d) >= sbt_min_shift(s->t_diff_ns, rest,
							s->quantum_ns, eps);
	}
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
