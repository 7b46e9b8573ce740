/*
 * tick.c - a recording thread's periodic off-window chores: a speed probe
 * when one is due (probe.h), a drain of the kernel's events, and the
 * spans of these detours for the reader.
 *
 * Scheduling (due.h): the fast path runs up to t->tick_at, `tick_gap`
 * events past the last tick.  Each tick measures the events per tick of
 * wall clock since the previous one and sets the gap so that the next
 * lands about when the next probe is due; a thread that marks rarely
 * gets a gap of one event, i.e. at most one probe a marker call.
 */
#include "tick.h"
#include "append.h"
#include "due.h"
#include "probe.h"
#include "recorder.h"
#include "thread.h"

#include <stddef.h>

#define GAP_MAX       (1u << 16)       /* events between ticks, at most */

/* Ticks as an event id (SBT_EV_ID_BITS). */
static uint32_t clamp(uint64_t ticks)
{
	return ticks < SBT_MAX_SITES ? (uint32_t)ticks : SBT_MAX_SITES - 1;
}

/* Append one SPEED event (dropped when the log has no room). */
static void put(struct sbt_thread *t, uint32_t flags, uint64_t ticks,
		uint64_t at, uint32_t aux)
{
	(void)sbt_ev_append(t, at, aux, SBT_EV_WORD(SBT_EV_SPEED, flags,
						    clamp(ticks)));
}

/* Commit span e, from a to a clock read now: the read last, only the
 * return left after it. */
static void span_now(struct sbt_event *e, uint64_t a)
{
	uint32_t aux;
	uint64_t b = sbt_read_stop(&aux);

	sbt_ev_commit(e, a, aux, SBT_EV_WORD(SBT_EV_SPEED, SBT_SPEED_SPAN,
					     clamp(b - a)));
}

struct sbt_event *sbt_speed_span(struct sbt_thread *t, uint64_t a)
{
	struct sbt_event *e = sbt_ev_claim(t);

	if (e)
		span_now(e, a);
	return e;
}

void sbt_speed_span_to(struct sbt_event *e, uint64_t b)
{
	if (b > e->t)
		__atomic_store_n(&e->word, SBT_EV_WORD(SBT_EV_SPEED,
						       SBT_SPEED_SPAN,
						       clamp(b - e->t)),
				 __ATOMIC_RELEASE);
}

/* Events until the next tick: the events per tick of wall clock since
 * the last one, times the time left; at most double the last gap (a
 * burst of markers in no time says little about the rate). */
static uint32_t next_gap(struct sbt_thread *t, uint64_t now, uint64_t left)
{
	uint64_t seen = now > t->tick_seen ? now - t->tick_seen : 0;
	uint64_t done = t->tick_done + (uint64_t)(t->hot.cur - t->tick_from);
	uint64_t last = t->tick_gap ? t->tick_gap : SBT_TICK_GAP_FIRST;
	uint64_t gap = 2 * last;

	if (seen && done && t->tick_from)
		gap = (uint64_t)((double)done * (double)left / (double)seen);
	if (gap > 2 * last)
		gap = 2 * last;
	return gap < 1 ? 1 : gap > GAP_MAX ? GAP_MAX : (uint32_t)gap;
}

void sbt_speed_tick(struct sbt_thread *t, uint64_t now)
{
	uint64_t per = sbt_speed_period(sbt_thread_tick_hz()), a, t0, dur;
	uint64_t left = per;
	uint32_t aux = 0;

	if (!per || !t->chunk) {
		sbt_due_no_tick(t);
		return;
	}
	/* The detour starts here, or at the STOP that brought us */
	a = now ? now : sbt_read_stop(&aux);
	(void)sbt_thread_os_tick(t);
	if (sbt_speed_on() && a >= t->speed_due) {
		dur = sbt_speed_probe(&t0, &aux);
		put(t, 0, dur, t0, aux);
		sbt_memlat_probe(t->index);
		/* On a grid while the ticks keep up: a tick late by a
		 * little does not stretch the cadence. */
		t->speed_due = t->speed_due + per > t0 ? t->speed_due + per :
			       t0 + per;
	} else if (sbt_speed_on()) {
		left = t->speed_due - a;
	}
	sbt_due_tick_gap(t, next_gap(t, a, left));
	t->tick_seen = a;
	/* Inside open regions, the way of the START that met tick_at, from
	 * where it came into the recorder to its clock read: a START that
	 * opened after it is spared by the reader, as its clock read came
	 * later. */
	if (t->hot.depth && t->tick_in && t->tick_ev &&
	    t->tick_ev->t > t->tick_in)
		put(t, SBT_SPEED_SPAN, t->tick_ev->t - t->tick_in, t->tick_in,
		    aux);
	/* Then the detour's own span, open regions or not: inside them
	 * for the reader to take out of them (nothing of it may count as
	 * the regions' time); with none open for the calls after it, whose
	 * first few meet a branch predictor the recorder has just stirred
	 * (score/afterprobe.c leaves them out, as after a probe).  Claimed
	 * now, committed by its word after the last read (the gate is
	 * shut: nothing else writes meanwhile), so that after it only the
	 * marker's return is left. */
	struct sbt_event *e = sbt_ev_claim(t);
	sbt_due_ticked(t);              /* the next tick, the limit with it */
	sbt_thread_limit(t);
	if (e)
		span_now(e, a);
}
