/*
 * evname.h - event names (SBT_EVENTS) to perf_event_attr.
 *
 * perf's generic names (instructions, cycles, branch-misses, task-clock,
 * page-faults, ...) from a table of our own, then, where libpfm4 is
 * installed, every name libpfm4 knows (PMU-specific names such as
 * "RETIRED_INSTRUCTIONS" or "amd64_fam17h::RETIRED_BRANCH_INSTRUCTIONS").
 * libpfm4 is loaded at run time, and only when a name is not in the
 * table: a recorder without SBT_EVENTS never loads it.
 *
 * Shared by the recorder (counters.c) and sbt-events (tools/), which
 * sbt-run asks before launching, so both know the same names.
 */
#ifndef SBT_EVNAME_H
#define SBT_EVNAME_H

#include <linux/perf_event.h>
#include <stdio.h>

#define SBT_EVNAME_MAX 127             /* longest name accepted          */

/* Resolve `name` into a's type, config, config1 and config2 (the rest of
 * a is left alone).  0, or -1 when no table knows the name. */
int sbt_evname_resolve(const char *name, struct perf_event_attr *a);

/* Which perf group an event can share, by the kernel's PMU behind it:
 * 0 hardware (and every raw PMU event), 1 the software events of one
 * PMU (faults, switches, migrations, ...), 2 task-clock, 3 cpu-clock.
 * The clocks each have a PMU of their own; task-clock read as a sibling
 * of another software event stayed at 0, or too low, in most runs on
 * Linux 6.18. */
#define SBT_EVCLASS_N 4
int sbt_evname_class(const struct perf_event_attr *a);

/* Print every name known, one per line, generic ones first, then the
 * libpfm4 events of the PMUs present ("pmu::event"). */
void sbt_evname_list(FILE *f);

/* Split SBT_EVENTS-style text at commas (spaces around names ignored):
 * calls fn(name, arg) for each non-empty name, in order, with a NUL-
 * terminated copy (a longer name than SBT_EVNAME_MAX is cut there, and
 * then known to no table).  Returns the number of names. */
int sbt_evname_split(const char *list,
		     void (*fn)(const char *name, void *arg), void *arg);

#endif
