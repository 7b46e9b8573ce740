/*
 * stats.c - order statistics by selection, moments in one pass.
 *
 * Quantiles use quickselect (expected O(n)) rather than a full sort: a
 * region may hold tens of millions of samples.
 */
#include "stats.h"

#include <math.h>

static void swap(double *a, double *b) { double t = *a; *a = *b; *b = t; }

/* Put the k-th smallest of v[0..n) at v[k], smaller ones before it. */
static void select_k(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		/* median of three keeps sorted and equal runs from going
		 * quadratic; the three-way split handles many ties. */
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < v[lo]) swap(&v[mid], &v[lo]);
		if (v[hi] < v[lo]) swap(&v[hi], &v[lo]);
		if (v[hi] < v[mid]) swap(&v[hi], &v[mid]);
		double p = v[mid];
		size_t lt = lo, i = lo, gt = hi;
		while (i <= gt) {
			if (v[i] < p)
				swap(&v[lt++], &v[i++]);
			else if (v[i] > p)
				swap(&v[i], &v[gt--]);
			else
				i++;
		}
		if (k < lt)
			hi = lt - 1;
		else if (k > gt)
			lo = gt + 1;
		else
			return;
	}
}

static int is_sorted(const double *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (v[i - 1] > v[i])
			return 0;
	return 1;
}

/* Where the q-quantile of n values falls: between the k-th and the
 * (k+1)-th smallest, frac of the way.  The one rule of both quantiles
 * below, so that the sorted and the selected agree to the bit. */
static size_t q_pos(size_t n, double q, double *frac)
{
	double pos;
	size_t k;

	if (q <= 0) q = 0;
	if (q >= 1) q = 1;
	pos = q * (double)(n - 1);
	k = (size_t)pos;
	*frac = pos - (double)k;
	return k;
}

double sbt_quantile_sorted(const double *v, size_t n, double q)
{
	double frac;
	size_t k;

	if (n == 0)
		return NAN;
	k = q_pos(n, q, &frac);
	return frac == 0 || k + 1 >= n ? v[k] :
	       v[k] + frac * (v[k + 1] - v[k]);
}

double sbt_quantile(double *v, size_t n, double q)
{
	double frac, a, b;
	size_t k;

	if (n == 0)
		return NAN;
	if (is_sorted(v, n))            /* cheap check, saves a selection */
		return sbt_quantile_sorted(v, n, q);
	k = q_pos(n, q, &frac);
	select_k(v, n, k);
	a = v[k];
	if (frac == 0 || k + 1 >= n)
		return a;
	/* the next order statistic is the minimum of the upper part */
	b = v[k + 1];
	for (size_t i = k + 2; i < n; i++)
		if (v[i] < b)
			b = v[i];
	return a + frac * (b - a);
}

void sbt_stats(double *v, size_t n, struct sbt_stats *st)
{
	double m2 = 0, mean = 0;

	st->n = n;
	if (n == 0) {
		st->min = st->median = st->mean = st->std = st->cv =
		st->p99 = st->max = NAN;
		return;
	}
	st->min = st->max = v[0];
	/* Welford: stable for large n with a big mean and a tiny spread */
	for (size_t i = 0; i < n; i++) {
		double d = v[i] - mean;
		mean += d / (double)(i + 1);
		m2 += d * (v[i] - mean);
		if (v[i] < st->min) st->min = v[i];
		if (v[i] > st->max) st->max = v[i];
	}
	st->mean = mean;
	st->std = n > 1 ? sqrt(m2 / (double)(n - 1)) : 0;
	st->cv = mean != 0 ? st->std / mean : NAN;
	st->p99 = sbt_quantile(v, n, 0.99);
	st->median = sbt_quantile(v, n, 0.5);
}
