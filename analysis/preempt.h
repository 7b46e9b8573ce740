/*
 * preempt.h - the preemption rule: per region, are the samples the
 * kernel saw preempted left out (preempt.c)?
 */
#ifndef SBT_PREEMPT_H
#define SBT_PREEMPT_H

#include "result.h"

/* Per region of ds (ds->nregions, at least one), SBT_PRE_LEAVE,
 * SBT_PRE_HALF or SBT_PRE_OWN, on -j `jobs` threads; the same for any
 * jobs.  Freed by the caller; NULL when out of memory. */
uint8_t *sbt_preempt_rule(const struct sbt_dataset *ds, int jobs);

#endif
