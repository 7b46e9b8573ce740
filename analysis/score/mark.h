/*
 * mark.h - what the analysis says of each sample.
 *
 * The dataset holds what the logs say (sample.flags: a probe, migrated,
 * preempted ...); what the analysis concludes of a sample lives in its
 * result, one byte a sample (sbt_result.mark, indexed as dataset.s), so
 * that the dataset is never changed by analyzing it: any number of
 * analyses of one dataset, in any order, each says the same.
 */
#ifndef SBT_MARK_H
#define SBT_MARK_H

#include <stdint.h>

enum sbt_mark {
	SBT_MK_DROPPED  = 1u << 0,   /* left out by the drop filters or the
	                                kernel's record (run.c)              */
	SBT_MK_TRANSIENT = 1u << 1,  /* in a warm-up or a short excursion     */
	SBT_MK_MACHINE  = 1u << 2,   /* in a machine-wide shift (machine.c)   */
	SBT_MK_SPEED    = 1u << 3,   /* its thread's processor ran off speed
	                                (speed.c): the processor's           */
	SBT_MK_AFTER_PROBE = 1u << 4, /* among its thread's first calls after
	                                a speed probe (afterprobe.c); once
	                                analyzed, also holding a probe's
	                                detour (run.c): left out of the
	                                verdict                              */
};

#endif
