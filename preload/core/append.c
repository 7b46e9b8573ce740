/*
 * append.c - events into a thread's log, under one rule of room
 * (append.h).
 */
#include "append.h"

struct sbt_event *sbt_ev_room(struct sbt_thread *t, uint32_t n)
{
	if (__builtin_expect(sbt_thread_log_state() < 0, 0))
		return NULL;
	if ((size_t)(t->chunk_end - t->hot.cur) < n &&
	    !sbt_thread_refill(t, n))
		return NULL;
	return (struct sbt_event *)t->hot.cur;
}

struct sbt_event *sbt_ev_claim(struct sbt_thread *t)
{
	struct sbt_event *e = sbt_ev_room(t, 1);

	if (e)
		sbt_ev_advance(t, 1);
	return e;
}

struct sbt_event *sbt_ev_append(struct sbt_thread *t, uint64_t at,
				uint32_t aux, uint32_t word)
{
	struct sbt_event *e = sbt_ev_claim(t);

	if (e)
		sbt_ev_commit(e, at, aux, word);
	return e;
}
