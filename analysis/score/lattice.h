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
 * wider than one tick is the kernel density's to find), both neighbours
 * hold >= 3 % (so the tick tested, under log-concavity, expects >= 3 %
 * too and the normal approximation holds); the threshold is the phase
 * detector's 5 sigma (at the boundary of log-concavity, a geometric run
 * of counts, the statistic is about standard normal: < 1e-6 a region
 * with a few ticks tested); and score.c keeps the split only when the
 * two sides' medians are as far apart as any two modes must be.  The
 * lattice is the one the samples really sit on, the largest multiple of
 * q (up to 8 q) that all but 1 % of them do: on a clock whose reads land
 * on every other measured step, each tick's neighbours would be empty
 * ones and no break could be seen.
 *
 * Measured (tools/accuracy.py logs, 10,000 samples, this VM): in 200
 * constant regions (loop and straight-line work; quiet, a busy and a
 * memory-streaming co-runner; speed probes on and off) no tick falls
 * below its neighbours' geometric mean at all; a 10 % workload two ticks
 * up reads up to 46 deviations, and 2-8 where it sits on ticks that
 * another's tail shares (0.3, 58.5, 26.9, 9.7, 3.5 %: missed below 5).
 * Synthetic constant patterns (tests/score/test_score.c): 1- and 3-tick
 * jitter, a drift over 3 ticks, exponential and Pareto tails, gamma and
 * lognormal jitter, on 10 and 20 ns clocks: none splits.
 */
#ifndef SBT_LATTICE_H
#define SBT_LATTICE_H

#include <stddef.h>

#define SBT_LATTICE_SHARE 0.03   /* the ticks either side: this share   */
#define SBT_LATTICE_Z     5.0    /* shortfall, in deviations (as phase.c) */

/* For ascending x[0..n) read through a clock of quantum q: 1 when a tick
 * breaks log-concavity as above, with *lo_end the samples below that
 * tick and *hi_start the first above it (the tick's own samples belong
 * to neither) and, if z is not NULL, *z its deviation; 0 when none does
 * or x is not on the lattice; -1 when out of memory. */
int sbt_lattice_split(const double *x, size_t n, double q, size_t *lo_end,
		      size_t *hi_start, double *z);

#endif
