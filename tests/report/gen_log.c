/*
 * gen_log.c - a small synthetic sbtmark log with known contents, for the
 * golden JSON/CSV test.
 *
 * Clock 1 GHz (1 tick = 1 ns), quantum 10 ns, t_e,std 20 ns.  Two
 * threads; per thread and iteration i (600 on thread 0, 300 on thread 1):
 *   alpha  100 ns, every 4th 300 ns               (site 0x401234 < 0x402000)
 *   beta   500 ns, 600 ns from the middle on      (site 0x401300)
 *   gamma  50 ns                                  (no SITE entry: the
 *                                                  region's first site)
 * plus an in-situ probe of alpha (20 ns) every 16th iteration.  Every
 * duration includes the 20 ns t_e,std.  The module map names a file that
 * does not exist, so call sites come out as module+offset.
 *
 * usage: gen_log FILE
 */
#include "sbtlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK (64u * 1024)

static unsigned char *buf;
static size_t len;

static struct sbt_chunk *chunk(uint32_t type, uint32_t thread)
{
	struct sbt_chunk *c = (struct sbt_chunk *)(buf + len);

	memset(c, 0, CHUNK);
	c->magic = SBT_CHUNK_MAGIC;
	c->type = type;
	c->size = CHUNK;
	c->thread = thread;
	c->tid = 1000 + (int32_t)thread;
	len += CHUNK;
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

static void region(struct sbt_chunk *c, uint32_t id, const char *name,
		   uint64_t site)
{
	struct sbt_meta_region r = { .id = id, .api = SBT_API_SBTMARK,
				     .site = site };
	meta(c, SBT_META_REGION, &r, sizeof r, name, (uint32_t)strlen(name));
}

static void put(struct sbt_chunk **c, uint32_t thread, uint64_t start,
		uint64_t ticks, uint32_t id, uint32_t flags)
{
	if ((*c)->used + sizeof(struct sbt_record) > CHUNK - sizeof **c)
		*c = chunk(SBT_CHUNK_SAMPLES, thread);
	struct sbt_record *r = (void *)((char *)(*c + 1) + (*c)->used);
	r->start = start;
	r->ticks = ticks;
	r->region = id | flags << SBT_REC_ID_BITS;
	r->cpu_start = r->cpu_stop = (uint16_t)thread;
	(*c)->used += sizeof *r;
}

static void thread(uint32_t t, int n)
{
	struct sbt_chunk *c = chunk(SBT_CHUNK_SAMPLES, t);
	uint64_t now = 1000000;

	for (int i = 0; i < n; i++, now += 10000) {
		if (i % 16 == 0)
			put(&c, t, now, 20, 1, SBT_RF_PROBE);
		put(&c, t, now + 100, i % 4 == 3 ? 320 : 120, 1, 0);
		put(&c, t, now + 1000, i < n / 2 ? 520 : 620, 2, 0);
		put(&c, t, now + 2000, 70, 3, 0);
	}
}

int main(int argc, char **argv)
{
	struct sbt_file_header h;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_log FILE\n");
		return 2;
	}
	if (!(buf = calloc(1, 64 * CHUNK)))
		return 1;
	memset(&h, 0, sizeof h);
	memcpy(h.magic, SBT_LOG_MAGIC, 8);
	h.version = 1;                  /* version 1: SAMPLES of sbt_record */
	h.header_size = SBT_HEADER_SIZE;
	h.arch = SBT_ARCH_X86_64;
	h.clocks = SBT_CLOCK_WALL;
	h.flags = SBT_HF_CPU_AUX | SBT_HF_CLOSED;
	h.record_size = sizeof(struct sbt_record);
	h.tick_hz = 1000000000ull;
	h.tick_quantum = 10;
	strcpy(h.tick_source, "perf");
	h.te_min_ticks = 20, h.te_p50_ticks = 20, h.te_p999_ticks = 40;
	h.te_samples = 1000;
	h.kernel_entry_ns = 200;
	h.pid = 4242, h.ppid = 1, h.rank = -1, h.nranks = -1;
	h.start_ticks = 1000000;
	h.probe_period = 16;
	strcpy(h.host, "synthhost");
	strcpy(h.cpu_model, "synthetic cpu");
	strcpy(h.exe, "/nonexistent/synthetic-app");
	h.counters[SBT_CNT_STOP_WITHOUT_START] = 2;
	h.counters[SBT_CNT_THREADS] = 2;
	memcpy(buf, &h, sizeof h);
	len = SBT_HEADER_SIZE;

	struct sbt_chunk *c = chunk(SBT_CHUNK_META, 0);
	struct sbt_meta_module mm = { 0x400000, 0x400000, 0x500000 };
	struct sbt_meta_site sa = { 1, 2 }, sb = { 2, 1 };
	uint64_t fa[2] = { 0x401234, 0x402000 }, fb[1] = { 0x401300 };
	const char *exe = "/nonexistent/synthetic-app";
	meta(c, SBT_META_MODULE, &mm, sizeof mm, exe, (uint32_t)strlen(exe));
	region(c, 1, "alpha", fa[0]);
	region(c, 2, "beta", fb[0]);
	region(c, 3, "gamma", 0x401400);
	meta(c, SBT_META_SITE, &sa, sizeof sa, fa, sizeof fa);
	meta(c, SBT_META_SITE, &sb, sizeof sb, fb, sizeof fb);
	thread(0, 600);
	thread(1, 300);

	((struct sbt_file_header *)(void *)buf)->end_offset = len;
	if (!(f = fopen(argv[1], "wb")) || fwrite(buf, 1, len, f) != len ||
	    fclose(f) != 0) {
		perror(argv[1]);
		return 1;
	}
	free(buf);
	return 0;
}
