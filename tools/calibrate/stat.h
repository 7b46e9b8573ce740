/*
 * stat.h - the statistics the calibration decides on: CV of a batch, the
 * paper's overlap of two batches, and the model's analytic estimates of
 * t_min and t_diff from a sample of empty-pair noise tau_e (the paper's model,
 * analysis/score/score.c).
 *
 * std is the population standard deviation (ddof = 0), as numpy's
 * default, which the paper's figures were most likely computed with.
 */
#ifndef SBT_CAL_STAT_H
#define SBT_CAL_STAT_H

#include <stddef.h>

struct sbt_moments { double mean, std, min, max; };

/* Moments of x[0..n).  n == 0 gives all NAN. */
struct sbt_moments sbt_moments(const double *x, size_t n);

/* std / mean; NAN when n == 0 or mean <= 0. */
double sbt_cv(const double *x, size_t n);

/* Sort x in place (ascending). */
void sbt_sort(double *x, size_t n);

/* Median of an ascending x (mean of the middle two for even n). */
double sbt_median_sorted(const double *x, size_t n);

/* The paper's overlap (Algorithm 2, lines 20-25): the share of a1 values
 * strictly below max(a0).  NAN when either is empty. */
double sbt_overlap(const double *a0, size_t n0, const double *a1, size_t n1);

/* Model: t_a,std such that a constant workload reaches CV == eps,
 * std(tau)/eps - mean(tau). */
double sbt_model_t_min(const double *tau, size_t n, double eps);

/* Model: smallest Delta such that the overlap of (t + tau) and
 * (t + Delta + tau) is <= alpha, max(tau) - Q_alpha(tau), where
 * Q_alpha is the order statistic tau_(floor(alpha n) + 1) - exactly the
 * quantile the overlap's "strictly below" count implies.  tau is sorted
 * in place. */
double sbt_model_t_diff(double *tau, size_t n, double alpha);

#endif
