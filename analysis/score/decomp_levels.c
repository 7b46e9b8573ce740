/*
 * decomp_levels.c - the components of a region's spread that are offsets
 * between sets of its calls, by trimmed means: the processor's (calls in
 * the speed probes' shift windows against the others), time's (levels
 * over up to 16 spans of equal count) and the groups' (a steady offset
 * between its threads).
 */
#include "decomp_parts.h"
#include "score.h"
#include "sort.h"

#include <math.h>
#include <stdlib.h>

#define TIME_BINS   16
#define TIME_MIN    30      /* calls a span at least                  */
#define TIME_Z      4.42    /* 99.9 % over the 120 pairs of 16 spans  */

double sbt_dc_proc(const struct sbt_decomp_in *in, struct sbt_decomp *d,
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
	sbt_dc_tmean(k->w, a, &ma, &sa);
	sbt_dc_tmean(k->u, b, &mb, &sb);
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
	return sbt_dc_take_out(k, n, k->e, ss, c, ss0);
}

double sbt_dc_time(const struct sbt_decomp_in *in, struct sbt_decomp *d,
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
		sbt_dc_tmean(k->w, z - a, &lvl[bi], &se[bi]);
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
		double off = sbt_dc_on_lattice(lvl[bi] - lvl[lo], q);
		for (size_t i = a; i < z; i++)
			k->e[k->ix[i]] = off;
		sum += off * (double)(z - a);
		c->count += off > 0 ? z - a : 0;
	}
	c->time_ns = sum / (double)n;
	return sbt_dc_take_out(k, n, k->e, ss, c, ss0);
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


/* k->ix: the samples by group (key), from[0..*ng] where each begins.
 * -1 when there are more than MAX_GROUPS (too many to weigh). */
int sbt_dc_by_group(const struct sbt_decomp_in *in, struct work *k,
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

double sbt_dc_groups(const struct sbt_decomp_in *in, struct sbt_decomp *d,
		     struct work *k, double min_shift, double q, double ss,
		     double ss0)
{
	struct sbt_comp_est *c = &d->c[SBT_COMP_GROUPS];
	size_t from[MAX_GROUPS + 1];
	double lvl[MAX_GROUPS], se[MAX_GROUPS];
	int ng = 0, hi = -1, lo = -1;

	if (!in->key || sbt_dc_by_group(in, k, from, &ng) != 0)
		return ss;
	for (int g = 0; g < ng; g++) {
		size_t a = from[g], z = from[g + 1];
		for (size_t i = a; i < z; i++)
			k->w[i - a] = k->r[k->ix[i]];
		if (z - a >= SBT_FEW_SAMPLES)
			sbt_dc_tmean(k->w, z - a, &lvl[g], &se[g]);
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
		double off = isfinite(lvl[g]) ? sbt_dc_on_lattice(lvl[g] - lvl[lo], q)
					      : 0;
		for (size_t i = from[g]; i < from[g + 1]; i++)
			k->e[k->ix[i]] = off;
		sum += off * (double)(from[g + 1] - from[g]);
		c->count += off > 0 ? from[g + 1] - from[g] : 0;
	}
	c->time_ns = sum / (double)in->n;
	return sbt_dc_take_out(k, in->n, k->e, ss, c, ss0);
}
