/*
 * totals.h - how much of the run each group took (totals.c).
 */
#ifndef SBT_TOTALS_H
#define SBT_TOTALS_H

#include "result.h"

/* Every group's total_ns, excl_ns, thread_ns, shares and nested
 * (totals.c), from the durations as o analyzes them.  0 or -1 (OOM). */
int sbt_totals(const struct sbt_dataset *ds, const struct sbt_options *o,
	       struct sbt_result *res);

/* Sparse recording: the time all g->calls took, estimated from the
 * recorded ones whatever the verdict left out (total_ns, the report's
 * total), and its standard error (random sampling of the recorded in
 * calls, with the finite-population correction).  0 error when every
 * call was recorded. */
void sbt_group_total(const struct sbt_group *g, double *total_ns,
		     double *se_ns);

#endif
