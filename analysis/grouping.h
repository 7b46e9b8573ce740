/*
 * grouping.h - the samples into groups (grouping.c).
 */
#ifndef SBT_GROUPING_H
#define SBT_GROUPING_H

#include "result.h"

/* Every sample but those a reset discarded into its group: a dense
 * number for each (region, o->by's key) in gid[] (UINT32_MAX: none),
 * res->g with each group's first and n, and res->order, the samples laid
 * out group by group (a counting sort: stable, so each group stays in
 * log order).  A group's region, source and key are its last sample's.
 * 0, or -1 when out of memory. */
int sbt_group_samples(const struct sbt_dataset *ds,
		      const struct sbt_options *o, struct sbt_result *res,
		      uint32_t *gid);

#endif
