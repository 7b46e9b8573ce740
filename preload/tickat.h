/*
 * tickat.h - where a thread's next tick falls (thread.h: tick_at,
 * tick_gap, tick_from, tick_done), in one place: the recorder places it
 * when a thread starts and at each new chunk and stops the fast path
 * there; tick.c moves it on at every tick.
 *
 * The fast path runs up to tick_at, tick_gap events past the last tick
 * (tick_from, in the current chunk; tick_done counts the events of the
 * chunks before since that tick).
 */
#ifndef SBT_TICKAT_H
#define SBT_TICKAT_H

#include <stdint.h>
#include "thread.h"

#define SBT_TICK_GAP_FIRST 64u         /* events before a thread's first */

/* A thread's first gap: none when no tick is needed (period 0). */
static inline void sbt_tick_first(struct sbt_thread *t, uint64_t period)
{
	t->tick_gap = period ? SBT_TICK_GAP_FIRST : 0;
}

/* A new chunk, from hot.cur: the count goes on over the chunks. */
static inline void sbt_tick_chunk(struct sbt_thread *t)
{
	if (t->tick_from)
		t->tick_done += (uint32_t)(t->hot.cur - t->tick_from);
}

/* ... and starts afresh in it, at hot.cur (after the chunk is set). */
static inline void sbt_tick_chunk_from(struct sbt_thread *t)
{
	t->tick_from = t->hot.cur;
}

/* The fast path's end `end` stopped at the tick, placed afresh when it
 * lies outside the current chunk (`left` events remain there).  A tick
 * that a START inside open regions met (tick_in) stays due at once: the
 * next STOP must write its span while the regions it lies in are still
 * open, as the reader takes a span out of the samples open when it
 * meets it. */
static inline struct sbt__ev *sbt_tick_limit(struct sbt_thread *t,
					     struct sbt__ev *end, size_t left)
{
	if (!t->tick_gap)
		return end;
	if ((uintptr_t)t->tick_at <= (uintptr_t)t->chunk ||
	    (uintptr_t)t->tick_at > (uintptr_t)t->chunk_end)
		t->tick_at = t->tick_in ? t->hot.cur :
			     t->hot.cur + (t->tick_gap < left ? t->tick_gap :
					   left);
	return end && t->tick_at < end ? t->tick_at : end;
}

/* A tick chose the next gap (tick.c: from the thread's rate). */
static inline void sbt_tick_gap(struct sbt_thread *t, uint32_t gap)
{
	t->tick_gap = gap;
}

/* The tick ran; the next counts its gap from hot.cur. */
static inline void sbt_tick_moved(struct sbt_thread *t)
{
	t->tick_done = 0;
	t->tick_from = t->hot.cur;
	t->tick_at = t->tick_from + t->tick_gap;
	if (t->tick_at > t->chunk_end)
		t->tick_at = t->chunk_end;
}

/* No tick for this thread (no clock rate, no chunk yet). */
static inline void sbt_tick_none(struct sbt_thread *t)
{
	t->tick_at = NULL;
}

#endif
