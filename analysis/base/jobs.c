/*
 * jobs.c - see jobs.h.
 *
 * The ordered pool: one mutex and condition guard the cursor (next item
 * to take), the merge's progress and each item's done flag; work and
 * merge run outside it.  Workers wait while they are `ahead` items past
 * the merge, the merging thread while its next item is unfinished.
 */
#include "jobs.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

int sbt_jobs(int jobs)
{
	if (jobs <= 0) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		jobs = cores > 0 ? (int)(cores < SBT_JOBS_MAX ? cores :
					 SBT_JOBS_MAX) : 1;
	}
	return jobs < SBT_JOBS_MAX ? jobs : SBT_JOBS_MAX;
}

struct ordered {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t n, next, merged, ahead;
	unsigned char *done;            /* per item, under mu */
	int stop;
	void (*work)(void *, size_t);
	void *arg;
};

static void *ordered_worker(void *arg)
{
	struct ordered *o = arg;

	pthread_mutex_lock(&o->mu);
	for (;;) {
		while (!o->stop && o->next < o->n &&
		       o->next >= o->merged + o->ahead)
			pthread_cond_wait(&o->cv, &o->mu);
		if (o->stop || o->next >= o->n)
			break;
		size_t i = o->next++;
		pthread_mutex_unlock(&o->mu);
		o->work(o->arg, i);
		pthread_mutex_lock(&o->mu);
		o->done[i] = 1;
		pthread_cond_broadcast(&o->cv);
	}
	pthread_mutex_unlock(&o->mu);
	return NULL;
}

static int in_turn(size_t n, void (*work)(void *, size_t),
		   int (*merge)(void *, size_t), void *arg)
{
	for (size_t i = 0; i < n; i++) {
		work(arg, i);
		int rc = merge(arg, i);
		if (rc)
			return rc;
	}
	return 0;
}

int sbt_jobs_ordered(size_t n, int jobs, size_t ahead,
		     void (*work)(void *arg, size_t i),
		     int (*merge)(void *arg, size_t i), void *arg)
{
	struct ordered o = { .n = n, .ahead = ahead ? ahead : 1,
			     .work = work, .arg = arg };
	pthread_t th[SBT_JOBS_MAX];
	int nth = 0, rc = 0;

	if (jobs <= 1 || n <= 1 || !(o.done = calloc(n, 1)))
		return in_turn(n, work, merge, arg);
	pthread_mutex_init(&o.mu, NULL);
	pthread_cond_init(&o.cv, NULL);
	while (nth < jobs && nth < SBT_JOBS_MAX && (size_t)nth < n &&
	       pthread_create(&th[nth], NULL, ordered_worker, &o) == 0)
		nth++;
	if (nth == 0) {
		rc = in_turn(n, work, merge, arg);
	} else {
		for (size_t i = 0; i < n && rc == 0; i++) {
			pthread_mutex_lock(&o.mu);
			while (!o.done[i])
				pthread_cond_wait(&o.cv, &o.mu);
			pthread_mutex_unlock(&o.mu);
			rc = merge(arg, i);
			pthread_mutex_lock(&o.mu);
			o.merged = i + 1;
			o.stop |= rc != 0;
			pthread_cond_broadcast(&o.cv);
			pthread_mutex_unlock(&o.mu);
		}
	}
	for (int i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	pthread_cond_destroy(&o.cv);
	pthread_mutex_destroy(&o.mu);
	free(o.done);
	return rc;
}

/* ---- unordered: sbt_jobs_each ---------------------------------------- */

struct each {
	atomic_size_t next;
	size_t n;
	void (*work)(void *, size_t, int);
	void *arg;
};

struct each_thread { struct each *e; int t; };

static void *each_worker(void *arg)
{
	const struct each_thread *w = arg;
	struct each *e = w->e;

	for (size_t i; (i = atomic_fetch_add(&e->next, 1)) < e->n; )
		e->work(e->arg, i, w->t);
	return NULL;
}

int sbt_jobs_width(size_t n, int jobs)
{
	jobs = sbt_jobs(jobs);
	return n < (size_t)jobs ? (n ? (int)n : 1) : jobs;
}

void sbt_jobs_each(size_t n, int jobs,
		   void (*work)(void *arg, size_t i, int t), void *arg)
{
	struct each e = { .n = n, .work = work, .arg = arg };
	struct each_thread w[SBT_JOBS_MAX];
	pthread_t th[SBT_JOBS_MAX];
	int nw = sbt_jobs_width(n, jobs), nth = 0;

	atomic_init(&e.next, 0);
	for (int t = 1; t < nw; t++) {
		w[t] = (struct each_thread){ &e, t };
		if (pthread_create(&th[nth], NULL, each_worker, &w[t]) != 0)
			break;          /* fewer threads: the same work */
		nth++;
	}
	w[0] = (struct each_thread){ &e, 0 };
	each_worker(&w[0]);
	for (int t = 0; t < nth; t++)
		pthread_join(th[t], NULL);
}

size_t sbt_jobs_blocks(size_t n, size_t most)
{
	size_t nb = n / SBT_JOBS_BLOCK;

	if (nb > most)
		nb = most;
	return nb ? nb : 1;
}
