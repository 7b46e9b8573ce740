/*
 * decomp_counters.c - the counted events' component of a region's spread:
 * on each event SBT_EVENTS counted (but clocks and cycles, which are the
 * time itself), one at a time, a robust fit of the time on its counts.
 */
#include "decomp_parts.h"
#include "score.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A column that counts time (cycles, clocks): it explains the time by
 * being it. */
int sbt_dc_is_clock(const char *name)
{
	return strstr(name, "cycles") || strstr(name, "clock") ||
	       strstr(name, "time");
}

double sbt_dc_counters(const struct sbt_decomp_in *in,
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
		    sbt_dc_huber(y, col, 1, m, b, se, k->w, k->e, sc) != 0 ||
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
		ss = sbt_dc_take_out(k, n, k->ts, ss, &one, ss0);
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
