/*
 * decomp_modes.c - the modes of what the other components left (score.c's
 * finder), sought within the groups where the threads differ mode by
 * mode; and the rest, what nothing recorded explains.
 */
#include "decomp_parts.h"
#include "score.h"
#include "sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GROUP_MODES_MIN 30      /* calls a group, to seek its own modes */

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

	/* sbt_dc_groups named the slowest and fastest (their levels differ) */
	if (!in->key || s->nmodes < 2 || !isfinite(c->size_ns) ||
	    sbt_dc_by_group(in, k, from, &ng) != 0 || ng < 2 ||
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
	/* against the fastest group's modes (sbt_dc_groups's), where it has
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
			k->e[x] = sbt_dc_on_lattice(gm[g][b].center_ns -
						    gm[ref][b].center_ns, q);
			sum += k->e[x];
			moved += k->e[x] != 0;
		}
	double s1 = sbt_dc_take_out(k, n, k->e, *ss, &one, ss0);
	if (!(s1 < *ss))
		goto none;              /* sbt_dc_take_out put r back */
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

int sbt_dc_modes(const struct sbt_decomp_in *in, struct sbt_decomp *d,
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
	sbt_dc_take_out(k, n, k->e, *ss, c, ss0);
	return 0;
}

void sbt_dc_rest(struct sbt_decomp *d, struct work *k, size_t n,
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
		c->size_ns = sbt_dc_mad_sd(k->r, n, k->w);
		return;
	}
	double m = sbt_dc_med_sorted(k->u, n);
	c->size_ns = sbt_dc_mad_about(k->r, n, m, k->w);
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
