/*
 * groups.h - is one thread / cpu / rank / host of a region different from the others (groups.c).
 */
#ifndef SBT_GROUPS_H
#define SBT_GROUPS_H

#include "result.h"

/* Compare every group with the other groups of its region (groups.c):
 * sets flagged / delta_*.  res->g sorted as sbt_analyze leaves it. */
void sbt_groups_compare(struct sbt_result *res, double eps);

/* OpenMP parallel regions by thread (groups.c): for each group of an
 * "omp parallel @ LOC" region, the other threads' wait at "omp barrier
 * @ LOC" (others_wait_*) and its OpenMP thread number when the log says
 * (omp_thread).  After sbt_groups_compare. */
void sbt_groups_omp(struct sbt_result *res, const struct sbt_dataset *ds);

/* Barriers judged as waits (groups.c): marks every group of an OpenMP
 * barrier region (g->barrier); by thread (by_thread 1) or by none (0),
 * the thread that waits least at each barrier is the slow one: the
 * barrier's groups and (by thread) its parallel region's group get
 * wait_* (result.h), the others' wait set against its share's extra
 * time and the kernel's record; no barrier group is flagged as slower
 * for waiting.  -1: other --by, marked only.  After sbt_groups_omp. */
void sbt_groups_barriers(struct sbt_result *res, const struct sbt_dataset *ds,
			 int by_thread);

#endif
