/*
 * counters.h - the events named in SBT_EVENTS, counted per thread.
 *
 * SBT_EVENTS=instructions,cycles,branch-misses (perf's generic names or
 * libpfm4's, evname.h): each recording thread opens one perf event group
 * of them when it attaches (cold), and the recorder reads the group with
 * one read() around every sample, outside the timed window: START reads
 * it before its clock, STOP after its own (hot.c), into COUNT events
 * (format/sbtlog.h).  A thread that counts takes the recorder's general
 * path for every marker, like one that counts cycles; with SBT_EVENTS
 * unset no thread counts and nothing of this runs.
 *
 * An event the kernel refuses (no PMU, a seccomp policy, paranoid 3) is
 * told once and left out; the others are counted.  Which events were
 * counted, and why the others were not, goes into the log as META
 * COUNTER entries.
 */
#ifndef SBT_COUNTERS_H
#define SBT_COUNTERS_H

#include <stdint.h>
#include "diag.h"

struct sbt_ctrs;

/* The calling thread's group, NULL when SBT_EVENTS is unset, none of its
 * events can be counted, or this thread could not open them (out of fds:
 * told once).  The first call decides for the process which events can. */
SBT_HIDDEN struct sbt_ctrs *sbt_ctrs_open(void);

/* COUNT events per read: enabled, running, then one per counter. */
SBT_HIDDEN uint32_t sbt_ctrs_nev(const struct sbt_ctrs *c);

/* Bit k: counter k is in the group whose time enabled / running a
 * reading carries (scale it when multiplexed); the others are exact. */
SBT_HIDDEN uint32_t sbt_ctrs_scaled(const struct sbt_ctrs *c);

/* Read the group into v[0 .. sbt_ctrs_nev()): time enabled, running,
 * the counters.  A failed read leaves all zeros (enabled 0: no reading). */
SBT_HIDDEN void sbt_ctrs_read(const struct sbt_ctrs *c, uint64_t *v);

/* Close the group (NULL is fine). */
SBT_HIDDEN void sbt_ctrs_close(struct sbt_ctrs *c);

/* 1 when some thread counts (the log is then format version 4). */
SBT_HIDDEN int sbt_ctrs_on(void);

/* The META COUNTER entries of every event named, into a new log. */
SBT_HIDDEN void sbt_ctrs_meta(void);

/* Around fork (recorder.c's handlers): the list being decided is never
 * half-made in the child. */
SBT_HIDDEN void sbt_ctrs_fork_lock(void);
SBT_HIDDEN void sbt_ctrs_fork_unlock(void);

#endif
