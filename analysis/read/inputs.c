/*
 * inputs.c - every input into one dataset, several read at once.
 *
 * Reading is most of the analyzer's time for many small logs or
 * summaries (decompressing, pairing events), and each input is read on
 * its own: workers read inputs into datasets of their own, and the main
 * thread appends them to the result strictly in input order, so the
 * dataset - and every report of it - is the same for any number of
 * workers.  Workers read at most 2 x jobs inputs ahead of the merge,
 * which bounds the memory held by finished, unmerged parts.
 */
#include "inputs.h"
#include "jobs.h"
#include "csvin.h"
#include "reader.h"
#include "status.h"
#include "summary.h"
#include "thin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int sbt_ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);
	return n > k && !strcmp(s + n - k, tail);
}

enum sbt_input sbt_input_kind(const char *path, enum sbt_input forced)
{
	if (forced != SBT_IN_AUTO)
		return forced;
	if (sbt_is_log(path))
		return SBT_IN_LOG;
	if (sbt_is_summary(path))
		return SBT_IN_SUMMARY;
	/* by content: a CSV named .txt is a CSV; then by name, so that a
	 * damaged file gets the message of what it claims to be */
	if (sbt_csv_sniff(path))
		return SBT_IN_CSV;
	if (sbt_ends_with(path, ".sbts"))
		return SBT_IN_SUMMARY;
	return sbt_ends_with(path, ".csv") ? SBT_IN_CSV : SBT_IN_LOG;
}

/* One input; a log by up to `jobs` threads. */
static int read_one(const char *path, enum sbt_input forced,
		    struct sbt_dataset *ds, int jobs, char *err, size_t errlen)
{
	switch (sbt_input_kind(path, forced)) {
	case SBT_IN_CSV:     return sbt_csv_read(path, ds, err, errlen);
	case SBT_IN_SUMMARY: return sbt_summary_read(path, ds, err, errlen);
	default:
		return sbt_read_log_jobs(path, ds, jobs, 0, err, errlen);
	}
}

int sbt_input_read(const char *path, enum sbt_input forced,
		   struct sbt_dataset *ds, char *err, size_t errlen)
{
	return read_one(path, forced, ds, 1, err, errlen);
}

int sbt_inputs_plan(struct sbt_dataset *ds, int n, char *const *paths,
		    enum sbt_input forced, uint64_t budget)
{
	return sbt_inputs_plan_jobs(ds, n, paths, forced, budget, 1);
}

int sbt_inputs_plan_jobs(struct sbt_dataset *ds, int n, char *const *paths,
			 enum sbt_input forced, uint64_t budget, int jobs)
{
	uint64_t most = 0;
	int summaries = 0;
	struct stat st;

	/* Logs' sizes bound their samples: inputs that fit skip counting. */
	for (int i = 0; i < n; i++) {
		enum sbt_input k = sbt_input_kind(paths[i], forced);
		summaries |= k == SBT_IN_SUMMARY;
		if (k == SBT_IN_LOG && stat(paths[i], &st) == 0)
			most += (uint64_t)st.st_size / sizeof(struct sbt_event);
	}
	/* Summaries always: one that holds a share of a region makes all
	 * inputs hold that share of it, or the pooled samples would weigh
	 * its log less than the others. */
	if (!summaries && (!budget || most / 2 <= budget))
		return 0;               /* two events a sample */
	/* One log alone: counted as it is read (read/hold.c). */
	if (n == 1 && sbt_input_kind(paths[0], forced) == SBT_IN_LOG) {
		ds->hold_budget = budget;
		return 0;
	}
	for (int i = 0; i < n; i++) {
		char err[256] = "";
		enum sbt_input k = sbt_input_kind(paths[i], forced);
		if (k == SBT_IN_CSV)
			continue;       /* CSV files are read whole */
		sbt_status("counting %s (%d/%d)", paths[i], i + 1, n);
		if (k == SBT_IN_SUMMARY) {  /* a bad one is told when read */
			(void)sbt_summary_count(paths[i], ds, err, sizeof err);
			continue;
		}
		if (sbt_count_log_jobs(paths[i], ds, sbt_jobs(jobs), 0, err,
				       sizeof err) != 0) {
			sbt_status_done();
			fprintf(stderr, "sbt-analyze: %s: %s\n", paths[i], err);
			return -1;
		}
	}
	uint64_t held = sbt_thin_plan(ds, budget);
	if (sbt_ds_reserve(ds, (size_t)(held + held / 64 + 4096)) != 0) {
		fputs("sbt-analyze: out of memory\n", stderr);
		return -1;
	}
	return 0;
}

/* Tell one input's outcome; the exit status it makes (0, 1, 2). */
static int tell(const char *path, int rc, const char *err,
		const struct sbt_dataset *ds, int summary)
{
	if (rc == 0)
		return 0;
	sbt_status_done();
	if (rc < 0 && summary) {
		/* A summary is all or nothing: the others are merged without
		 * it, and the run says so. */
		fprintf(stderr, "sbt-analyze: %s: %s; left out\n", path, err);
		return 1;
	}
	if (rc < 0) {
		fprintf(stderr, "sbt-analyze: %s: %s\n", path, err);
		return 2;
	}
	fprintf(stderr, "sbt-analyze: %s: %s\n", path,
		ds->sources[ds->nsources - 1].warning);
	return 1;
}

struct part {
	struct sbt_dataset ds;
	int rc;
	char err[256];
};

/* The inputs read by the ordered pool (jobs.h): parts read on workers,
 * appended to ds in input order on the calling thread. */
struct pool {
	struct sbt_dataset *ds;
	char *const *paths;
	enum sbt_input forced;
	const struct sbt_dataset *plan;  /* regions and their keep only */
	struct part *parts;
	int n, status;
};

/* A part starts with the plan's regions, in its order, so it holds the
 * shares the plan set and names regions as the serial reading would. */
static int seed(struct sbt_dataset *ds, const struct sbt_dataset *plan)
{
	for (size_t r = 0; r < plan->nregions; r++) {
		const struct sbt_region *p = &plan->regions[r];
		long i = sbt_ds_region(ds, p->name, strlen(p->name), p->api);
		if (i < 0)
			return -1;
		ds->regions[i].keep = p->keep;
		ds->regions[i].total = p->total;
	}
	return 0;
}

static void read_part(void *arg, size_t i)
{
	struct pool *p = arg;
	struct part *t = &p->parts[i];

	if (seed(&t->ds, p->plan) != 0) {
		t->rc = -1;
		snprintf(t->err, sizeof t->err, "out of memory");
	} else {
		t->rc = sbt_input_read(p->paths[i], p->forced, &t->ds, t->err,
				       sizeof t->err);
	}
}

/* Append part i and tell its outcome; nonzero (stop) once an input is
 * unreadable. */
static int merge_part(void *arg, size_t i)
{
	struct pool *p = arg;
	struct part *t = &p->parts[i];
	int rc = t->rc;

	sbt_status("reading %s (%zu/%d)", p->paths[i], i + 1, p->n);
	if (rc >= 0 && sbt_ds_append(p->ds, &t->ds) != 0) {
		snprintf(t->err, sizeof t->err, "out of memory");
		rc = -1;
	}
	int s = tell(p->paths[i], rc, t->err, p->ds, rc < 0 &&
		     sbt_input_kind(p->paths[i], p->forced) == SBT_IN_SUMMARY);
	if (s > p->status)
		p->status = s;
	sbt_ds_free(&t->ds);
	return p->status == 2;
}

/* The plan's regions alone (names, api, keep, total): what workers read
 * while the main thread grows ds. */
static int plan_copy(struct sbt_dataset *copy, const struct sbt_dataset *ds)
{
	memset(copy, 0, sizeof *copy);
	return seed(copy, ds);
}

static int read_serial(struct sbt_dataset *ds, int n, char *const *paths,
		       enum sbt_input forced, int jobs)
{
	int status = 0;

	for (int i = 0; i < n; i++) {
		char err[256] = "";
		enum sbt_input k = sbt_input_kind(paths[i], forced);
		sbt_status("reading %s (%d/%d)", paths[i], i + 1, n);
		int rc = read_one(paths[i], forced, ds, jobs, err, sizeof err);
		int s = tell(paths[i], rc, err, ds, k == SBT_IN_SUMMARY);
		if (s > status)
			status = s;
		if (status == 2)
			break;
	}
	return status;
}

int sbt_inputs_read(struct sbt_dataset *ds, int n, char *const *paths,
		    enum sbt_input forced, int jobs)
{
	struct sbt_dataset plan;
	struct pool p = { .ds = ds, .paths = paths, .forced = forced,
			  .n = n };

	jobs = sbt_jobs(jobs);
	if (n == 1 || jobs <= 1)        /* one log: its segments at once */
		return read_serial(ds, n, paths, forced, n == 1 ? jobs : 1);
	if (plan_copy(&plan, ds) != 0 ||
	    !(p.parts = calloc((size_t)n, sizeof *p.parts))) {
		sbt_ds_free(&plan);
		fputs("sbt-analyze: out of memory\n", stderr);
		return 2;
	}
	p.plan = &plan;
	(void)sbt_jobs_ordered((size_t)n, jobs, 2 * (size_t)jobs, read_part,
			       merge_part, &p);
	for (int i = 0; i < n; i++)
		sbt_ds_free(&p.parts[i].ds);
	free(p.parts);
	sbt_ds_free(&plan);
	return p.status;
}
