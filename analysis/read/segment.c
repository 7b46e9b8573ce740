/*
 * segment.c - a log's events, a segment at a time: parsed on their own,
 * merged in file order (the reasoning is in logread.h).
 *
 * Parsing a segment, a thread's regions opened before it are unknown, and
 * so is the last held sample of each of its call sites.  What depends on
 * them becomes an operation for the merge, in stream order:
 *   - a STOP with no START in the segment pops one of the earlier ones
 *     (OP_POP; its sample gets a slot, dead until the merge pairs it);
 *   - a START that takes the thread deeper than before may push the
 *     oldest earlier one out (OP_DEPTH: the reader keeps OPEN_MAX);
 *   - a detour's span lengthens the earlier ones too (OP_SPAN);
 *   - a CYCLES event first in the thread's stream completes the earlier
 *     START or sample (OP_CYCLES);
 *   - calls left out (a SKIP's count, a thinned sample's call) go to the
 *     last held sample of the site, which may lie before (OP_CREDIT,
 *     summed while the target cannot change);
 *   - a thinned-out sample is held after all when its thread has no
 *     held sample of its site before it (OP_HELD);
 *   - a placeholder region's first use and the segment's first warning
 *     (OP_REGION, OP_WARN) keep the serial reading's order of both.
 * Per (thread, site) the parse knows the target of a credit (DEF: a slot
 * of its own), knows that one exists but not which (PEND_SURE), or does
 * not know (PEND, or no entry: what the segments before left).
 */
#include "bigmem.h"
#include "logread.h"
#include "jobs.h"
#include "thin.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A pread buffer that stays in the core's L2: copied in, then read. */
#define BUFSZ (256u << 10)
#define LOCAL ((size_t)1 << 63)        /* a target in the merging segment */

enum { DEF = 1, PEND, PEND_SURE };

/* ---- tables of last samples ---------------------------------------------- */

static size_t slot_of(uint32_t site, size_t cap)
{
	return (size_t)(site * 2654435761u) & (cap - 1);
}

static struct last *tab_find(struct last *tab, size_t cap, uint32_t site)
{
	if (!cap || !site)
		return NULL;
	for (size_t i = slot_of(site, cap); tab[i].site; i = (i + 1) & (cap - 1))
		if (tab[i].site == site)
			return &tab[i];
	return NULL;
}

/* site's entry, new ones with state 0; NULL for site 0 (never a
 * target: the calibration) or when out of memory. */
static struct last *tab_get(struct last **tab, size_t *n, size_t *cap,
			    uint32_t site)
{
	struct last *e = tab_find(*tab, *cap, site);

	if (e || !site)
		return e;
	if (2 * (*n + 1) > *cap) {
		size_t ncap = *cap ? 2 * *cap : 64;
		struct last *t = calloc(ncap, sizeof *t);
		if (!t)
			return NULL;
		for (size_t i = 0; i < *cap; i++) {
			if (!(*tab)[i].site)
				continue;
			size_t j = slot_of((*tab)[i].site, ncap);
			while (t[j].site)
				j = (j + 1) & (ncap - 1);
			t[j] = (*tab)[i];
		}
		free(*tab);
		*tab = t, *cap = ncap;
	}
	size_t i = slot_of(site, *cap);
	while ((*tab)[i].site)
		i = (i + 1) & (*cap - 1);
	(*tab)[i] = (struct last){ .site = site };
	++*n;
	return &(*tab)[i];
}

/* tab_get of ts's table; its entries moved when it grew: the memos'
 * pointers forgotten. */
static struct last *lt_get(struct lthread *ts, uint32_t site)
{
	size_t cap = ts->cap_tab;
	struct last *e = tab_get(&ts->tab, &ts->ntab, &ts->cap_tab, site);

	if (ts->cap_tab != cap)
		for (int i = 0; i < SITE_MEMO; i++)
			ts->memo[i].last = NULL;
	return e;
}

/* k more calls not recorded after sample s (saturating: a sum of
 * saturating additions is their saturated sum, in any grouping). */
static void add_calls(struct sbt_sample *s, uint64_t k)
{
	uint64_t v = (uint64_t)s->skipped + k;
	s->skipped = v > UINT32_MAX || v < k ? UINT32_MAX : (uint32_t)v;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* ---- what both the parse and the merge compute ---------------------------- */

/* The cpu of an event: never one the machine did not have (ncpus, when
 * the header says it; older logs took TSC_AUX on trust). */
static uint16_t ev_cpu(const struct ctx *c, uint32_t aux)
{
	uint32_t cpu = SBT_AUX_CPU(aux);

	if (!(c->h.flags & SBT_HF_CPU_AUX) || aux == SBT_AUX_UNKNOWN ||
	    (c->h.ncpus && cpu >= c->h.ncpus))
		return (uint16_t)SBT_CPU_UNKNOWN;
	return (uint16_t)cpu;
}

static double t_of(const struct ctx *c, uint64_t t)
{
	return t >= c->start_ticks ? (double)(t - c->start_ticks) * c->tick_ns
				   : 0;
}

const struct site_info *sbt_seg_info(const struct ctx *c, uint32_t site,
				     size_t *k)
{
	int64_t i = site < c->siteregion.n && c->siteregion.ds[site] >= 0 ?
		    c->sitemap.ds[site] - (int64_t)c->site0 : -1;

	*k = i >= 0 && (size_t)i + 1 < c->ninfo ? (size_t)i : c->ninfo - 1;
	return &c->info[*k];
}

/* A sample of START o closed by a STOP at t on cpu. */
static void fill(const struct ctx *c, struct sbt_sample *s,
		 const struct open_ev *o, uint64_t t, uint16_t cpu,
		 uint32_t fl, uint32_t thread, uint32_t site)
{
	const double tns = c->tick_ns;

	s->ns = t >= o->t0 + o->out ? (double)(t - o->t0 - o->out) * tns : 0;
	s->cycles = 0;
	s->t_ns = t_of(c, o->t0);
	s->region = site;       /* raw site id: mapped by finish() */
	s->skipped = 0;
	s->thread = thread;
	s->source = c->srci;
	s->cpu_start = o->cpu;
	s->cpu_stop = cpu;
	s->switches = s->faults = 0;
	s->site = 0;
	s->flags = (fl & SBT_RF_PROBE ? SBT_SF_PROBE : 0) |
		   (fl & SBT_RF_CROSSED ? SBT_SF_CROSSED : 0);
	if (s->cpu_start != s->cpu_stop && s->cpu_start != SBT_CPU_UNKNOWN &&
	    s->cpu_stop != SBT_CPU_UNKNOWN)
		s->flags |= SBT_SF_MIGRATED;
	s->detour_ns = (float)((double)o->out * tns);
	if (o->out)
		s->flags |= SBT_SF_DETOUR;
	/* START's cycles, until the STOP's CYCLES event comes */
	if (o->has_c)
		s->cycles = (double)o->c0;
}

/* A sample whose START a JOIN followed: its end is looked up once every
 * RELEASE is known (sbt_seg_joins); the link kept in it meanwhile. */
static void joined(struct sbt_sample *s, const struct open_ev *o)
{
	uint32_t master = SBT_JOIN_MASTER(o->link);

	if (!o->joined)
		return;
	s->flags |= SBT_SF_JOINED;
	s->site = SBT_JOIN_INST(o->link);
	s->switches = (uint16_t)master;
	s->faults = (uint16_t)(master >> 16);
}

/* A CYCLES event after the sample s: its count is the difference. */
static void cycles_after(struct sbt_sample *s, uint64_t t)
{
	double c0 = s->cycles;
	s->cycles = (double)t >= c0 ? (double)t - c0 : 0;
}

/* ---- parsing --------------------------------------------------------------- */

static void seg_warn(struct seg *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static struct op *op_new(struct seg *g, int kind, uint32_t thread)
{
	if (g->nops == g->cap_ops) {
		size_t cap = g->cap_ops ? 2 * g->cap_ops : 64;
		void *n = realloc(g->ops, cap * sizeof *g->ops);
		if (!n) {
			g->oom = 1;
			return NULL;
		}
		g->ops = n, g->cap_ops = cap;
	}
	struct op *o = &g->ops[g->nops++];
	memset(o, 0, sizeof *o);
	o->kind = (uint8_t)kind;
	o->thread = thread;
	o->slot = o->prev = NO_SLOT;
	return o;
}

/* Only a segment's first warning can be the log's first. */
static void seg_warn(struct seg *g, const char *fmt, ...)
{
	va_list ap;

	if (g->warning[0])
		return;
	va_start(ap, fmt);
	vsnprintf(g->warning, sizeof g->warning, fmt, ap);
	va_end(ap);
	(void)op_new(g, OP_WARN, 0);
}

static struct lthread *lthread_of(struct seg *g, uint32_t thread)
{
	for (size_t i = g->nth; i-- > 0; )   /* few threads per log */
		if (g->th[i]->thread == thread)
			return g->th[i];
	if (g->nth == g->cap_th) {
		size_t cap = g->cap_th ? 2 * g->cap_th : 16;
		void *n = realloc(g->th, cap * sizeof *g->th);
		if (!n)
			return NULL;
		g->th = n, g->cap_th = cap;
	}
	struct lthread *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->thread = thread;
	t->lastk = g->first ? LAST_NONE : LAST_INHERIT;
	g->th[g->nth++] = t;
	return t;
}

/* Room for `more` samples in the dataset (a direct segment, per chunk). */
static int room(struct ctx *c, struct seg *g, size_t more)
{
	c->ds->n = g->n;
	if (sbt_log_reserve(c, more) != 0)
		return -1;
	g->s = c->ds->s, g->cap = c->ds->cap;
	return 0;
}

/* A new slot, its index in *at.  A segment's own array grows as its
 * samples come (under a budget most are left out: no room is kept for
 * them); a direct segment's room was made for the chunk. */
static int take(struct seg *g, size_t *at)
{
	if (!g->direct && g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 64;
		void *s = big_realloc(g->s, g->cap * sizeof *g->s,
				      cap * sizeof *g->s);
		if (!s)
			return -1;
		g->s = s;
		void *d = big_realloc(g->dead, g->cap, cap);
		if (!d)
			return -1;
		g->dead = d;
		memset(g->dead + g->cap, 0, cap - g->cap);
		g->cap = cap;
	}
	*at = g->n++;
	return 0;
}

/* k calls to the last held sample of site before now, which this
 * segment does not know (e: the site's entry, or NULL). */
static void credit(struct seg *g, struct lthread *ts, struct last *e,
		   uint32_t site, uint64_t k)
{
	if (e && e->state >= PEND && e->v != NO_SLOT) {
		g->ops[e->v].a = sat_add(g->ops[e->v].a, k);
		return;
	}
	struct op *o = op_new(g, OP_CREDIT, ts->thread);
	if (!o)
		return;
	o->site = site, o->a = k, o->sure = e && e->state == PEND_SURE;
	if (!e && !(e = lt_get(ts, site))) {
		if (site)
			g->oom = 1;
		return;
	}
	if (!e->state)
		e->state = PEND;
	e->v = g->nops - 1;
}

/* A sample beyond its share: 0 left out (its call credited), 1 held,
 * 2 held unless its thread held one of its site before the segment. */
static int thin_local(const struct ctx *c, struct seg *g, struct lthread *ts,
		      uint32_t site, uint32_t fl, struct site_memo *m,
		      double keep, double t_ns)
{
	if (sbt_seg_held_memo(c, m, keep, t_ns))
		return 1;
	if (fl & SBT_RF_PROBE)
		return 0;
	struct last *e = m->last ? m->last :
			 (m->last = tab_find(ts->tab, ts->cap_tab, site));
	if (e && e->state == DEF) {
		sbt_thin_fold(&g->s[e->v], 0);
		return 0;
	}
	if (e && e->state == PEND_SURE) {
		credit(g, ts, e, site, 1);
		return 0;
	}
	return g->first ? 1 : 2;        /* a thread's first is held */
}

/* A STOP closing the segment's own START at open[i - 1]. */
static int stop_local(struct ctx *c, struct seg *g, struct lthread *ts,
		      const struct sbt_event *e, uint32_t i)
{
	uint32_t site = SBT_EV_ID(e->word);
	/* read in place (no copy of what START just wrote: a store it
	 * cannot forward), its slot left as it is until the next START */
	const struct open_ev *o = &ts->open[i - 1];
	struct open_ev moved;
	int calib = o->flags & SBT_RF_CALIB || site == SBT_SITE_CALIB,
	    keep = 1;
	uint32_t fl = o->flags | SBT_EV_FLAGS(e->word);

	if (i < ts->n) {                /* closed out of nesting order */
		moved = *o, o = &moved;
		memmove(&ts->open[i - 1], &ts->open[i],
			(ts->n - i) * sizeof moved);
	}
	if (!calib && (c->counting || c->thin)) {
		size_t k;
		const struct site_info *in;
		struct site_memo *m = &ts->memo[site % SITE_MEMO];
		if (m->site == site) {  /* a thread's few hot sites */
			k = m->k, in = &c->info[k];
		} else {
			in = sbt_seg_info(c, site, &k);
			m->site = site, m->k = k;
			m->mix = sbt_thin_mix(in->key ^ ts->thread);
			m->share = 0, m->bound = 0;
			m->quiet = 0, m->last = NULL;
		}
		if (!m->quiet && !in->named && !g->seen[k]) {
			struct op *op = op_new(g, OP_REGION, ts->thread);
			g->seen[k] = 1;
			if (op)
				op->site = in->raw;
		}
		m->quiet = 1;
		if (g->counts)          /* counting, or live */
			g->counts[k]++;
		if (c->counting)
			keep = 0;
		else
			keep = thin_local(c, g, ts, site, fl, m,
					  g->share ? g->share[k] : in->keep,
					  t_of(c, o->t0));
	}
	/* a calibration pair's counts are the markers' own */
	if (c->cnt_on)
		sbt_cnt_stop(&ts->cnt, i - 1, ts->n, calib ? SIZE_MAX :
			     keep ? g->n : SBT_CNT_NOWHERE);
	ts->n--;
	ts->lastk = LAST_NONE;
	if (calib || !keep)
		return 0;
	size_t at;
	if (take(g, &at) != 0)
		return -1;
	if (g->direct)
		c->ds->n = g->n;        /* COUNT events after it find it */
	fill(c, &g->s[at], o, e->t, ev_cpu(c, e->aux), fl, ts->thread, site);
	joined(&g->s[at], o);
	if (!(fl & SBT_RF_PROBE)) {
		struct last *l = lt_get(ts, site);
		if (!l)
			return site ? -1 : 0;
		if (keep == 2) {        /* the merge decides */
			struct op *op = op_new(g, OP_HELD, ts->thread);
			if (!op)
				return -1;
			op->site = site, op->slot = at;
			l->state = PEND_SURE, l->v = NO_SLOT;
		} else {
			l->state = DEF, l->v = at;
		}
	}
	if (o->has_c)
		ts->lastk = LAST_SLOT, ts->lastv = at;
	return 0;
}

/* A STOP whose START, if any, came before the segment. */
static int stop_earlier(struct ctx *c, struct seg *g, struct lthread *ts,
			const struct sbt_event *e)
{
	uint32_t site = SBT_EV_ID(e->word);
	struct last *l = tab_find(ts->tab, ts->cap_tab, site);
	struct op *op = op_new(g, OP_POP, ts->thread);

	if (!op)
		return -1;
	op->site = site, op->t = e->t, op->flags = SBT_EV_FLAGS(e->word);
	op->cpu = ev_cpu(c, e->aux);
	op->prev = l && l->state == DEF ? l->v : NO_SLOT;
	if (!c->counting) {
		if (take(g, &op->slot) != 0)
			return -1;
		g->dead[op->slot] = 1;  /* until the merge pairs it */
	}
	int sure = l && (l->state == DEF || l->state == PEND_SURE);
	if (!l && site &&
	    !(l = lt_get(ts, site)))
		return -1;
	if (l)
		l->state = sure ? PEND_SURE : PEND, l->v = NO_SLOT;
	ts->lastk = LAST_POP, ts->lastv = g->nops - 1;
	return 0;
}

static int start(struct ctx *c, struct seg *g, struct lthread *ts,
		 const struct sbt_event *e)
{
	if (ts->n == OPEN_MAX) {
		/* the segments before hold none open now (OP_DEPTH) */
		seg_warn(g, "more than %d regions open on one thread "
			 "(damaged log)", OPEN_MAX);
		memmove(ts->open, ts->open + 1, --ts->n * sizeof ts->open[0]);
		if (c->cnt_on)
			sbt_cnt_shift(&ts->cnt, OPEN_MAX);
	} else if (!g->first && ts->n + 1 > ts->maxd) {
		struct op *op = op_new(g, OP_DEPTH, ts->thread);
		if (!op)
			return -1;
		op->a = ts->maxd = ts->n + 1;
	}
	ts->open[ts->n++] = (struct open_ev){
		.t0 = e->t, .site = SBT_EV_ID(e->word),
		.flags = SBT_EV_FLAGS(e->word), .cpu = ev_cpu(c, e->aux) };
	if (c->cnt_on)
		sbt_cnt_start(&ts->cnt, ts->n - 1);
	ts->lastk = LAST_START;
	return 0;
}

static void skip(struct seg *g, struct lthread *ts, const struct sbt_event *e)
{
	uint32_t site = SBT_EV_ID(e->word);
	struct last *l = tab_find(ts->tab, ts->cap_tab, site);

	ts->lastk = LAST_NONE;
	if (l && l->state == DEF)
		add_calls(&g->s[l->v], e->t);
	else if (g->first && !l) {
		if (e->t)
			seg_warn(g, "a SKIP event with no recorded call "
				 "before it (damaged log)");
	} else if (e->t) {
		credit(g, ts, l, site, e->t);
	}
}

static void cycles(struct seg *g, struct lthread *ts, uint64_t t)
{
	switch (ts->lastk) {
	case LAST_START:
		if (ts->n) {
			ts->open[ts->n - 1].c0 = t;
			ts->open[ts->n - 1].has_c = 1;
		}
		break;
	case LAST_SLOT:
		cycles_after(&g->s[ts->lastv], t);
		break;
	case LAST_POP:
		g->ops[ts->lastv].has_cyc = 1;
		g->ops[ts->lastv].a = t;
		break;
	case LAST_INHERIT: {
		struct op *op = op_new(g, OP_CYCLES, ts->thread);
		if (op)
			op->t = t;
		break;
	}
	}
	ts->lastk = LAST_NONE;
}

/* A SPEED event: a probe, or a detour's span, taken out of every START
 * open across it; both are places where the thread left the
 * application (score/afterprobe.c). */
static int speed(struct ctx *c, struct seg *g, struct lthread *ts,
		 const struct sbt_event *e)
{
	uint64_t span = SBT_EV_ID(e->word);
	struct sbt_probe p = { .t_ns = t_of(c, e->t),
			       .ns = (double)span * c->tick_ns,
			       .thread = ts->thread, .source = c->srci,
			       .cpu = ev_cpu(c, e->aux) };

	ts->lastk = LAST_NONE;
	if (SBT_EV_FLAGS(e->word) & SBT_SPEED_SPAN) {
		for (uint32_t i = 0; i < ts->n; i++)
			if (ts->open[i].t0 <= e->t)
				ts->open[i].out += span;
		if (!g->first) {
			struct op *op = op_new(g, OP_SPAN, ts->thread);
			if (!op)
				return -1;
			op->t = e->t, op->a = span;
		}
		if (c->counting)
			return 0;
		return sbt_probe_push(&g->detours, &g->ndetours, &g->cap_detours,
				      &p);
	}
	if (c->counting)
		return 0;
	return sbt_probe_push(&g->probes, &g->nprobes, &g->cap_probes, &p);
}

/* A JOIN: the thread's innermost open START (of its site) is a wait
 * another thread's RELEASE ends.  Opened before the segment: the merge
 * marks it (OP_JOIN). */
static int join(struct seg *g, struct lthread *ts, const struct sbt_event *e)
{
	uint32_t site = SBT_EV_ID(e->word);

	ts->lastk = LAST_NONE;
	if (ts->n && ts->open[ts->n - 1].site == site) {
		ts->open[ts->n - 1].joined = 1;
		ts->open[ts->n - 1].link = e->t;
		return 0;
	}
	if (ts->n || g->first) {
		seg_warn(g, "a JOIN event not after its START (damaged log)");
		return 0;
	}
	struct op *op = op_new(g, OP_JOIN, ts->thread);
	if (!op)
		return -1;
	op->site = site, op->t = e->t;
	return 0;
}

static int release(struct seg *g, struct lthread *ts,
		   const struct sbt_event *e)
{
	ts->lastk = LAST_NONE;
	if (g->nrel == g->cap_rel) {
		size_t cap = g->cap_rel ? 2 * g->cap_rel : 64;
		void *n = realloc(g->rel, cap * sizeof *g->rel);
		if (!n)
			return -1;
		g->rel = n, g->cap_rel = cap;
	}
	g->rel[g->nrel++] = (struct release){ ts->thread,
		SBT_EV_ID(e->word), e->t };
	return 0;
}

static int reset(struct ctx *c, struct seg *g, struct lthread *ts,
		 const struct sbt_event *e)
{
	ts->lastk = LAST_NONE;
	if (g->nresets == g->cap_resets) {
		size_t cap = g->cap_resets ? 2 * g->cap_resets : 16;
		void *n = realloc(g->resets, cap * sizeof *g->resets);
		if (!n)
			return -1;
		g->resets = n, g->cap_resets = cap;
	}
	g->resets[g->nresets++] = (struct reset){ SBT_EV_ID(e->word),
		ts->thread, t_of(c, e->t) };
	return 0;
}

/* One event of ts's stream.  1: the rest of the chunk is damage, -1: out
 * of memory. */
static int event(struct ctx *c, struct seg *g, struct lthread *ts,
		 const struct sbt_event *e)
{
	uint32_t k = SBT_EV_KIND(e->word), i;

	switch (k) {
	case SBT_EV_START:
		return start(c, g, ts, e);
	case SBT_EV_STOP:
		ts->lastk = LAST_NONE;
		for (i = ts->n; i > 0 && ts->open[i - 1].site !=
		     SBT_EV_ID(e->word); i--)
			;
		if (i)
			return stop_local(c, g, ts, e, i);
		if (!g->first)
			return stop_earlier(c, g, ts, e);
		seg_warn(g, "a STOP event without its START (damaged log)");
		return 0;
	case SBT_EV_SKIP:
		skip(g, ts, e);
		return 0;
	case SBT_EV_CYCLES:
		cycles(g, ts, e->t);
		return 0;
	case SBT_EV_COUNT:
		/* read only where counters are named (one segment) */
		if (c->cnt_on && !c->counting &&
		    sbt_cnt_event(c->ds, c->srci, &ts->cnt,
				  SBT_EV_ID(e->word), e->t))
			return -1;
		return 0;
	case SBT_EV_SPEED:
		if (c->h.version < 5) {
			seg_warn(g, "a SPEED event in a version %u log "
				 "(damaged log)", c->h.version);
			return 1;
		}
		return speed(c, g, ts, e);
	case SBT_EV_RESET:
		return reset(c, g, ts, e);
	case SBT_EV_JOIN:
	case SBT_EV_RELEASE:
		if (c->h.version < 6) {
			seg_warn(g, "a %s event in a version %u log (damaged "
				 "log)", k == SBT_EV_JOIN ? "JOIN" : "RELEASE",
				 c->h.version);
			return 1;
		}
		return k == SBT_EV_JOIN ? join(g, ts, e) : release(g, ts, e);
	default:
		seg_warn(g, "unknown event kind %u (damaged log)", k);
		return 1;
	}
}

/* A START and its STOP right after it, of a sample thinning leaves out,
 * taken at once: what event() does for the two where nothing else can
 * happen (no counters read, no probe or calibration, the site in the
 * memo with its region made, its share's bound and its last held sample
 * known): the site's count, and the call folded into that sample.  1:
 * done; 0: event() takes them one by one. */
static int pair_left_out(const struct ctx *c, struct seg *g,
			 struct lthread *ts, const struct sbt_event *e)
{
	uint32_t site = SBT_EV_ID(e[0].word);
	uint32_t fl = SBT_EV_FLAGS(e[0].word) | SBT_EV_FLAGS(e[1].word);

	if (SBT_EV_KIND(e[0].word) != SBT_EV_START ||
	    SBT_EV_KIND(e[1].word) != SBT_EV_STOP ||
	    SBT_EV_ID(e[1].word) != site || site == SBT_SITE_CALIB ||
	    (fl & (SBT_RF_CALIB | SBT_RF_PROBE)) || !c->thin ||
	    c->counting || c->cnt_on || c->src->thin_level ||
	    ts->n >= OPEN_MAX || (!g->first && ts->n + 1 > ts->maxd))
		return 0;
	struct site_memo *m = &ts->memo[site % SITE_MEMO];
	if (m->site != site || !m->quiet || !m->last ||
	    m->last->state != DEF)
		return 0;
	double keep = g->share ? g->share[m->k] : c->info[m->k].keep;
	if (keep >= 1 || keep != m->share)
		return 0;
	double t_ns = t_of(c, e[0].t);
	uint64_t t;
	memcpy(&t, &t_ns, sizeof t);
	if (sbt_thin_mix(m->mix ^ t) >> 11 < m->bound)
		return 0;               /* held */
	if (g->counts)
		g->counts[m->k]++;
	sbt_thin_fold(&g->s[m->last->v], 0);
	ts->lastk = LAST_NONE;
	return 1;
}

static int parse_chunk(struct ctx *c, struct seg *g, const struct chunk_at *ch,
		       char *buf, size_t most)
{
	struct lthread *ts = lthread_of(g, ch->thread);

	if (!ts)
		return -1;
	/* a sample needs a START: at most half the chunk's events, plus
	 * the STARTs open before it */
	if (g->direct && !c->counting &&
	    room(c, g, ch->used / (2 * sizeof(struct sbt_event)) +
		 OPEN_MAX + 1) != 0)
		return -1;
	for (uint64_t pos = 0; pos < ch->used; ) {
		size_t n = ch->used - pos > most ? most
						 : (size_t)(ch->used - pos);
		n -= n % sizeof(struct sbt_event);
		if (n == 0 || sbt_log_read_at(c->fd, ch->off + pos, buf, n) != 0)
			return 0;
		const struct sbt_event *e = (const void *)buf;
		size_t ne = n / sizeof *e;
		for (size_t i = 0; i < ne; i++, e++) {
			if (e->word == 0)       /* the end of the stream */
				return 0;
			/* under a budget most pairs: left out at once */
			if (i + 1 < ne && pair_left_out(c, g, ts, e)) {
				i++, e++;
				continue;
			}
			int r = event(c, g, ts, e);
			if (r < 0)
				return -1;
			if (r > 0)
				return 0;
		}
		if (g->oom)
			return -1;
		pos += n;
	}
	return 0;
}

int sbt_seg_parse(struct ctx *c, struct seg *g)
{
	size_t most = sizeof(struct sbt_event);
	for (size_t i = g->c0; i < g->c1; i++)  /* small logs: small reads */
		if (c->chunks[i].used > most)
			most = c->chunks[i].used < BUFSZ ? c->chunks[i].used
							 : BUFSZ;
	char *buf = malloc(most);
	int rc = 0;

	if (!buf)
		return -1;
	if (c->counting || c->thin) {
		g->seen = calloc(c->ninfo, 1);
		if (c->counts)          /* counting, or live */
			g->counts = calloc(c->ninfo, sizeof *g->counts);
		if (!g->seen || (c->counts && !g->counts))
			rc = -1;
	}
	if (g->direct)
		g->n = c->ds->n;
	for (size_t i = g->c0; i < g->c1 && rc == 0; i++)
		rc = parse_chunk(c, g, &c->chunks[i], buf, most);
	if (g->direct)
		c->ds->n = g->n;
	free(buf);
	if (rc || g->oom)
		g->oom = 1;
	return g->oom ? -1 : 0;
}

/* ---- merging ----------------------------------------------------------------- */

struct tstate *sbt_seg_thread(struct ctx *c, uint32_t thread)
{
	for (size_t i = c->nthreads; i-- > 0; )
		if (c->threads[i]->thread == thread)
			return c->threads[i];
	if (c->nthreads == c->cap_threads) {
		size_t cap = c->cap_threads ? 2 * c->cap_threads : 16;
		void *n = realloc(c->threads, cap * sizeof *c->threads);
		if (!n)
			return NULL;
		c->threads = n, c->cap_threads = cap;
	}
	struct tstate *ts = calloc(1, sizeof *ts);
	if (!ts)
		return NULL;
	ts->thread = thread;
	c->threads[c->nthreads++] = ts;
	return ts;
}

static struct sbt_sample *at(struct ctx *c, struct seg *g, size_t v)
{
	return v & LOCAL ? &g->s[v & ~LOCAL] : &c->ds->s[v];
}

struct last *sbt_seg_last(struct tstate *ts, uint32_t site)
{
	return tab_find(ts->last_of, ts->cap_last, site);
}

int sbt_seg_set_last(struct tstate *ts, uint32_t site, size_t v)
{
	struct last *e = tab_get(&ts->last_of, &ts->nlast, &ts->cap_last,
				 site);
	if (e)
		e->v = v, e->state = DEF;
	return e || !site ? 0 : -1;
}

/* OP_POP: pair a STOP with the innermost open START of its site among
 * those the segments before left open. */
static int pop(struct ctx *c, struct seg *g, struct tstate *ts, struct op *op)
{
	uint32_t site = op->site, i = ts->n;

	if (op->prev != NO_SLOT && sbt_seg_set_last(ts, site, LOCAL | op->prev))
		return -1;
	ts->lastk = LAST_NONE;
	while (i > 0 && ts->open[i - 1].site != site)
		i--;
	if (i == 0) {
		sbt_log_warn(c, "a STOP event without its START (damaged log)");
		return 0;
	}
	struct open_ev o = ts->open[i - 1];
	memmove(&ts->open[i - 1], &ts->open[i], (ts->n - i) * sizeof o);
	ts->n--;
	int calib = o.flags & SBT_RF_CALIB || site == SBT_SITE_CALIB, keep = 1;
	uint32_t fl = o.flags | op->flags;
	double t_ns = t_of(c, o.t0);
	if (!calib && (c->counting || c->thin)) {
		size_t k;
		const struct site_info *in = sbt_seg_info(c, site, &k);
		if (!in->named && sbt_log_region(c, in->raw) < 0)
			return -1;
		if (c->counts)          /* counting, or live */
			c->counts[k]++;
		if (c->counting) {
			keep = 0;
		} else if (!sbt_seg_held(c, in, c->share ? c->share[k] :
					 in->keep, ts->thread, t_ns)) {
			struct last *e = sbt_seg_last(ts, site);
			keep = !(fl & SBT_RF_PROBE) && !e;
			if (e && !(fl & SBT_RF_PROBE))
				sbt_thin_fold(at(c, g, e->v), 0);
		}
	}
	if (calib || !keep)
		return 0;
	struct sbt_sample *s = &g->s[op->slot];
	g->dead[op->slot] = 0;
	fill(c, s, &o, op->t, op->cpu, fl, ts->thread, site);
	joined(s, &o);
	if (!(fl & SBT_RF_PROBE) && sbt_seg_set_last(ts, site, LOCAL | op->slot))
		return -1;
	if (o.has_c) {
		if (op->has_cyc)
			cycles_after(s, op->a);
		op->sure = 1;           /* a CYCLES event after it would be its */
	}
	return 0;
}

static int replay(struct ctx *c, struct seg *g, struct op *op)
{
	struct tstate *ts;
	struct last *e;

	if (op->kind == OP_WARN) {
		sbt_log_warn(c, "%s", g->warning);
		return 0;
	}
	if (op->kind == OP_REGION)
		return sbt_log_region(c, op->site) < 0 ? -1 : 0;
	if (!(ts = sbt_seg_thread(c, op->thread)))
		return -1;
	switch (op->kind) {
	case OP_DEPTH:          /* the START that made the depth op->a */
		if (ts->n && ts->n + op->a - 1 >= OPEN_MAX) {
			sbt_log_warn(c, "more than %d regions open on one "
				     "thread (damaged log)", OPEN_MAX);
			memmove(ts->open, ts->open + 1,
				--ts->n * sizeof ts->open[0]);
		}
		return 0;
	case OP_SPAN:
		for (uint32_t i = 0; i < ts->n; i++)
			if (ts->open[i].t0 <= op->t)
				ts->open[i].out += op->a;
		return 0;
	case OP_CYCLES:
		if (ts->lastk == LAST_START && ts->n) {
			ts->open[ts->n - 1].c0 = op->t;
			ts->open[ts->n - 1].has_c = 1;
		} else if (ts->lastk == LAST_SLOT) {
			cycles_after(&c->ds->s[ts->lastv], op->t);
		}
		ts->lastk = LAST_NONE;
		return 0;
	case OP_CREDIT:
		if ((e = sbt_seg_last(ts, op->site)))
			add_calls(at(c, g, e->v), op->a);
		else if (!op->sure)
			sbt_log_warn(c, "a SKIP event with no recorded call "
				     "before it (damaged log)");
		return 0;
	case OP_HELD:
		if ((e = sbt_seg_last(ts, op->site))) {
			g->dead[op->slot] = 1;
			sbt_thin_fold(at(c, g, e->v), 0);
			return 0;
		}
		return sbt_seg_set_last(ts, op->site, LOCAL | op->slot);
	case OP_POP:
		return pop(c, g, ts, op);
	case OP_JOIN:
		ts->lastk = LAST_NONE;
		if (ts->n && ts->open[ts->n - 1].site == op->site) {
			ts->open[ts->n - 1].joined = 1;
			ts->open[ts->n - 1].link = op->t;
		} else {
			sbt_log_warn(c, "a JOIN event not after its START "
				     "(damaged log)");
		}
		return 0;
	}
	return 0;
}

/* After the copy: the segment's threads as it left them, into the
 * carried state.  gi: slot -> dataset index. */
static int carry(struct ctx *c, struct seg *g, const size_t *gi)
{
	for (size_t t = 0; t < g->nth; t++) {
		struct lthread *lt = g->th[t];
		struct tstate *ts = sbt_seg_thread(c, lt->thread);
		if (!ts)
			return -1;
		for (size_t i = 0; i < ts->cap_last; i++)
			if (ts->last_of[i].site && ts->last_of[i].v & LOCAL)
				ts->last_of[i].v = gi[ts->last_of[i].v & ~LOCAL];
		for (size_t i = 0; i < lt->cap_tab; i++)
			if (lt->tab[i].site && lt->tab[i].state == DEF &&
			    sbt_seg_set_last(ts, lt->tab[i].site, gi[lt->tab[i].v]))
				return -1;
		/* at most OPEN_MAX: OP_DEPTH made room */
		for (uint32_t i = 0; i < lt->n && ts->n < OPEN_MAX; i++)
			ts->open[ts->n++] = lt->open[i];
		switch (lt->lastk) {
		case LAST_INHERIT:
			break;
		case LAST_SLOT:
			ts->lastk = g->dead[lt->lastv] ? LAST_NONE : LAST_SLOT;
			ts->lastv = gi[lt->lastv];
			break;
		case LAST_POP: {
			const struct op *op = &g->ops[lt->lastv];
			ts->lastk = op->slot != NO_SLOT && !g->dead[op->slot] &&
				    op->sure ? LAST_SLOT : LAST_NONE;
			if (ts->lastk == LAST_SLOT)
				ts->lastv = gi[op->slot];
			break;
		}
		default:
			ts->lastk = lt->lastk;
		}
	}
	return 0;
}

int sbt_seg_merge(struct ctx *c, struct seg *g)
{
	size_t *gi = NULL;
	int rc = -1;

	for (size_t i = 0; i < g->nops; i++)
		if (replay(c, g, &g->ops[i]) != 0)
			return -1;
	if (!g->direct) {
		size_t kept = 0;
		for (size_t i = 0; i < g->n; i++)
			kept += !g->dead[i];
		if (sbt_log_reserve(c, kept) != 0 ||
		    !(gi = malloc((g->n ? g->n : 1) * sizeof *gi)))
			goto out;
		struct sbt_dataset *ds = c->ds;
		for (size_t i = 0; i < g->n; i++) {
			gi[i] = ds->n;
			if (!g->dead[i])
				ds->s[ds->n++] = g->s[i];
		}
		if (carry(c, g, gi) != 0)
			goto out;
	}
	for (size_t i = 0; i < g->nprobes; i++)
		if (sbt_ds_probe(c->ds, &g->probes[i]) != 0)
			goto out;
	for (size_t i = 0; i < g->ndetours; i++)
		if (sbt_ds_detour(c->ds, &g->detours[i]) != 0)
			goto out;
	if (g->nresets) {
		void *n = realloc(c->resets, (c->nresets + g->nresets) *
				  sizeof *c->resets);
		if (!n)
			goto out;
		c->resets = n;
		memcpy(c->resets + c->nresets, g->resets,
		       g->nresets * sizeof *g->resets);
		c->nresets += g->nresets;
	}
	if (g->nrel) {
		void *n = realloc(c->rel, (c->nrel + g->nrel) * sizeof *c->rel);
		if (!n)
			goto out;
		c->rel = n;
		memcpy(c->rel + c->nrel, g->rel, g->nrel * sizeof *g->rel);
		c->nrel += g->nrel;
	}
	for (size_t k = 0; g->counts && k < c->ninfo; k++)
		c->counts[k] += g->counts[k];
	rc = 0;
out:
	free(gi);
	return rc;
}

void sbt_seg_free(struct seg *g)
{
	if (!g->direct) {
		free(g->s);
		free(g->dead);
	}
	free(g->ops);
	free(g->probes);
	free(g->detours);
	free(g->resets);
	free(g->rel);
	free(g->counts);
	free(g->seen);
	for (size_t i = 0; i < g->nth; i++) {
		free(g->th[i]->tab);
		sbt_cnt_thread_free(&g->th[i]->cnt);
		free(g->th[i]);
	}
	free(g->th);
	memset(g, 0, sizeof *g);
}

void sbt_seg_threads_free(struct ctx *c)
{
	for (size_t i = 0; i < c->nthreads; i++) {
		free(c->threads[i]->last_of);
		free(c->threads[i]);
	}
	free(c->threads);
	c->threads = NULL, c->nthreads = c->cap_threads = 0;
}

/* ---- waits another thread ended ------------------------------------------- */

static int cmp_rel(const void *a, const void *b)
{
	const struct release *x = a, *y = b;
	if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
	if (x->inst != y->inst) return x->inst < y->inst ? -1 : 1;
	return (x->t > y->t) - (x->t < y->t);
}

/* Each JOINed wait of this log's samples ends at the first RELEASE of
 * its (master, instance) at or after its start: the instance repeats
 * only every 2^24 teams of its master, all released before that start.
 * One no RELEASE ends (the master's log cut short) keeps the end its
 * own STOP gave, and is counted (c->nunreleased). */
/* Sample s's wait ended at its RELEASE; 1 when none did. */
static int join_one(const struct ctx *c, struct sbt_sample *s)
{
	const double tns = c->tick_ns;
	struct release key = { (uint32_t)s->switches |
			       (uint32_t)s->faults << 16, s->site, 0 };

	/* the START's ticks, as fill() took them */
	key.t = c->start_ticks + (uint64_t)(s->t_ns / tns);
	size_t lo = 0, hi = c->nrel;    /* lower bound (rel may be NULL:
					   none) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_rel(&c->rel[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	s->flags &= ~(uint32_t)SBT_SF_JOINED;
	s->site = 0;
	s->switches = s->faults = 0;
	if (lo == c->nrel || c->rel[lo].thread != key.thread ||
	    c->rel[lo].inst != key.inst)
		return 1;
	double end = t_of(c, c->rel[lo].t) - s->t_ns - s->detour_ns;
	s->ns = end > 0 ? end : 0;
	return 0;
}

/* The samples in fixed blocks on -j threads, each its own; the waits no
 * RELEASE ended counted per block (none[b]) and added after. */
struct joins {
	const struct ctx *c;
	size_t nb;
	size_t *none;
};

static void join_block(void *arg, size_t b, int w)
{
	struct joins *j = arg;
	const struct ctx *c = j->c;
	size_t n = c->ds->n - c->first;

	(void)w;
	for (size_t i = c->first + b * n / j->nb,
	     hi = c->first + (b + 1) * n / j->nb; i < hi; i++)
		if (c->ds->s[i].flags & SBT_SF_JOINED)
			j->none[b] += join_one(c, &c->ds->s[i]);
}

int sbt_seg_joins(struct ctx *c, int jobs)
{
	struct joins j = { c, sbt_jobs_blocks(c->ds->n - c->first, 1024),
			   NULL };

	if (c->nrel)
		qsort(c->rel, c->nrel, sizeof *c->rel, cmp_rel);
	if (!(j.none = calloc(j.nb, sizeof *j.none)))
		return -1;
	sbt_jobs_each(j.nb, jobs, join_block, &j);
	for (size_t b = 0; b < j.nb; b++)
		c->nunreleased += j.none[b];
	free(j.none);
	return 0;
}
