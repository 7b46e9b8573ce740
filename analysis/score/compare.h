/*
 * compare.h - did a change help?  Two sides, a baseline and a new one,
 * each one or more runs analyzed by the usual pipeline (sbt_analyze),
 * compared region by region (or region x thread / rank / host under
 * --by): the change of the 10 %-trimmed means, the smallest change the
 * data resolve and what bounds it, a verdict, the distribution changes
 * (modes, steps), and the change normalized by the processor's speed
 * where both sides carry speed probes.  compare.c says why.
 */
#ifndef SBT_COMPARE_H
#define SBT_COMPARE_H

#include "result.h"

/* What bounds a row's verdict: the populations' resolution, the
 * run-to-run spread (>= 2 runs a side), or the smallest finding
 * (sbt_min_shift: 1 % of the time, or t_diff, whichever is smaller). */
enum sbt_cmp_bound { SBT_CMP_POPULATION, SBT_CMP_RUNS, SBT_CMP_FLOOR };

/* A mode of a row that changed: it appeared (new run only), vanished
 * (base run only), or its share moved beyond binomial noise. */
enum sbt_cmp_mode_kind { SBT_CMP_MODE_NEW, SBT_CMP_MODE_GONE,
			 SBT_CMP_MODE_SHARE };
struct sbt_cmp_mode {
	int kind;                     /* enum sbt_cmp_mode_kind          */
	double center_ns;
	double share_b, share_n;      /* 0 on the side that lacks it     */
};

/* One side of a comparison: its dataset, analyzed into res with o. */
struct sbt_cmp_side {
	const struct sbt_dataset *ds;
	const struct sbt_result *res;
	const struct sbt_options *o;
	int runs;                     /* inputs read (= ds->nsources)    */
};

/* One side of one row: the samples compared. */
struct sbt_cmp_est {
	size_t n;                     /* steady samples compared         */
	size_t slow;                  /* left out: the processor's slow
					 windows (speed probes)          */
	double tm_ns, se_ns;          /* trimmed mean, its standard error*/
	double res_ns;                /* Z sqrt(2) se, floored at the
					 quantum (score.c)               */
	int runs;                     /* runs holding samples            */
	double run_sd_ns;             /* spread of the runs' trimmed
					 means; NAN below 2 runs         */
	const struct sbt_group *g;    /* its largest group (modes, steps) */
	int all_kept;                 /* no steady sample: n counts every
					 kept one (the slow and shifted
					 ones too)                       */
};

/* A change and its verdict: -1 faster, 0 none, +1 slower. */
struct sbt_cmp_change {
	double delta_ns, rel;         /* new - base, and / base          */
	double resolution_ns;         /* smallest change resolved        */
	double threshold_ns;          /* max(resolution, floor)          */
	int bound;                    /* enum sbt_cmp_bound              */
	int change;
	int unresolved;               /* no change, and the threshold is
					 SBT_CLASS_UNRESOLVED of the base's
					 time or more: not resolved, not
					 "no change"                      */
};

/* A row's estimate: the ratio of the medians new / base and its
 * interval, simultaneous over the rows estimated (compare.c says how). */
#define SBT_CMP_MIN_N   10     /* samples a side for an estimate         */
#define SBT_CMP_BATCHES 10     /* batches a side when a side has 1 run   */
#define SBT_CMP_ALPHA   0.05   /* for all rows' intervals together       */
struct sbt_cmp_ratio {
	int have;                     /* SBT_CMP_MIN_N samples a side    */
	size_t nb, nn;                /* samples compared                */
	double med_b_ns, med_n_ns;    /* medians, timing cost out        */
	double ratio, lo, hi;         /* new / base and its interval     */
	int by_runs;                  /* units: runs (>= 2 a side), else
					 batches of consecutive calls     */
	int units_b, units_n;
	double df;                    /* the t quantile's (Welch)        */
	double log_ratio, se;         /* log(ratio) and its standard error
					 from the units' log medians      */
	double floor_log;             /* one clock quantum, as a log ratio:
					 the interval's least half-width  */
	int change;                   /* +1 lo > 1, -1 hi < 1, else 0    */
};

/* Whom a row names beside its region (--by), as data: report/ words
 * it ("thread 3", "cpu unknown", "rank 1", "pid 4242", "host a";
 * sbt_say_label). */
struct sbt_cmp_label {
	int by;                       /* enum sbt_by; NONE, SITE: no one */
	uint32_t key;                 /* thread, cpu (SBT_CPU_UNKNOWN),
					 rank, or pid (below)            */
	int pid;                      /* BY_RANK: the source has no rank,
					 key is its pid                  */
	const char *host;             /* BY_HOST: the source's host, as
					 long as its dataset             */
};

struct sbt_cmp_row {
	const char *name;             /* region                          */
	struct sbt_cmp_label label;
	int side;                     /* 0 both, -1 base only, 1 new only*/
	struct sbt_cmp_est b, n;
	double pop_res_ns;            /* both populations                */
	double runs_res_ns;           /* run-to-run (NAN: < 2 runs a side)*/
	double floor_ns;              /* the smallest finding            */
	struct sbt_cmp_change raw;
	struct sbt_cmp_change norm;   /* by the processor's speed; valid
					 when sbt_cmp.speed              */
	int gated;                    /* --regions names it (or no list) */
	int probe_blind;              /* changed beyond its populations
					 while the speed probes of both
					 sides agree: the code's, or a
					 slowdown they do not see        */
	int tripped;                  /* slower beyond --fail-if-slower  */
	/* The distribution's changes (compare.c), in the order said: */
	struct sbt_cmp_mode modes[2 * SBT_SCORE_MAX_MODES];
	int nmodes;
	int steps;                    /* only the new run has steps (1),
					 only the base run (-1), else 0  */
	struct sbt_cmp_ratio est;
};

/* One side's runs: their wall time and the OS's share of their threads'
 * time (the kernel's switch records, read/osevents.c). */
struct sbt_cmp_runs {
	int n;                        /* runs (inputs)                   */
	double *run_wall_ns;          /* each run's, in input order      */
	double wall_ns;               /* median of the runs'             */
	double wall_min_ns, wall_max_ns;
	int os;                       /* every run has switch records    */
	double span_ns;               /* threads' spans, all runs        */
	double preempt_ns, sleep_ns;  /* off their cpus, all runs        */
	double preempt_max_ns;        /* the most preempted thread's, per
					 run (median of the runs')        */
};

/* The processor's speed on one side, from its speed probes. */
struct sbt_cmp_speed {
	size_t probes;                /* speed probes read               */
	size_t slow_probes;           /* in slow windows                 */
	double per_op_ns, se_ns;      /* trimmed mean of the steady ones,
					 per op of the workload           */
};

struct sbt_cmp_opts {
	double fail_pct;              /* --fail-if-slower; NAN: no gate  */
	const char *regions;          /* --regions A,B; NULL: all        */
	enum sbt_by by;
};

struct sbt_cmp {
	struct sbt_cmp_row *rows;     /* by name, then label             */
	size_t nrows;
	int runs_b, runs_n;
	/* Speed probes: on both sides (speed = 1), one, or none. */
	int probes_b, probes_n, speed;
	struct sbt_cmp_speed sb, sn;
	double speed_ratio;           /* new per-op time / base's: > 1 is
					 a slower processor              */
	double speed_res;             /* its relative resolution         */
	int ntripped;
	struct sbt_cmp_opts co;
	struct sbt_cmp_runs wb, wn;   /* base, new                       */
	size_t nest;                  /* rows with an estimate: the
					 family of the intervals          */
	int by_runs;                  /* >= 2 runs a side                */
};

/* Compare two analyzed sides.  0, or -1 when out of memory. */
int sbt_compare(const struct sbt_cmp_side *base,
		const struct sbt_cmp_side *nw, const struct sbt_cmp_opts *co,
		struct sbt_cmp *out);
void sbt_compare_free(struct sbt_cmp *c);

/* A name of --regions that no region on both sides has (a gate that
 * cannot judge it must not pass silently): 1 with it in name, else 0. */
int sbt_cmp_unmatched(const struct sbt_cmp *c, char *name, size_t len);

/* The exit status of a tripped --fail-if-slower gate. */
#define SBT_EXIT_SLOWER 3

#endif
