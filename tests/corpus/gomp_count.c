/*
 * gomp_count.c - counts the calls a libgomp program makes into the entry
 * points the recorder interposes (GOMP_parallel and its variants) and
 * into GOMP_barrier, independently of the recorder.  Two uses:
 *
 *   LD_PRELOAD=gomp_count.so GOMP_COUNT_OUT=FILE sbt-run -- ./prog
 *     before the recorder: the program's own calls.  tools/corpus.py
 *     keeps the parallel counts in the manifest, so the corpus test
 *     checks a real program's sample counts against a count nobody
 *     derived from the log.
 *   LD_PRELOAD=libsbtmark.so:gomp_count.so GOMP_COUNT_OUT=FILE ./prog
 *     after it: the next definition the recorder finds (dlsym
 *     RTLD_NEXT), so the calls the recorder makes (tests/openmp's
 *     omp-gomp-wait: no GOMP_barrier of its own).
 *
 * At exit a process that started any region appends one line
 * {"GOMP_parallel": N, ..., "GOMP_barrier": M} to FILE (the launcher's
 * shell, preloaded too, starts none and writes nothing).  Each call is
 * passed on (dlsym RTLD_NEXT).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long n_par, n_red, n_sec, n_start, n_bar;

static void *next(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	if (!f) {
		fprintf(stderr, "gomp_count: no %s\n", name);
		abort();
	}
	return f;
}

void GOMP_parallel(void (*fn)(void *), void *data, unsigned nthreads,
		   unsigned flags)
{
	static void (*real)(void (*)(void *), void *, unsigned, unsigned);
	if (!real)
		real = (void (*)(void (*)(void *), void *, unsigned,
				 unsigned))next("GOMP_parallel");
	__atomic_add_fetch(&n_par, 1, __ATOMIC_RELAXED);
	real(fn, data, nthreads, flags);
}

unsigned GOMP_parallel_reductions(void (*fn)(void *), void *data,
				  unsigned nthreads, unsigned flags)
{
	static unsigned (*real)(void (*)(void *), void *, unsigned, unsigned);
	if (!real)
		real = (unsigned (*)(void (*)(void *), void *, unsigned,
				     unsigned))next("GOMP_parallel_reductions");
	__atomic_add_fetch(&n_red, 1, __ATOMIC_RELAXED);
	return real(fn, data, nthreads, flags);
}

void GOMP_parallel_sections(void (*fn)(void *), void *data,
			    unsigned nthreads, unsigned count, unsigned flags)
{
	static void (*real)(void (*)(void *), void *, unsigned, unsigned,
			    unsigned);
	if (!real)
		real = (void (*)(void (*)(void *), void *, unsigned, unsigned,
				 unsigned))next("GOMP_parallel_sections");
	__atomic_add_fetch(&n_sec, 1, __ATOMIC_RELAXED);
	real(fn, data, nthreads, count, flags);
}

void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned nthreads)
{
	static void (*real)(void (*)(void *), void *, unsigned);
	if (!real)
		real = (void (*)(void (*)(void *), void *, unsigned))
			next("GOMP_parallel_start");
	__atomic_add_fetch(&n_start, 1, __ATOMIC_RELAXED);
	real(fn, data, nthreads);
}

void GOMP_barrier(void)
{
	static void (*real)(void);
	if (!real)
		real = (void (*)(void))next("GOMP_barrier");
	__atomic_add_fetch(&n_bar, 1, __ATOMIC_RELAXED);
	real();
}

__attribute__((destructor)) static void report(void)
{
	const char *out = getenv("GOMP_COUNT_OUT");
	FILE *f;

	if (!out || !(n_par | n_red | n_sec | n_start) ||
	    !(f = fopen(out, "a")))
		return;
	fprintf(f, "{\"GOMP_parallel\": %lu, \"GOMP_parallel_reductions\": "
		"%lu, \"GOMP_parallel_sections\": %lu, "
		"\"GOMP_parallel_start\": %lu, \"GOMP_barrier\": %lu}\n",
		n_par, n_red, n_sec, n_start, n_bar);
	fclose(f);
}
