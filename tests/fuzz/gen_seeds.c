/*
 * gen_seeds.c - small, valid sbtmark logs for the fuzzer's seed corpus.
 *
 * Real logs are 100+ KiB (startup calibration, growing chunks); these are
 * 12-20 KiB and still reach every branch of the reader, in every format
 * version (4: COUNT events and COUNTER entries of SBT_EVENTS): META entries of each kind (the kernel's OS events too),
 * samples (version 1) and events (version 2) with every flag and kind,
 * nesting, two threads, a hole, a PAD chunk, closed and unclosed
 * headers, a cycle clock.  run_fuzz.sh adds a few real logs recorded on
 * the spot.
 *
 * usage: gen_seeds DIR
 */
#include "sbtlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE 4096u

static unsigned char buf[8 * PAGE];
static size_t len;

static uint32_t version;
static int counting;            /* version 4: COUNT events after START/STOP */

static void header(uint32_t flags, uint32_t clocks)
{
	struct sbt_file_header h;

	memset(&h, 0, sizeof h);
	memcpy(h.magic, SBT_LOG_MAGIC, 8);
	h.version = version;
	h.header_size = SBT_HEADER_SIZE;
	h.arch = SBT_ARCH_X86_64;
	h.clocks = clocks;
	h.flags = flags;
	h.record_size = version == 1 ? sizeof(struct sbt_record)
				     : sizeof(struct sbt_event);
	h.tick_hz = 2596000000ull;
	h.tick_quantum = 26;
	strcpy(h.tick_source, "perf");
	h.te_min_ticks = 52, h.te_p50_ticks = 78, h.te_p999_ticks = 104;
	h.te_samples = 1000;
	h.kernel_entry_ns = 90;
	h.pid = 4242, h.ppid = 1, h.rank = 1, h.nranks = 4;
	h.start_ticks = 1000000;
	h.probe_period = 64;
	strcpy(h.host, "seedhost");
	strcpy(h.cpu_model, "seed cpu");
	strcpy(h.exe, "/usr/bin/seed");
	h.counters[SBT_CNT_STOP_WITHOUT_START] = 1;
	h.counters[SBT_CNT_THREADS] = 2;
	h.os_events = version == 1 ? SBT_OS_NONE : SBT_OS_ON;
	memset(buf, 0, sizeof buf);
	memcpy(buf, &h, sizeof h);
	len = SBT_HEADER_SIZE;
}

static struct sbt_chunk *chunk(uint32_t type, uint32_t thread)
{
	struct sbt_chunk *c = (struct sbt_chunk *)(buf + len);

	c->magic = SBT_CHUNK_MAGIC;
	c->type = type;
	c->size = PAGE;
	c->used = 0;
	c->thread = thread;
	c->tid = 4242 + (int32_t)thread;
	len += PAGE;
	return c;
}

static void meta(struct sbt_chunk *c, uint16_t type, const void *a,
		 uint32_t alen, const void *b, uint32_t blen)
{
	struct sbt_meta *m = (void *)((char *)(c + 1) + c->used);

	m->type = type;
	m->len = alen + blen;
	memcpy(m + 1, a, alen);
	memcpy((char *)(m + 1) + alen, b, blen);
	c->used += (sizeof *m + alen + blen + 7) & ~7u;
}

static void region(struct sbt_chunk *c, uint32_t id, const char *name)
{
	struct sbt_meta_region r = { .id = id, .api = SBT_API_SBTMARK,
				     .site = 0x401000 + id };
	meta(c, SBT_META_REGION, &r, sizeof r, name, (uint32_t)strlen(name));
}

static void metas(void)
{
	struct sbt_chunk *c = chunk(SBT_CHUNK_META, 0);
	struct sbt_meta_module mm = { 0, 0x400000, 0x500000 };
	struct sbt_meta_site ms = { 1, 2 };
	uint64_t frames[2] = { 0x401001, 0x402000 };

	meta(c, SBT_META_MODULE, &mm, sizeof mm, "/usr/bin/seed", 13);
	region(c, 1, "outer");
	region(c, 2, "inner");
	region(c, 3, "solve");
	if (version == 1) {
		meta(c, SBT_META_SITE, &ms, sizeof ms, frames, sizeof frames);
		return;
	}
	for (uint32_t id = 1; id <= 4; id++) {
		struct sbt_meta_site2 m2 = { id, 1 + (id - 1) % 3, 2, 0 };
		meta(c, SBT_META_SITE2, &m2, sizeof m2, frames, sizeof frames);
	}
	/* the kernel's events of both threads: every kind once */
	for (uint32_t th = 0; th < 2; th++) {
		struct sbt_os_event oe[SBT_OS_LOST];
		struct sbt_meta_os mo = { th, 4242 + (int32_t)th, 0,
					  SBT_OS_LOST, 1000000 + 600 };
		for (uint16_t k = 1; k <= SBT_OS_LOST; k++)
			oe[k - 1] = (struct sbt_os_event){
				1000000 + 60u * k, k, 1, k == SBT_OS_LOST ?
				3 : 1 };
		meta(c, SBT_META_OS, &mo, sizeof mo, oe, sizeof oe);
	}
	if (version < 4)
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
		meta(c, SBT_META_COUNTER, &mc, sizeof mc, ev[i].name,
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

/* Version 2: nested pairs, a probe, a crossed STOP, calibration, a RESET
 * and CYCLES events, with `n` outer rounds. */
static void events(uint32_t thread, int n, int cycles)
{
	struct sbt_chunk *c = chunk(SBT_CHUNK_EVENTS, thread);
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

static void samples(uint32_t thread, int n, int cycles)
{
	struct sbt_chunk *c = chunk(SBT_CHUNK_SAMPLES, thread);
	struct sbt_record *r = (void *)(c + 1);
	static const uint32_t flags[] = { 0, 0, 0, SBT_RF_PROBE, 0,
		SBT_RF_CROSSED, 0, SBT_RF_CALIB, 0, SBT_RF_RESET };

	for (int i = 0; i < n; i++, r++) {
		uint32_t fl = flags[i % 10];
		r->start = 1000000 + 1000u * (uint64_t)i;
		r->ticks = fl & SBT_RF_RESET ? 0 : 260 + 26u * (uint64_t)(i % 7);
		r->cycles = cycles && !(fl & SBT_RF_RESET) ? 400 + i % 5 : 0;
		r->region = (fl & SBT_RF_CALIB ? 0 : 1 + (uint32_t)i % 3) |
			    (fl << SBT_REC_ID_BITS);
		r->cpu_start = 0;
		r->cpu_stop = i % 13 ? 0 : 1;
		c->used += sizeof *r;
	}
}

static void finish(const char *dir, const char *name, int closed)
{
	struct sbt_file_header *h = (void *)buf;
	char path[4096];
	FILE *f;

	h->end_offset = len;
	if (closed)
		h->flags |= SBT_HF_CLOSED;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (!(f = fopen(path, "wb")) || fwrite(buf, 1, len, f) != len ||
	    fclose(f) != 0) {
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
	/* version 2: closed, two threads, cycles; killed with a hole */
	version = 2;
	header(SBT_HF_CPU_AUX, SBT_CLOCK_WALL);
	metas();
	events(0, 60, 0);
	events(1, 40, 0);
	finish(argv[1], "seed-v2-closed.log", 1);
	header(SBT_HF_CPU_AUX, SBT_CLOCK_WALL | SBT_CLOCK_CYCLES);
	metas();
	events(0, 30, 1);
	len += PAGE;                    /* hole */
	events(0, 200, 1);              /* a full page */
	finish(argv[1], "seed-v2-killed.log", 0);

	/* version 4: counters, cycles, two threads */
	version = 4;
	counting = 1;
	header(SBT_HF_CPU_AUX, SBT_CLOCK_WALL | SBT_CLOCK_CYCLES);
	metas();
	events(0, 30, 1);
	events(1, 20, 0);
	finish(argv[1], "seed-v4-counters.log", 1);
	counting = 0;

	/* version 1: closed, two threads */
	version = 1;
	header(SBT_HF_CPU_AUX, SBT_CLOCK_WALL);
	metas();
	samples(0, 100, 0);
	samples(1, 60, 0);
	finish(argv[1], "seed-closed.log", 1);

	/* unclosed (killed), with a hole and a PAD chunk, cycles */
	header(SBT_HF_CPU_AUX, SBT_CLOCK_WALL | SBT_CLOCK_CYCLES);
	metas();
	samples(0, 40, 1);
	len += PAGE;                    /* hole */
	chunk(SBT_CHUNK_PAD, 0);
	samples(1, 127, 1);             /* a full page */
	finish(argv[1], "seed-killed.log", 0);

	/* samples before their names (META last), fork child */
	header(SBT_HF_FORKED, SBT_CLOCK_WALL);
	samples(0, 30, 0);
	metas();
	finish(argv[1], "seed-meta-last.log", 1);

	/* header only */
	header(0, SBT_CLOCK_WALL);
	finish(argv[1], "seed-empty.log", 1);
	return 0;
}
