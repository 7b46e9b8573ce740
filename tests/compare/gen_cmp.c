/*
 * gen_cmp.c - synthetic version-5 logs for the comparison tests: regions
 * of known times, in-situ probes, and speed probes of a processor whose
 * speed the test chooses.
 *
 * Clock 1 GHz (1 tick = 1 ns), quantum 1 ns, t_e,std 20 ns.  Each thread
 * runs N iterations; an iteration times every region once (and every
 * 16th an in-situ probe of it); every 25th iteration ends with a speed
 * probe of 1000 ops taking 1000 ns at speed 1.  Every duration of an
 * iteration - regions and probes alike - is multiplied by the
 * processor's slowness there: SPEED, and in slow windows (a window is
 * 100 iterations, slow with probability SLOW) twice that.
 *
 * usage: gen_cmp FILE [options] REGION...
 *   --seed N        the generator's seed (default 1)
 *   --n N           iterations per thread (default 20000)
 *   --threads T     threads (default 1)
 *   --speed F       processor slowness (default 1: 1.05 = 5 % slower)
 *   --slow P        share of slow windows (default 0)
 *   --no-probes     no speed probes (and no META SPEED)
 *   --slow-only R   region R is timed in slow windows only (every sample
 *                   of it the processor's)
 *   --rank R        the header's MPI rank (default -1: none)
 *   --host NAME     the header's host (default synthhost)
 *   --damage        an unknown event kind half way through thread 0
 *   REGION          name:ns[:ns2:share2]  (a second mode: ns2 with
 *                   probability share2)
 */
#include "sbtlog.h"
#include "../common/gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK (64u * 1024)
#define MAXR  16

static unsigned char *buf;
static size_t len, cap;

struct region { const char *name; double ns, ns2, share2; };

static struct sbt_chunk *chunk(uint32_t type, uint32_t thread)
{
	while (len + CHUNK > cap) {
		cap *= 2;
		if (!(buf = realloc(buf, cap))) {
			perror("gen_cmp");
			exit(1);
		}
	}
	struct sbt_chunk *c = (struct sbt_chunk *)(void *)(buf + len);
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
	if (blen)
		memcpy((char *)(m + 1) + alen, b, blen);
	c->used += (sizeof *m + alen + blen + 7) & ~7u;
}

/* The chunk being filled with one thread's events: as an offset, since
 * a new chunk may move buf; and its bytes used (an EVENTS chunk's `used`
 * stays 0: its events end at a zero word). */
static size_t cur, evused;

static void ev(uint32_t thread, uint32_t kind, uint32_t flags, uint32_t id,
	       uint64_t t)
{
	struct sbt_chunk *c = (struct sbt_chunk *)(void *)(buf + cur);

	if (evused + sizeof(struct sbt_event) > CHUNK - sizeof *c) {
		cur = len, evused = 0;
		c = chunk(SBT_CHUNK_EVENTS, thread);
	}
	struct sbt_event *e = (void *)((char *)(c + 1) + evused);
	e->t = t;
	e->aux = thread;
	e->word = SBT_EV_WORD(kind, flags, id);
	evused += sizeof *e;
}

static uint64_t ticks(struct gen *g, double ns)
{
	double d = ns + gen_jitter(g, 0, 1.0);
	return (uint64_t)(d + 0.5);
}

int main(int argc, char **argv)
{
	struct region r[MAXR];
	int nr = 0, n = 20000, threads = 1, probes = 1, damage = 0, rank = -1;
	const char *host = "synthhost";
	double speed = 1, slow = 0;
	const char *slow_only = "";
	struct gen g = { 1 };
	const char *path = argc > 1 ? argv[1] : NULL;

	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--seed") && i + 1 < argc)
			g.s = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(a, "--n") && i + 1 < argc)
			n = atoi(argv[++i]);
		else if (!strcmp(a, "--threads") && i + 1 < argc)
			threads = atoi(argv[++i]);
		else if (!strcmp(a, "--speed") && i + 1 < argc)
			speed = atof(argv[++i]);
		else if (!strcmp(a, "--slow") && i + 1 < argc)
			slow = atof(argv[++i]);
		else if (!strcmp(a, "--slow-only") && i + 1 < argc)
			slow_only = argv[++i];
		else if (!strcmp(a, "--rank") && i + 1 < argc)
			rank = atoi(argv[++i]);
		else if (!strcmp(a, "--host") && i + 1 < argc)
			host = argv[++i];
		else if (!strcmp(a, "--no-probes"))
			probes = 0;
		else if (!strcmp(a, "--damage"))
			damage = 1;
		else if (a[0] != '-' && nr < MAXR) {
			char *p = strdup(a), *s = strchr(p, ':');
			if (!s)
				break;
			*s++ = 0;
			r[nr] = (struct region){ p, atof(s), 0, 0 };
			if ((s = strchr(s, ':'))) {
				r[nr].ns2 = atof(++s);
				if ((s = strchr(s, ':')))
					r[nr].share2 = atof(s + 1);
			}
			nr++;
		} else {
			path = NULL;
			break;
		}
	}
	if (!path || nr == 0 || n < 1 || threads < 1 || threads > 64) {
		fprintf(stderr, "usage: gen_cmp FILE [--seed N] [--n N] "
			"[--threads T] [--speed F] [--slow P] [--no-probes] "
			"[--slow-only R] "
			"[--damage] NAME:NS[:NS2:SHARE2]...\n");
		return 2;
	}

	struct sbt_file_header h;
	memset(&h, 0, sizeof h);
	memcpy(h.magic, SBT_LOG_MAGIC, 8);
	h.version = 5;
	h.header_size = SBT_HEADER_SIZE;
	h.arch = SBT_ARCH_X86_64;
	h.clocks = SBT_CLOCK_WALL;
	h.flags = SBT_HF_CPU_AUX | SBT_HF_CLOSED;
	h.record_size = sizeof(struct sbt_event);
	h.tick_hz = 1000000000ull;
	h.tick_quantum = 1;
	strcpy(h.tick_source, "perf");
	h.te_min_ticks = 20, h.te_p50_ticks = 20, h.te_p999_ticks = 40;
	h.te_samples = 1000;
	h.kernel_entry_ns = 200;
	h.pid = 4242 + (rank > 0 ? rank : 0), h.ppid = 1;
	h.rank = rank, h.nranks = rank >= 0 ? 64 : -1;
	h.start_ticks = 1000000;
	h.probe_period = 16;
	snprintf(h.host, sizeof h.host, "%s", host);
	strcpy(h.cpu_model, "synthetic cpu");
	strcpy(h.exe, "/nonexistent/gen-cmp");
	h.counters[SBT_CNT_THREADS] = (uint64_t)threads;
	cap = SBT_HEADER_SIZE + 64 * CHUNK;
	if (!(buf = calloc(1, cap)))
		return 1;
	len = SBT_HEADER_SIZE;

	struct sbt_chunk *c = chunk(SBT_CHUNK_META, 0);
	for (int i = 0; i < nr; i++) {
		struct sbt_meta_region mr = { .id = (uint32_t)i + 1,
					      .api = SBT_API_SBTMARK,
					      .site = 0x401000u + 16u * i };
		struct sbt_meta_site2 ms = { .id = (uint32_t)i + 1,
					     .region = (uint32_t)i + 1,
					     .depth = 1 };
		meta(c, SBT_META_REGION, &mr, sizeof mr, r[i].name,
		     (uint32_t)strlen(r[i].name));
		meta(c, SBT_META_SITE2, &ms, sizeof ms, &mr.site,
		     sizeof mr.site);
	}
	if (probes) {
		struct sbt_meta_speed sp = { .ops = 1000, .cadence_us = 25 };
		meta(c, SBT_META_SPEED, &sp, sizeof sp, NULL, 0);
	}

	for (int t = 0; t < threads; t++) {
		uint64_t now = h.start_ticks + 1000;
		double f = speed;
		cur = len, evused = 0;
		chunk(SBT_CHUNK_EVENTS, (uint32_t)t);
		for (int i = 0; i < n; i++) {
			if (i % 100 == 0)
				f = speed * (gen_unif(&g) < slow ? 2.0 : 1.0);
			for (int k = 0; k < nr; k++) {
				uint32_t site = (uint32_t)k + 1;
				if (f == speed && !strcmp(r[k].name, slow_only))
					continue;
				if (i % 16 == 0) {
					uint64_t d = ticks(&g, 20);
					ev((uint32_t)t, SBT_EV_START,
					   SBT_RF_PROBE, site, now);
					ev((uint32_t)t, SBT_EV_STOP,
					   SBT_RF_PROBE, site, now + d);
					now += d + 50;
				}
				double ns = r[k].share2 > 0 &&
					    gen_unif(&g) < r[k].share2 ?
					    r[k].ns2 : r[k].ns;
				uint64_t d = ticks(&g, ns * f + 20);
				ev((uint32_t)t, SBT_EV_START, 0, site, now);
				ev((uint32_t)t, SBT_EV_STOP, 0, site, now + d);
				now += d + 100;
			}
			if (probes && i % 25 == 24) {
				uint64_t d = ticks(&g, 1000 * f + 20);
				ev((uint32_t)t, SBT_EV_SPEED, 0, (uint32_t)d,
				   now);
				now += d + 100;
			}
			if (damage && t == 0 && i == n / 2)
				ev((uint32_t)t, 15, 0, 0, now);
		}
	}

	memcpy(buf, &h, sizeof h);
	((struct sbt_file_header *)(void *)buf)->end_offset = len;
	FILE *out = fopen(path, "wb");
	if (!out || fwrite(buf, 1, len, out) != len || fclose(out) != 0) {
		perror(path);
		return 1;
	}
	free(buf);
	return 0;
}
