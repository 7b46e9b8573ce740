/*
 * bench_breakdown.c - where the inline marker pair's nanoseconds go.
 *
 *   bench-breakdown [--cpu N] [--rounds R] [--pairs B]
 *
 * Runs without the recorder: it gives sbtmark.h's inline fast path
 * (sbt__start_fast / sbt__stop_fast) a struct sbt_hot and an event buffer
 * of its own, and times it next to cut-down copies that add its parts
 * one at a time, interleaved round by round on one pinned cpu:
 *
 *   bare     the serialized pair alone
 *   +tls     + what the macros do first: load the thread's pointer from
 *            TLS and test it (START also checks its call-site slot)
 *   +gate    + the busy gate: test, close, reopen (signal safety)
 *   +stack   + the open-region stack: depth, nesting checks, push, pop
 *   full     + the two 16-byte events: the real inline markers
 *
 * Each row is the median cost per pair over rounds, minus the empty
 * loop; the differences between rows are what each part costs.
 */
#define SBT_MARKER
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "sbtmark.h"

enum { BARE, TLS, GATE, STACK, FULL, LOOP, NM };
static const char *names[NM] = { "bare", "+tls", "+gate", "+stack", "full",
				 "loop" };

static __thread struct sbt_hot *hot_tls
	__attribute__((tls_model("initial-exec")));
static struct sbt_csite cs;
static const char tag[] = "bench";

#define FENCE() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* +gate: dispatch and the gate, nothing else. */
static inline __attribute__((always_inline)) void gate_start(struct sbt_hot *t)
{
	uint32_t aux;
	if (t->busy)
		return;
	t->busy = 1;
	FENCE();
	t->busy = 0;
	FENCE();
	(void)sbt_read_start(&aux);
}

static inline __attribute__((always_inline)) void gate_stop(struct sbt_hot *t)
{
	if (t->busy)
		return;
	t->busy = 1;
	FENCE();
	t->busy = 0;
}

/* +stack: the gate and the open-region stack, no events. */
static inline __attribute__((always_inline)) void
stack_start(struct sbt_hot *t, uint32_t word, uint32_t region)
{
	uint32_t d, aux;
	if (t->busy)
		return;
	t->busy = 1;
	FENCE();
	d = t->depth;
	if (d >= SBT_HOT_DEPTH)
		goto out;
	for (uint32_t i = 0; i < d; i++)
		if (t->stack[i].region == region)
			goto out;
	t->stack[d].tag = tag;
	t->stack[d].ev = t->cur;
	t->stack[d].word = word;
	t->stack[d].region = region;
	t->depth = d + 1;
out:
	FENCE();
	t->busy = 0;
	FENCE();
	(void)sbt_read_start(&aux);
}

static inline __attribute__((always_inline)) void
stack_stop(struct sbt_hot *t, const char *tg)
{
	uint32_t d;
	if (t->busy)
		return;
	t->busy = 1;
	FENCE();
	d = t->depth;
	if (d && t->stack[d - 1].tag == tg)
		t->depth = d - 1;
	FENCE();
	t->busy = 0;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_d);
	return v[n / 2];
}

static struct sbt_hot *hot;
static struct sbt__ev *buf;

static uint64_t round_of(int m, int pairs)
{
	uint32_t aux;
	uint64_t a, b;

	hot->cur = buf;
	a = sbt_read_start(&aux);
	for (int i = 0; i < pairs; i++) {
		struct sbt_hot *t;
		switch (m) {
		case BARE:
			(void)sbt_read_start(&aux);
			(void)sbt_read_stop(&aux);
			break;
		case TLS:
			t = hot_tls;
			if (t && __atomic_load_n(&cs.tag, __ATOMIC_ACQUIRE) ==
			    tag)
				(void)sbt_read_start(&aux);
			t = hot_tls;
			if (t)
				(void)sbt_read_stop(&aux);
			break;
		case GATE:
			t = hot_tls;
			if (t && __atomic_load_n(&cs.tag, __ATOMIC_ACQUIRE) ==
			    tag)
				gate_start(t);
			t = hot_tls;
			if (t) {
				(void)sbt_read_stop(&aux);
				gate_stop(t);
			}
			break;
		case STACK:
			t = hot_tls;
			if (t && __atomic_load_n(&cs.tag, __ATOMIC_ACQUIRE) ==
			    tag)
				stack_start(t, cs.word, cs.region);
			t = hot_tls;
			if (t) {
				(void)sbt_read_stop(&aux);
				stack_stop(t, tag);
			}
			break;
		case FULL:
			t = hot_tls;
			if (t && __atomic_load_n(&cs.tag, __ATOMIC_ACQUIRE) ==
			    tag)
				(void)sbt__start_fast(t, cs.word, cs.region, tag);
			t = hot_tls;
			if (t) {
				uint64_t t1 = sbt_read_stop(&aux);
				(void)sbt__stop_fast(t, tag, t1, aux);
			}
			break;
		case LOOP:
			__asm__ __volatile__("" ::: "memory");
			break;
		}
	}
	b = sbt_read_stop(&aux);
	return b - a;
}

int main(int argc, char **argv)
{
	int cpu = -1, rounds = 200, pairs = 2000;
	struct timespec ta, tb;
	uint32_t aux;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cpu") && i + 1 < argc)
			cpu = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--pairs") && i + 1 < argc)
			pairs = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: bench-breakdown [--cpu N] "
				"[--rounds R] [--pairs B]\n");
			return 2;
		}
	}
	if (rounds < 5 || pairs < 10 || pairs > 1 << 20) {
		fprintf(stderr, "bench-breakdown: need rounds >= 5, "
			"10 <= pairs <= 2^20\n");
		return 2;
	}
	if (cpu >= 0) {
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof one, &one) != 0)
			fprintf(stderr, "bench-breakdown: cannot pin to cpu "
				"%d: %s\n", cpu, strerror(errno));
	}
	size_t bytes = ((size_t)pairs * 2 + 1) * sizeof *buf;
	hot = calloc(1, sizeof *hot);
	buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (!hot || buf == MAP_FAILED)
		return 1;
	hot->end = buf + (size_t)pairs * 2;
	hot_tls = hot;
	cs.word = SBT__START_WORD | 1;
	cs.region = 1;
	__atomic_store_n(&cs.tag, tag, __ATOMIC_RELEASE);

	clock_gettime(CLOCK_MONOTONIC_RAW, &ta);
	uint64_t c0 = sbt_read_stop(&aux);
	do
		clock_gettime(CLOCK_MONOTONIC_RAW, &tb);
	while ((tb.tv_sec - ta.tv_sec) * 1e9 + (tb.tv_nsec - ta.tv_nsec) < 2e8);
	double tick_ns = ((tb.tv_sec - ta.tv_sec) * 1e9 +
			  (tb.tv_nsec - ta.tv_nsec)) /
			 (double)(sbt_read_stop(&aux) - c0);

	double *cost[NM], c50[NM];
	for (int m = 0; m < NM; m++) {
		if (!(cost[m] = calloc((size_t)rounds, sizeof(double))))
			return 1;
		round_of(m, pairs);             /* warm up */
	}
	for (int r = 0; r < rounds; r++)
		for (int m = 0; m < NM; m++)
			cost[m][r] = (double)round_of(m, pairs) / pairs;
	for (int m = 0; m < NM; m++)
		c50[m] = median(cost[m], (size_t)rounds);
	printf("bench-breakdown: cpu %d, %d rounds x %d pairs, tick %.4f ns\n",
	       cpu, rounds, pairs, tick_ns);
	printf("%-8s %14s %12s %10s\n", "variant", "cost/pair p50", "added",
	       "vs bare");
	for (int m = 0; m < LOOP; m++) {
		double c = (c50[m] - c50[LOOP]) * tick_ns;
		double prev = m ? (c50[m - 1] - c50[LOOP]) * tick_ns : 0;
		printf("%-8s %11.2f ns %9.2f ns %9.2fx\n", names[m], c,
		       m ? c - prev : c, c / ((c50[BARE] - c50[LOOP]) *
					      tick_ns));
	}
	return 0;
}
