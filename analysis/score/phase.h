/*
 * phase.h - does a region's time shift during the run?  One call looks
 * at one group's kept samples in start-time order and cuts the run into
 * phases whose medians differ by at least the smallest finding
 * (sbt_min_shift), each cut backed by a rank test; a second names them:
 * warm-up, short excursions, and the steps between steady levels.
 */
#ifndef SBT_PHASE_H
#define SBT_PHASE_H

#include <stddef.h>

#define SBT_PHASE_MAX      16     /* phases reported, at most             */
#define SBT_PHASE_Z        5.0    /* rank-CUSUM threshold, in sigmas      */
#define SBT_PHASE_MIN_SEG  30     /* samples in a phase, at least ...     */
#define SBT_PHASE_MIN_FRAC 0.001  /* ... and this fraction of the group   */

/* What a phase is, once classified (sbt_phase_classify). */
enum sbt_phase_kind {
	SBT_PH_LEVEL = 0,      /* a steady level of the run                 */
	SBT_PH_WARMUP,         /* slower start of the process, then steady  */
	SBT_PH_TRANSIENT,      /* a short excursion that returns            */
	SBT_PH_MACHINE,        /* shifted with the machine (machine.c sets
				  it; classify keeps it)                  */
};

#define SBT_PHASE_WARMUP_NS    100e6  /* warm-up ends within 100 ms ...  */
#define SBT_PHASE_WARMUP_FRAC  0.20   /* ... and holds <= 20 % of samples */
#define SBT_PHASE_TRANS_FRAC   0.05   /* a phase holding less: excursion   */

struct sbt_phase {
	int kind;              /* enum sbt_phase_kind                       */
	double t_begin_ns;     /* start time of its first sample            */
	double t_end_ns;       /* start time of its last sample             */
	size_t first, n;       /* samples [first, first + n) of the input   */
	double level_ns;       /* 10 %-trimmed mean: what steps compare      */
	double median_ns;
	unsigned cpu;          /* of its first sample (set by the caller)   */
	int machine;           /* the change into it is a machine event
				  (machine.c); 0 for phase 0              */
};

struct sbt_phases {
	int nphases;           /* 1 = no shift; 0 only when n = 0           */
	int untimed;           /* all start times equal (CSV without t_ns):
				  places are sample numbers, not times    */
	double z[SBT_PHASE_MAX];   /* z[k]: rank statistic of the cut that
				      starts phase k (z[0] = 0)             */
	struct sbt_phase ph[SBT_PHASE_MAX];
	/* After sbt_phase_classify: */
	double min_shift_ns;   /* the size test the cuts passed             */
	int nsteps;            /* level changes: step[k] is the phase that
				  starts the k-th new level                 */
	int step[SBT_PHASE_MAX];
	double step_from_ns[SBT_PHASE_MAX]; /* the level before the step  */
	size_t warmup_n;       /* samples in the warm-up (0: none)          */
	int ntransients;       /* excursions (runs of transient phases)     */
	size_t transient_n;    /* samples in them                           */
	double transient_max;  /* largest excursion, relative to its level  */
};

/* Cut ns[0..n) (finite durations, ns; t_ns[] their start times,
 * non-decreasing, so one source's clock)
 * into phases.  t_diff_ns is the smallest median change reported (> 0;
 * the analyzer passes sbt_min_shift(), see score.h;
 * NAN or <= 0: no phase is reported, as no shift can be judged).
 * Returns 0, -1 on allocation failure, -2 when t_ns is not ordered or
 * n >= 2^32. */
int sbt_phase_detect(const double *t_ns, const double *ns, size_t n,
		     double t_diff_ns, struct sbt_phases *out);

/* Name the phases of p (n: samples given to sbt_phase_detect), but for
 * those already named SBT_PH_MACHINE, which are left out: a slow
 * start within SBT_PHASE_WARMUP_NS holding <= SBT_PHASE_WARMUP_FRAC is a
 * warm-up; a phase holding less than SBT_PHASE_TRANS_FRAC of the samples
 * is a transient excursion from the levels around it; what is left are
 * levels, and each change between
 * neighbouring levels of at least min_shift_ns is a step, dated where its
 * new level begins: short phases at the new level between excursions
 * before the new level's first long phase are levels too, not
 * transients. */
void sbt_phase_classify(struct sbt_phases *p, size_t n, double min_shift_ns);

#endif
