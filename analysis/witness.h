/*
 * witness.h - the speed probes against the regions' machine events and
 * steps (witness.c).
 */
#ifndef SBT_WITNESS_H
#define SBT_WITNESS_H

#include "result.h"

/* After the machine's events are found: each processor shift's
 * regions_agree, the shifts no region could confirm dropped (their
 * samples the regions' again), and res->ev_probes, whether the probes
 * saw each machine event.  0, or -1 when out of memory. */
int sbt_machine_witness(const struct sbt_dataset *ds, struct sbt_result *res);

/* After the decomposition: each group's probe_blind, a step or a level
 * over time while the speed probes saw nothing. */
void sbt_probe_blind(struct sbt_result *res);

#endif
