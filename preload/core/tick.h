/*
 * tick.h - a recording thread's periodic off-window chores.
 *
 * The same moments that take a speed probe (probe.h) drain the thread's
 * kernel-event ring when it is past half full, so that it never fills
 * between chunk changes.
 *
 * The work rides on marker calls that already left the inline fast path:
 * the fast path stops at t->tick_at (thread.h), an event count chosen
 * from the thread's observed rate of events, so that the fast path itself
 * gains not one instruction.  Nothing runs inside a timed window: a tick
 * comes before a START's clock read with no region open, else after a
 * STOP's.  When a region of the thread is open the detour's span - from
 * that STOP's clock read to a read at the tick's very end, and the way of
 * a START that met the limit first - follows as SPEED events flagged
 * SBT_SPEED_SPAN, for the reader to take out of the enclosing samples.
 * With none open the tick's span is written too: it marks where the
 * thread left the application, so that the analyzer can leave out the
 * calls right after, which meet a branch predictor the detour stirred.
 */
#ifndef SBT_TICK_H
#define SBT_TICK_H

#include <stdint.h>
#include "diag.h"

struct sbt_thread;

/* A detour inside open regions, from `a` (wall ticks of a clock read at
 * its start) to a clock read now, as a SPEED event flagged SBT_SPEED_SPAN
 * for the reader to take out of them; the read comes after the event's
 * slot is claimed (a new chunk, if needed, inside the span).  Busy gate
 * shut by the caller.  Returns the event (NULL: no room), for
 * sbt_speed_span_to. */
SBT_HIDDEN struct sbt_event *sbt_speed_span(struct sbt_thread *t,
					    uint64_t a);

/* Stretch span e (from sbt_speed_span) to end at wall ticks b, a later
 * clock read of the same marker: its word alone is stored again, so
 * the stream holds a whole span at every instant, the first length or
 * this one. */
SBT_HIDDEN void sbt_speed_span_to(struct sbt_event *e, uint64_t b);

/* The general path met t->tick_at: probe and drain as due, then set the
 * next tick_at.  `now`: wall ticks of the STOP's clock read that brought
 * it here (the detour's span starts there), or 0 with no region open.
 * Busy gate shut by the caller; never between a START's read and its
 * STOP's. */
SBT_HIDDEN void sbt_speed_tick(struct sbt_thread *t, uint64_t now);

#endif
