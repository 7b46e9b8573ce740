/*
 * append.h - the one way an event goes into a thread's log: room for it
 * (a new chunk when needed; none after CLOSE), its fields, its word
 * stored last (the commit), hot.cur moved past it.  The inline markers
 * append by themselves (sbtmark_hot.h, sbt__commit); every writer in the
 * recorder goes through these.
 */
#ifndef SBT_APPEND_H
#define SBT_APPEND_H

#include "thread.h"

/* Room for n events at hot.cur, or NULL: the log is closed, or full.
 * The gate is shut: a CLOSE that came before waited for it (recorder.c,
 * quiesce), so the state read here is final. */
SBT_HIDDEN struct sbt_event *sbt_ev_room(struct sbt_thread *t, uint32_t n);

/* One event (t, aux, word) at hot.cur, committed, hot.cur past it;
 * NULL when there is no room. */
SBT_HIDDEN struct sbt_event *sbt_ev_append(struct sbt_thread *t, uint64_t at,
					   uint32_t aux, uint32_t word);

/* The slot of one event whose fields come later (its word last, by
 * sbt_ev_commit), hot.cur past it; NULL when there is no room.  For an
 * event timed by a clock read that must come after its slot is taken. */
SBT_HIDDEN struct sbt_event *sbt_ev_claim(struct sbt_thread *t);

/* n events already written at hot.cur (words stored: a marker's START
 * with its CYCLES and COUNT events), hot.cur past them. */
static inline void sbt_ev_advance(struct sbt_thread *t, uint32_t n)
{
	t->hot.cur += n;
}

#endif
