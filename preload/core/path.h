/*
 * path.h - the recorder's general path (path.c), for the marker paths
 * (hot.c) and sparse recording (sparse.c): what the inline fast path
 * refuses comes here, with the thread's busy gate shut.
 */
#ifndef SBT_PATH_H
#define SBT_PATH_H

#include "counters.h"
#include "gate.h"
#include "recorder.h"
#include "thread.h"

static inline int cycling(const struct sbt_thread *t) { return t->pmc >= 0; }

/* Every marker of the thread takes the general path: it counts cycles
 * or SBT_EVENTS (their events follow START and STOP). */
static inline int slow_only(const struct sbt_thread *t)
{
	return t->pmc >= 0 || t->ctrs;
}

/* COUNT events a START or STOP of the thread writes. */
static inline uint32_t counting(const struct sbt_thread *t)
{
	return t->ctrs ? sbt_ctrs_nev(t->ctrs) : 0;
}

static inline uint64_t cycles_now(const struct sbt_thread *t)
{
	return cycling(t) ? sbt_cycles_read((uint32_t)t->pmc) : 0;
}

/* A marker's events, as append.h's (room, append, claim) but one refused
 * after CLOSE is counted (SBT_CNT_AFTER_CLOSE): the recorder's own
 * events (ticks, spans) are not the user's calls. */
SBT_HIDDEN struct sbt_event *sbt_path_room(struct sbt_thread *t, uint32_t n);
SBT_HIDDEN struct sbt_event *sbt_path_append(struct sbt_thread *t, uint64_t at,
					     uint32_t aux, uint32_t word);
SBT_HIDDEN struct sbt_event *sbt_path_claim(struct sbt_thread *t);

/* Whether opening `region` now is misuse: then counted, gate reopened. */
SBT_HIDDEN int sbt_path_misuse(struct sbt_thread *t, sbt_id region);

/* START of (word, region) under `tag` (NULL: STOP must look the name up)
 * with the busy gate closed by the caller; reopens it before the clock
 * read. */
SBT_HIDDEN int sbt_path_start(struct sbt_thread *t, uint32_t word,
			      sbt_id region, const char *tag);

/* STOP of `region`, whose clock read gave (t1, aux, c1), with the busy
 * gate closed by the caller; reopens it.  pre: the counters as read
 * right after the clock, NULL to read them now. */
SBT_HIDDEN int sbt_path_stop(struct sbt_thread *t, sbt_id region,
			     uint64_t t1, uint32_t aux, uint64_t c1,
			     const uint64_t *pre);

#endif
