/*
 * speed.c - speed probes and the thread's periodic off-window chores.
 *
 * The probe (paper §4's fixed workload, used as a witness): SPEED_OPS
 * (1000) dependent one-cycle integer adds on one register, straight-line code,
 * no memory operand, timed between sbt_read_start and sbt_read_stop.  A
 * slower reading means the core itself ran fewer cycles per tick: a lower
 * clock, the host taking the vCPU, an SMT sibling's contention.  It does
 * not see memory bandwidth (no load is in it), by design: a memory-bound
 * region that shifts while the probe holds is the code's or the memory's,
 * and machine.c's coincidence test still speaks for that.
 *
 * Scheduling (thread.h): the fast path runs up to t->tick_at, `tick_gap`
 * events past the last tick.  Each tick measures the events per tick of
 * wall clock since the previous one and sets the gap so that the next
 * lands about when the next probe is due; a thread that marks rarely
 * gets a gap of one event, i.e. at most one probe a marker call.
 */
#include "speed.h"
#include "config.h"
#include "recorder.h"
#include "thread.h"

#include <stddef.h>

/* ~1000 cycles of dependent adds.  Not the ~200 first planned: on a 10 ns
 * clock a 60 ns probe reads +-1 quantum, 7 % apart, and a level of 30
 * such probes resolved only ~8 %, while this VM's host was seen shifting
 * its speed by 3-5 %; at ~300 ns the same 30 probes resolve ~1 %. */
#define SPEED_OPS     1000u
#define GAP_MAX       (1u << 16)       /* events between ticks, at most */
#define GAP_FIRST     64u

static struct {
	uint32_t cadence_us;           /* SBT_SPEED_US, 0: no probes    */
} S;

void sbt_speed_setup(void)
{
	S.cadence_us = (uint32_t)sbt_cfg(SBT_CFG_SPEED_US);
}

/* Ticks come every cadence; with probes off, every 100 us still, for the
 * kernel-event ring. */
uint64_t sbt_speed_period(void)
{
	uint64_t hz = sbt_thread_tick_hz();
	uint32_t us = S.cadence_us ? S.cadence_us : 100;

	return hz ? hz * us / 1000000u : 0;
}

void sbt_speed_meta(void)
{
	struct sbt_meta_speed m = { .ops = SPEED_OPS,
				    .cadence_us = S.cadence_us };

	if (S.cadence_us)
		sbt_regions_meta(SBT_META_SPEED, &m, sizeof m, NULL, 0);
}

#define SBT_STR_(x) #x
#define SBT_STR(x)  SBT_STR_(x)

/* The workload: one register, SPEED_OPS dependent adds, nothing else. */
static inline __attribute__((always_inline)) uint64_t chain(uint64_t x)
{
#if defined(__x86_64__)
	__asm__ __volatile__(".rept " SBT_STR(SPEED_OPS) "\n\t"
			     "addq $1, %0\n\t.endr" : "+r"(x));
#elif defined(__aarch64__)
	__asm__ __volatile__(".rept " SBT_STR(SPEED_OPS) "\n\t"
			     "add %0, %0, #1\n\t.endr" : "+r"(x));
#else
	for (unsigned i = 0; i < SPEED_OPS; i++)
		__asm__ __volatile__("" : "+r"(x));
#endif
	return x;
}

uint64_t sbt_speed_probe(uint64_t *t0, uint32_t *aux)
{
	uint32_t aux1;
	uint64_t a = sbt_read_start(aux);
	uint64_t x = chain(a);
	uint64_t b = sbt_read_stop(&aux1);

	__asm__ __volatile__("" :: "r"(x));
	*t0 = a;
	return b - a;
}

/* Ticks as an event id (SBT_EV_ID_BITS). */
static uint32_t clamp(uint64_t ticks)
{
	return ticks < SBT_MAX_SITES ? (uint32_t)ticks : SBT_MAX_SITES - 1;
}

/* Room for one event at hot.cur (a new chunk when needed); 0: none. */
static int room(struct sbt_thread *t)
{
	return t->chunk_end > t->hot.cur || sbt_thread_refill(t, 1);
}

/* Append one SPEED event; 0 when the log has no room. */
static int put(struct sbt_thread *t, uint32_t flags, uint64_t ticks,
	       uint64_t at, uint32_t aux)
{
	struct sbt_event *e;

	if (!room(t))
		return 0;
	e = (struct sbt_event *)t->hot.cur;
	sbt_ev_commit(e, at, aux, SBT_EV_WORD(SBT_EV_SPEED, flags,
					      clamp(ticks)));
	t->hot.cur++;
	return 1;
}

void sbt_speed_span(struct sbt_thread *t, uint64_t a)
{
	struct sbt_event *e = room(t) ? (struct sbt_event *)t->hot.cur++ :
				  NULL;
	uint32_t aux;

	if (!e)
		return;
	uint64_t b = sbt_read_stop(&aux);     /* last: only the return left */
	sbt_ev_commit(e, a, aux, SBT_EV_WORD(SBT_EV_SPEED, SBT_SPEED_SPAN,
					     clamp(b - a)));
}

/* Events until the next tick: the events per tick of wall clock since
 * the last one, times the time left; at most double the last gap (a
 * burst of markers in no time says little about the rate). */
static uint32_t next_gap(struct sbt_thread *t, uint64_t now, uint64_t left)
{
	uint64_t seen = now > t->tick_seen ? now - t->tick_seen : 0;
	uint64_t done = t->tick_done + (uint64_t)(t->hot.cur - t->tick_from);
	uint64_t last = t->tick_gap ? t->tick_gap : GAP_FIRST, gap = 2 * last;

	if (seen && done && t->tick_from)
		gap = (uint64_t)((double)done * (double)left / (double)seen);
	if (gap > 2 * last)
		gap = 2 * last;
	return gap < 1 ? 1 : gap > GAP_MAX ? GAP_MAX : (uint32_t)gap;
}

/* The next tick's place, and the fast path's limit with it. */
static void set_limit(struct sbt_thread *t)
{
	t->tick_at = t->tick_from + t->tick_gap;
	if (t->tick_at > t->chunk_end)
		t->tick_at = t->chunk_end;
	sbt_thread_limit(t);
}

void sbt_speed_tick(struct sbt_thread *t, uint64_t now)
{
	uint64_t per = sbt_speed_period(), a, b, t0, dur, left = per;
	uint32_t aux = 0;

	if (!per || !t->chunk) {
		t->tick_at = NULL;
		return;
	}
	/* The detour starts here, or at the STOP that brought us */
	a = now ? now : sbt_read_stop(&aux);
	(void)sbt_thread_os_tick(t);
	if (S.cadence_us && a >= t->speed_due) {
		dur = sbt_speed_probe(&t0, &aux);
		put(t, 0, dur, t0, aux);
		/* On a grid while the ticks keep up: a tick late by a
		 * little does not stretch the cadence. */
		t->speed_due = t->speed_due + per > t0 ? t->speed_due + per :
			       t0 + per;
	} else if (S.cadence_us) {
		left = t->speed_due - a;
	}
	t->tick_gap = next_gap(t, a, left);
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
	struct sbt_event *e = room(t) ? (struct sbt_event *)t->hot.cur++ :
			      NULL;
	t->tick_done = 0;
	t->tick_from = t->hot.cur;
	set_limit(t);
	if (e) {
		b = sbt_read_stop(&aux);
		sbt_ev_commit(e, a, aux, SBT_EV_WORD(SBT_EV_SPEED,
						     SBT_SPEED_SPAN,
						     clamp(b - a)));
	}
	t->tick_in = 0;
	t->tick_ev = NULL;
}
