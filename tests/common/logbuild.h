/*
 * logbuild.h - synthetic sbtmark logs with exactly known contents, byte by
 * byte, for the tests, the fuzzer's seeds and the golden reports: the one
 * writer of format/sbtlog.h outside the recorder.
 *
 * A log is built in one zeroed buffer of fixed capacity (pointers into it
 * stay valid): a header of version SBT_LOG_VERSION with test defaults
 * (1 tick = 1 ns, quantum 1, closed, no rank) that the caller may change
 * through lb_hdr(), then chunks in file order.  META entries go into a
 * META chunk; events go to the thread's current EVENTS chunk, a new one
 * opened when another thread writes or the chunk is full.  Running past
 * the capacity is a bug of the test: it aborts.
 *
 * Simple logs (syn_*, below): the same writer behind a shorter door for
 * tests that only need regions, pairs and speed probes: times in ticks
 * from the log's start, each event's cpu in its aux, one call site per
 * region.
 *
 *   struct synlog L;
 *   syn_begin(&L, 1e9);                  header: clock 1 GHz, quantum 1
 *   L.h.tick_quantum = 10;               (L.h: the header, until written)
 *   syn_region(&L, 1, "name");           REGION + SITE2 (site id = region id)
 *   syn_pair(&L, thread, 1, t0, t1, cpu); a START/STOP pair
 *   syn_speed(&L, thread, t, ticks, cpu, span); a speed probe
 *   syn_write(&L, "x.log");
 *
 * META entries come before the first event; a thread's events are
 * appended in call order (time order is the caller's), a new chunk each
 * time another thread writes, so write one thread's events at a time.
 */
#ifndef SBT_TEST_LOGBUILD_H
#define SBT_TEST_LOGBUILD_H

#include "sbtlog.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lb {
	unsigned char *buf;
	size_t len, cap;
	uint32_t chunk_size;           /* bytes of each new chunk (4 KiB n) */
	struct sbt_chunk *evc;         /* the EVENTS chunk being filled     */
	struct sbt_event *ev, *ev_end;
};

static inline struct sbt_file_header *lb_hdr(struct lb *b)
{
	return (struct sbt_file_header *)(void *)b->buf;
}

/* A log of at most `cap` bytes whose chunks are `chunk_size` bytes. */
static inline void lb_begin(struct lb *b, size_t cap, uint32_t chunk_size)
{
	if (!(b->buf = calloc(1, cap)) || cap < SBT_HEADER_SIZE ||
	    chunk_size < 4096 || chunk_size % 4096)
		abort();
	b->cap = cap, b->chunk_size = chunk_size;
	b->len = SBT_HEADER_SIZE;
	b->evc = NULL, b->ev = b->ev_end = NULL;
	struct sbt_file_header *h = lb_hdr(b);
	memcpy(h->magic, SBT_LOG_MAGIC, 8);
	h->version = SBT_LOG_VERSION;
	h->header_size = SBT_HEADER_SIZE;
	h->record_size = sizeof(struct sbt_event);
	h->arch = SBT_ARCH_X86_64;
	h->clocks = SBT_CLOCK_WALL;
	h->flags = SBT_HF_CLOSED;
	h->tick_hz = 1000000000ull;
	h->tick_quantum = 1;
	h->rank = h->nranks = -1;
	h->start_ticks = 1000;
}

static inline void lb_free(struct lb *b)
{
	free(b->buf);
	memset(b, 0, sizeof *b);
}

/* A chunk of `type` for `thread` at the end of the log. */
static inline struct sbt_chunk *lb_chunk(struct lb *b, uint32_t type,
					 uint32_t thread)
{
	if (b->len + b->chunk_size > b->cap)
		abort();
	struct sbt_chunk *c = (struct sbt_chunk *)(void *)(b->buf + b->len);
	c->magic = SBT_CHUNK_MAGIC;
	c->type = type;
	c->size = b->chunk_size;
	c->thread = thread;
	c->tid = 1000 + (int32_t)thread;
	b->len += b->chunk_size;
	if (type == SBT_CHUNK_EVENTS) {
		b->evc = c;
		b->ev = (struct sbt_event *)(void *)(c + 1);
		b->ev_end = (struct sbt_event *)(void *)((char *)c +
							 b->chunk_size);
	}
	return c;
}

/* A chunk's worth of zeros: a hole (space never written). */
static inline void lb_hole(struct lb *b)
{
	if (b->len + b->chunk_size > b->cap)
		abort();
	b->len += b->chunk_size;
	b->evc = NULL;
}

/* One META entry of `len` payload bytes, zero: the caller fills it. */
static inline void *lb_meta_room(struct sbt_chunk *c, uint16_t type,
				 uint32_t len)
{
	size_t room = c->size - sizeof *c - c->used;
	if (sizeof(struct sbt_meta) + (size_t)len > room)
		abort();
	struct sbt_meta *m = (void *)((char *)(c + 1) + c->used);
	m->type = type;
	m->len = len;
	c->used += (sizeof *m + len + 7) & ~7u;
	return m + 1;
}

/* One META entry: `a` then `p` as its payload. */
static inline void lb_meta(struct sbt_chunk *c, uint16_t type, const void *a,
			   uint32_t alen, const void *p, uint32_t plen)
{
	char *m = lb_meta_room(c, type, alen + plen);
	memcpy(m, a, alen);
	if (plen)
		memcpy(m + alen, p, plen);
}

static inline void lb_region(struct sbt_chunk *c, uint32_t id, uint32_t api,
			     uint64_t site, const char *name)
{
	struct sbt_meta_region r = { .id = id, .api = api, .site = site };
	lb_meta(c, SBT_META_REGION, &r, sizeof r, name,
		(uint32_t)strlen(name));
}

/* Call site `id` of `region`: depth return addresses, innermost first. */
static inline void lb_site(struct sbt_chunk *c, uint32_t id, uint32_t region,
			   const uint64_t *frames, uint32_t depth)
{
	struct sbt_meta_site2 s = { .id = id, .region = region,
				    .depth = depth };
	lb_meta(c, SBT_META_SITE2, &s, sizeof s, frames,
		depth * (uint32_t)sizeof *frames);
}

static inline void lb_module(struct sbt_chunk *c, uint64_t base, uint64_t lo,
			     uint64_t hi, const char *path)
{
	struct sbt_meta_module m = { .base = base, .lo = lo, .hi = hi };
	lb_meta(c, SBT_META_MODULE, &m, sizeof m, path,
		(uint32_t)strlen(path));
}

/* One event of `thread`'s stream. */
static inline void lb_event(struct lb *b, uint32_t thread, uint32_t kind,
			    uint32_t flags, uint32_t id, uint64_t t,
			    uint32_t aux)
{
	if (!b->evc || b->evc->thread != thread || b->ev == b->ev_end)
		lb_chunk(b, SBT_CHUNK_EVENTS, thread);
	*b->ev++ = (struct sbt_event){ t, SBT_EV_WORD(kind, flags, id), aux };
}

/* A START at t0 and its STOP at t1 of site `id`. */
static inline void lb_pair(struct lb *b, uint32_t thread, uint32_t flags,
			   uint32_t id, uint64_t t0, uint64_t t1, uint32_t aux)
{
	lb_event(b, thread, SBT_EV_START, flags, id, t0, aux);
	lb_event(b, thread, SBT_EV_STOP, flags, id, t1, aux);
}

/* Write the log to path (end_offset set to its length).  0 or -1. */
static inline int lb_save(struct lb *b, const char *path)
{
	FILE *f = fopen(path, "wb");
	int ok;

	lb_hdr(b)->end_offset = b->len;
	ok = f && fwrite(b->buf, 1, b->len, f) == b->len;
	if (f && fclose(f) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

/* ---- simple logs -------------------------------------------------------- */

#define SYN_CAP   (64u << 20)      /* bytes of a simple log, at most     */
#define SYN_CHUNK (1u << 20)       /* bytes of each of its chunks        */

struct synlog {
	struct lb b;
	struct sbt_chunk *meta;
	struct sbt_file_header h;      /* copied into the log when written */
};

static inline void syn_begin(struct synlog *L, double hz)
{
	lb_begin(&L->b, SYN_CAP, SYN_CHUNK);
	L->h = *lb_hdr(&L->b);
	L->h.flags |= SBT_HF_CPU_AUX;
	L->h.tick_hz = (uint64_t)hz;
	L->h.start_ticks = 1000000;
	L->h.pid = 42;
	strcpy(L->h.host, "synthetic");
	L->meta = lb_chunk(&L->b, SBT_CHUNK_META, 0);
}

/* Region id, its one call site (id too) at a made-up address. */
static inline void syn_region(struct synlog *L, uint32_t id, const char *name)
{
	uint64_t ra = 0x401000 + id;

	lb_region(L->meta, id, 0, ra, name);
	lb_site(L->meta, id, id, &ra, 1);
}

static inline void syn_speed_meta(struct synlog *L, uint32_t ops,
				  uint32_t cadence_us)
{
	struct sbt_meta_speed m = { .ops = ops, .cadence_us = cadence_us };

	lb_meta(L->meta, SBT_META_SPEED, &m, sizeof m, NULL, 0);
}

static inline void syn_start(struct synlog *L, uint32_t th, uint32_t site,
			     uint64_t t, unsigned cpu)
{
	lb_event(&L->b, th, SBT_EV_START, 0, site, L->h.start_ticks + t, cpu);
}

static inline void syn_stop(struct synlog *L, uint32_t th, uint32_t site,
			    uint64_t t, unsigned cpu)
{
	lb_event(&L->b, th, SBT_EV_STOP, 0, site, L->h.start_ticks + t, cpu);
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
	lb_event(&L->b, th, SBT_EV_SPEED, span ? SBT_SPEED_SPAN : 0,
		 (uint32_t)ticks, L->h.start_ticks + t, cpu);
}

/* Write the log and free it; exits 99 when it cannot (a test that cannot
 * build its input has not run). */
static inline void syn_write(struct synlog *L, const char *path)
{
	*lb_hdr(&L->b) = L->h;
	if (lb_save(&L->b, path) != 0)
		exit(99);
	lb_free(&L->b);
}

#endif
