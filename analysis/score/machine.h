/*
 * machine.h - shifts that are the machine's, not the code's (machine.c).
 */
#ifndef SBT_MACHINE_H
#define SBT_MACHINE_H

#include "result.h"

/* Find machine-wide shifts among the groups' phases (machine.c): fills
 * res->ev, sets phase.machine, g->machine_*, and marks the samples of
 * shifted periods SBT_MK_MACHINE in res->mark.  gid[i]: the group
 * (index into res->g) of sample i, UINT32_MAX for none.  0, or -1 on allocation failure. */
int sbt_machine_events(const struct sbt_dataset *ds, struct sbt_result *res,
		       const uint32_t *gid);

#endif
