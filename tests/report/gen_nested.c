/*
 * gen_nested.c - a synthetic version-2 log with nested regions, several
 * threads, one slower thread and lost OS events, for the totals and HTML
 * tests (totals_test.py, html_test.py).
 *
 * Clock 1 GHz (1 tick = 1 ns), quantum 10 ns, t_e,std 20 ns.  Each of
 * THREADS threads runs N iterations of
 *   outer (1000 ns of work, 1000 + 10 (i % 3 - 1) on thread 0)
 *     containing inner (400 ns of work, 400 + 10 ((i / 3) % 3 - 1))
 * every window including t_e,std (20 ns), so the analyzed times are
 * exactly those; thread THREADS-1 is SLOW % slower in both.  Thread 0's
 * OS record holds one page fault and a LOST run of 2738 events.
 *
 * usage: gen_nested FILE THREADS N SLOW_PERCENT [OUTER_NS]
 *   OUTER_NS: outer's work instead of 1000 ns (inner's: 0.4 of it)
 */
#include "sbtlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK (64u * 1024)

static unsigned char *buf;
static size_t len, cap;

static struct sbt_chunk *chunk(uint32_t type, uint32_t thread)
{
	if (len + CHUNK > cap) {
		cap = (cap ? 2 * cap : 1u << 22) + CHUNK;
		if (!(buf = realloc(buf, cap)))
			exit(1);
	}
	struct sbt_chunk *c = (struct sbt_chunk *)(buf + len);
	memset(c, 0, CHUNK);
	c->magic = SBT_CHUNK_MAGIC;
	c->type = type;
	c->size = CHUNK;
	c->thread = thread;
	c->tid = 2000 + (int32_t)thread;
	len += CHUNK;
	return c;
}

/* Offsets survive realloc; pointers into buf do not. */
static void meta(size_t off, uint16_t type, const void *a, uint32_t alen,
		 const void *b, uint32_t blen)
{
	struct sbt_chunk *c = (struct sbt_chunk *)(buf + off);
	struct sbt_meta *m = (void *)((char *)(c + 1) + c->used);

	m->type = type;
	m->len = alen + blen;
	memcpy(m + 1, a, alen);
	if (blen)
		memcpy((char *)(m + 1) + alen, b, blen);
	c->used += (sizeof *m + alen + blen + 7) & ~7u;
}

struct stream { size_t off; size_t n; uint32_t thread; };

static void ev(struct stream *s, uint32_t kind, uint32_t id, uint64_t t)
{
	size_t room = (CHUNK - sizeof(struct sbt_chunk)) /
		      sizeof(struct sbt_event) - 1;  /* a zero word ends it */
	if (s->n == room) {
		size_t prev = s->off;
		s->off = (size_t)((unsigned char *)chunk(SBT_CHUNK_EVENTS,
							 s->thread) - buf);
		((struct sbt_chunk *)(buf + s->off))->prev = prev;
		s->n = 0;
	}
	struct sbt_event *e = (struct sbt_event *)(buf + s->off +
				sizeof(struct sbt_chunk)) + s->n++;
	e->t = t;
	e->aux = s->thread;             /* cpu = thread */
	e->word = SBT_EV_WORD(kind, 0, id);
}

int main(int argc, char **argv)
{
	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: gen_nested FILE THREADS N SLOW%% "
			"[OUTER_NS]\n");
		return 2;
	}
	double base = argc == 6 ? atof(argv[5]) : 1000;
	uint32_t nth = (uint32_t)atoi(argv[2]);
	long n = atol(argv[3]);
	double slow = atof(argv[4]) / 100;

	len = 4096;
	cap = 1u << 22;
	buf = calloc(1, cap);
	struct sbt_file_header *h = (void *)buf;
	memcpy(h->magic, SBT_LOG_MAGIC, 8);
	h->version = 2;
	h->header_size = SBT_HEADER_SIZE;
	h->arch = SBT_ARCH_X86_64;
	h->clocks = SBT_CLOCK_WALL;
	h->flags = SBT_HF_CLOSED | SBT_HF_CPU_AUX;
	h->record_size = sizeof(struct sbt_event);
	h->tick_hz = 1000000000ull;
	h->tick_quantum = 10;
	strcpy(h->tick_source, "perf");
	strcpy(h->cycles_note, "no PMU");
	h->te_min_ticks = 20;
	h->te_p50_ticks = 20;
	h->te_p999_ticks = 30;
	h->te_samples = 1000;
	h->kernel_entry_ns = 100;
	h->pid = 4242;
	h->ppid = 1;
	h->rank = h->nranks = -1;
	h->start_unix_ns = 1700000000000000000ull;
	h->start_ticks = 1000;
	h->probe_period = 0;
	strcpy(h->host, "synth");
	strcpy(h->cpu_model, "synthetic");
	strcpy(h->exe, "/nonexistent/nested");
	h->counters[SBT_CNT_THREADS] = nth;
	h->os_events = SBT_OS_ON;
	h->os_pages = 16;

	size_t m0 = (size_t)((unsigned char *)chunk(SBT_CHUNK_META, 0) - buf);
	struct sbt_meta_module mod = { 0x400000, 0x400000, 0x500000 };
	meta(m0, SBT_META_MODULE, &mod, sizeof mod, "/nonexistent/nested", 19);
	const char *names[] = { "outer", "inner" };
	for (uint32_t r = 1; r <= 2; r++) {
		struct sbt_meta_region mr = { .id = r, .api = SBT_API_SBTMARK,
					      .site = 0x401000 + r * 0x10 };
		meta(m0, SBT_META_REGION, &mr, sizeof mr, names[r - 1],
		     (uint32_t)strlen(names[r - 1]));
		struct { struct sbt_meta_site2 s; uint64_t f; } st = {
			{ .id = r, .region = r, .depth = 1 },
			0x401000 + r * 0x10 };
		meta(m0, SBT_META_SITE2, &st, sizeof st, NULL, 0);
	}
	uint64_t end = 0;
	for (uint32_t th = 0; th < nth; th++) {
		struct stream s = { 0, 0, th };
		double f = th == nth - 1 && nth > 1 ? 1 + slow : 1;
		uint64_t t = 2000 + 5000 * th;
		s.off = (size_t)((unsigned char *)chunk(SBT_CHUNK_EVENTS, th) -
				 buf);
		uint64_t step = (uint64_t)(3 * base * (1 + slow));
		for (long i = 0; i < n; i++, t += step) {
			uint64_t in = (uint64_t)(0.4 * base * f + 0.5) + 10 *
				      (uint64_t)((i / 3) % 3) - 10 + 20;
			uint64_t out = (uint64_t)(base * f + 0.5) + 10 *
				       (uint64_t)(i % 3) - 10 + 20;
			ev(&s, SBT_EV_START, 1, t);
			ev(&s, SBT_EV_START, 2, t + 100);
			ev(&s, SBT_EV_STOP, 2, t + 100 + in);
			ev(&s, SBT_EV_STOP, 1, t + out);
		}
		if (t > end)
			end = t;
	}
	/* thread 0's OS record: a fault, then a ring overflow */
	struct {
		struct sbt_meta_os m;
		struct sbt_os_event e[2];
	} os = { { .thread = 0, .tid = 2000, .seq = 0, .n = 2, .until = end },
		 { { 2500, SBT_OS_FAULT, 0, 1 }, { 2600, SBT_OS_LOST, 0, 2738 } } };
	size_t m1 = (size_t)((unsigned char *)chunk(SBT_CHUNK_META, 0) - buf);
	meta(m1, SBT_META_OS, &os, sizeof os, NULL, 0);
	h = (void *)buf;
	h->end_offset = len;

	FILE *fp = fopen(argv[1], "wb");
	if (!fp || fwrite(buf, 1, len, fp) != len || fclose(fp) != 0) {
		perror(argv[1]);
		return 1;
	}
	free(buf);
	return 0;
}
