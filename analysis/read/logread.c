/*
 * logread.c - what the log reader's parts share (logread.h): the first
 * warning, whole reads, raw ids to dataset regions, the counted totals.
 * reader.c, segment.c and hold.c each call these and none of the others'
 * functions the other way, so the three read one way.
 */
#include "logread.h"
#include "sbtlog.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void sbt_log_warn(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	c->damaged = 1;
	if (c->src->warning[0])
		return;         /* the first problem is the one to tell */
	va_start(ap, fmt);
	vsnprintf(c->src->warning, sizeof c->src->warning, fmt, ap);
	va_end(ap);
}

int sbt_log_read_at(int fd, uint64_t off, void *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, (char *)p + got, n - got,
				  (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

int sbt_log_map_set(struct idmap *m, uint32_t id, int64_t idx)
{
	if (id >= m->n) {
		uint32_t n = m->n ? m->n : 64;
		while (n <= id)
			n *= 2;
		int64_t *p = realloc(m->ds, n * sizeof *p);
		if (!p)
			return -1;
		for (uint32_t i = m->n; i < n; i++)
			p[i] = -1;
		m->ds = p, m->n = n;
	}
	m->ds[id] = idx;
	return 0;
}

int64_t sbt_log_region(struct ctx *c, uint32_t id)
{
	char name[32];
	long r;

	if (id < c->map.n && c->map.ds[id] >= 0)
		return c->map.ds[id];
	if (id >= c->max_id) {
		if (c->stray < 0) {
			c->stray = sbt_ds_region(c->ds, "<bad region id>", 15,
						 SBT_API_SBTMARK);
			sbt_log_warn(c, "samples with impossible region ids "
			     "(damaged log)");
		}
		return c->stray;
	}
	/* A sample whose REGION entry is missing (damaged log): keep it
	 * under a placeholder name rather than lose it. */
	snprintf(name, sizeof name, "<region %u>", id);
	r = sbt_ds_region(c->ds, name, strlen(name), SBT_API_SBTMARK);
	if (r < 0 || sbt_log_map_set(&c->map, id, r) != 0)
		return -1;
	sbt_log_warn(c, "samples of region id %u have no name (damaged meta data)",
	     id);
	return r;
}

int sbt_log_reserve(struct ctx *c, size_t more)
{
	return sbt_ds_reserve(c->ds, more);
}

int sbt_log_totals(struct ctx *c)
{
	for (size_t k = 0; k < c->ninfo; k++) {
		if (!c->counts[k])
			continue;
		int64_t r = sbt_log_region(c, c->info[k].raw);
		if (r < 0)
			return -1;
		c->ds->regions[r].total += c->counts[k];
	}
	return 0;
}
