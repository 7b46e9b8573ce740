/*
 * due.c - the nearest of a thread's deadlines (due.h).
 */
#include "due.h"

#include <assert.h>
#include <stddef.h>

static uint32_t pair_period;           /* SBT_PROBE_PERIOD, 0: none */

void sbt_pair_setup(uint32_t period) { pair_period = period; }
uint32_t sbt_pair_period(void) { return pair_period; }

/* Two events per region: a distance of (period, 2 period] events puts a
 * pair probe at most every `period` STARTs, and drawn at random, so that
 * a loop of markers does not have its probes land on one region always. */
static void draw_pair(struct sbt_thread *t, size_t left)
{
	size_t d = pair_period;

	if (d) {
		t->rng ^= t->rng << 13, t->rng ^= t->rng >> 7;
		t->rng ^= t->rng << 17;
		d += 1 + (size_t)(t->rng % d);
	}
	t->pair_at = d && d < left ? t->hot.cur + d : NULL;
}

/* The tick, placed afresh when it lies outside the current chunk (`left`
 * events remain there).  A tick that a START inside open regions met
 * (tick_in) stays due at once: the next STOP must write its span while
 * the regions it lies in are still open, as the reader takes a span out
 * of the samples open when it meets it. */
static void place_tick(struct sbt_thread *t, size_t left)
{
	if ((uintptr_t)t->tick_at <= (uintptr_t)t->chunk ||
	    (uintptr_t)t->tick_at > (uintptr_t)t->chunk_end)
		t->tick_at = t->tick_in ? t->hot.cur :
			     t->hot.cur + (t->tick_gap < left ? t->tick_gap :
					   left);
}

struct sbt__ev *sbt_due_next(struct sbt_thread *t)
{
	size_t left = (size_t)(t->chunk_end - t->hot.cur);
	struct sbt__ev *end;

	assert(t->hot.cur <= t->chunk_end);
	draw_pair(t, left);
	end = t->pair_at ? t->pair_at : t->chunk_end;
	if (!t->tick_gap)
		return end;
	place_tick(t, left);
	return end && t->tick_at < end ? t->tick_at : end;
}
