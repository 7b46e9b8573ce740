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

/* Set switches, faults, SBT_SF_PREEMPTED and SBT_SF_OS_LOST of samples
 * [first, last) of ds (one source's) from its events rec[0 .. n), which
 * this sorts.  Samples of threads with no events keep zero counts: the
 * kernel watched every thread of a log whose header says so. */
void sbt_os_join(struct sbt_dataset *ds, size_t first, size_t last,
		 struct sbt_os_rec *rec, size_t n);

#endif
