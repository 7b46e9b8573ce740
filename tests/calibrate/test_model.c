/*
 * test_model.c - the statistics behind the decisions, on synthetic data
 * with known answers: CV, the paper's overlap, and the model estimates
 * t_min = std/eps - mean and t_diff = max - Q_alpha.
 */
#include "stat.h"

#include <math.h>
#include <stdio.h>
#include "../common/harness.h"

static void near(double got, double want, const char *what)
{
	if (!(fabs(got - want) <= 1e-9 * (1 + fabs(want)))) {
		printf("FAIL %s: got %.12g want %.12g\n", what, got, want);
		h_fail++;
	}
}

int main(void)
{
	double two[2] = { 0, 2 };           /* mean 1, population std 1 */
	near(sbt_model_t_min(two, 2, 0.01), 100 - 1, "t_min {0,2}");

	/* tau = 0..99: mean 49.5, std sqrt((100^2-1)/12) */
	double t[100];
	for (int i = 0; i < 100; i++)
		t[99 - i] = i;                   /* unsorted on purpose */
	near(sbt_model_t_min(t, 100, 0.01), sqrt(9999.0 / 12) / 0.01 - 49.5,
	     "t_min 0..99");
	/* Q_0.05 = tau_(5+1) = 5 -> 99 - 5 */
	near(sbt_model_t_diff(t, 100, 0.05), 94, "t_diff 0..99");
	/* The estimate is exactly the smallest passing Delta: at 94 the
	 * overlap of tau and tau + 94 is 5 % (passes), at 93 it is 6 %. */
	double s[100];
	for (int i = 0; i < 100; i++)
		s[i] = t[i] + 94;
	near(sbt_overlap(t, 100, s, 100), 0.05, "overlap at t_diff");
	for (int i = 0; i < 100; i++)
		s[i] = t[i] + 93;
	near(sbt_overlap(t, 100, s, 100), 0.06, "overlap below t_diff");

	/* Constant noise: no spread -> t_min = -mean, t_diff = 0. */
	double c[10];
	for (int i = 0; i < 10; i++)
		c[i] = 7;
	near(sbt_model_t_min(c, 10, 0.01), -7, "t_min constant");
	near(sbt_model_t_diff(c, 10, 0.05), 0, "t_diff constant");

	/* Quantized two-level noise (a 10 ns clock step): 90 % at 0, 10 %
	 * at 10 -> Q_0.05 = 0, t_diff = 10; std = 3, mean = 1. */
	double q[100];
	for (int i = 0; i < 100; i++)
		q[i] = i % 10 == 0 ? 10 : 0;
	near(sbt_model_t_min(q, 100, 0.01), 300 - 1, "t_min quantized");
	near(sbt_model_t_diff(q, 100, 0.05), 10, "t_diff quantized");

	/* CV and overlap basics. */
	double v[4] = { 9, 11, 9, 11 };
	near(sbt_cv(v, 4), 0.1, "cv");
	if (!isnan(sbt_cv(v, 0)) || !isnan(sbt_overlap(v, 0, v, 4))) {
		printf("FAIL empty inputs must give NAN\n");
		h_fail++;
	}
	double lo[3] = { 1, 2, 3 }, hi[4] = { 2.5, 3, 4, 5 };
	near(sbt_overlap(lo, 3, hi, 4), 0.25, "overlap strict <");
	double odd[5] = { 5, 1, 4, 2, 3 };
	sbt_sort(odd, 5);
	near(sbt_median_sorted(odd, 5), 3, "median odd");
	near(sbt_median_sorted(odd, 4), 2.5, "median even");
	return h_done();
}
