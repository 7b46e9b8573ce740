/*
 * test_threads.c - META THREAD entries into the dataset, and the labels
 * reports give threads (analysis/read/threads.c).
 */
#include <stdint.h>
#include <string.h>
#include "harness.h"
#include "dataset.h"
#include "threads.h"

/* One META THREAD payload: struct then name. */
static uint32_t entry(char *buf, uint32_t thread, int32_t tid, int32_t omp,
		      uint32_t level, const char *name)
{
	struct sbt_meta_thread m = { thread, tid, omp, level, 0 };
	memcpy(buf, &m, sizeof m);
	memcpy(buf + sizeof m, name, strlen(name));
	return (uint32_t)(sizeof m + strlen(name));
}

int main(void)
{
	struct sbt_dataset ds = { 0 };
	struct sbt_source *s = sbt_ds_source(&ds, "x.log");
	char p[128], b[32];
	uint32_t n;

	CHECK_TRUE(s != NULL);
	/* thread 0: main, later omp 0; 1: a worker, omp 3; 2: the same
	 * name as 1, no omp; 3: a unique name; 4: omp 1 then omp 2 */
	n = entry(p, 0, 100, -1, 0, "solver");
	CHECK_TRUE(sbt_threads_note(s, p, n) == 0);
	n = entry(p, 0, 100, 0, 1, "solver");
	CHECK_TRUE(sbt_threads_note(s, p, n) == 0);
	n = entry(p, 1, 101, 3, 1, "solver");
	CHECK_TRUE(sbt_threads_note(s, p, n) == 0);
	n = entry(p, 2, 102, -1, 0, "solver");
	CHECK_TRUE(sbt_threads_note(s, p, n) == 0);
	n = entry(p, 3, 103, -1, 0, "io-writer");
	CHECK_TRUE(sbt_threads_note(s, p, n) == 0);
	n = entry(p, 4, 104, 1, 1, "solver");
	CHECK_TRUE(sbt_threads_note(s, p, n) == 0);
	n = entry(p, 4, 104, 2, 1, "solver");
	CHECK_TRUE(sbt_threads_note(s, p, n) == 0);

	CHECK(!strcmp(sbt_thread_label(&ds, 0, 0, b, sizeof b), "omp 0"), "%s", b);
	CHECK(!strcmp(sbt_thread_label(&ds, 0, 1, b, sizeof b), "omp 3"), "%s", b);
	CHECK(!strcmp(sbt_thread_label(&ds, 0, 2, b, sizeof b), "tid 102"), "%s", b);
	CHECK(!strcmp(sbt_thread_label(&ds, 0, 3, b, sizeof b), "io-writer"), "%s", b);
	CHECK(!strcmp(sbt_thread_label(&ds, 0, 4, b, sizeof b), "tid 104"), "%s", b);
	/* no entry, an unknown source: the sbtmark index */
	CHECK(!strcmp(sbt_thread_label(&ds, 0, 7, b, sizeof b), "7"), "%s", b);
	CHECK(!strcmp(sbt_thread_label(&ds, 5, 2, b, sizeof b), "2"), "%s", b);
	/* a short buffer is cut, NUL-terminated */
	CHECK(!strcmp(sbt_thread_label(&ds, 0, 3, b, 4), "io-"), "%s", b);

	/* damage: short entries and absurd thread numbers are refused */
	CHECK_TRUE(sbt_threads_note(s, p, 8) == -1);
	n = entry(p, 1u << 30, 1, 0, 0, "x");
	CHECK_TRUE(sbt_threads_note(s, p, n) == -1);
	/* a thread number far beyond the others costs one entry, not a
	 * table that long (a damaged summary named 16 million) */
	n = entry(p, 16000000, 1600, -1, 0, "far");
	CHECK_TRUE(sbt_threads_note(s, p, n) == 0);
	CHECK(s->capthr <= 16 && s->ixcap <= 64, "%u entries' room, index %u",
	      s->capthr, s->ixcap);
	CHECK(!strcmp(sbt_thread_label(&ds, 0, 16000000, b, sizeof b), "far"),
	      "%s", b);
	/* tid 0 is no thread */
	n = entry(p, 6, 0, -1, 0, "zero");
	CHECK_TRUE(sbt_threads_note(s, p, n) == -1);
	CHECK(!strcmp(sbt_thread_label(&ds, 0, 6, b, sizeof b), "6"), "%s", b);
	/* a name longer than comm's 15 bytes, or with a newline, is cut */
	n = entry(p, 5, 105, -1, 0, "a-very-long-thread-name\n");
	CHECK_TRUE(sbt_threads_note(s, p, n) == 0);
	CHECK(!strcmp(sbt_thread_label(&ds, 0, 5, b, sizeof b),
		      "a-very-long-thr"), "%s", b);
	sbt_ds_free(&ds);
	return h_done();
}
