/*
 * result.h - what the pipeline (analyze.c) makes of a dataset: the groups
 * (a region, or a region x thread/cpu/rank/host) with their statistics,
 * scores, phases and findings, and the machine's events.  The score/
 * stage fills it, report/ prints it.
 */
#ifndef SBT_RESULT_H
#define SBT_RESULT_H

#include "counters.h"
#include "dataset.h"
#include "drop.h"
#include "filter.h"
#include "mark.h"
#include "phase.h"
#include "score.h"
#include "speed.h"
#include "stats.h"

enum sbt_by { SBT_BY_NONE, SBT_BY_THREAD, SBT_BY_CPU, SBT_BY_RANK,
	      SBT_BY_HOST, SBT_BY_SITE };

/* The OS filter's bit (--filter: drop.h): the pipeline adds what the
 * kernel saw to what it drops (run.c). */
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
	/* An alarm needs at least this share of the region's time and of
	 * the run's (--min-share); 0: SBT_MINOR_SHARE, SBT_MIN_RUN_SHARE. */
	double min_share, min_run_share;
	int scores;                   /* keep each sample's isolation-
					 forest score (sbt_result.score) */
	/* --by site: the site a sample without one of its own counts
	 * under, per region (callsites.c); NULL: none. */
	const uint32_t *site_fallback;
};

enum { SBT_PRE_LEAVE, SBT_PRE_HALF, SBT_PRE_OWN };

/* The OS's class of one sample (struct sbt_group_os), from the kernel's
 * record alone: the same in every view. */
enum sbt_os_class { SBT_OSC_NONE, SBT_OSC_PREEMPTED, SBT_OSC_YIELDED,
		    SBT_OSC_WAITED };
/* More switches than this a ms, preempted: yields, not the scheduler's
 * slices (a slice lasts a ms or more). */
#define SBT_OS_YIELD_RATE 2.0
static inline int sbt_os_class(const struct sbt_sample *s)
{
	if (!s->switches)
		return SBT_OSC_NONE;
	if (!(s->flags & SBT_SF_PREEMPTED))
		return SBT_OSC_WAITED;
	if (s->switches >= 2 && (double)s->switches >
	    SBT_OS_YIELD_RATE * (s->ns > 0 ? s->ns : 0) * 1e-6)
		return SBT_OSC_YIELDED;
	return SBT_OSC_PREEMPTED;
}

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
	int    preempted_own;         /* it has preempted samples, and
					 its region keeps them (keep_pre) */
	int    keep_pre;              /* its region's rule (the same in
					 every view): 0 preempted samples
					 left out; SBT_PRE_HALF kept, half
					 its calls or more were;
					 SBT_PRE_OWN kept, more than the
					 OS preempts (sbt_os_max_share):
					 the region gives its cpu away */
	/* One class per sample, the same in every view (sbt_os_class):
	 * preempted (one switch while runnable: the OS's), yielded (gave
	 * the cpu away while runnable, again and again: its own), waited
	 * (switched out of its own accord: its own). */
	size_t yielded, waited;
	/* filter agreement (with the OS filter on) */
	size_t cut;                   /* samples the filter cut         */
	size_t cut_interrupted;       /* ... that the kernel interrupted*/
	size_t interrupted_kept;      /* interrupted, kept by the filter*/
	double kept_excess_ns;        /* median excess over the kept
					 median of those not preempted
					 (still kept); NAN: none        */
};

/* One finding of a group (verdict.c), with its size: how far it moves
 * the region's time.  Findings are data: every field below is what a
 * renderer (report/say.c, report/words.c) needs to say it, with no
 * judgement of its own (FINDINGS.md gives each kind's fields).
 * A finding is an alarm (the region is flagged) only where it is both
 * resolved and large enough: at least min_share of the region's time
 * and min_run_share of the run's (struct sbt_options); the others are
 * descriptions (minor).  Spread components and the OS's share of the
 * time come from the region's decomposition (decomp.c): the same in
 * every group of a region, whatever --by. */
#define SBT_MAX_FINDINGS (SBT_PHASE_MAX + 13 + SBT_CNT_COLS) /* steps, modes,
					 group, broad, the decomposition's */
#define SBT_VERDICT_FINDINGS 6                /* said in the verdict      */
#define SBT_MINOR_SHARE  0.01                 /* min_share's default      */
#define SBT_MIN_RUN_SHARE 0.005               /* min_run_share's default  */
#define SBT_FEW_SAMPLES  10                   /* fewer: nothing alarmed   */
#define SBT_FIND_NOKEY   UINT32_MAX
/* Which form a finding's clause takes (sbt_finding.flags), decided
 * where the finding is made: */
#define SBT_FX_DECOMP    0x01  /* MODES: the decomposition's modes
				  (decomp.modes), not the score's       */
#define SBT_FX_FASTER    0x02  /* PROCESSOR: its calls ran faster, not
				  slower, while the speed was off       */
#define SBT_FX_UPTO      0x04  /* WAIT: from the threads' levels (the
				  spread's components): "up to"          */
#define SBT_FX_WIDE      0x08  /* BROAD: by the extremes, else by the
				  share outside one window              */
#define SBT_FX_RUN_COST  0x10  /* OS_TIME: the fault cost is the run's  */
#define SBT_FX_WAITS     0x20  /* GROUP: the others' wait for it at each
				  barrier is said (others_wait_ns)       */
#define SBT_FX_DESCRIBES 0x40  /* a description, never an alarm: said
				  after the minor ones                   */
#define SBT_FX_RUN_SMALL 0x80  /* minor though min_share of the region's
				  time: small for the run only           */
#define SBT_FX_UNSAID    0x100 /* no clause: the verdict is the score's
				  alone                                   */
#define SBT_FX_WAIT_OS   0x400 /* WAIT: far beyond the slow share's extra
				  time, and the kernel's record shows the
				  waiter or the slow thread preempted   */
#define SBT_FX_WAIT_UNEXPL 0x800 /* WAIT: far beyond the slow share's
				  extra time, and the kernel's record
				  does not say why                       */
#define SBT_FX_NO_PROBE  0x1000 /* PROBE_BLIND: the memory-latency
				     probes held too: no probe saw it  */
#define SBT_FX_STEPS     0x2000 /* LEVELS: its steps are the levels (two
				     changes or more no probe saw)      */
#define SBT_FX_BY_SPEED  0x4000 /* LEVELS: the speed probes moved with
				     them (a kept shift)                */
#define SBT_FX_BY_MEMORY 0x8000 /* LEVELS: memory latency moved with
				     them                               */
#define SBT_FX_BY_OS     0x10000 /* LEVELS: the speed probes moved on a
				     cpu the OS shared (speed.h osh)    */
#define SBT_FX_REC_COST  0x200 /* OS_TIME: the fault cost is the one the
				  recorder measured at start (fault_ns)  */
/* The kinds of finding, one row each: X(KIND, JSON name, the class a
 * group takes when it is its largest alarm, clause).  The enum, JSON's
 * names (verdict.c), the class (class.c: STEP, GROUP and WAIT refine
 * theirs) and the words (report/clause.c: clause_CLAUSE, short and long)
 * all come from here, so a new kind is a row here, the score file that
 * makes it and its clause (doc/DESIGN.md, "Where to add things"). */
#define SBT_FINDINGS(X) \
	/* a lasting change of level at t_ns */                          \
	X(STEP,        "step",         SBT_CL_STEP,       step)          \
	/* parts distinct modes (within groups) */                       \
	X(MODES,       "modes",        SBT_CL_MODES,      modes)         \
	/* this group (--by) differs from the others */                  \
	X(GROUP,       "group",        SBT_CL_SLOW_GROUP, group)         \
	/* spread beyond the timer's that the decomposition could not    \
	 * split (no samples to decompose); never with fewer than        \
	 * SBT_FEW_SAMPLES */                                            \
	X(BROAD,       "broad",        SBT_CL_BROAD,      broad)         \
	/* the OS's share of a call's time: events a call x their cost   \
	 * on this machine */                                            \
	X(OS_TIME,     "os_time",      SBT_CL_OS,         os_time)       \
	/* spread component: calls with more faults / switches took      \
	 * longer (the fitted cost) */                                   \
	X(OS_SPREAD,   "os_spread",    SBT_CL_OS,         os_spread)     \
	/* spread component: calls while the speed probes saw the        \
	 * processor off speed */                                        \
	X(PROCESSOR,   "processor",    SBT_CL_PROCESSOR,  processor)     \
	/* spread component: a steady offset between the region's        \
	 * threads */                                                    \
	X(GROUPS,      "groups",       SBT_CL_SLOW_GROUP, groups)        \
	/* spread component: levels over the run (steps, phases,         \
	 * warm-up) */                                                   \
	X(TIME,        "time",         SBT_CL_PHASES,     time)          \
	/* spread nothing recorded explains: said, never an alarm */     \
	X(UNEXPLAINED, "unexplained",  SBT_CL_OTHER,      unexplained)   \
	/* too few samples to judge anything */                          \
	X(FEW,         "few_samples",  SBT_CL_FEW,        few)           \
	/* a barrier's waits: the slow thread (key) and what the others  \
	 * wait for it */                                                \
	X(WAIT,        "wait",         SBT_CL_SLOW_GROUP, wait)          \
	/* the level moved, the speed probes did not: the code's, or a   \
	 * slowdown they cannot see (memory, front end, an SMT sibling) */ \
	X(PROBE_BLIND, "probes_blind", SBT_CL_OTHER,      probe_blind)   \
	/* spread component: calls with more of one counted event        \
	 * (SBT_EVENTS: key its column in ds->cnt) took longer */        \
	X(COUNTER,     "counter",      SBT_CL_OTHER,      counter)         \
	/* levels over time, not interleaved with the code's modes (in   \
	 * runs of consecutive calls: modetime.c), or changes no probe   \
	 * saw: the machine's where a probe axis moved with them, else   \
	 * unexplained; never the code's modes or steps                  */ \
	X(LEVELS,      "levels",       SBT_CL_UNEXPLAINED, levels)

enum sbt_finding_kind {
#define SBT_FIND_ENUM(kind, json, cls, clause) SBT_FIND_##kind,
	SBT_FINDINGS(SBT_FIND_ENUM)
#undef SBT_FIND_ENUM
	SBT_FIND__N
};
struct sbt_finding {
	int    kind;                  /* enum sbt_finding_kind           */
	double size_ns;               /* its size (FINDINGS.md per kind) */
	double rel;                   /* size_ns / the typical time      */
	int    minor;                 /* not an alarm: too small, not
					 resolved, or a description     */
	int    alarm;                 /* !minor: flags the region        */
	double time_share;            /* of the region's time it adds (a
					 call's mean over its fastest
					 level); NAN: not a time       */
	double run_share;             /* time_share x the region's share
					 of its threads' time; NAN      */
	double var_share;             /* of the region's variance; NAN   */
	double t_ns;                  /* where in time it begins; NAN    */
	uint32_t key;                 /* the group it names (thread, or
					 --by's key); SBT_FIND_NOKEY     */
	size_t count;                 /* samples it concerns             */
	int    parts;                 /* modes, groups or levels; 0      */
	double per_event_ns;          /* OS: cost of one fault; COUNTER:
					 of one event; NAN               */
	double events;                /* OS: faults a call; COUNTER: its
					 events a call; NAN              */
	double per_switch_ns;         /* OS: cost of one switch; NAN     */
	double switches;              /* OS: switches a call; NAN        */
	double resolution_ns;         /* smallest size the data resolve
					 for it; NAN: unknown           */
	double extra_ns;              /* WAIT: the slow share's extra
					 time over the others'; NAN      */
	size_t long_waits, os_waits;  /* WAIT: waits far beyond extra_ns,
					 and of them the OS's            */
	int    ref;                   /* STEP: its index among the group's
					 steps (phases.step[ref]); -1    */
	int    flags;                 /* SBT_FX_*                        */
};

/* The name of a finding kind for data formats: "step", "os_time", ... */
const char *sbt_finding_kind_name(int kind);

/* A region's time and spread taken apart (decomp.c): of the time, the
 * OS's part; of the variance around the median, the components in the
 * order they are taken out (each from what the ones before left), then
 * what is left.  Computed once per region on its samples (not probes;
 * not those left out as preempted), so the same in every group of it.
 * A component not resolved is not claimed: its var_share is 0. */
enum sbt_comp { SBT_COMP_OS, SBT_COMP_COUNTERS, SBT_COMP_PROC,
		SBT_COMP_TIME, SBT_COMP_GROUPS, SBT_COMP_MODES, SBT_COMP_REST,
		SBT_NCOMP };
enum sbt_cost_from { SBT_COST_NONE, SBT_COST_REGION, SBT_COST_RUN,
		     SBT_COST_RECORDER /* measured at start */ };
struct sbt_comp_est {
	int    resolved;              /* significant at SBT_SCORE_Z      */
	double var_share;             /* of var_ns2, 0..1                */
	double size_ns;               /* OS: sd of its fitted time; PROC:
					 in - out of the windows; TIME,
					 GROUPS: highest - lowest level;
					 MODES: first to last; REST: its
					 robust sd                      */
	double time_ns;               /* mean a call adds over its fastest
					 level (REST: NAN)              */
	double resolution_ns;         /* smallest size resolved          */
	uint32_t key;                 /* GROUPS: the slowest thread      */
	uint32_t key_lo;              /* GROUPS: the fastest thread      */
	double t_ns;                  /* TIME: where the highest level
					 begins                          */
	size_t count;                 /* samples it concerns             */
	int    parts;                 /* levels, groups, modes           */
};
struct sbt_decomp {
	size_t n;                     /* samples decomposed              */
	size_t wild;                  /* of them, far out of what every
					 component left (decomp.c
					 mark_wild): in the estimates, not
					 in the spread's shares         */
	double median_ns, mean_ns;    /* mean_ns: of the calls not wild  */
	double region_share;          /* of its threads' time; NAN       */
	double var_ns2;               /* mean square about the mean, of
					 the calls not wild             */
	/* the OS's part of a call's time */
	double faults, switches;      /* a call's mean counts            */
	int    os_counts_vary;        /* counts differ between calls     */
	int    faults_sampled;        /* its fault counts are a storm's
					 estimates (sbt_decomp_in)        */
	double fault_cost_ns, fault_cost_se_ns;   /* NAN: unknown        */
	double switch_cost_ns, switch_cost_se_ns; /* NAN: unknown        */
	int    fault_cost_from, switch_cost_from; /* enum sbt_cost_from  */
	double os_time_ns;            /* a call's, from the known costs  */
	struct sbt_comp_est c[SBT_NCOMP];
	/* counters (SBT_EVENTS), by dataset column (COUNTERS): a call's
	 * mean count, the time one event costs (NAN: not resolved) and its
	 * share of the variance */
	double cnt_mean[SBT_CNT_COLS], cnt_cost_ns[SBT_CNT_COLS];
	double cnt_share[SBT_CNT_COLS];
	/* modes within groups (MODES, when GROUPS is resolved) */
	struct sbt_mode modes[SBT_SCORE_MAX_MODES];
	int nmodes;
	/* for the fault cost pooled over the run (decomp.c) */
	double sxy_f, sxx_f, see_f;   /* within-region sums              */
	size_t dof_f;
};

/* The machine's probe axes (speed.h, axes.h): which one moved. */
enum sbt_axis { SBT_AXIS_NONE, SBT_AXIS_SPEED, SBT_AXIS_MEMORY,
		SBT_AXIS_OS /* the speed probes, on a cpu the OS shared */,
		SBT_AXIS__N };

/* What a group's time does, one class each (class.c decides it, g->cls;
 * report/words.c gives its word).  Decided by its largest finding that
 * is not minor; without one, by what keeps it from being "steady". */
enum sbt_class {
	SBT_CL_STEADY,          /* nothing of 1 % or more, resolved       */
	SBT_CL_MODES,           /* two or more amounts of work            */
	SBT_CL_STEP,            /* one lasting change of level            */
	SBT_CL_PHASES,          /* several changes, or a dip that returned */
	SBT_CL_SLOW_GROUP,      /* a thread/cpu/rank/host slower (--by)   */
	SBT_CL_FAST_GROUP,      /* ... faster                             */
	SBT_CL_BROAD,           /* spread beyond the timer's, no modes    */
	SBT_CL_PROCESSOR,       /* nothing of its own; many samples in the
				   processor's shifts                     */
	SBT_CL_UNRESOLVED,      /* nothing found, but its samples cannot
				   tell 10 % apart                        */
	SBT_CL_FEW,             /* too few samples to judge               */
	SBT_CL_OS,              /* the OS's part of its time or spread    */
	SBT_CL_MACHINE,         /* levels over time a probe axis moved
				   with: the machine's                    */
	SBT_CL_UNEXPLAINED,     /* levels over time no probe saw          */
	SBT_CL_OTHER,           /* a finding of a kind this renderer does
				   not know: named by its kind number     */
	SBT_CL__N
};

/* A group with fewer samples is "too few": no verdict either way. */
#define SBT_CLASS_FEW 10
/* A steady group whose population cannot resolve this share of its
 * typical time is "unresolved": steady or not, its data cannot say. */
#define SBT_CLASS_UNRESOLVED 0.10
/* A group with no finding of its own and at least this share of its
 * samples in the processor's shifts is "processor"; the run's context
 * names what was left out from this share of all samples on. */
#define SBT_CLASS_LARGE 0.10

/* What a group's verdict says beside its findings (verdict.c decides,
 * report/say.c words it): its first SBT_VERDICT_FINDINGS findings that
 * have a clause, then these. */
struct sbt_said {
	int    score_only;            /* the score alone: no samples, or
					 no t_min/t_diff to judge by      */
	int    shared;                /* the shifts it shared with other
					 regions (machine_changes, or
					 0.1 % of its samples left out)   */
	int    slowed;                /* samples in the processor's shifts
					 (speed_n, 0.1 % of them or more) */
	double min_share, min_run_share; /* the shares its alarms needed */
	int    by;                    /* how it was grouped (enum sbt_by):
					 who a group finding names       */
};

/* What was left out of a group's verdict and why, each sample counted
 * once, under the first reason in this order (its mark, mark.h). */
enum sbt_left { SBT_LEFT_CUT, SBT_LEFT_OS, SBT_LEFT_SPEED, SBT_LEFT_MACHINE,
		SBT_LEFT_PROBE, SBT_LEFT_TRANSIENT, SBT_LEFT__N };

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
					 processor's shifts (SBT_MK_SPEED)
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
	size_t machine_late;          /* of those, the ones marked with
					 another region seen at its own
					 levels: its phases were searched
					 with them in (machine.c)       */
	size_t speed_n;               /* samples in processor shifts
					 (speed probes), left out too   */
	size_t after_n;               /* kept samples among their
					 thread's first calls after a
					 probe (afterprobe.c) or holding
					 a probe's detour, left out of
					 the steady ones too            */
	struct sbt_group_os os;       /* the kernel's record of it      */
	/* An OpenMP parallel region by thread (groups.c): the other
	 * threads' mean wait at its closing barrier, and that wait's share
	 * of their time in the region (share + wait).  NAN otherwise. */
	double others_wait_ns, others_wait_rel;
	int    omp_thread;            /* its OpenMP thread number, -1   */
	/* Barriers judged as waits (groups.c): `barrier` its region is an
	 * OpenMP barrier (any --by).  By thread: the thread that waits
	 * least at the barrier (wait_slow_key) is the slow one, the others
	 * wait wait_others_ns more (their mean) than its wait_slow_ns; set
	 * on that thread's parallel region and on the barrier's groups,
	 * where resolved; else wait_slow_key SBT_FIND_NOKEY. */
	int    barrier;
	uint32_t wait_slow_key;
	double wait_slow_ns, wait_others_ns;
	double wait_extra_ns;         /* the slow thread's share minus the
					 others' (medians); NAN: unknown */
	size_t wait_long, wait_os;    /* the others' waits far beyond that
					 extra time, and of them those the
					 kernel's record shows preempted
					 (the waiter, or the slow thread
					 beside it)                     */
	int    wait_flags;            /* SBT_FX_WAIT_OS / _UNEXPL        */
	double wait_base_ns;          /* the parallel region's typical
					 time, what the wait is a share of */
	/* Its level moved (a step) while the speed probes held:
	 * what the probes cannot see (witness.c); 2 where the memory
	 * probes held too (axes.c): unexplained by any probe. */
	int    probe_blind;
	int    step_axis;             /* the probe axis whose shift met
					 one of its steps (enum sbt_axis) */
	/* The score's modes that are levels over time (bits of
	 * score.modes; modetime.c), the calls in them, and the probe axis
	 * that moved where most of them were (enum sbt_axis). */
	unsigned levels;
	size_t levels_n;
	int    levels_axis;
	/* Those levels themselves (centres; shares of the steady calls),
	 * taken out of score.modes, which keeps the code's (its shares
	 * over them). */
	struct sbt_mode level[SBT_SCORE_MAX_MODES];
	int    nlevel;
	int    lone;                  /* no other region of its log has
					 SBT_FEW_SAMPLES samples: nothing
					 moved beside it to witness     */
	/* Its samples (no probes, calibration, resets) and those left
	 * out by reason, from the final marks (analyze.c). */
	size_t left_n, left[SBT_LEFT__N];
	/* How much of the run it took (totals.c). */
	double total_ns;              /* inclusive: every call's time,
					 whatever the verdict left out  */
	double total_se_ns;           /* its standard error where calls
					 went unrecorded or unheld (a
					 random share): 0 when all were */
	double kept_ns;               /* the same of the samples the OS
					 filter kept (the verdict's)    */
	double judged_ns;             /* kept_ns, and each cut call at
					 its group's median: the region's
					 own time, what its share of the
					 run is weighed by (verdict.c)  */
	double excl_ns;               /* less the regions nested in it  */
	double thread_ns;             /* time of the threads it ran on  */
	double share, excl_share;     /* total_ns, excl_ns / thread_ns  */
	int    nested;                /* other regions ran inside it    */
	size_t excl_clamped;          /* calls whose nested regions' time
					 exceeded their own: children
					 clamped to the parent's time   */
	struct sbt_decomp decomp;     /* its region's (decomp.c)        */
	int    nfindings;             /* major findings (not minor)     */
	int    nfind;                 /* all findings in find[]: major
					 by size, then minor by size    */
	struct sbt_finding find[SBT_MAX_FINDINGS];
	struct sbt_said said;         /* what its verdict says beside them */
	int    cls;                   /* enum sbt_class (class.c)        */
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
	/* The kernel's record beside it (machine.c): of the source's
	 * samples in the slow level's span and in the fast one's, the
	 * share preempted (NAN: none there); os set where the slow span's
	 * is larger by SBT_MACHINE_OS_GAP or more: the OS's time, not the
	 * machine's. */
	double slow_t0, slow_t1, fast_t0, fast_t1;
	double pre_slow, pre_fast;
	int os;
};
#define SBT_MACHINE_OS_GAP 0.10

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
	struct sbt_speed mem;         /* memory latency's (axes.c): empty
					 without memory probes           */
	uint8_t *mem_mark;            /* its SBT_MK_SPEED per sample, NULL
					 without memory probes           */
	/* Per sample of the dataset analyzed (nmark = its n, indexed as
	 * ds->s): what the analysis says of it, enum sbt_mark; and the
	 * isolation forest's score (0: unscored), only where asked
	 * (sbt_options.scores), else NULL. */
	uint8_t *mark;
	float *score;
	size_t nmark;
};

#endif
