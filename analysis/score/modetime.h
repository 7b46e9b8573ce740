/*
 * modetime.h - whether a group's modes are the code's or levels over
 * time (modetime.c).
 *
 * A code's modes are amounts of work its calls alternate between: they
 * are interleaved call by call all through the run.  Levels the machine
 * made (its drift, the host's turbulence, a time-sliced core) come in
 * runs of consecutive calls, one level at a time.  The score's mode
 * finder sees only the values, so it finds both; this looks at the same
 * steady samples in time order and tells them apart.
 */
#ifndef SBT_MODETIME_H
#define SBT_MODETIME_H

#include "dataset.h"
#include "result.h"

/* Each group's g->levels: the score's modes that are levels over time,
 * not interleaved with the code's modes, and which probe axis (if any)
 * moved where they were (g->levels_axis).  After the rescoring, on the
 * final marks.  A group this cannot look at (out of memory, several
 * logs without a common clock) keeps all its modes.  0. */
int sbt_modes_in_time(const struct sbt_dataset *ds,
		      const struct sbt_options *o, struct sbt_result *res);

/* The mode families of one group's steady samples v[0..n), in time
 * order, against modes m[0..nm) (centres ascending): the bits of the
 * modes that are levels over time (every mode outside the family of
 * interleaved modes holding the most samples; a family is two modes or
 * more).  0 where the samples cannot tell (then all are the code's).
 * a[0..n) is scratch. */
unsigned sbt_mode_levels(const double *v, size_t n, const struct sbt_mode *m,
			 int nm, uint8_t *a);

#endif
