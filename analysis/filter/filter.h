/*
 * filter.h - the paper's two filters (section 5.4.1 and 5.4.2).
 *
 * filter_cost subtracts the timing method's own overhead t_e,std.
 * filter_os removes samples hit by OS noise: an isolation forest scores
 * every sample, a cut on the score is chosen, samples below it are dropped.
 */
#ifndef SBT_FILTER_H
#define SBT_FILTER_H

#include <stddef.h>
#include <stdint.h>

enum sbt_os_method {
	SBT_OS_DEFAULT = 0,   /* principled: dithered ties + physical floor */
	SBT_OS_PAPER   = 1,   /* the paper's beta search, literally         */
};

struct sbt_os_opts {
	enum sbt_os_method method;
	uint64_t seed;        /* forest is deterministic for a given seed   */
	double quantum;       /* clock quantum in the units of x; default
				 method: 0 = estimate from ties in the data,
				 < 0 = none; the paper method never dithers */
	double floor;         /* smallest jump that can be OS noise, units
				 of x (0: SBT_OS_FLOOR_DEFAULT, < 0: none)  */
	int    ntrees;        /* 0: 100                                     */
	int    psi;           /* 0: 256                                     */
	/* Added by the filter module (see filter.c for the reasoning): */
	double quantum_y;     /* clock quantum of y, as quantum is of x     */
	/* At most this share of the points can be OS noise (default method;
	 * 0: no bound).  The analyzer passes sbt_os_max_share(). */
	double max_share;
};

struct sbt_os_result {
	double cut;           /* chosen score cut (NAN when nothing cut)    */
	size_t kept, dropped;
	/* Added by the filter module: what the default method actually used
	 * (quantum, quantum_y, floor are 0 for the paper method). */
	double quantum, quantum_y;  /* dither widths                        */
	double floor;               /* physical floor on the jump           */
	double max_kept;            /* largest x kept at the cut (INFINITY
				       when nothing is cut); the default
				       method drops only points above it   */
	size_t spared;              /* points the cut took but max_share
				       kept: the code's own, not the OS's  */
};

/* Below this many points nothing is dropped (see filter.c). */
#define SBT_OS_MIN_N          8
/* The floor when opts.floor is 0, in ns (see filter.c). */
#define SBT_OS_FLOOR_DEFAULT  500.0

/* No OS delivers more than SBT_OS_MAX_RATE events a second to one cpu
 * (timer ticks, device interrupts, IPIs, hypervisor exits together are
 * a few thousand; this bound is generous) ... */
#define SBT_OS_MAX_RATE       5e4
/* ... so of samples of typical duration `typical_ns`, at most this share
 * can have been hit by one (an event during the sample or during the
 * floor_ns it must have added), and 3 sigma of binomial slack over n. */
double sbt_os_max_share(double typical_ns, double floor_ns, size_t n);

/* Subtract `cost` from every x[i] (and `cost_y` from y[i] when y). */
void sbt_filter_cost(double *x, double *y, size_t n, double cost,
		     double cost_y);

/* Score the n points (x, or (x, y) when y != NULL), choose a cut, set
 * keep[i] = 1 for kept points and 0 for dropped ones.  score may be NULL;
 * when given, score[i] receives the point's score in (-1, 0).
 * Returns 0, or -1 on allocation failure (then keep[] is all 1). */
int sbt_filter_os(const double *x, const double *y, size_t n,
		  const struct sbt_os_opts *o, uint8_t *keep, float *score,
		  struct sbt_os_result *res);

#endif
