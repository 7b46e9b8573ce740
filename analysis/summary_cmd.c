/*
 * summary_cmd.c - sbt-analyze --summary: each log to its summary (.sbts),
 * `-j` logs at once; under a launcher (mpirun, srun) the ranks share the
 * logs out, each rank one process taking every size-th log.
 */
#include "launchers.h"
#include "inputs.h"
#include "jobs.h"
#include "status.h"
#include "summary.h"
#include "summary_cmd.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* This process's share of the logs under a launcher (mpirun, srun):
 * *rank of *size, or 0 of 1 outside one. */
static void launcher(int *rank, int *size)
{
	static const char *const vars[][2] = {
#define SBT_X_VARS(rank, size, who) { rank, size },
		SBT_LAUNCHERS(SBT_X_VARS)
#undef SBT_X_VARS
	};

	*rank = 0, *size = 1;
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *r = getenv(vars[i][0]), *n = getenv(vars[i][1]);
		if (r && n && atoi(n) > 0 && atoi(r) >= 0 && atoi(r) < atoi(n)) {
			*rank = atoi(r), *size = atoi(n);
			return;
		}
	}
}

/* --summary: each log of this rank's share to its summary, `jobs` logs
 * at once. */
struct sumjob {
	char **paths;
	const char *out;
	enum sbt_input input;
	unsigned long long budget;
	int n, dir, size, next, status;
	pthread_mutex_t mu;
};

/* Log i to its summary: the exit status it makes (0, 1, 2). */
static int summarize_one(const struct sumjob *j, int i)
{
	struct sbt_dataset ds = { 0 };
	char err[256] = "", path[4096];
	const char *in = j->paths[i], *base = strrchr(in, '/');
	int rc, status = 0;

	base = base ? base + 1 : in;
	if (!j->dir)
		snprintf(path, sizeof path, "%s", j->out);
	else if ((size_t)snprintf(path, sizeof path, "%s%s%.*s.sbts", j->out,
				  sbt_ends_with(j->out, "/") ? "" : "/",
				  (int)(sbt_ends_with(base, ".log") ?
					strlen(base) - 4 : strlen(base)),
				  base) >= sizeof path) {
		fprintf(stderr, "sbt-analyze: %s: path too long\n", in);
		return 2;
	}
	sbt_status("summarizing %s", in);
	rc = sbt_inputs_plan(&ds, 1, &j->paths[i], j->input, j->budget);
	if (rc == 0)
		rc = sbt_input_read(in, j->input, &ds, err, sizeof err);
	if (rc < 0) {
		sbt_status_done();
		if (err[0])
			fprintf(stderr, "sbt-analyze: %s: %s\n", in, err);
		status = 2;
	} else {
		if (rc > 0) {
			sbt_status_done();
			fprintf(stderr, "sbt-analyze: %s: %s\n", in,
				ds.sources[0].warning);
			status = 1;
		}
		if (sbt_summary_write(path, &ds, 0, err, sizeof err) != 0) {
			sbt_status_done();
			fprintf(stderr, "sbt-analyze: %s: %s\n", path, err);
			status = 2;
		}
	}
	sbt_ds_free(&ds);
	return status;
}

static void *summarize_work(void *arg)
{
	struct sumjob *j = arg;

	for (;;) {
		pthread_mutex_lock(&j->mu);
		int i = j->next;
		j->next += j->size;
		pthread_mutex_unlock(&j->mu);
		if (i >= j->n)
			return NULL;
		int s = summarize_one(j, i);
		pthread_mutex_lock(&j->mu);
		if (s > j->status)
			j->status = s;
		pthread_mutex_unlock(&j->mu);
	}
}

int sbt_summary_cmd(int n, char **paths, const char *out,
		    enum sbt_input input, unsigned long long budget, int jobs)
{
	struct stat st;
	struct sumjob j = { .paths = paths, .out = out, .input = input,
			    .budget = budget, .n = n };
	pthread_t th[SBT_JOBS_MAX];
	int rank, nth = 0;

	j.dir = sbt_ends_with(out, "/") || (stat(out, &st) == 0 &&
					S_ISDIR(st.st_mode));
	launcher(&rank, &j.size);
	j.next = rank;
	if (!j.dir && n > 1) {
		fprintf(stderr, "sbt-analyze: --summary %s: %d logs want a "
			"directory (one summary each)\n", out, n);
		return 2;
	}
	if (!j.dir && j.size > 1) {
		fprintf(stderr, "sbt-analyze: --summary %s: under a launcher, "
			"give a directory: the ranks share the logs out\n",
			out);
		return 2;
	}
	if (j.dir && mkdir(out, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "sbt-analyze: --summary %s: %s\n", out,
			strerror(errno));
		return 2;
	}
	/* Under a launcher each rank is one process: one log at a time. */
	jobs = j.size > 1 && jobs <= 0 ? 1 : sbt_jobs(jobs);
	pthread_mutex_init(&j.mu, NULL);
	while (nth + 1 < jobs &&
	       pthread_create(&th[nth], NULL, summarize_work, &j) == 0)
		nth++;
	summarize_work(&j);
	for (int i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&j.mu);
	sbt_status_done();
	return j.status;
}
