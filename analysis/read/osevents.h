/*
 * osevents.h - the kernel's record of a log's threads (context switches,
 * page faults, lost events) laid onto its samples.
 */
#ifndef SBT_OSEVENTS_H
#define SBT_OSEVENTS_H

#include "dataset.h"

/* One OS event of a log, as the reader found it. */
struct sbt_os_rec {
	double   t_ns;               /* since the source's start (as t_ns)   */
	uint32_t thread;             /* sbtmark thread index                  */
	uint16_t kind;               /* enum sbt_os_kind                      */
	uint32_t count;              /* LOST: events lost                     */
};

/* How far a thread's record reaches: every event up to until_ns. */
struct sbt_os_cover {
	double   until_ns;
	uint32_t thread;
};

/* Set switches, faults, SBT_SF_PREEMPTED, SBT_SF_TEAM_PREEMPTED and
 * SBT_SF_OS_LOST of samples
 * [first, last) of ds (one source's) from its events rec[0 .. n) and the
 * reach of each thread's runs cov[0 .. ncov) (one per run); sorts both.
 * A sample past its thread's reach, or of a thread without runs (its
 * events could not be opened, or it never drained), is SBT_SF_OS_LOST:
 * its zero counts are unknown, not zero.  Each sample on its own, on up
 * to `jobs` threads (-j). */
void sbt_os_join(struct sbt_dataset *ds, size_t first, size_t last,
		 struct sbt_os_rec *rec, size_t n,
		 struct sbt_os_cover *cov, size_t ncov, int jobs);

/* Set `switched` of the probes of source src in ds from rec[0 .. n),
 * sorted by sbt_os_join: a switch-out stamped inside a probe's span. */
void sbt_os_join_probes(struct sbt_dataset *ds, uint32_t src,
			const struct sbt_os_rec *rec, size_t n);

#endif
