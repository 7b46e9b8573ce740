/*
 * score.h - the per-region figures a verdict is made of: can this region
 * be timed to 1 % (t_min), does its time vary beyond what the timer can
 * tell apart (t_diff), and what are its distinct modes.  Numbers only:
 * verdict.c makes findings of them, report/say.c words.
 *
 * One call scores one group of samples: a region, or a region x thread /
 * cpu / rank group.  Inputs are plain numbers, so this module does not
 * depend on how profiles or logs are read.  All times are in ns.
 */
#ifndef SBT_SCORE_H
#define SBT_SCORE_H

#include <stddef.h>
#include <stdint.h>

#include "filter.h"          /* SBT_OS_FLOOR_DEFAULT */

#define SBT_SCORE_EPS         0.01  /* CV target of t_min (paper)          */
#define SBT_SCORE_ALPHA       0.05  /* overlap target of t_diff (paper)    */
#define SBT_SCORE_MIN_PROBES  30    /* fewer probes: no in-situ estimate   */
#define SBT_SCORE_MIN_SHARE   0.01  /* smaller modes are not reported      */
#define SBT_SCORE_MAX_MODES   8
#define SBT_SCORE_TAIL        0.01  /* probe tail a robust estimate ignores */
#define SBT_SCORE_TRIM        0.10  /* trimmed mean of a population         */
#define SBT_SCORE_Z           3.29  /* population confidence: 99.9 %, 2-sided */

/* What the analytic model (score.c) makes of one noise sample. */
struct sbt_noise_est {
	size_t n;            /* probes used (after the OS screen)           */
	size_t screened;     /* probes dropped as OS noise                  */
	double mean, std;    /* of the probes used                          */
	double max, q_alpha; /* max and the alpha order statistic           */
	double q_hi;         /* the 1 - SBT_SCORE_TAIL order statistic      */
	double std_trim;     /* std of the probes within [q_tail, q_hi]     */
	/* Robust (used): no single probe moves them, see score.c. */
	double t_min_ns;     /* std_trim/eps - mean, >= q/(2 eps)           */
	double t_diff_ns;    /* q_hi - q_alpha + quantum                    */
	/* The paper's literal figures, shown beside them. */
	double t_min_paper_ns;   /* std/eps - mean, >= q/(2 eps)            */
	double t_diff_paper_ns;  /* max - q_alpha + quantum                 */
};

/* Where the t_min / t_diff a verdict uses came from (report/ names
 * them: "in-situ", "profile:l2", "quantum", "none"). */
enum sbt_metric_source {
	SBT_SRC_NONE = 0,      /* none: t_min and t_diff are NAN           */
	SBT_SRC_INSITU,        /* the group's in-situ probes               */
	SBT_SRC_PROFILE,       /* a calibration profile (metric_level)     */
	SBT_SRC_QUANTUM,       /* the clock's quantum alone                */
};

/* Where the t_min / t_diff that the verdict uses come from. */
enum sbt_score_pref {
	SBT_PREFER_INSITU = 0, /* in-situ, else profile, else quantum      */
	SBT_PREFER_PROFILE,    /* profile, else in-situ, else quantum      */
};

struct sbt_score_in {
	double quantum_ns;     /* clock resolution floor; 0 = unknown: then
				  guessed from ties in kept[] (score.c)    */
	/* Calibration profile for the region's cache level; NAN or <= 0
	 * when there is none.  profile_label names its level ("l2"): the
	 * score's metric_level when the profile's metrics are used, so it
	 * must outlive the score. */
	double profile_t_min_ns, profile_t_diff_ns;
	const char *profile_label;
	/* Probes above median + os_floor_ns are OS noise, not timer noise
	 * (0: SBT_OS_FLOOR_DEFAULT, filter.h; < 0: keep every probe). */
	double os_floor_ns;
	int prefer;            /* enum sbt_score_pref                       */
	int sorted;            /* kept[] is already ascending: no copy      */
	double eps, alpha;     /* 0: the paper's 0.01 and 0.05              */
	size_t min_probes;     /* 0: SBT_SCORE_MIN_PROBES                   */
	/* Smallest shift reported as a mode separation; 0: computed as
	 * sbt_min_shift(t_diff, median, eps). */
	double min_shift_ns;
	/* p1..p99 spread of the timer's own noise (the probes), for the
	 * excess-spread test; NAN or < 0: computed from probes[]. */
	double noise_spread_ns;
};

struct sbt_mode {
	double center_ns;      /* median of the samples assigned to it      */
	double share;          /* of the assigned samples; shares sum to 1  */
};

struct sbt_score {
	size_t n;                  /* kept samples scored                    */
	double median_ns;
	double quantum_ns;         /* the quantum used: given, or guessed    */
	int    quantum_guessed;    /* from ties in kept[] (in: 0 = unknown) */
	/* the metrics the verdict uses, and where they come from */
	double t_min_ns, t_diff_ns;
	int    metric_source;      /* enum sbt_metric_source                 */
	const char *metric_level;  /* SBT_SRC_PROFILE: the profile's level
				      (in->profile_label); else NULL        */
	struct sbt_noise_est insitu; /* insitu.n = 0 when not computed    */
	int    resolvable;         /* median >= t_min; -1 = unknown          */
	int    variation;          /* 1 = variation beyond t_diff, -1 = ?   */
	double p_lo_ns, p_hi_ns;   /* the order statistics spanning it       */
	double variation_ns;       /* p_hi - p_lo (1st to 99th percentile)   */
	double variation_tdiff;    /* variation_ns / t_diff (NAN: no t_diff) */
	double noise_spread_ns;    /* the probes' p1..p99 (NAN: none)        */
	double excess_ns;          /* variation_ns - noise_spread_ns, >= 0   */
	double outside;            /* share outside the heaviest window
				      max(t_diff, eps median) wide          */
	int    broad;              /* excess beyond max(t_diff, eps median),
				      or too many samples outside          */
	/* What the population can tell (two resolutions, see score.c). */
	double min_shift_ns;       /* min(t_diff, eps median): findings size */
	double trim_mean_ns;       /* 10 %-trimmed mean                      */
	double trim_se_ns;         /* its standard error                     */
	double shift_resolution_ns;/* Z sqrt(2) se: smallest shift resolved */
	struct sbt_mode modes[SBT_SCORE_MAX_MODES]; /* by center, ascending */
	int    nmodes;
	double assigned;           /* fraction of samples in reported modes */
	double bandwidth_ns;       /* kernel width the mode finder used      */
	double eps;                /* the CV target t_min was judged by     */
};

/* The smallest shift a finding (mode separation, step, slow group) must
 * have: min(t_diff, eps * median), but at least one clock quantum (or
 * t_diff if smaller).  Short regions: 1 % of their time (the method's
 * precision target), though one sample cannot tell it; long ones:
 * t_diff, which one sample can; near-empty ones: a tick.  NAN when
 * t_diff is. */
double sbt_min_shift(double t_diff_ns, double median_ns, double quantum_ns,
		     double eps);

/* The width one constant workload's readings fall in, all but about
 * alpha of them: max(t_diff, eps median) (score.c, "Outside one
 * window"). */
double sbt_score_window(const struct sbt_score *s);

/* Trimmed mean (SBT_SCORE_TRIM each side) of ascending x[0..n) and its
 * standard error (winsorized variance, Tukey-McLaughlin). */
void sbt_trimmed_mean(const double *x, size_t n, double *mean, double *se);

/* Only the metrics: quantum, in-situ noise model and the t_min/t_diff
 * choice of sbt_score_group, without looking at the samples (but for a
 * quantum guess from ascending kept[0..n) when in->quantum_ns is 0). */
int sbt_score_metrics(const double *kept, size_t n, const double *probes,
		      size_t nprobes, const struct sbt_score_in *in,
		      struct sbt_score *out);

/* Estimate t_min and t_diff from probes tau[0..n) (any order; each an
 * empty pair's time minus t_e,std).  quantum_ns and os_floor_ns as in
 * struct sbt_score_in; eps/alpha 0 = paper values.  Returns 0, or -1 on
 * allocation failure.  With n = 0, every field is 0. */
int sbt_noise_model(const double *tau, size_t n, double quantum_ns,
		    double os_floor_ns, double eps, double alpha,
		    struct sbt_noise_est *out);

/* order[0..len): the cells of a density c[0..len) (each >= 0), the
 * densest first, ties by position: the mode finder's sweep order. */
void sbt_density_order(const double *c, size_t len, uint32_t *order);

/* Score one group: kept[0..n) are the samples left after filter_cost and
 * filter_os (finite; ascending if in->sorted, else any order; not
 * modified);
 * probes[0..nprobes) the group's in-situ noise probes (may be NULL).
 * Returns 0, or -1 on allocation failure. */
int sbt_score_group(const double *kept, size_t n, const double *probes,
		    size_t nprobes, const struct sbt_score_in *in,
		    struct sbt_score *out);

#endif
