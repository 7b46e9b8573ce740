/*
 * labels.c - print what a log says of its threads, one line each:
 *   thread tid omp_thread omp_level name|- label
 * (for the end-to-end tests' drivers).  Exit 1 when the log is damaged.
 */
#include <stdio.h>
#include "dataset.h"
#include "reader.h"
#include "threads.h"

int main(int argc, char **argv)
{
	struct sbt_dataset ds = { 0 };
	char err[256], b[32];
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: labels LOG\n");
		return 2;
	}
	rc = sbt_read_log(argv[1], &ds, err, sizeof err);
	if (rc < 0 || !ds.nsources) {
		fprintf(stderr, "labels: %s\n", err);
		return 1;
	}
	for (uint32_t i = 0; i < ds.sources[0].nthr; i++) {
		const struct sbt_thread_info *t = &ds.sources[0].thr[i];
		if (!t->tid)
			continue;
		printf("%u %d %d %u %s %s\n", i, t->tid, t->omp_thread,
		       t->omp_level, t->name[0] ? t->name : "-",
		       sbt_thread_label(&ds, 0, i, b, sizeof b));
	}
	sbt_ds_free(&ds);
	return rc != 0;
}
