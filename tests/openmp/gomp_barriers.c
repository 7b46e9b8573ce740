/*
 * gomp_barriers.c - counts, beside the recorder, the calls into
 * libgomp's GOMP_barrier and GOMP_parallel that come through it: preloaded
 * after libsbtmark.so, it is the next definition the recorder finds
 * (dlsym RTLD_NEXT), so the recorder's own calls reach it, and each is
 * passed on to libgomp.
 *
 *   LD_PRELOAD=libsbtmark.so:gomp_barriers.so GOMP_BARRIERS_OUT=FILE prog
 *
 * At exit a process that started a region writes one line to FILE:
 * "GOMP_parallel N GOMP_barrier M".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long n_par, n_bar;

static void *next(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f) {
		fprintf(stderr, "gomp_barriers: no %s\n", name);
		abort();
	}
	return f;
}

void GOMP_parallel(void (*fn)(void *), void *data, unsigned nthreads,
		   unsigned flags)
{
	static void (*real)(void (*)(void *), void *, unsigned, unsigned);

	if (!real)
		*(void **)&real = next("GOMP_parallel");
	__atomic_add_fetch(&n_par, 1, __ATOMIC_RELAXED);
	real(fn, data, nthreads, flags);
}

void GOMP_barrier(void)
{
	static void (*real)(void);

	if (!real)
		*(void **)&real = next("GOMP_barrier");
	__atomic_add_fetch(&n_bar, 1, __ATOMIC_RELAXED);
	real();
}

__attribute__((destructor)) static void report(void)
{
	const char *out = getenv("GOMP_BARRIERS_OUT");
	FILE *f;

	if (!out || !n_par || !(f = fopen(out, "a")))
		return;
	fprintf(f, "GOMP_parallel %lu GOMP_barrier %lu\n",
		__atomic_load_n(&n_par, __ATOMIC_RELAXED),
		__atomic_load_n(&n_bar, __ATOMIC_RELAXED));
	fclose(f);
}
