/*
 * lattice.h - two workloads a couple of clock steps apart, told by the
 * shape of their counts on the clock's lattice.
 *
 * On a clock of quantum q a constant region reads on two or three
 * adjacent ticks, and whatever its jitter, as long as the jitter's
 * density is log-concave (Gaussian, exponential, uniform, a uniform
 * drift: the usual noise), so are its counts per tick (the reading of a
 * duration at a uniform phase is the duration convolved with a q-wide
 * triangle, and integrals of a log-concave density over equal bins are
 * log-concave): c[k]^2 >= c[k-1] c[k+1].  Two workloads two ticks apart,
 * each on its own two ticks, break that where one ends and the other
 * begins even when no tick is lower than the next (seen: 45.9, 43.9,
 * 5.3, 4.8 %: no dip for a kernel density, score.c, to find; tick 2 is
 * 5.3 % where its neighbours' geometric mean is 14.5 %).  So a tick
 * whose count falls short of the geometric mean of its two neighbours,
 * each holding at least SBT_LATTICE_SHARE of the samples, by more than
 * SBT_LATTICE_Z deviations of the log-ratio (delta method, Poisson
 * counts: var = 4/c[k] + 1/c[k-1] + 1/c[k+1]), splits the samples into
 * two modes.
 *
 * What keeps it from constant regions: only adjacent ticks are compared
 * (a heavy tail's ticks below SBT_LATTICE_SHARE never are, and a dip
 * wider than one tick is the kernel density's to find); the lattice is
 * the one the samples really sit on, the largest multiple of q (up to
 * 8 q) that all but 1 % of them do (a clock whose reads land on every
 * other measured step would otherwise show an empty tick between every
 * two full ones); and score.c keeps the split only when the two sides'
 * medians are as far apart as any two modes must be.
 *
 * Measured (tools/accuracy.py logs, 10,000 samples, this VM): see
 * README's accuracy table; constant regions' largest deviation, quiet and
 * with either co-runner, loop and straight-line work, stays below 4.
 */
#ifndef SBT_LATTICE_H
#define SBT_LATTICE_H

#include <stddef.h>

#define SBT_LATTICE_SHARE 0.03   /* the ticks either side: this share   */
#define SBT_LATTICE_Z     8.0    /* shortfall, in deviations             */

/* For ascending x[0..n) read through a clock of quantum q: 1 when a tick
 * breaks log-concavity as above, with *lo_end the samples below that
 * tick and *hi_start the first above it (the tick's own samples belong
 * to neither) and, if z is not NULL, *z its deviation; 0 when none does
 * or x is not on the lattice; -1 when out of memory. */
int sbt_lattice_split(const double *x, size_t n, double q, size_t *lo_end,
		      size_t *hi_start, double *z);

#endif
