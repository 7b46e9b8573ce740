/*
 * gate.h - the busy gate of a recording thread (hot.busy), its states
 * named; the recorder writes it through these alone.  (The app's inline
 * markers, sbtmark_hot.h, write the same word by the same names
 * SBT__OPEN, SBT__SHUT, SBT__SKIPPING: the ABI they were built with.)
 *
 *   OPEN      no marker runs on the thread; the innermost open region is
 *             a recorded one, or none
 *   SHUT      a marker runs (a signal handler that marks meanwhile leaves
 *             its work to the recorder)
 *   SKIPPING  no marker runs; the innermost open region is a call sparse
 *             recording left out (its STOP reads no clock)
 *   WAITING   a marker waits for the recorder's lock (attaching, opening
 *             the log): shut to signal handlers (bit 0), no event in
 *             flight, so CLOSE need not wait for it
 *
 * Whole-word stores only, fenced against the compiler: the next check on
 * the thread (a signal handler's) loads it at once.
 */
#ifndef SBT_GATE_H
#define SBT_GATE_H

#include "thread.h"

enum sbt_gate {
	SBT_GATE_OPEN = SBT__OPEN, SBT_GATE_SHUT = SBT__SHUT,
	SBT_GATE_SKIPPING = SBT__SKIPPING, SBT_GATE_WAITING = SBT_BUSY_WAITING,
};

static inline uint32_t sbt_gate(const struct sbt_thread *t)
{
	return SBT__BUSY(&t->hot);
}

/* A marker of the thread is running (bit 0: SHUT or WAITING). */
static inline int sbt_gate_marking(const struct sbt_thread *t)
{
	return sbt_gate(t) & 1;
}

static inline void sbt_gate_set(struct sbt_thread *t, enum sbt_gate g)
{
	__atomic_store_n(&t->hot.busy, (uint32_t)g, __ATOMIC_RELAXED);
}

/* Shut, before the work it guards. */
static inline void sbt_gate_shut(struct sbt_thread *t)
{
	sbt_gate_set(t, SBT_GATE_SHUT);
	SBT__FENCE();
}

/* The innermost open region is a call left out (sparse recording). */
static inline int sbt_gate_top_skipped(const struct sbt_thread *t)
{
	uint32_t d = t->hot.depth;

	return d && SBT_EV_KIND(t->hot.stack[d - 1].word) == SBT_EV_SKIP;
}

/* Open again, after the work it guards: SKIPPING when a skipped call is
 * innermost. */
static inline void sbt_gate_open(struct sbt_thread *t)
{
	enum sbt_gate g = sbt_gate_top_skipped(t) ? SBT_GATE_SKIPPING
						  : SBT_GATE_OPEN;

	SBT__FENCE();
	sbt_gate_set(t, g);
	SBT__FENCE();
}

/* Back to a state read before with sbt_gate() (outside any marker). */
static inline void sbt_gate_restore(struct sbt_thread *t, uint32_t was)
{
	SBT__FENCE();
	sbt_gate_set(t, (enum sbt_gate)was);
}

#endif
