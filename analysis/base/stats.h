/*
 * stats.h - summary statistics of one group of samples.
 */
#ifndef SBT_STATS_H
#define SBT_STATS_H

#include <stddef.h>

struct sbt_stats {
	size_t n;                       /* values summarized */
	double min, median, mean, std, cv, p99, max;
};

/* Summarize v[0..n) (any order).  Reorders v in place.  n may be 0. */
void sbt_stats(double *v, size_t n, struct sbt_stats *st);

/* The q-quantile (0..1) of v[0..n), linear between order statistics
 * (numpy's default).  Reorders v in place. */
double sbt_quantile(double *v, size_t n, double q);

/* The same of v[0..n) sorted ascending, without touching it: equal to
 * sbt_quantile's on any order of the same values. */
double sbt_quantile_sorted(const double *v, size_t n, double q);

#endif
