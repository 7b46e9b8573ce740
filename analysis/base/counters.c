/*
 * counters.c - SBT_EVENTS' counts: read from COUNT events into a side
 * array of the dataset (report_counters.c summarizes and prints them).
 *
 * A reading is v = {enabled, running, counter 0, ...}.  A sample's count
 * of counter j is (stop.v[j] - start.v[j]) * d_enabled / d_running: the
 * kernel's estimate for the whole window when the group shared the PMU
 * (multiplexing); d_running / d_enabled is the share it was counted, and
 * is reported.  A reading with enabled 0 (the recorder's read failed) or
 * a group that never ran in the window gives no count.
 *
 * Invariants:
 *   - c->v and c->share hold c->cap samples (c->v: cap * ncol values),
 *     NAN where nothing was set;
 *   - a source's col[] names columns below c->ncol.
 */
#include "counters.h"
#include "dataset.h"
#include <stdio.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- storage ---------------------------------------------------------------- */

static struct sbt_counters *cnt_of(struct sbt_dataset *ds)
{
	if (!ds->cnt)
		ds->cnt = calloc(1, sizeof *ds->cnt);
	return ds->cnt;
}

static struct sbt_cnt_src *src_of(struct sbt_dataset *ds, uint32_t src)
{
	struct sbt_counters *c = cnt_of(ds);

	if (!c)
		return NULL;
	if (src >= c->nsrc) {
		size_t n = src + 1;
		void *p = realloc(c->src, n * sizeof *c->src);
		if (!p)
			return NULL;
		c->src = p;
		for (size_t i = c->nsrc; i < n; i++) {
			memset(&c->src[i], 0, sizeof c->src[i]);
			for (unsigned k = 0; k < SBT_COUNT_MAX; k++) {
				c->src[i].col[k] = -1;
				c->src[i].empty[k] = NAN;
			}
		}
		c->nsrc = n;
	}
	return &c->src[src];
}

/* Column of event `name`, added when new; -1 when all are taken. */
static int column(struct sbt_counters *c, const char *name)
{
	uint32_t k;

	for (k = 0; k < c->ncol; k++)
		if (!strcmp(c->name[k], name))
			return (int)k;
	if (k == SBT_CNT_COLS)
		return -1;
	/* Existing values move to the wider stride. */
	if (c->v) {
		double *v = malloc(c->cap * (k + 1) * sizeof *v);
		if (!v)
			return -1;
		for (size_t i = 0; i < c->cap; i++) {
			memcpy(v + i * (k + 1), c->v + i * k, k * sizeof *v);
			v[i * (k + 1) + k] = NAN;
		}
		free(c->v);
		c->v = v;
	}
	snprintf(c->name[k], sizeof c->name[k], "%s", name);
	c->ncol = k + 1;
	return (int)k;
}

/* Room for sample i; 0 or -1. */
static int reserve(struct sbt_counters *c, size_t i)
{
	size_t cap = c->cap ? c->cap : 1024;

	if (i < c->cap)
		return 0;
	while (cap <= i)
		cap *= 2;
	double *v = realloc(c->v, cap * c->ncol * sizeof *v);
	if (!v)
		return -1;
	c->v = v;
	float *s = realloc(c->share, cap * sizeof *s);
	if (!s)
		return -1;
	c->share = s;
	for (size_t j = c->cap * c->ncol; j < cap * c->ncol; j++)
		v[j] = NAN;
	for (size_t j = c->cap; j < cap; j++)
		s[j] = NAN;
	c->cap = cap;
	return 0;
}

double sbt_cnt_get(const struct sbt_dataset *ds, size_t i, uint32_t k)
{
	const struct sbt_counters *c = ds->cnt;

	return c && k < c->ncol && i < c->cap ? c->v[i * c->ncol + k] : NAN;
}

double sbt_cnt_share(const struct sbt_dataset *ds, size_t i)
{
	const struct sbt_counters *c = ds->cnt;

	return c && i < c->cap ? c->share[i] : NAN;
}

void sbt_cnt_free(struct sbt_counters *c)
{
	if (!c)
		return;
	free(c->v);
	free(c->share);
	free(c->src);
	free(c);
}

/* ---- moving samples ------------------------------------------------------------ */

int sbt_cnt_prepare(struct sbt_dataset *ds, const char (*names)[SBT_CNT_NAME],
		    uint32_t ncol, size_t n)
{
	struct sbt_counters *c = cnt_of(ds);

	if (!c)
		return -1;
	for (uint32_t k = 0; k < ncol; k++)
		if (column(c, names[k]) < 0)
			return -1;
	return n && c->ncol ? reserve(c, n - 1) : 0;
}

struct sbt_cnt_src *sbt_cnt_source(struct sbt_dataset *ds, uint32_t src)
{
	return src_of(ds, src);
}

int sbt_cnt_append(struct sbt_dataset *ds, const struct sbt_dataset *part,
		   size_t first, uint32_t src0)
{
	const struct sbt_counters *p = part->cnt;
	int map[SBT_CNT_COLS];

	if (!p)
		return 0;
	if (sbt_cnt_prepare(ds, NULL, 0, first + part->n) != 0)
		return -1;
	struct sbt_counters *c = ds->cnt;
	for (uint32_t k = 0; k < p->ncol; k++)
		if ((map[k] = column(c, p->name[k])) < 0)
			return -1;
	/* a new column widens the stride: reserve again for it */
	if (c->ncol && reserve(c, first + part->n) != 0)
		return -1;
	for (size_t i = 0; i < p->nsrc; i++) {
		struct sbt_cnt_src *d = src_of(ds, src0 + (uint32_t)i);
		if (!d)
			return -1;
		*d = p->src[i];
		for (unsigned j = 0; j < SBT_COUNT_MAX; j++)
			d->col[j] = p->src[i].col[j] >= 0 &&
				    (uint32_t)p->src[i].col[j] < p->ncol ?
				    map[p->src[i].col[j]] : -1;
	}
	for (size_t i = 0; i < part->n && i < p->cap; i++) {
		for (uint32_t k = 0; k < p->ncol; k++)
			c->v[(first + i) * c->ncol + (uint32_t)map[k]] =
				p->v[i * p->ncol + k];
		c->share[first + i] = p->share[i];
	}
	return 0;
}

void sbt_cnt_move(struct sbt_dataset *ds, size_t to, size_t from)
{
	struct sbt_counters *c = ds->cnt;

	if (!c || from >= c->cap || to >= c->cap || to == from)
		return;
	memcpy(c->v + to * c->ncol, c->v + from * c->ncol,
	       c->ncol * sizeof *c->v);
	c->share[to] = c->share[from];
}

/* ---- reading ------------------------------------------------------------------ */

/* Why an event was not counted, from its entry's errno (< 0: unknown). */
static void why(char *out, size_t n, int32_t err)
{
	if (err < 0)
		snprintf(out, n, "unknown name");
	else if (err == E2BIG)
		snprintf(out, n, "more than %u events", SBT_COUNT_MAX);
	else
		snprintf(out, n, "perf_event_open: %s", strerror(err));
}

int sbt_cnt_meta(struct sbt_dataset *ds, uint32_t src, const void *p,
		 uint32_t len)
{
	struct sbt_cnt_src *s = src_of(ds, src);
	struct sbt_meta_counter m;
	char name[SBT_CNT_NAME], reason[96];
	size_t k, used;

	if (!s)
		return -1;
	if (len <= sizeof m)
		return 0;               /* damage: no name */
	memcpy(&m, p, sizeof m);
	k = len - sizeof m < sizeof name - 1 ? len - sizeof m
					     : sizeof name - 1;
	memcpy(name, (const char *)p + sizeof m, k);
	name[k] = 0;
	for (size_t i = 0; i < k; i++)  /* names go into every format */
		if ((unsigned char)name[i] < 32 || name[i] == '"' ||
		    name[i] == '\\' || name[i] == ',')
			name[i] = '?';
	s->named = 1;
	if (m.index < SBT_COUNT_MAX) {
		int col = column(ds->cnt, name);
		if (col < 0)
			return 0;       /* over SBT_CNT_COLS: not shown */
		s->col[m.index] = col;
		s->scaled[m.index] = !!(m.flags & SBT_COUNTER_SCALED);
		/* said only of the software events that happen in the
		 * kernel alone (context switches, migrations: config 3,
		 * 4): counted in user mode only, they read 0 */
		s->user[m.index] = m.type == 1 /* PERF_TYPE_SOFTWARE */ &&
				   (m.config == 3 || m.config == 4) &&
				   (m.flags & SBT_COUNTER_USER);
		if (m.index + 1 > s->n)
			s->n = m.index + 1;
		return 0;
	}
	why(reason, sizeof reason, m.err);
	used = strlen(s->off);
	snprintf(s->off + used, sizeof s->off - used, "%s%s (%s)",
		 used ? ", " : "", name, reason);
	return 0;
}

void sbt_cnt_start(struct sbt_cnt_thread *t, uint32_t slot)
{
	t->to = 1;
	t->slot = slot;
	if (t->open && slot < SBT_CNT_OPEN)
		t->open[slot].mask = 0;
}

void sbt_cnt_stop(struct sbt_cnt_thread *t, uint32_t slot, uint32_t depth,
		  size_t sample)
{
	t->start.mask = 0;
	t->stop.mask = 0;
	t->to = sample == SIZE_MAX ? 3 : sample == SBT_CNT_NOWHERE ? 0 : 2;
	t->sample = sample;
	if (!t->open || slot >= SBT_CNT_OPEN)
		return;
	t->start = t->open[slot];
	if (depth > SBT_CNT_OPEN)
		depth = SBT_CNT_OPEN;
	if (slot + 1 < depth)
		memmove(&t->open[slot], &t->open[slot + 1],
			(depth - slot - 1) * sizeof *t->open);
}

void sbt_cnt_shift(struct sbt_cnt_thread *t, uint32_t depth)
{
	if (t->open && depth > 1)
		memmove(t->open, t->open + 1,
			((depth < SBT_CNT_OPEN ? depth : SBT_CNT_OPEN) - 1) *
			sizeof *t->open);
}

void sbt_cnt_thread_free(struct sbt_cnt_thread *t)
{
	free(t->open);
	t->open = NULL;
}

/* Counter j's count between the two readings, scaled by enabled /
 * running when `scaled`; NAN while either lacks it or when they give
 * none.  *share: the running share. */
static double delta(const struct sbt_cnt_thread *t, uint32_t j, int scaled,
		    double *share)
{
	const uint64_t *a = t->start.v, *b = t->stop.v;
	uint32_t need = 3u | 1u << (j + 2);

	if ((t->start.mask & need) != need || (t->stop.mask & need) != need ||
	    !a[0] || !b[0] || b[0] < a[0] || b[1] <= a[1] ||
	    b[j + 2] < a[j + 2])
		return NAN;
	double on = (double)(b[0] - a[0]), run = (double)(b[1] - a[1]);
	*share = scaled && run < on ? run / on : 1;
	return (double)(b[j + 2] - a[j + 2]) / *share;
}

int sbt_cnt_event(struct sbt_dataset *ds, uint32_t src,
		  struct sbt_cnt_thread *t, uint32_t id, uint64_t value)
{
	uint32_t j = id == SBT_COUNT_ENABLED ? 0 : id == SBT_COUNT_RUNNING ? 1
		   : id < SBT_COUNT_MAX ? id + 2 : UINT32_MAX;
	struct sbt_cnt_reading *r;
	struct sbt_cnt_src *s;
	struct sbt_counters *c;
	double x, share;

	if (j == UINT32_MAX || !t->to)
		return 0;               /* damage: ignored */
	if (t->to == 1) {
		if (t->slot >= SBT_CNT_OPEN)
			return 0;
		if (!t->open &&
		    !(t->open = calloc(SBT_CNT_OPEN, sizeof *t->open)))
			return -1;
		r = &t->open[t->slot];
	} else {
		r = &t->stop;
	}
	r->v[j] = value;
	r->mask |= 1u << j;
	if (t->to == 1 || j < 2)
		return 0;
	if (!(s = src_of(ds, src)))
		return -1;
	c = ds->cnt;
	if (isnan(x = delta(t, j - 2, s->scaled[j - 2], &share)))
		return 0;
	if (t->to == 3) {               /* an empty calibration pair */
		if (!(s->empty[j - 2] <= x))
			s->empty[j - 2] = x;
		return 0;
	}
	if (s->col[j - 2] < 0 || t->sample >= ds->n)
		return 0;
	if (reserve(c, t->sample) != 0)
		return -1;
	c->v[t->sample * c->ncol + (uint32_t)s->col[j - 2]] = x;
	if (s->scaled[j - 2] || isnan(c->share[t->sample]))
		c->share[t->sample] = (float)share;
	return 0;
}
