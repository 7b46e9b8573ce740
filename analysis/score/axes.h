/*
 * axes.h - the machine's other probe axes beside the processor's speed:
 * memory latency (META MEMLAT, the recorder's pointer chase past the
 * L2, taken with each speed probe).
 *
 * The memory-latency probes go through the processor's method (speed.c:
 * per thread levels, a shift off the normal level beyond what they
 * resolve, kept only where the regions in its window moved its way), on
 * their own timelines (sbt_result.mem).  A kept shift is the machine's:
 * the samples in its window are left out of their regions' verdicts as
 * the processor's are (SBT_MK_SPEED).  A log without such probes gets
 * nothing of this: its analysis is what it was.
 */
#ifndef SBT_AXES_H
#define SBT_AXES_H

#include "dataset.h"
#include "result.h"

/* The memory axis's timelines and shifts into res->mem, its marks into
 * res->mem_mark and res->mark.  0, -1 out of memory. */
int sbt_axes_analyze(const struct sbt_dataset *ds, struct sbt_result *res);

/* Mark again the memory shifts' samples SBT_MK_SPEED in res->mark,
 * after the processor's marks were redone (speed.c's
 * sbt_speed_drop_unwitnessed clears every SBT_MK_SPEED). */
void sbt_axes_remark(struct sbt_result *res);

/* Whether the memory axis of source src held at t_ns (a usable
 * timeline, no shift within tol_ns): 1 held, 0 moved, -1 no axis. */
int sbt_axes_held(const struct sbt_result *res, uint32_t src, double t_ns,
		  double tol_ns);

void sbt_axes_free(struct sbt_result *res);

#endif
