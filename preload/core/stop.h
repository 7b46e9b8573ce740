/*
 * stop.h - where a thread's inline fast path stops: hot.end, and
 * hot.end_saved, what hot.end is whenever no skipped call is open.  The
 * recorder writes both through these alone (thread.h states the
 * invariants); the app's inline markers write hot.end for skipped calls
 * as sbt_stop_skip / sbt_stop_unskip do (sbtmark_hot.h, the ABI).
 *
 * Relaxed atomic stores: CLOSE shuts another thread's from its own.
 */
#ifndef SBT_STOP_H
#define SBT_STOP_H

#include "thread.h"

/* The fast path may run up to `end` (NULL: never): hot.end from now on,
 * or once the skipped calls open now are closed. */
static inline void sbt_stop_at(struct sbt_thread *t, struct sbt__ev *end)
{
	__atomic_store_n(&t->hot.end_saved, end, __ATOMIC_RELAXED);
	__atomic_store_n(&t->hot.end, t->hot.nskip ? NULL : end,
			 __ATOMIC_RELAXED);
}

/* Every marker of the thread to the recorder, until sbt_stop_at (CLOSE,
 * fork, SBT_MAX_MB's level 0 ending). */
static inline void sbt_stop_shut(struct sbt_thread *t)
{
	sbt_stop_at(t, NULL);
}

/* A skipped call opened: only the inline skip paths run. */
static inline void sbt_stop_skip(struct sbt_thread *t)
{
	__atomic_store_n(&t->hot.end, NULL, __ATOMIC_RELAXED);
}

/* The last skipped call closed: back to what sbt_stop_at said. */
static inline void sbt_stop_unskip(struct sbt_thread *t)
{
	__atomic_store_n(&t->hot.end, __atomic_load_n(&t->hot.end_saved,
			 __ATOMIC_RELAXED), __ATOMIC_RELAXED);
}

#endif
