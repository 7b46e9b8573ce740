/*
 * result.h - what the pipeline (analyze.c) makes of a dataset: the groups
 * (a region, or a region x thread/cpu/rank/host) with their statistics,
 * scores, phases and findings, and the machine's events.  The score/
 * stage fills it, report/ prints it.
 */
#ifndef SBT_RESULT_H
#define SBT_RESULT_H

#include "dataset.h"
#include "drop.h"
#include "filter.h"
#include "phase.h"
#include "score.h"
#include "speed.h"
#include "stats.h"

enum sbt_by { SBT_BY_NONE, SBT_BY_THREAD, SBT_BY_CPU, SBT_BY_RANK,
	      SBT_BY_HOST, SBT_BY_SITE };

/* The OS filter's bit (--filter: drop.h): the pipeline adds what the
 * kernel saw to what it drops (analyze.c). */
#define SBT_F_OS SBT_F_DROP(SBT_DROP_ID_os)

struct sbt_options {
	enum sbt_by by;
	int filters;                  /* SBT_F_* bits (drop.h)          */
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

/* What filter_cost subtracts from a sample of src, the filters and cost
 * as given (--filter, --cost): nothing with the filter off, else the
 * cost given, else the log's t_e,std. */
static inline double sbt_cost_ns(int filters, double cost_ns,
				 const struct sbt_source *src)
{
	if (!(filters & SBT_F_COST))
		return 0;
	return cost_ns >= 0 ? cost_ns : src->te_ns;
}

static inline double sbt_cost_of(const struct sbt_options *o,
				 const struct sbt_source *src)
{
	return sbt_cost_ns(o->filters, o->cost_ns, src);
}

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

/* One finding of a group (verdict.c), with its size: how far it moves
 * the region's time.  A finding under SBT_MINOR_SHARE of the region's
 * typical time is minor: resolved, yet not what a person chases first. */
#define SBT_MAX_FINDINGS (SBT_PHASE_MAX + 3)  /* steps, modes, group, broad */
#define SBT_VERDICT_FINDINGS 6                /* said in the verdict      */
#define SBT_MINOR_SHARE  0.01
enum sbt_finding_kind { SBT_FIND_STEP, SBT_FIND_MODES, SBT_FIND_GROUP,
			SBT_FIND_BROAD };
struct sbt_finding {
	int    kind;                  /* enum sbt_finding_kind           */
	double size_ns;               /* the shift or spread             */
	double rel;                   /* size_ns / the typical time      */
	int    minor;                 /* rel < SBT_MINOR_SHARE           */
	char   text[200];             /* the clause, as the verdict says */
};

struct sbt_group {
	uint32_t region;
	uint32_t key;                 /* thread / cpu / rank / source   */
	uint32_t source;              /* for thread keys and hosts      */
	size_t count;                 /* samples seen (no probes)       */
	uint64_t calls;               /* calls made: count, plus those
					 not recorded (SBT_SAMPLE)      */
	size_t kept, dropped;
	size_t dropped_by[SBT_NDROP]; /* by each drop filter, counted in
					 its turn (drop.h's order)       */
	size_t migrated, probes;
	double cut;                   /* NAN: nothing cut               */
	double te_ns;                 /* cost subtracted                */
	double quantum_ns;            /* coarsest clock among sources   */
	struct sbt_stats st;          /* of the kept samples, ns        */
	double iqr_ns;                /* their p25..p75                 */
	double cycles_median;         /* NAN without a cycle clock      */
	struct sbt_score score;       /* t_min, t_diff, modes, verdict  */
	struct sbt_phases phases;     /* shifts over time (one source)  */
	struct sbt_phases *wphases;   /* the same with the samples of the
					 processor's shifts (SBT_SF_SPEED)
					 left in: what the coincidence
					 witness (machine.c) looks at; NULL
					 when there are none (phases is)   */
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
	size_t speed_n;               /* samples in processor shifts
					 (speed probes), left out too   */
	struct sbt_group_os os;       /* the kernel's record of it      */
	/* An OpenMP parallel region by thread (groups.c): the other
	 * threads' mean wait at its closing barrier, and that wait's share
	 * of their time in the region (share + wait).  NAN otherwise. */
	double others_wait_ns, others_wait_rel;
	int    omp_thread;            /* its OpenMP thread number, -1   */
	/* How much of the run it took (totals.c). */
	double total_ns;              /* inclusive: every call's time,
					 a cut sample at the median     */
	double excl_ns;               /* less the regions nested in it  */
	double thread_ns;             /* time of the threads it ran on  */
	double share, excl_share;     /* total_ns, excl_ns / thread_ns  */
	int    nested;                /* other regions ran inside it    */
	int    nfindings;             /* major findings (not minor)     */
	int    nfind;                 /* all findings in find[]: major
					 by size, then minor by size    */
	struct sbt_finding find[SBT_MAX_FINDINGS];
	char   verdict[2048];         /* findings, then precision: its
					 first SBT_VERDICT_FINDINGS
					 findings (200 each) and the
					 other clauses fit             */
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
	int *ev_probes;               /* per machine event: the speed
					 probes saw it 1, held 0, none -1 */
	struct sbt_speed speed;       /* the processor's own (speed.c)   */
};

#endif
