/*
 * synlog.h - a synthetic sbtmark log (format/sbtlog.h, version 5) built in
 * memory and written to a file, for tests whose every event is known.
 *
 *   struct synlog L;
 *   syn_begin(&L, 1e9);                  header: clock 1 GHz, quantum 1
 *   syn_region(&L, 1, "name");           REGION + SITE2 (site id = region id)
 *   syn_pair(&L, thread, 1, t0, t1, cpu); a START/STOP pair
 *   syn_speed(&L, thread, t, ticks, cpu); a speed probe (SPEED event)
 *   syn_write(&L, "x.log");
 *
 * One META chunk, then one EVENTS chunk per thread in use, each grown as
 * needed; events of a thread are appended in call order (time order is
 * the caller's).  Exits 99 when out of memory: a test that cannot build
 * its input has not run.
 */
#ifndef SBT_TEST_SYNLOG_H
#define SBT_TEST_SYNLOG_H

#include "sbtlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYN_THREADS 8

struct synlog {
	struct sbt_file_header h;
	unsigned char *meta;           /* META payload                    */
	size_t nmeta, capmeta;
	struct sbt_event *ev[SYN_THREADS];
	size_t nev[SYN_THREADS], capev[SYN_THREADS];
};

static inline void *syn_grow(void *p, size_t *cap, size_t need, size_t sz)
{
	if (need <= *cap)
		return p;
	size_t c = *cap ? *cap : 1024;
	while (c < need)
		c *= 2;
	p = realloc(p, c * sz);
	if (!p)
		exit(99);
	memset((char *)p + *cap * sz, 0, (c - *cap) * sz);
	*cap = c;
	return p;
}

static inline void syn_begin(struct synlog *L, double hz)
{
	memset(L, 0, sizeof *L);
	memcpy(L->h.magic, SBT_LOG_MAGIC, 8);
	L->h.version = SBT_LOG_VERSION;
	L->h.header_size = SBT_HEADER_SIZE;
	L->h.record_size = sizeof(struct sbt_event);
	L->h.arch = SBT_ARCH_X86_64;
	L->h.clocks = SBT_CLOCK_WALL;
	L->h.flags = SBT_HF_CLOSED | SBT_HF_CPU_AUX;
	L->h.tick_hz = (uint64_t)hz;
	L->h.tick_quantum = 1;
	L->h.start_ticks = 1000000;
	L->h.pid = 42;
	L->h.rank = L->h.nranks = -1;
	strcpy(L->h.host, "synthetic");
}

static inline void *syn_meta(struct synlog *L, uint16_t type, uint32_t len)
{
	size_t at = L->nmeta, step = (sizeof(struct sbt_meta) + len + 7) & ~7u;
	struct sbt_meta *m;

	L->meta = syn_grow(L->meta, &L->capmeta, at + step, 1);
	m = (struct sbt_meta *)(L->meta + at);
	m->type = type;
	m->len = len;
	L->nmeta += step;
	return m + 1;
}

static inline void syn_region(struct synlog *L, uint32_t id, const char *name)
{
	size_t n = strlen(name);
	struct sbt_meta_region *r = syn_meta(L, SBT_META_REGION,
					     (uint32_t)(sizeof *r + n));
	uint64_t ra = 0x401000 + id;

	*r = (struct sbt_meta_region){ .id = id, .site = ra };
	memcpy(r + 1, name, n);
	struct sbt_meta_site2 *s = syn_meta(L, SBT_META_SITE2,
					    sizeof *s + sizeof ra);
	*s = (struct sbt_meta_site2){ .id = id, .region = id, .depth = 1 };
	memcpy(s + 1, &ra, sizeof ra);
}

static inline void syn_speed_meta(struct synlog *L, uint32_t ops,
				  uint32_t cadence_us)
{
	struct sbt_meta_speed *m = syn_meta(L, SBT_META_SPEED, sizeof *m);
	*m = (struct sbt_meta_speed){ .ops = ops, .cadence_us = cadence_us };
}

static inline void syn_event(struct synlog *L, uint32_t th, uint64_t t,
			     uint32_t word, uint32_t aux)
{
	if (th >= SYN_THREADS)
		exit(99);
	L->ev[th] = syn_grow(L->ev[th], &L->capev[th], L->nev[th] + 1,
			     sizeof(struct sbt_event));
	L->ev[th][L->nev[th]++] = (struct sbt_event){ t, word, aux };
}

/* Times are ticks since the log's start. */
static inline void syn_start(struct synlog *L, uint32_t th, uint32_t site,
			     uint64_t t, unsigned cpu)
{
	syn_event(L, th, L->h.start_ticks + t,
		  SBT_EV_WORD(SBT_EV_START, 0, site), cpu);
}

static inline void syn_stop(struct synlog *L, uint32_t th, uint32_t site,
			    uint64_t t, unsigned cpu)
{
	syn_event(L, th, L->h.start_ticks + t,
		  SBT_EV_WORD(SBT_EV_STOP, 0, site), cpu);
}

static inline void syn_pair(struct synlog *L, uint32_t th, uint32_t site,
			    uint64_t t0, uint64_t t1, unsigned cpu)
{
	syn_start(L, th, site, t0, cpu);
	syn_stop(L, th, site, t1, cpu);
}

/* A probe at t of `ticks`; span: a detour's span (SBT_SPEED_SPAN). */
static inline void syn_speed(struct synlog *L, uint32_t th, uint64_t t,
			     uint64_t ticks, unsigned cpu, int span)
{
	syn_event(L, th, L->h.start_ticks + t,
		  SBT_EV_WORD(SBT_EV_SPEED, span ? SBT_SPEED_SPAN : 0,
			      ticks), cpu);
}

/* Write the log: header, META chunk, one EVENTS chunk per thread.
 * Frees the events. */
static inline void syn_write(struct synlog *L, const char *path)
{
	FILE *f = fopen(path, "wb");
	unsigned char page[SBT_HEADER_SIZE] = { 0 };

	if (!f)
		exit(99);
	memcpy(page, &L->h, sizeof L->h);
	fwrite(page, 1, sizeof page, f);
	for (int th = -1; th < SYN_THREADS; th++) {
		size_t body = th < 0 ? L->nmeta :
			      L->nev[th] * sizeof(struct sbt_event);
		if (th >= 0 && !L->nev[th])
			continue;
		/* a zero word ends the stream: room for one more */
		size_t size = (sizeof(struct sbt_chunk) + body + 16 + 4095) &
			      ~(size_t)4095;
		struct sbt_chunk c = { .magic = SBT_CHUNK_MAGIC,
			.type = th < 0 ? SBT_CHUNK_META : SBT_CHUNK_EVENTS,
			.size = size, .used = th < 0 ? body : 0,
			.thread = th < 0 ? 0 : (uint32_t)th,
			.tid = 1000 + th };
		unsigned char *b = calloc(1, size);
		if (!b)
			exit(99);
		memcpy(b, &c, sizeof c);
		memcpy(b + sizeof c, th < 0 ? (void *)L->meta :
		       (void *)L->ev[th], body);
		fwrite(b, 1, size, f);
		free(b);
		if (th >= 0)
			free(L->ev[th]), L->ev[th] = NULL, L->nev[th] = 0,
			L->capev[th] = 0;
	}
	if (fclose(f) != 0)
		exit(99);
	free(L->meta);
	L->meta = NULL, L->nmeta = L->capmeta = 0;
}

#endif
