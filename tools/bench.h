/*
 * bench.h - what the benchmarks share: options, pinning, the tick's
 * length, quantiles.  Header-only; each benchmark is one program.
 */
#ifndef SBT_BENCH_H
#define SBT_BENCH_H

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sbtmark.h"

struct bench_opts { int cpu, rounds, pairs; const char *lib; };

/* --cpu N --rounds R --pairs B (and --lib PATH when lib_ok).  Returns 0,
 * or prints the usage of `name` and returns -1. */
static inline int bench_args(int argc, char **argv, const char *name, int lib_ok,
		      struct bench_opts *o)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--lib") && lib_ok && i + 1 < argc)
			o->lib = argv[++i];
		else if (!strcmp(argv[i], "--cpu") && i + 1 < argc)
			o->cpu = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			o->rounds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--pairs") && i + 1 < argc)
			o->pairs = atoi(argv[++i]);
		else
			goto usage;
	}
	if (o->rounds >= 5 && o->pairs >= 10 && o->pairs <= 1 << 20)
		return 0;
usage:
	fprintf(stderr, "usage: %s %s[--cpu N] [--rounds R >= 5] "
		"[--pairs 10..2^20]\n", name, lib_ok ? "[--lib PATH] " : "");
	return -1;
}

/* Pin to `cpu` (-1: the last cpu we may run on); returns the cpu. */
static inline int bench_pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0 && sched_getaffinity(0, sizeof set, &set) == 0)
		for (int c = CPU_SETSIZE - 1; c >= 0 && cpu < 0; c--)
			if (CPU_ISSET(c, &set))
				cpu = c;
	CPU_ZERO(&set);
	CPU_SET(cpu < 0 ? 0 : cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set) != 0)
		fprintf(stderr, "cannot pin to cpu %d: %s\n", cpu,
			strerror(errno));
	return cpu;
}

/* Nanoseconds per wall-clock tick, against CLOCK_MONOTONIC_RAW. */
static inline double bench_tick_ns(void)
{
	struct timespec a, b;
	uint32_t aux;
	double ns;

	clock_gettime(CLOCK_MONOTONIC_RAW, &a);
	uint64_t t0 = sbt_read_stop(&aux);
	do {
		clock_gettime(CLOCK_MONOTONIC_RAW, &b);
		ns = (double)(b.tv_sec - a.tv_sec) * 1e9 +
		     (double)(b.tv_nsec - a.tv_nsec);
	} while (ns < 2e8);
	return ns / (double)(sbt_read_stop(&aux) - t0);
}

static inline int bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The p-quantile of v[0..n) (sorts v). */
static inline double bench_q(double *v, size_t n, double p)
{
	qsort(v, n, sizeof *v, bench_cmp);
	return v[(size_t)(p * (double)(n - 1))];
}

#endif
