/*
 * decomp_os.c - the OS's component of a region's spread, and its own
 * costs of a fault and a switch: a robust (Huber) fit of the time on the
 * faults and switches of each call.
 */
#include "decomp_parts.h"
#include "score.h"

#include <math.h>
#include <string.h>

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
void sbt_dc_os(const struct sbt_decomp_in *in, struct sbt_decomp *d,
	       struct work *k, double ss0)
{
	struct sbt_comp_est *c = &d->c[SBT_COMP_OS];
	const double *col[2], *all[2] = { in->f, in->sw };
	double lo[2], b[3] = { 0 }, se[3] = { 0 };
	int which[2], m = 0;
	size_t n = in->n;

	if (!in->f)
		return;
	d->faults_sampled = in->faults_sampled;
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
		if (j == 0 && in->faults_sampled)
			continue;      /* estimates: no fit of their cost */
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
		while (m > 0 && sbt_dc_huber(in->y, col, m, n, b, se, k->w, k->e,
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
	double ss1 = sbt_dc_ss_mean(k->r, n, k->keep);
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
