/*
 * threads.c - META THREAD entries into struct sbt_thread_info, and
 * thread labels (threads.h).
 *
 * Entries are kept in arrival order and found through a hash index by
 * thread number: memory follows the entries a file holds, not the
 * largest thread number it names (a damaged one can name 16 million).
 */
#include "threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Thread indices beyond this are damage, not threads: the recorder
 * numbers threads from 0 in order, one per thread that ever recorded. */
#define MAX_THREADS (1u << 24)

static uint32_t hash(uint32_t thread)
{
	return thread * 2654435761u;            /* Knuth's multiplicative */
}

const struct sbt_thread_info *sbt_threads_find(const struct sbt_source *s,
					       uint32_t thread)
{
	if (!s->ixcap)
		return NULL;
	for (uint32_t h = hash(thread) & (s->ixcap - 1);; h = (h + 1) &
							    (s->ixcap - 1)) {
		uint32_t e = s->thr_ix[h];
		if (!e)
			return NULL;
		if (s->thr[e - 1].thread == thread)
			return &s->thr[e - 1];
	}
}

/* The index at twice its size (at most half full), holding every entry. */
static int grow_index(struct sbt_source *s)
{
	uint32_t cap = s->ixcap ? 2 * s->ixcap : 64;
	uint32_t *ix = calloc(cap, sizeof *ix);

	if (!ix)
		return -1;
	for (uint32_t i = 0; i < s->nthr; i++) {
		uint32_t h = hash(s->thr[i].thread) & (cap - 1);
		while (ix[h])
			h = (h + 1) & (cap - 1);
		ix[h] = i + 1;
	}
	free(s->thr_ix);
	s->thr_ix = ix, s->ixcap = cap;
	return 0;
}

/* Thread's entry, a new one (tid 0) when it has none; NULL out of memory. */
static struct sbt_thread_info *slot(struct sbt_source *s, uint32_t thread)
{
	struct sbt_thread_info *t = (struct sbt_thread_info *)
				    sbt_threads_find(s, thread);

	if (t)
		return t;
	if (s->nthr == s->capthr) {
		uint32_t cap = s->capthr ? 2 * s->capthr : 16;
		if (!(t = realloc(s->thr, cap * sizeof *t)))
			return NULL;
		s->thr = t, s->capthr = cap;
	}
	if (2 * (s->nthr + 1) > s->ixcap && grow_index(s) != 0)
		return NULL;
	t = &s->thr[s->nthr];
	memset(t, 0, sizeof *t);
	t->thread = thread;
	t->omp_thread = -1;
	uint32_t h = hash(thread) & (s->ixcap - 1);
	while (s->thr_ix[h])
		h = (h + 1) & (s->ixcap - 1);
	s->thr_ix[h] = ++s->nthr;
	return t;
}

int sbt_threads_note(struct sbt_source *s, const void *p, uint32_t len)
{
	struct sbt_meta_thread m;
	struct sbt_thread_info *t;
	size_t nlen;

	if (len < sizeof m)
		return -1;
	memcpy(&m, p, sizeof m);
	if (m.thread >= MAX_THREADS || m.tid == 0 || !(t = slot(s, m.thread)))
		return -1;
	if (m.omp_thread >= 0 && t->omp_thread >= 0 &&
	    m.omp_thread != t->omp_thread)
		t->flags |= SBT_TI_OMP_VARIES;
	t->tid = m.tid;
	if (m.omp_thread >= 0) {
		t->omp_thread = m.omp_thread;
		t->omp_level = m.omp_level;
	}
	nlen = len - sizeof m < sizeof t->name - 1 ? len - sizeof m
						  : sizeof t->name - 1;
	memcpy(t->name, (const char *)p + sizeof m, nlen);
	t->name[nlen] = '\0';
	t->name[strcspn(t->name, "\n\r\t")] = '\0';  /* one line in reports */
	return 0;
}

/* 1 when no other thread of s carries name nm. */
static int name_unique(const struct sbt_source *s, uint32_t thread,
		       const char *nm)
{
	for (uint32_t i = 0; i < s->nthr; i++)
		if (s->thr[i].thread != thread && !strcmp(s->thr[i].name, nm))
			return 0;
	return 1;
}

const char *sbt_thread_label(const struct sbt_dataset *ds, uint32_t src,
			     uint32_t thread, char *buf, size_t len)
{
	const struct sbt_source *s = src < ds->nsources ? &ds->sources[src]
							 : NULL;
	const struct sbt_thread_info *t = s ? sbt_threads_find(s, thread)
					    : NULL;

	if (!len)
		return buf;
	if (t && t->omp_thread >= 0 && !(t->flags & SBT_TI_OMP_VARIES))
		snprintf(buf, len, "omp %d", t->omp_thread);
	else if (t && t->name[0] && name_unique(s, thread, t->name))
		snprintf(buf, len, "%s", t->name);
	else if (t)
		snprintf(buf, len, "tid %d", t->tid);
	else
		snprintf(buf, len, "%u", thread);
	return buf;
}
