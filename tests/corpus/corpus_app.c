/*
 * corpus_app.c - the corpus's cases whose truth is planted by
 * construction and that acc_app (tools/accuracy/acc_app.c) does not make:
 * several threads and nesting.  Run by tools/corpus.py under the
 * recorder; the truth it prints is judged by tests/corpus/corpus_test.py.
 *
 *   corpus_app threads N   two threads, N calls each of "work": 75 % of
 *                          calls do W adds, every 4th does 3 W more (two
 *                          true modes, 75/25); thread 1 does 5 % more of
 *                          both (a steady offset between the threads, not
 *                          two more modes)
 *   corpus_app nested N    N calls of "outer": W adds, one call of
 *                          "inner" (W adds), W adds: constant work both
 *   corpus_app pagefault N what a first touch of a page costs here: N
 *                          fresh anonymous pages written one by one, the
 *                          median of 5 rounds, in us a page (no marker,
 *                          no recorder needed: the manifest's figure)
 *
 * Prints one JSON line with what was planted.  W is set from the work's
 * measured speed so the regions last about 300 ns wherever they run; the
 * work is straight-line adds on x86-64 (constant: no branch to predict),
 * a loop elsewhere or with ACC_WORK=loop (tools/accuracy/work.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <time.h>
#include <sbtmark.h>

#include "work.h"

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ns per chain step: the fastest of many short runs (a co-runner that
 * preempts one run only loses the minimum). */
static double ns_per_step(void)
{
	uint64_t x = 1;
	double best = 1e9;

	for (int k = 0; k < 400; k++) {
		double t0 = now_ns();
		x = work(x, 16000);
		double r = (now_ns() - t0) / 16000.0;
		if (r < best)
			best = r;
	}
	return best + (double)(x & 1) * 1e-12;
}

struct job { long n, w; int slow; uint64_t x; };

static void *threads_worker(void *arg)
{
	struct job *j = arg;
	long w = j->slow ? j->w + j->w / 20 : j->w;

	SBT_MARKER_THREADINIT;
	for (long i = 0; i < j->n; i++) {
		SBT_MARKER_START("work");
		j->x = work(j->x, i % 4 == 3 ? 4 * w : w);
		SBT_MARKER_STOP("work");
	}
	return NULL;
}

static int run_threads(long n, long w)
{
	pthread_t t[2];
	struct job j[2] = { { n, w, 0, 1 }, { n, w, 1, 2 } };

	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, threads_worker, &j[i]) != 0)
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("{\"case\": \"threads\", \"n\": %ld, \"adds\": [%ld, %ld], "
	       "\"slow_thread\": 1, \"slow_rel\": %.4f, \"modes\": 2, "
	       "\"shares\": [0.75, 0.25], \"x\": %lu}\n", n, w, 4 * w,
	       (double)(w / 20) / (double)w, (unsigned long)((j[0].x ^ j[1].x) & 1));
	return 0;
}

static int run_nested(long n, long w)
{
	uint64_t x = 3;

	for (long i = 0; i < n; i++) {
		SBT_MARKER_START("outer");
		x = work(x, w);
		SBT_MARKER_START("inner");
		x = work(x, w);
		SBT_MARKER_STOP("inner");
		x = work(x, w);
		SBT_MARKER_STOP("outer");
	}
	printf("{\"case\": \"nested\", \"n\": %ld, \"adds\": %ld, "
	       "\"x\": %lu}\n", n, w, (unsigned long)(x & 1));
	return 0;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int run_pagefault(long n)
{
	long pg = sysconf(_SC_PAGESIZE);
	double r[5];

	for (int k = 0; k < 5; k++) {
		size_t len = (size_t)(n * pg);
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 1;
		madvise(p, len, MADV_NOHUGEPAGE);   /* one fault a page */
		double t0 = now_ns();
		for (long i = 0; i < n; i++)
			*(volatile char *)(p + i * pg) = 1;
		r[k] = (now_ns() - t0) / (double)n / 1e3;
		munmap(p, len);
	}
	qsort(r, 5, sizeof *r, cmp_dbl);
	printf("{\"page_fault_us\": %.3f, \"note\": \"first write to %ld "
	       "fresh anonymous %ld-byte pages, no huge pages; median of 5 "
	       "rounds (min %.3f, max %.3f)\"}\n", r[2], n, pg, r[0], r[4]);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: corpus_app threads|nested|pagefault N\n");
		return 2;
	}
	const char *aw = getenv("ACC_WORK");
#if defined(__x86_64__)
	use_line = !aw || strcmp(aw, "loop");
#endif
	(void)aw;
	long n = atol(argv[2]);
	if (!strcmp(argv[1], "pagefault"))
		return run_pagefault(n);
	long w = (long)(300.0 / ns_per_step() + 0.5);

	SBT_MARKER_INIT;
	int rc = !strcmp(argv[1], "threads") ? run_threads(n, w) :
		 !strcmp(argv[1], "nested") ? run_nested(n, w) : 2;
	SBT_MARKER_CLOSE;
	if (rc == 2)
		fprintf(stderr, "corpus_app: unknown case '%s'\n", argv[1]);
	return rc;
}
