/*
 * lattice.c - a break of log-concavity in the counts per clock tick
 * (lattice.h).  O(n) over the samples, O(ticks) after that.
 */
#include "lattice.h"

#include <math.h>
#include <stdlib.h>

#define ON_LATTICE  0.99    /* samples within q/4 of a tick, at least  */
#define SPAN_P      0.005   /* ticks looked at: the 0.5 .. 99.5 % range */
#define MAX_TICKS   1024    /* wider than this: not a lattice question */
#define MAX_STRIDE  8       /* the samples' own step: up to 8 q        */

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

/* The largest stride s <= MAX_STRIDE, and its residue *r, such that the
 * ticks k of c[0..m) with k % s != *r hold at most 1 - ON_LATTICE of
 * the total: the step the samples really sit on, in ticks. */
static long stride(const double *c, long m, double total, long *r)
{
	for (long s = MAX_STRIDE; s > 1; s--) {
		if (s >= m)
			continue;
		for (long a = 0; a < s; a++) {
			double on = 0;
			for (long k = a; k < m; k += s)
				on += c[k];
			if (total - on <= (1 - ON_LATTICE) * total) {
				*r = a;
				return s;
			}
		}
	}
	*r = 0;
	return 1;
}

/* The tick of c[0..m) furthest short of the geometric mean of its two
 * neighbours, each >= heavy, beyond SBT_LATTICE_Z; -1: none. */
static long shortfall(const double *c, long m, double heavy, double *zout)
{
	long best = -1;
	double zbest = SBT_LATTICE_Z;

	for (long k = 1; k + 1 < m; k++) {
		double a = c[k - 1], b = c[k + 1], ck = fmax(c[k], 0.5);
		if (a < heavy || b < heavy)
			continue;
		double z = (log(a) + log(b) - 2 * log(ck)) /
			   sqrt(4 / ck + 1 / a + 1 / b);
		if (z > zbest)
			zbest = z, best = k;
	}
	*zout = zbest;
	return best;
}

int sbt_lattice_split(const double *x, size_t n, double q, size_t *lo_end,
		      size_t *hi_start, double *z)
{
	if (n < 3 || !(q > 0))
		return 0;
	size_t a = (size_t)floor(SPAN_P * (double)(n - 1));
	size_t b = (size_t)ceil((1 - SPAN_P) * (double)(n - 1));
	double base = x[a], span = (double)(b - a + 1), off = 0, zk = 0;
	long m = lround((x[b] - base) / q) + 1;
	if (m < 3 || m > MAX_TICKS)
		return 0;

	double *c = calloc((size_t)m, sizeof *c);
	if (!c)
		return -1;
	for (size_t i = a; i <= b; i++) {
		double d = (x[i] - base) / q;
		long k = lround(d);
		if (fabs(d - (double)k) > 0.25 || k < 0 || k >= m)
			off += 1;
		else
			c[k] += 1;
	}
	long r = 0, s = off <= (1 - ON_LATTICE) * span ?
		    stride(c, m, span - off, &r) : 0;
	long k = -1;
	if (s > 0) {
		/* counts on the samples' own lattice, in place */
		long mm = 0;
		for (long t = r; t < m; t += s)
			c[mm++] = c[t];
		k = shortfall(c, mm, SBT_LATTICE_SHARE * (double)n, &zk);
	}
	free(c);
	if (k < 0)
		return 0;
	double at = base + (double)(r + k * s) * q;
	*lo_end = lower_bound(x, n, at - 0.5 * (double)s * q);
	*hi_start = lower_bound(x, n, at + 0.5 * (double)s * q);
	if (z)
		*z = zk;
	return 1;
}
