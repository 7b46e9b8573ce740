/*
 * due.h - a recording thread's deadlines, in one place: where its inline
 * fast path stops next for the recorder's own work.  Three, each an
 * event position in the current chunk:
 *
 *   chunk end   chunk_end: a new chunk (recorder.c)
 *   pair probe  pair_at: an empty marker pair in situ, before a START,
 *               (period, 2 period] events on, drawn at random
 *               (SBT_PROBE_PERIOD)
 *   tick        tick_at: the speed probe and the kernel's events
 *               (tick.c), tick_gap events past the last tick (tick_from
 *               in the current chunk; tick_done counts the events of the
 *               chunks before since that tick)
 *
 * sbt_due_next finds the nearest (recorder.c stops the fast path there,
 * unless the thread has another reason to stop it); path.c runs what is
 * due, before a START's event and after a STOP's; tick.c moves the tick
 * on at every tick.
 */
#ifndef SBT_DUE_H
#define SBT_DUE_H

#include <stdint.h>
#include "thread.h"

#define SBT_TICK_GAP_FIRST 64u         /* events before a thread's first */

/* Every pair probe's period, SBT_PROBE_PERIOD (constructor time; 0:
 * none). */
SBT_HIDDEN void sbt_pair_setup(uint32_t period);
SBT_HIDDEN uint32_t sbt_pair_period(void);

/* The nearest deadline from hot.cur: a fresh pair probe drawn, the tick
 * placed afresh when it lies outside the current chunk. */
SBT_HIDDEN struct sbt__ev *sbt_due_next(struct sbt_thread *t);

/* A thread's first tick gap: none when no tick is needed (period 0). */
static inline void sbt_due_first(struct sbt_thread *t, uint64_t period)
{
	t->tick_gap = period ? SBT_TICK_GAP_FIRST : 0;
}

/* A new chunk, from hot.cur: the tick's count goes on over the chunks. */
static inline void sbt_due_chunk_leaving(struct sbt_thread *t)
{
	if (t->tick_from)
		t->tick_done += (uint32_t)(t->hot.cur - t->tick_from);
}

/* ... and starts afresh in it, at hot.cur (after the chunk is set). */
static inline void sbt_due_chunk_entered(struct sbt_thread *t)
{
	t->tick_from = t->hot.cur;
}

/* A pair probe is due. */
static inline int sbt_due_pair(const struct sbt_thread *t)
{
	return t->pair_at && t->hot.cur >= t->pair_at;
}

/* A tick is due. */
static inline int sbt_due_tick(const struct sbt_thread *t)
{
	return t->tick_at && t->hot.cur >= t->tick_at;
}

/* A START enters the recorder: inside open regions with a pair probe
 * due, the clock now - the probe's detour, taken out of them, starts
 * here, the lookups on the way to the general path included. */
static inline void sbt_due_pair_enter(struct sbt_thread *t)
{
	uint32_t aux;

	t->pair_in = t->hot.depth && sbt_due_pair(t) ? sbt_read_stop(&aux)
						     : 0;
}

/* The pair probe is taken: where its detour began (sbt_due_pair_enter's
 * read, 0: none). */
static inline uint64_t sbt_due_pair_take(struct sbt_thread *t)
{
	uint64_t in = t->pair_in;

	t->pair_at = NULL;
	t->pair_in = 0;
	return in;
}

/* A START inside open regions met the tick at wall ticks `in`: it stays
 * due, for the next STOP, whose span starts there. */
static inline void sbt_due_tick_meet(struct sbt_thread *t, uint64_t in)
{
	t->tick_in = in;
}

/* ... and that START wrote event e (NULL: none). */
static inline void sbt_due_tick_met_by(struct sbt_thread *t,
				       struct sbt__ev *e)
{
	t->tick_ev = e;
}

/* A tick chose the next gap (tick.c: from the thread's rate). */
static inline void sbt_due_tick_gap(struct sbt_thread *t, uint32_t gap)
{
	t->tick_gap = gap;
}

/* The tick ran: the next counts its gap from hot.cur. */
static inline void sbt_due_ticked(struct sbt_thread *t)
{
	t->tick_done = 0;
	t->tick_from = t->hot.cur;
	t->tick_at = t->tick_from + t->tick_gap;
	if (t->tick_at > t->chunk_end)
		t->tick_at = t->chunk_end;
	t->tick_in = 0;
	t->tick_ev = NULL;
}

/* No tick for this thread (no clock rate, no chunk yet). */
static inline void sbt_due_no_tick(struct sbt_thread *t)
{
	t->tick_at = NULL;
}

#endif
