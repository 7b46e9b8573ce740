/*
 * lattice.c - a break of log-concavity in the counts per clock tick
 * (lattice.h).
 */
#include "lattice.h"

#include <math.h>
#include <stdlib.h>

#define ON_LATTICE  0.99    /* samples within q/4 of a tick, at least  */
#define SPAN_P      0.005   /* ticks looked at: the 0.5 .. 99.5 % range */
#define MAX_TICKS   1024    /* wider than this: not a lattice question */

/* The first i in ascending x[0..n) with x[i] >= v. */
static size_t lower_bound(const double *x, size_t n, double v)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether nearly all of x[0..n) sit on the lattice x[0] + k q. */
static int on_lattice(const double *x, size_t n, double q)
{
	size_t off = 0;

	for (size_t i = 0; i < n; i++) {
		double k = (x[i] - x[0]) / q;
		off += fabs(k - nearbyint(k)) > 0.25;
	}
	return (double)off <= (1 - ON_LATTICE) * (double)n;
}

/* The tick in c[0..m) falling furthest short of the geometric
 * interpolation between the nearest ticks holding >= heavy samples
 * either side, by more than SBT_LATTICE_Z deviations; -1: none. */
static long shortfall(const double *c, long m, double heavy)
{
	long best = -1, prev = -1;
	double zbest = SBT_LATTICE_Z;

	for (long k = 0; k < m; k++) {
		if (c[k] >= heavy) {
			prev = k;
			continue;
		}
		if (prev < 0)
			continue;
		long next = k + 1;
		while (next < m && c[next] < heavy)
			next++;
		if (next == m)
			break;
		double w = (double)(k - prev) / (double)(next - prev);
		double want = exp((1 - w) * log(c[prev]) + w * log(c[next]));
		double z = (want - c[k]) / sqrt(want);
		if (z > zbest)
			zbest = z, best = k;
	}
	return best;
}

int sbt_lattice_split(const double *x, size_t n, double q, size_t *lo_end,
		      size_t *hi_start)
{
	if (n < 2 || !(q > 0) || !on_lattice(x, n, q))
		return 0;
	size_t a = (size_t)floor(SPAN_P * (double)(n - 1));
	size_t b = (size_t)ceil((1 - SPAN_P) * (double)(n - 1));
	double base = x[a];
	long m = lround((x[b] - base) / q) + 1;
	if (m < 3 || m > MAX_TICKS)
		return 0;

	double *c = calloc((size_t)m, sizeof *c);
	if (!c)
		return -1;
	for (size_t i = a; i <= b; i++)
		c[lround((x[i] - base) / q)] += 1;
	long k = shortfall(c, m, SBT_LATTICE_SHARE * (double)n);
	free(c);
	if (k < 0)
		return 0;
	*lo_end = lower_bound(x, n, base + ((double)k - 0.5) * q);
	*hi_start = lower_bound(x, n, base + ((double)k + 0.5) * q);
	return 1;
}
