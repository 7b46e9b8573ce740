/*
 * analyze.h - the analysis pipeline: group -> filter_cost -> filter_os ->
 * statistics -> scoring, for every region (or region x thread/cpu/rank/
 * host).  Reports (report.c) only print what this produces.
 */
#ifndef SBT_ANALYZE_H
#define SBT_ANALYZE_H

#include "dataset.h"
#include "filter.h"
#include "phase.h"
#include "score.h"
#include "stats.h"

enum sbt_by { SBT_BY_NONE, SBT_BY_THREAD, SBT_BY_CPU, SBT_BY_RANK,
	      SBT_BY_HOST, SBT_BY_SITE };

enum sbt_filters { SBT_F_NONE = 0, SBT_F_COST = 1, SBT_F_OS = 2,
		   SBT_F_ALL = 3 };

struct sbt_options {
	enum sbt_by by;
	int filters;                  /* enum sbt_filters bits          */
	enum sbt_os_method os_method;
	uint64_t seed;
	double cost_ns;               /* < 0: from each log's header    */
	/* t_min / t_diff from a calibration profile (sbt-calibrate), or
	 * none: in-situ probes and the clock quantum only. */
	double profile_t_min_ns, profile_t_diff_ns;  /* NAN: none       */
	const char *profile_label;    /* "profile:l3"                   */
	int prefer_profile;           /* the user named the cache level */
	int jobs;                     /* threads; 0: one per core       */
};

/* What the kernel saw happen to a group's samples (osevents.c), and how
 * the OS-noise filter's guesses compare with it.  Samples count only when
 * their log had OS events (`covered`). */
struct sbt_group_os {
	size_t covered;               /* samples the kernel watched     */
	size_t interrupted;           /* switched out or faulted        */
	size_t preempted;             /* preempted at least once        */
	size_t switches, faults;      /* totals                         */
	size_t lost;                  /* samples near lost events       */
	size_t left_out;              /* preempted, so left out (with
					 the OS filter on)              */
	size_t preempted_kept;        /* ... of which the filter kept   */
	int    preempted_own;         /* too many to be the OS's: kept  */
	/* filter agreement (with the OS filter on) */
	size_t cut;                   /* samples the filter cut         */
	size_t cut_interrupted;       /* ... that the kernel interrupted*/
	size_t interrupted_kept;      /* interrupted, kept by the filter*/
	double kept_excess_ns;        /* median excess over the kept
					 median of those not preempted
					 (still kept); NAN: none        */
};

struct sbt_group {
	uint32_t region;
	uint32_t key;                 /* thread / cpu / rank / source   */
	uint32_t source;              /* for thread keys and hosts      */
	size_t count;                 /* samples seen (no probes)       */
	uint64_t calls;               /* calls made: count, plus those
					 not recorded (SBT_SAMPLE)      */
	size_t kept, dropped;
	size_t migrated, probes;
	double cut;                   /* NAN: nothing cut               */
	double te_ns;                 /* cost subtracted                */
	double quantum_ns;            /* coarsest clock among sources   */
	struct sbt_stats st;          /* of the kept samples, ns        */
	double iqr_ns;                /* their p25..p75                 */
	double cycles_median;         /* NAN without a cycle clock      */
	struct sbt_score score;       /* t_min, t_diff, modes, verdict  */
	struct sbt_phases phases;     /* shifts over time (one source)  */
	size_t first, n;              /* range in sbt_result.order      */
	/* Against the other groups of its region (--by; groups.c). */
	int    flagged;               /* differs beyond resolution      */
	double delta_ns;              /* trimmed mean - the rest's      */
	double delta_rel;             /* delta_ns / the rest's          */
	double delta_resolution_ns;   /* what the two populations tell  */
	/* Machine-wide shifts it followed (machine.c). */
	int    machine_changes;       /* its phase changes that did     */
	size_t machine_n;             /* samples in shifted periods,
					 left out of its own scoring    */
	struct sbt_group_os os;       /* the kernel's record of it      */
	/* An OpenMP parallel region by thread (groups.c): the other
	 * threads' mean wait at its closing barrier, and that wait's share
	 * of their time in the region (share + wait).  NAN otherwise. */
	double others_wait_ns, others_wait_rel;
	int    omp_thread;            /* its OpenMP thread number, -1   */
	int    nfindings;             /* modes, steps, flag, broad ...  */
	char   verdict[640];          /* findings, then precision       */
};

/* A shift found at the same instant, in the same direction, in two or
 * more regions of one process: the machine's, not the code's. */
#define SBT_MACHINE_MAX_REGIONS 8
struct sbt_machine_event {
	uint32_t source;
	double t_ns;                  /* the earliest of the changes     */
	unsigned cpu;                 /* where the first region ran      */
	double change;                /* median relative change          */
	int nregions;                 /* regions that shifted            */
	uint32_t regions[SBT_MACHINE_MAX_REGIONS]; /* the first ones     */
};

struct sbt_result {
	struct sbt_group *g;          /* sorted by region name, then key */
	size_t ngroups;
	uint32_t *order;              /* sample indexes grouped          */
	size_t norder;
	struct sbt_machine_event *ev; /* by source, then time            */
	size_t nev;
};

/* Find machine-wide shifts among the groups' phases (machine.c): fills
 * res->ev, sets phase.machine, g->machine_*, and marks the samples of
 * shifted periods SBT_SF_MACHINE.  gid[i]: the group (index into res->g)
 * of sample i, UINT32_MAX for none.  0, or -1 on allocation failure. */
int sbt_machine_events(struct sbt_dataset *ds, struct sbt_result *res,
		       const uint32_t *gid);

/* Compare every group with the other groups of its region (groups.c):
 * sets flagged / delta_*.  res->g sorted as sbt_analyze leaves it. */
void sbt_groups_compare(struct sbt_result *res, double eps);

/* OpenMP parallel regions by thread (groups.c): for each group of an
 * "omp parallel @ LOC" region, the other threads' wait at "omp barrier
 * @ LOC" (others_wait_*) and its OpenMP thread number when the log says
 * (omp_thread).  After sbt_groups_compare. */
void sbt_groups_omp(struct sbt_result *res, const struct sbt_dataset *ds);

/* Compose g->verdict from its score, phases and flag (verdict.c). */
void sbt_verdict(struct sbt_group *g, enum sbt_by by);

/* Sparse recording: the time all g->calls took, estimated from the kept
 * samples (calls x their mean), and its standard error (random sampling
 * of count in calls: the mean's error with the finite-population
 * correction).  0 error when every call was recorded. */
void sbt_group_total(const struct sbt_group *g, double *total_ns,
		     double *se_ns);

/* How many threads `jobs` asks for: itself, or one per online core when
 * 0 or less; 1 to SBT_JOBS_MAX. */
#define SBT_JOBS_MAX 64
int sbt_jobs(int jobs);

/* Run the pipeline.  Marks samples (SBT_SF_DROPPED, score).  0 or -1. */
int sbt_analyze(struct sbt_dataset *ds, const struct sbt_options *o,
		struct sbt_result *res);
void sbt_result_free(struct sbt_result *res);

#endif
