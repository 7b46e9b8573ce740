/*
 * bench_breakdown.c - where the inline marker pair's nanoseconds go.
 *
 *   bench-breakdown [--cpu N] [--rounds R] [--pairs B]   (cpu: the last)
 *
 * Runs without the recorder: it gives sbtmark.h's inline markers a struct
 * sbt_hot and an event buffer of its own (playing the recorder's part of
 * filling the call site's slot), and times them next to cut-down copies
 * that add their parts one at a time, interleaved round by round on one
 * pinned cpu:
 *
 *   bare     the serialized pair alone
 *   +start   + what START does first: load the thread's pointer from TLS,
 *            test it, check its call-site slot
 *   +tls     + what STOP does before its clock read: load the thread's
 *            pointer and test it (no recorder, or a skipped call: no read)
 *   +gate    + the busy gate: test, close, reopen (signal safety)
 *   +stack   + the open-region stack: depth, nesting checks, push, pop
 *   full     + the two 16-byte events: the real inline markers, into a
 *            buffer that stays in the cache
 *   +log     the same markers into fresh pages of a file mapping, 1 MiB
 *            chunk after chunk, each populated at once as the recorder
 *            does: what a log's memory costs a long run
 *
 * The recorder's own paths need the recorder: bench-overhead's maxmb row
 * (SBT_MAX_MB below its first step: the fast path) and events row (a
 * thread counting SBT_EVENTS: the general path and two read() calls a
 * marker) give their cost beside the inline pair's.
 *
 * Each row is the median cost per pair over rounds, minus the empty
 * loop; the differences between rows are what each part costs.  The
 * mean is there for +log: a new chunk comes every 16 rounds or so, which
 * the median leaves out and a long run pays.
 */
#define SBT_MARKER
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include "bench.h"

enum { BARE, START, TLS, GATE, STACK, FULL, LOG, LOOP, NM };
static const char *names[NM] = { "bare", "+start", "+tls", "+gate",
				 "+stack", "full",
				 "+log", "loop" };

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

static struct sbt_hot *hot;
static char *logmap;                    /* the +log rows' file mapping */
static size_t logsize, logused;
#define LOG_CHUNK (1u << 20)

/* The recorder's part, for the FULL and +log rows: the slow path of the
 * inline markers fills the call site's slot, hands out the thread's
 * state, and gives the +log rows their next chunk. */
int sbt_marker_start_hot(const char *t, struct sbt_csite *c,
			 struct sbt_hot **h, unsigned abi)
{
	(void)abi;
	*h = hot;
	c->way[0].word = cs.way[0].word;
	c->way[0].region = cs.way[0].region;
	__atomic_store_n(&c->way[0].tag, t, __ATOMIC_RELEASE);
	if (logmap && hot->cur >= hot->end && logused + LOG_CHUNK <= logsize) {
		hot->cur = (struct sbt__ev *)(logmap + logused);
		hot->end = hot->cur + LOG_CHUNK / sizeof *hot->cur;
#ifdef MADV_POPULATE_WRITE
		(void)madvise(hot->cur, LOG_CHUNK, MADV_POPULATE_WRITE);
#endif
		/* and each page read once, as logfile.c's populate does */
		for (size_t o = 0; o < LOG_CHUNK; o += 4096)
			(void)((volatile const char *)hot->cur)[o];
		logused += LOG_CHUNK;
		return sbt__start_fast(hot, c->way[0].word, c->way[0].region,
				       t) ? 0 : -1;
	}
	return 0;
}

int sbt_marker_stop_at(const char *t, uint64_t t1, uint32_t aux)
{
	(void)t, (void)t1, (void)aux;
	return 0;
}

static struct sbt__ev *buf;

static struct sbt__ev *logcur, *logend;

static uint64_t round_of(int m, int pairs)
{
	uint32_t aux;
	uint64_t a, b;

	hot->depth = 0;
	if (m == LOG) {
		hot->cur = logcur, hot->end = logend;
	} else {
		hot->cur = buf;
		hot->end = buf + (size_t)pairs * 2;
	}
	a = sbt_read_start(&aux);
	for (int i = 0; i < pairs; i++) {
		struct sbt_hot *t;
		switch (m) {
		case BARE:
			(void)sbt_read_start(&aux);
			(void)sbt_read_stop(&aux);
			break;
		case START:
			t = hot_tls;
			if (t && __atomic_load_n(&cs.way[0].tag,
						 __ATOMIC_ACQUIRE) == tag)
				(void)sbt_read_start(&aux);
			(void)sbt_read_stop(&aux);
			break;
		case TLS:
			t = hot_tls;
			if (t && __atomic_load_n(&cs.way[0].tag,
						 __ATOMIC_ACQUIRE) == tag)
				(void)sbt_read_start(&aux);
			t = hot_tls;
			if (t)
				(void)sbt_read_stop(&aux);
			break;
		case GATE:
			t = hot_tls;
			if (t && __atomic_load_n(&cs.way[0].tag,
						 __ATOMIC_ACQUIRE) == tag)
				gate_start(t);
			t = hot_tls;
			if (t) {
				(void)sbt_read_stop(&aux);
				gate_stop(t);
			}
			break;
		case STACK:
			t = hot_tls;
			if (t && __atomic_load_n(&cs.way[0].tag,
						 __ATOMIC_ACQUIRE) == tag)
				stack_start(t, cs.way[0].word, cs.way[0].region);
			t = hot_tls;
			if (t) {
				(void)sbt_read_stop(&aux);
				stack_stop(t, tag);
			}
			break;
		case FULL:              /* the markers as an app has them */
		case LOG:
			SBT_MARKER_START(tag);
			SBT_MARKER_STOP(tag);
			break;
		case LOOP:
			__asm__ __volatile__("" ::: "memory");
			break;
		}
	}
	b = sbt_read_stop(&aux);
	if (m == LOG)
		logcur = hot->cur, logend = hot->end;
	return b - a;
}

int main(int argc, char **argv)
{
	struct bench_opts o = { -1, 200, 2000, NULL };

	if (bench_args(argc, argv, "bench-breakdown", 0, &o) != 0)
		return 2;
	int rounds = o.rounds, pairs = o.pairs, cpu = bench_pin(o.cpu);
	size_t bytes = ((size_t)pairs * 2 + 1) * sizeof *buf;
	hot = calloc(1, sizeof *hot);
	buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (!hot || buf == MAP_FAILED)
		return 1;
	hot_tls = hot;
	/* +log: a file in the working directory, like region.log, big
	 * enough for every round; removed at once (the mapping stays). */
	char tmpl[] = "bench-breakdown.XXXXXX";
	int fd = mkstemp(tmpl);
	logsize = ((size_t)rounds + 2) * (size_t)pairs * 32 + 2 * LOG_CHUNK;
	logsize = (logsize + LOG_CHUNK - 1) / LOG_CHUNK * LOG_CHUNK;
	if (fd < 0 || posix_fallocate(fd, 0, (off_t)logsize) != 0 ||
	    (logmap = mmap(NULL, logsize, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd, 0)) == MAP_FAILED) {
		fprintf(stderr, "bench-breakdown: cannot map a log file here: "
			"%s\n", strerror(errno));
		return 1;
	}
	unlink(tmpl);
	close(fd);
	cs.way[0].word = SBT__START_WORD | 1;
	cs.way[0].region = 1;
	__atomic_store_n(&cs.way[0].tag, tag, __ATOMIC_RELEASE);
	/* The first marker pair goes to the slow path below, which fills
	 * the markers' own call-site slot and hands out `hot`. */
	round_of(FULL, 1);

	double tick_ns = bench_tick_ns();

	double *cost[NM], c50[NM], mean[NM];
	for (int m = 0; m < NM; m++) {
		if (!(cost[m] = calloc((size_t)rounds, sizeof(double))))
			return 1;
		round_of(m, pairs);             /* warm up */
	}
	for (int r = 0; r < rounds; r++)
		for (int m = 0; m < NM; m++)
			cost[m][r] = (double)round_of(m, pairs) / pairs;
	for (int m = 0; m < NM; m++) {
		mean[m] = 0;
		for (int r = 0; r < rounds; r++)
			mean[m] += cost[m][r] / rounds;
		c50[m] = bench_q(cost[m], (size_t)rounds, 0.5);
	}
	printf("bench-breakdown: cpu %d, %d rounds x %d pairs, tick %.4f ns\n",
	       cpu, rounds, pairs, tick_ns);
	printf("%-8s %14s %12s %10s %14s\n", "variant", "cost/pair p50",
	       "added", "vs bare", "mean (sustained)");
	for (int m = 0; m < LOOP; m++) {
		double c = (c50[m] - c50[LOOP]) * tick_ns;
		double prev = m ? (c50[m == LOG ? FULL : m - 1] - c50[LOOP]) *
				  tick_ns : 0;
		printf("%-8s %11.2f ns %9.2f ns %9.2fx %11.2f ns\n", names[m], c,
		       m ? c - prev : c, c / ((c50[BARE] - c50[LOOP]) *
					      tick_ns),
		       (mean[m] - mean[LOOP]) * tick_ns);
	}
	return 0;
}
