/*
 * threads.c - META THREAD entries into struct sbt_thread_info, and
 * thread labels (threads.h).
 */
#include "threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Thread indices beyond this are damage, not threads: the recorder
 * numbers threads from 0 in order, one per thread that ever recorded. */
#define MAX_THREADS (1u << 24)

static struct sbt_thread_info *slot(struct sbt_source *s, uint32_t thread)
{
	if (thread >= s->nthr) {
		uint32_t n = s->nthr ? s->nthr : 16;
		while (n <= thread)
			n *= 2;
		struct sbt_thread_info *t = realloc(s->thr, n * sizeof *t);
		if (!t)
			return NULL;
		memset(t + s->nthr, 0, (n - s->nthr) * sizeof *t);
		for (uint32_t i = s->nthr; i < n; i++)
			t[i].omp_thread = -1;
		s->thr = t, s->nthr = n;
	}
	return &s->thr[thread];
}

int sbt_threads_note(struct sbt_source *s, const void *p, uint32_t len)
{
	struct sbt_meta_thread m;
	struct sbt_thread_info *t;
	size_t nlen;

	if (len < sizeof m)
		return -1;
	memcpy(&m, p, sizeof m);
	if (m.thread >= MAX_THREADS || !(t = slot(s, m.thread)))
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
		if (i != thread && s->thr[i].tid && !strcmp(s->thr[i].name, nm))
			return 0;
	return 1;
}

const char *sbt_thread_label(const struct sbt_dataset *ds, uint32_t src,
			     uint32_t thread, char *buf, size_t len)
{
	const struct sbt_source *s = src < ds->nsources ? &ds->sources[src]
							 : NULL;
	const struct sbt_thread_info *t =
		s && thread < s->nthr && s->thr[thread].tid ? &s->thr[thread]
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
