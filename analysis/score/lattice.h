/*
 * lattice.h - two workloads a couple of clock steps apart, told by the
 * shape of their counts on the clock's lattice.
 *
 * On a clock of quantum q a constant region reads on two or three
 * adjacent ticks, and whatever its jitter, as long as the jitter's
 * density is log-concave (Gaussian, exponential, uniform: the usual
 * noise), so are its counts per tick (integrals of a log-concave density
 * over equal bins are log-concave): c[k]^2 >= c[k-1] c[k+1], and more
 * generally each count is at least the geometric interpolation of any
 * two around it.  Two workloads two ticks apart, each on its own two
 * ticks, break that where one ends and the other begins even when no
 * tick is lower than the next (seen: 45.9, 43.9, 5.3, 4.8 %: no dip for
 * a kernel density, score.c, to find).  So a tick whose count falls
 * short of that interpolation, between two ticks that each hold at
 * least SBT_LATTICE_SHARE of the samples, by more than SBT_LATTICE_Z
 * Poisson deviations, splits the samples into two modes.
 *
 * Measured (tools/accuracy.py logs, loop work, 10,000 samples, this VM):
 * the largest such deviation in 40 constant regions, quiet and with a
 * busy co-runner, was 0; a 2-tick gap at 10 % or 50 % share gave 4 to 57.
 */
#ifndef SBT_LATTICE_H
#define SBT_LATTICE_H

#include <stddef.h>

#define SBT_LATTICE_SHARE 0.03   /* the ticks either side: this share   */
#define SBT_LATTICE_Z     8.0    /* shortfall, in Poisson deviations     */

/* For ascending x[0..n) on a lattice of step q (all but 1 % of the
 * samples within q/4 of x[0] + k q): 1 when a tick breaks log-concavity
 * as above, with *lo_end the samples below that tick and *hi_start the
 * first above it (the tick's own samples belong to neither); 0 when
 * none does or x is not on the lattice; -1 when out of memory. */
int sbt_lattice_split(const double *x, size_t n, double q, size_t *lo_end,
		      size_t *hi_start);

#endif
