/*
 * gen_seeds.c - small, valid sbtmark logs for the fuzzer's seed corpus.
 *
 * Real logs are 100+ KiB (startup calibration, growing chunks); these are
 * 12-20 KiB and still reach every branch of the reader: META entries of
 * each kind (the kernel's OS events, COUNTER entries of SBT_EVENTS too),
 * events of every flag and kind (COUNT readings too),
 * nesting, two threads, a hole, a PAD chunk, closed and unclosed
 * headers, a cycle clock, and meaning across chunks for reading in
 * segments (seed-segments*.log).  run_fuzz.sh adds a few real logs recorded on
 * the spot.
 *
 * usage: gen_seeds DIR
 */
#include "../common/logbuild.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE 4096u

static struct lb b;
static int counting;            /* COUNT events after START/STOP */

static void header(uint32_t flags, uint32_t clocks)
{
	lb_free(&b);
	lb_begin(&b, 8 * PAGE, PAGE);
	struct sbt_file_header *h = lb_hdr(&b);
	h->clocks = clocks;
	h->flags = flags;
	h->tick_hz = 2596000000ull;
	h->tick_quantum = 26;
	strcpy(h->tick_source, "perf");
	h->te_min_ticks = 52, h->te_p50_ticks = 78, h->te_p999_ticks = 104;
	h->te_samples = 1000;
	h->kernel_entry_ns = 90;
	h->pid = 4242, h->ppid = 1, h->rank = 1, h->nranks = 4;
	h->start_ticks = 1000000;
	h->probe_period = 64;
	strcpy(h->host, "seedhost");
	strcpy(h->cpu_model, "seed cpu");
	strcpy(h->exe, "/usr/bin/seed");
	h->counters[SBT_CNT_STOP_WITHOUT_START] = 1;
	h->counters[SBT_CNT_THREADS] = 2;
	h->os_events = SBT_OS_ON;
}

static void region(struct sbt_chunk *c, uint32_t id, const char *name)
{
	lb_region(c, id, SBT_API_SBTMARK, 0x401000 + id, name);
}

static void metas(void)
{
	struct sbt_chunk *c = lb_chunk(&b, SBT_CHUNK_META, 0);
	uint64_t frames[2] = { 0x401001, 0x402000 };

	lb_module(c, 0, 0x400000, 0x500000, "/usr/bin/seed");
	region(c, 1, "outer");
	region(c, 2, "inner");
	region(c, 3, "solve");
	for (uint32_t id = 1; id <= 4; id++)
		lb_site(c, id, 1 + (id - 1) % 3, frames, 2);
	/* the kernel's events of both threads: every kind once */
	for (uint32_t th = 0; th < 2; th++) {
		struct sbt_os_event oe[SBT_OS_LOST];
		struct sbt_meta_os mo = { th, 4242 + (int32_t)th, 0,
					  SBT_OS_LOST, 1000000 + 600 };
		for (uint16_t k = 1; k <= SBT_OS_LOST; k++)
			oe[k - 1] = (struct sbt_os_event){
				1000000 + 60u * k, k, 1, k == SBT_OS_LOST ?
				3 : 1 };
		lb_meta(c, SBT_META_OS, &mo, sizeof mo, oe, sizeof oe);
	}
	if (!counting)
		return;
	/* two counted (one scaled), one refused, one unknown */
	static const struct { const char *name; uint32_t index, flags;
			      int32_t err; } ev[] = {
		{ "instructions", 0, SBT_COUNTER_SCALED, 0 },
		{ "page-faults", 1, 0, 0 },
		{ "cycles", SBT_COUNTER_NONE, 0, 2 },
		{ "nosuch", SBT_COUNTER_NONE, 0, -1 } };
	for (unsigned i = 0; i < 4; i++) {
		struct sbt_meta_counter mc = { ev[i].index, ev[i].err, 0,
					       ev[i].flags, i };
		lb_meta(c, SBT_META_COUNTER, &mc, sizeof mc, ev[i].name,
		     (uint32_t)strlen(ev[i].name));
	}
}

/* A reading: enabled, running (multiplexed: half), two counters. */
static struct sbt_event *counts(struct sbt_event *e, struct sbt_event *end,
				uint64_t t)
{
	const uint64_t v[4] = { t, t / 2, 3 * t, t / 1000 };
	const uint32_t id[4] = { SBT_COUNT_ENABLED, SBT_COUNT_RUNNING, 0, 1 };

	for (int k = 0; k < 4 && e < end; k++)
		*e++ = (struct sbt_event){ v[k],
			SBT_EV_WORD(SBT_EV_COUNT, 0, id[k]), 0 };
	return e;
}

/* Nested pairs, a probe, a crossed STOP, calibration, a RESET and CYCLES
 * events, with `n` outer rounds, in one chunk of the thread's. */
static void events(uint32_t thread, int n, int cycles)
{
	struct sbt_chunk *c = lb_chunk(&b, SBT_CHUNK_EVENTS, thread);
	struct sbt_event *e = (void *)(c + 1), *end = (void *)((char *)c + PAGE);
	uint64_t t = 1000000;

#define EV(kind, fl, id) do {                                              \
		if (e == end) return;                                      \
		*e++ = (struct sbt_event){ t += 26, SBT_EV_WORD(kind, fl, id), \
					   (uint32_t)(t % 3) };            \
		if (cycles && kind != SBT_EV_RESET && e < end)             \
			*e++ = (struct sbt_event){ t * 3,                  \
				SBT_EV_WORD(SBT_EV_CYCLES, 0, 0), 0 };      \
		if (counting && kind != SBT_EV_RESET)                      \
			e = counts(e, end, t);                             \
	} while (0)
	for (int i = 0; i < n; i++) {
		switch (i % 5) {
		case 0:                 /* calibration pair */
			EV(SBT_EV_START, SBT_RF_CALIB, SBT_SITE_CALIB);
			EV(SBT_EV_STOP, SBT_RF_CALIB, SBT_SITE_CALIB);
			break;
		case 1:                 /* probe, then outer { inner } */
			EV(SBT_EV_START, SBT_RF_PROBE, 1);
			EV(SBT_EV_STOP, SBT_RF_PROBE, 1);
			EV(SBT_EV_START, 0, 1);
			EV(SBT_EV_START, 0, 2);
			EV(SBT_EV_STOP, 0, 2);
			EV(SBT_EV_STOP, 0, 1);
			break;
		case 2:                 /* crossed: 3 { 4 } 3 closes first */
			EV(SBT_EV_START, 0, 3);
			EV(SBT_EV_START, 0, 4);
			EV(SBT_EV_STOP, SBT_RF_CROSSED, 3);
			EV(SBT_EV_STOP, 0, 4);
			break;
		case 3:
			EV(SBT_EV_RESET, 0, 1);
			break;
		case 4:                 /* left open (in flight) */
			if (i == n - 1)
				EV(SBT_EV_START, 0, 1);
			break;
		}
	}
#undef EV
}

/* Events whose meaning crosses chunks, for reading in segments: STOPs of
 * STARTs of earlier chunks (recursion too), CYCLES first in a chunk, a
 * detour across a boundary, SKIP counts of earlier samples, a probe
 * split, depth beyond the reader's 128 over two chunks, two threads. */
static uint64_t st = 2000000;

static void ev(uint32_t thread, uint32_t kind, uint32_t fl, uint32_t id)
{
	st += 26;
	lb_event(&b, thread, kind, fl, id, st, (uint32_t)(st % 3));
}

static void segments(void)
{
	lb_chunk(&b, SBT_CHUNK_EVENTS, 0);              /* A */
	ev(0, SBT_EV_START, 0, 1);
	ev(0, SBT_EV_START, 0, 4);
	ev(0, SBT_EV_START, 0, 4);
	ev(0, SBT_EV_START, 0, 3);
	lb_chunk(&b, SBT_CHUNK_EVENTS, 0);              /* B */
	lb_event(&b, 0, SBT_EV_CYCLES, 0, 0, st * 3, 0);
	ev(0, SBT_EV_STOP, 0, 3);
	lb_event(&b, 0, SBT_EV_CYCLES, 0, 0, st * 3, 0);
	ev(0, SBT_EV_START, 0, 4);
	ev(0, SBT_EV_STOP, 0, 4);
	lb_event(&b, 0, SBT_EV_SPEED, SBT_SPEED_SPAN, 5, st - 40, 0);
	ev(0, SBT_EV_STOP, 0, 4);
	lb_event(&b, 0, SBT_EV_SKIP, 0, 4, 3, 0);
	for (int i = 0; i < 3; i++) {
		ev(0, SBT_EV_START, 0, 2);
		ev(0, SBT_EV_STOP, 0, 2);
	}
	ev(0, SBT_EV_START, 0, 3);
	lb_chunk(&b, SBT_CHUNK_EVENTS, 1);              /* C */
	ev(1, SBT_EV_START, 0, 2);
	ev(1, SBT_EV_STOP, 0, 2);
	lb_event(&b, 1, SBT_EV_SKIP, 0, 2, 2, 0);
	ev(1, SBT_EV_START, 0, 1);
	ev(1, SBT_EV_START, 0, 3);
	lb_event(&b, 1, SBT_EV_CYCLES, 0, 0, st * 3, 0);
	ev(1, SBT_EV_STOP, 0, 3);       /* its CYCLES first in chunk F */
	lb_chunk(&b, SBT_CHUNK_EVENTS, 0);              /* D */
	lb_event(&b, 0, SBT_EV_SKIP, 0, 2, 4, 0);
	lb_event(&b, 0, SBT_EV_SKIP, 0, 3, 1, 0);
	ev(0, SBT_EV_STOP, 0, 3);
	ev(0, SBT_EV_STOP, 0, 4);
	for (int i = 0; i < 100; i++)
		ev(0, SBT_EV_START, 0, 2);
	ev(0, SBT_EV_START, SBT_RF_PROBE, 1);
	lb_chunk(&b, SBT_CHUNK_EVENTS, 0);              /* E */
	ev(0, SBT_EV_STOP, SBT_RF_PROBE, 1);
	for (int i = 0; i < 40; i++)
		ev(0, SBT_EV_START, 0, 2);
	for (int i = 0; i < 140; i++)
		ev(0, SBT_EV_STOP, 0, 2);
	ev(0, SBT_EV_STOP, 0, 1);
	lb_chunk(&b, SBT_CHUNK_EVENTS, 1);              /* F */
	lb_event(&b, 1, SBT_EV_CYCLES, 0, 0, st * 3, 0);
	ev(1, SBT_EV_STOP, 0, 1);
	lb_event(&b, 1, SBT_EV_SKIP, 0, 1, 7, 0);
}

/* Waits other threads' RELEASEs end (format version 6): a JOIN after its
 * START, one in the chunk after its START's, one whose STOP is there,
 * one no RELEASE ends; the RELEASEs before and after them in the file. */
static void joins(void)
{
	lb_chunk(&b, SBT_CHUNK_EVENTS, 0);
	lb_event(&b, 0, SBT_EV_RELEASE, 0, 1, st + 10000, 0);
	lb_chunk(&b, SBT_CHUNK_EVENTS, 1);
	ev(1, SBT_EV_START, 0, 3);
	lb_event(&b, 1, SBT_EV_JOIN, 0, 3, SBT_JOIN_T(0, 1), 0);
	ev(1, SBT_EV_STOP, 0, 3);
	ev(1, SBT_EV_START, 0, 3);
	lb_chunk(&b, SBT_CHUNK_EVENTS, 1);
	lb_event(&b, 1, SBT_EV_JOIN, 0, 3, SBT_JOIN_T(0, 2), 0);
	ev(1, SBT_EV_STOP, 0, 3);
	ev(1, SBT_EV_START, 0, 3);
	lb_event(&b, 1, SBT_EV_JOIN, 0, 3, SBT_JOIN_T(0, 3), 0);
	lb_chunk(&b, SBT_CHUNK_EVENTS, 1);
	ev(1, SBT_EV_STOP, 0, 3);
	ev(1, SBT_EV_START, 0, 3);
	lb_event(&b, 1, SBT_EV_JOIN, 0, 3, SBT_JOIN_T(7, 1), 0);
	ev(1, SBT_EV_STOP, 0, 3);
	lb_chunk(&b, SBT_CHUNK_EVENTS, 0);
	lb_event(&b, 0, SBT_EV_RELEASE, 0, 2, st + 10000, 0);
	lb_event(&b, 0, SBT_EV_RELEASE, 0, 3, st + 10000, 0);
}

static void finish(const char *dir, const char *name, int closed)
{
	char path[4096];

	if (closed)
		lb_hdr(&b)->flags |= SBT_HF_CLOSED;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (lb_save(&b, path) != 0) {
		perror(path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_seeds DIR\n");
		return 2;
	}
	/* closed, two threads; killed with a hole, cycles */
	header(SBT_HF_CPU_AUX, SBT_CLOCK_WALL);
	metas();
	events(0, 60, 0);
	events(1, 40, 0);
	finish(argv[1], "seed-closed.log", 1);
	header(SBT_HF_CPU_AUX, SBT_CLOCK_WALL | SBT_CLOCK_CYCLES);
	metas();
	events(0, 30, 1);
	lb_hole(&b);
	events(0, 200, 1);              /* a full page */
	finish(argv[1], "seed-killed.log", 0);

	/* counters, cycles, two threads */
	counting = 1;
	header(SBT_HF_CPU_AUX, SBT_CLOCK_WALL | SBT_CLOCK_CYCLES);
	metas();
	events(0, 30, 1);
	events(1, 20, 0);
	finish(argv[1], "seed-counters.log", 1);
	counting = 0;

	/* a PAD chunk; events before their names (META last), fork child */
	header(SBT_HF_FORKED, SBT_CLOCK_WALL);
	lb_chunk(&b, SBT_CHUNK_PAD, 0);
	events(0, 30, 0);
	metas();
	finish(argv[1], "seed-meta-last.log", 1);

	/* meaning across chunks (segment.c), whole and cut in chunk E */
	header(SBT_HF_CPU_AUX, SBT_CLOCK_WALL | SBT_CLOCK_CYCLES);
	metas();
	segments();
	finish(argv[1], "seed-segments.log", 1);
	b.len -= PAGE + PAGE / 2 + 5;
	finish(argv[1], "seed-segments-cut.log", 0);

	header(SBT_HF_CPU_AUX, SBT_CLOCK_WALL);
	metas();
	joins();
	finish(argv[1], "seed-joins.log", 1);

	/* header only */
	header(0, SBT_CLOCK_WALL);
	finish(argv[1], "seed-empty.log", 1);
	lb_free(&b);
	return 0;
}
