/*
 * speed.h - the processor's own speed over the run, from the recorder's
 * speed probes (SBT_SPEED_US): a fixed register-only workload timed every
 * ~100 us of each thread's marking.
 *
 * Per thread the probes' durations are cut into levels by the same
 * detector as a region's steps (phase.c).  The level most of the probes
 * hold is the thread's normal speed; a level off it by more than the
 * probes resolve (resolution_rel) is a processor shift, and every region
 * sample of that thread in its window is the processor's (SBT_MK_SPEED):
 * left out of the region's own verdict, whether or not the region has
 * neighbours.  The same per cpu, where threads shared it or migrated
 * (their probes pooled: a cpu whose threads each probe too rarely for a
 * timeline still has one), its shifts marking every sample that ran
 * there.  Per cpu and per host the probes' typical durations are also
 * compared as groups are (groups.c): the slow core or node.
 */
#ifndef SBT_SPEED_H
#define SBT_SPEED_H

#include <stddef.h>
#include <stdint.h>

#include "dataset.h"
#include "mark.h"

#define SBT_SPEED_MIN_PROBES 60     /* a thread with fewer: no timeline */
#define SBT_SPEED_USABLE 0.10       /* a timeline resolving coarser than
				       this says nothing of the run      */
#define SBT_SPEED_REACH 2           /* a window reaches this many probe
				       gaps beyond its outer probes, no
				       further: claimed where probed     */
#define SBT_SPEED_MAX_REGIONS 8
#define SBT_SPEED_OS_SHARE 0.10     /* a shift whose samples the kernel
					shows preempted this often is the
					OS's: another task shared the cpu */

#define SBT_SPEED_ALL_THREADS UINT32_MAX  /* a cpu's timeline: its threads */

/* A window where a thread's (or a cpu's) processor ran off its normal
 * speed. */
struct sbt_speed_shift {
	uint32_t source, thread;      /* SBT_SPEED_ALL_THREADS: a cpu's     */
	unsigned cpu;                 /* most of its probes ran there     */
	unsigned nthreads;            /* threads whose probes it holds    */
	double t0_ns, t1_ns;          /* the window (probes' midpoints;
					 -inf / +inf: from the thread's
					 start / to its end)             */
	double first_ns, last_ns;     /* its first and last probe        */
	double rel;                   /* level / normal - 1 (+: slower)   */
	size_t probes;                /* in the window                    */
	size_t samples;               /* region samples marked            */
	int nregions;                 /* regions with samples in it       */
	uint32_t regions[SBT_SPEED_MAX_REGIONS];
	int regions_agree;            /* the other witness: a machine event
					 (regions moving together) in its
					 window 1, none 0 (such a shift is
					 dropped: sbt_speed_drop_unwitnessed),
					 -1 cannot tell (fewer than two
					 regions in it, or than two
					 witness_regions)                */
	int witness_regions;          /* its regions with a phase's worth
					 of samples in the window here
					 (SBT_PHASE_MIN_SEG): the shared
					 shift machine.c looks for can be
					 seen only where two have       */
	int regions_moved;            /* its regions' time in the window
					 moved its way beyond their
					 resolution: 1, did not 0 (such a
					 shift is dropped: sbt_speed's
					 ndisagree), -1 cannot tell      */
	double os_share;              /* of its samples (its thread's, or
					 its cpu's) between its first and
					 last probe, those the kernel shows
					 preempted, or waiting on a thread
					 preempted: SBT_SPEED_OS_SHARE or
					 more and it is the OS's (osh)   */
};

/* Why a timeline is unusable (resolution coarser than SBT_SPEED_USABLE). */
enum sbt_speed_cause { SBT_SPEED_OK, SBT_SPEED_NOISY, SBT_SPEED_COARSE };

/* A thread's timeline, or a cpu's (thread SBT_SPEED_ALL_THREADS). */
struct sbt_speed_thread {
	uint32_t source, thread;
	unsigned cpu;                 /* a cpu's timeline: the cpu        */
	size_t probes;
	double normal_ns;             /* the level most probes hold       */
	double sd_rel;                /* probes' robust spread / normal   */
	double resolution_rel;        /* smallest shift a level resolves  */
	int nlevels;                  /* levels the detector found        */
	int unusable;                 /* enum sbt_speed_cause: coarser than
					 SBT_SPEED_USABLE, no shift from it:
					 NOISY the probes' own spread (a
					 busy memory system, a shared
					 core), COARSE the clock's quantum
					 against a probe's length        */
};

/* One cpu or host, against the others (--by cpu, --by host). */
struct sbt_speed_unit {
	uint32_t key;                 /* cpu, or the host's first source  */
	size_t probes;
	double level_ns, se_ns;       /* trimmed mean of its probes       */
	double delta_rel;             /* against the others' median       */
	double resolution_rel;
	int flagged;
};

struct sbt_speed {
	size_t probes;
	double cadence_us;            /* of the first source with probes  */
	uint32_t ops;
	double resolution_rel;        /* the coarsest usable thread's     */
	double usable_rel;            /* a timeline coarser: unusable     */
	size_t unusable;              /* timelines too coarse to use      */
	double unusable_rel;          /* the coarsest of them; NAN        */
	int unusable_cause;           /* enum sbt_speed_cause, its        */
	size_t ndisagree;             /* shifts dropped: their regions did
					 not move their way ("probes
					 disagree")                      */
	size_t nunresolved;           /* shifts dropped: within
					 resolution_rel, the resolution
					 said for the probes              */
	struct sbt_speed_thread *th;  size_t nth;
	struct sbt_speed_shift *sh;   size_t nsh;
	/* Per cpu, where its probes tell more than its threads' do: cpus
	 * that several threads shared, or that threads migrated across.
	 * The same detector on the probes of every thread there. */
	struct sbt_speed_thread *ct;  size_t nct;
	struct sbt_speed_shift *csh;  size_t ncsh;
	struct sbt_speed_unit *un;    size_t nun;
	/* Shifts, of threads or cpus, where the OS shared the cpu with
	 * another task (os_share): not the processor's, no sample marked. */
	struct sbt_speed_shift *osh;  size_t nosh;
	int by;                       /* what units are: 0 none, 1 cpu,
					 2 host                          */
};

/* Build the timelines, find the shifts, mark the samples in them
 * SBT_MK_SPEED in marks[] (one per sample of ds; clearing older marks
 * first).  The probes in sbt_probe_cmp order (the readers').  by_unit:
 * 1 compare cpus, 2 hosts, 0 neither.  0, or -1 when out of memory (sp
 * then empty). */
int sbt_speed_analyze(const struct sbt_dataset *ds, int by_unit,
		      struct sbt_speed *sp, uint8_t *marks);

/* The same with timelines coarser than `usable` (not SBT_SPEED_USABLE)
 * unusable: a probe whose own spread is wider (memory latency's). */
int sbt_speed_analyze_usable(const struct sbt_dataset *ds, int by_unit,
			     double usable, struct sbt_speed *sp,
			     uint8_t *marks);

/* Drop the shifts whose regions_agree is 0: the coincidence witness
 * could have seen them (two regions with a phase's worth of calls in the
 * window) and saw no shift they shared.  The probes then disagree with
 * the code (counted in ndisagree, said once for the run), and the
 * samples in those windows are the regions' again: SBT_MK_SPEED in
 * marks[] is redone from the shifts kept.  The number dropped. */
size_t sbt_speed_drop_unwitnessed(const struct sbt_dataset *ds,
				  struct sbt_speed *sp, uint8_t *marks);

void sbt_speed_free(struct sbt_speed *sp);

/* Whether a shift of source `src` covers t_ns, within tol_ns: 1 yes, 0
 * no, -1 when that source has no usable timeline. */
int sbt_speed_covers(const struct sbt_speed *sp, uint32_t src,
		     double t_ns, double tol_ns);

#endif
