/*
 * prepare.h - the log's fresh pages readied off the marking threads.
 *
 * A new page of the log costs the kernel 2-4 us (allocate it on disk, zero
 * it into the page cache, map it): about 20 ns a sample for a thread that
 * does nothing but mark.  One thread a process, the preparer, keeps the
 * log allocated and faulted in ahead of the chunks taken
 * (logfile.h: sbt_log_prepare); a marking thread taking a chunk then only
 * claims it.  Where the preparer runs is SBT_PREPARE's (config.h):
 *   auto   the cpus the process started with (before main: taskset's,
 *          not an OpenMP runtime's later binding of its threads); when
 *          that is one cpu (taskset -c N), the other cpus - the kernel
 *          work moves off the app's cpu; with no other cpu, no preparer
 *   off    no preparer: a thread readies its own chunks as it takes them
 *   LIST   these cpus (e.g. 0,2-3)
 * Without a preparer, or when one falls behind, the thread that takes a
 * chunk readies what is missing itself, as before: never a wait.
 */
#ifndef SBT_PREPARE_H
#define SBT_PREPARE_H

#include "diag.h"
#include "logfile.h"

/* Parse SBT_PREPARE (once, the library's constructor). */
SBT_HIDDEN void sbt_prep_setup(void);

/* Start this process's preparer for lf (a fresh log of this pid).  A
 * fork child's log gets a preparer of its own.  Nothing when off or
 * when the thread cannot be made. */
SBT_HIDDEN void sbt_prep_start(struct sbt_logfile *lf);

#endif
