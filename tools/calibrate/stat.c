/*
 * stat.c - batch statistics and the model estimates (see stat.h).
 */
#include "stat.h"
#include "sort.h"

#include <math.h>
#include <stdlib.h>

struct sbt_moments sbt_moments(const double *x, size_t n)
{
	struct sbt_moments m = { NAN, NAN, NAN, NAN };
	double s = 0, ss = 0;

	if (n == 0)
		return m;
	m.min = m.max = x[0];
	for (size_t i = 0; i < n; i++) {
		s += x[i];
		if (x[i] < m.min)
			m.min = x[i];
		if (x[i] > m.max)
			m.max = x[i];
	}
	m.mean = s / (double)n;
	/* Two passes: the values sit far from zero with a tiny spread. */
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - m.mean) * (x[i] - m.mean);
	m.std = sqrt(ss / (double)n);
	return m;
}

double sbt_cv(const double *x, size_t n)
{
	struct sbt_moments m = sbt_moments(x, n);

	return n && m.mean > 0 ? m.std / m.mean : NAN;
}

void sbt_sort(double *x, size_t n)
{
	qsort(x, n, sizeof *x, sbt_cmp_double);
}

double sbt_median_sorted(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

double sbt_overlap(const double *a0, size_t n0, const double *a1, size_t n1)
{
	double max0;
	size_t below = 0;

	if (n0 == 0 || n1 == 0)
		return NAN;
	max0 = a0[0];
	for (size_t i = 1; i < n0; i++)
		if (a0[i] > max0)
			max0 = a0[i];
	for (size_t i = 0; i < n1; i++)
		below += a1[i] < max0;
	return (double)below / (double)n1;
}

double sbt_model_t_min(const double *tau, size_t n, double eps)
{
	struct sbt_moments m = sbt_moments(tau, n);

	return m.std / eps - m.mean;
}

double sbt_model_t_diff(double *tau, size_t n, double alpha)
{
	size_t k;

	if (n == 0)
		return NAN;
	sbt_sort(tau, n);
	k = (size_t)floor(alpha * (double)n);
	if (k > n - 1)
		k = n - 1;
	return tau[n - 1] - tau[k];
}
