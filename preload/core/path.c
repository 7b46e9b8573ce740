/*
 * path.c - the general path of a START and a STOP: whatever the inline
 * fast path refuses (a full chunk, misuse, a deadline due, a cycle clock
 * or counters, CLOSE, a signal handler) is done here, with the thread's
 * busy gate shut for the whole bookkeeping.  It keeps the open-region
 * stack exact, so misuse is counted here, when it happens, exactly once;
 * the reader pairs the events again from the stream.
 */
#include "path.h"
#include "append.h"
#include "due.h"
#include "stop.h"
#include "tick.h"

#include <assert.h>
#include <string.h>

static const char pair_tag[] = "<probe>";

/* The words of n COUNT events at e: enabled, running, counters. */
static void count_words(struct sbt_event *e, uint32_t n)
{
	for (uint32_t j = 0; j < n; j++) {
		e[j].aux = 0;
		e[j].word = SBT_EV_WORD(SBT_EV_COUNT, 0,
					j == 0 ? SBT_COUNT_ENABLED :
					j == 1 ? SBT_COUNT_RUNNING : j - 2);
	}
}

static void count_values(struct sbt_event *e, const uint64_t *v, uint32_t n)
{
	for (uint32_t j = 0; j < n; j++)
		e[j].t = v[j];
}

/* A marker's event refused: counted when the log is closed. */
static struct sbt_event *counted(struct sbt_event *e)
{
	if (!e && sbt_thread_log_state() < 0)
		sbt_count(SBT_CNT_AFTER_CLOSE);
	return e;
}

struct sbt_event *sbt_path_room(struct sbt_thread *t, uint32_t n)
{
	return counted(sbt_ev_room(t, n));
}

struct sbt_event *sbt_path_append(struct sbt_thread *t, uint64_t at,
				  uint32_t aux, uint32_t word)
{
	return counted(sbt_ev_append(t, at, aux, word));
}

struct sbt_event *sbt_path_claim(struct sbt_thread *t)
{
	return counted(sbt_ev_claim(t));
}

static void pair(struct sbt_thread *t, uint32_t word, sbt_id region);

/* What is due before a START of `word` at depth d, its event not yet
 * written: the pair probe, then the tick - run now with no region open;
 * inside open regions it waits for the next STOP, whose clock read
 * starts its span, and this START's way through here is the detour's
 * too.  Not in the calibration burst.  Returns the pair probe's span
 * (NULL: none); *met: this START met the tick. */
static struct sbt_event *due_before_start(struct sbt_thread *t,
					  uint32_t word, sbt_id region,
					  uint32_t d, int *met)
{
	int calib = (word & SBT_EV_WORD(0, SBT_RF_CALIB, 0)) != 0;
	struct sbt_event *span = NULL;
	uint32_t aux;

	*met = 0;
	if (sbt_due_pair(t)) {
		uint64_t in = sbt_due_pair_take(t);
		sbt_stop_at(t, slow_only(t) ? NULL : t->chunk_end);
		if (!calib) {
			/* inside open regions, the probe's detour is taken
			 * out of them as a tick's is (~70 ns left in made a
			 * third mode of 2 % in an enclosing region) */
			uint64_t a = !d ? 0 : in ? in : sbt_read_stop(&aux);
			sbt_gate_open(t);
			pair(t, word, region);
			sbt_gate_shut(t);
			if (d)
				span = sbt_speed_span(t, a);
		}
		sbt_thread_limit(t);
	}
	if (sbt_due_tick(t) && !calib) {
		if (d == 0) {
			sbt_speed_tick(t, 0);
		} else if (!t->tick_in) {
			/* from now (where a probe's span just ended) to
			 * this START's clock read (SBT_SPEED_SPAN) */
			sbt_due_tick_meet(t, span ? span->t +
					  SBT_EV_ID(span->word) :
					  sbt_read_stop(&aux));
			*met = 1;
		}
	}
	return span;
}

/* What is due after a STOP whose clock read gave t1: the tick, its span
 * from that read (not in the calibration burst). */
static void due_after_stop(struct sbt_thread *t, sbt_id region, uint64_t t1)
{
	if (sbt_due_tick(t) && region != SBT_REGION_CALIB)
		sbt_speed_tick(t, t1);
}

/* The last skipped call closed: the fast path may run again, up to the
 * end sbt_thread_limit() chose (NULL for a cycle clock and after CLOSE). */
static void unskip(struct sbt_thread *t)
{
	sbt_stop_unskip(t);
}

/* Whether opening `region` now is misuse: then counted, gate reopened. */
int sbt_path_misuse(struct sbt_thread *t, sbt_id region)
{
	uint32_t d = t->hot.depth;

	if (d >= SBT_HOT_DEPTH) {
		sbt_gate_open(t);
		sbt_count(SBT_CNT_TOO_DEEP);
		return 1;
	}
	for (uint32_t i = 0; i < d; i++)
		if (t->hot.stack[i].region == region) {
			sbt_gate_open(t);
			sbt_count(SBT_CNT_START_OPEN);
			return 1;
		}
	return 0;
}

/* START of (word, region) under `tag` (NULL: STOP must look the name up)
 * with the busy gate closed by the caller; reopens it before the clock
 * read. */
int sbt_path_start(struct sbt_thread *t, uint32_t word, sbt_id region,
		      const char *tag)
{
	uint32_t d = t->hot.depth, nc = counting(t), aux;
	uint32_t n = 1 + cycling(t) + nc;
	uint64_t v[SBT_COUNT_MAX + 2];
	struct sbt_event *e, *span;
	int met;

	assert(sbt_gate(t) && d <= SBT_HOT_DEPTH);
	assert(!t->chunk || t->hot.cur <= t->chunk_end);
	if (sbt_path_misuse(t, region))
		return SBT_EMISUSE;
	span = due_before_start(t, word, region, d, &met);
	e = sbt_path_room(t, n);
	if (e) {
		e->word = word;
		if (cycling(t))
			e[1].word = SBT_EV_WORD(SBT_EV_CYCLES, 0, 0);
		count_words(e + 1 + cycling(t), nc);
		sbt_ev_advance(t, n);
	} else {
		/* Kept open, so that its STOP pairs; counted there. */
		tag = NULL;
	}
	t->hot.stack[d] = (struct sbt__open){ tag, (struct sbt__ev *)e, word,
					      region };
	t->hot.depth = d + 1;
	if (met)                        /* NULL: no START read */
		sbt_due_tick_met_by(t, (struct sbt__ev *)e);
	sbt_gate_open(t);
	if (e) {
		/* Counters, cycles, then the clock: the window opens last. */
		if (nc) {
			sbt_ctrs_read(t->ctrs, v);
			count_values(e + 1 + cycling(t), v, nc);
		}
		if (cycling(t))
			e[1].t = sbt_cycles_read((uint32_t)t->pmc);
		e->t = sbt_read_start(&aux);
		e->aux = aux;
		/* the probe's detour ends where this START's window opens:
		 * its way from the probe to here is no time of the open
		 * regions either (unless a tick's span took that way over
		 * above: two spans must not hold the same time) */
		if (span && !met)
			sbt_speed_span_to(span, e->t);
	}
	return SBT_OK;
}

/* Whether stopping stack entry k, under entries k+1 .. d-1 still open,
 * crosses two of the user's regions.  The recorder's own OpenMP regions
 * (a parallel region per thread, its barrier wait) are no nesting the
 * user chose: a LIKWID START and STOP in two parallel regions is legal,
 * and only the log's CROSSED flag, which the reader pairs by, says it. */
static int user_crossing(const struct sbt_thread *t, uint32_t k, uint32_t d)
{
	if (sbt_regions_api(t->hot.stack[k].region) == SBT_API_OPENMP)
		return 0;
	for (uint32_t j = k + 1; j < d; j++)
		if (sbt_regions_api(t->hot.stack[j].region) != SBT_API_OPENMP)
			return 1;
	return 0;
}

/* STOP of `region`, whose clock read gave (t1, aux, c1), with the busy
 * gate closed by the caller; reopens it.  pre: the counters as read
 * right after the clock (stop_read), NULL to read them now. */
int sbt_path_stop(struct sbt_thread *t, sbt_id region, uint64_t t1,
		     uint32_t aux, uint64_t c1, const uint64_t *pre)
{
	uint32_t d = t->hot.depth, i = d, nc = counting(t), crossed = 0;
	uint32_t n = 1 + cycling(t) + nc;
	uint64_t v[SBT_COUNT_MAX + 2];
	struct sbt__open *o;
	struct sbt_event *e;

	assert(sbt_gate(t) && d <= SBT_HOT_DEPTH);
	if (nc && pre)                  /* the window closed at t1 */
		memcpy(v, pre, nc * sizeof *v);
	else if (nc)
		sbt_ctrs_read(t->ctrs, v);

	while (i > 0 && t->hot.stack[i - 1].region != region)
		i--;
	if (i == 0) {
		sbt_gate_open(t);
		sbt_count(SBT_CNT_STOP_WITHOUT_START);
		return SBT_EMISUSE;
	}
	o = &t->hot.stack[i - 1];
	if (i != d) {
		if (user_crossing(t, i - 1, d))
			sbt_count(SBT_CNT_CROSSED);
		crossed = SBT_EV_WORD(0, SBT_RF_CROSSED, 0);
	}
	if (SBT_EV_KIND(o->word) == SBT_EV_SKIP) {
		if (!--t->hot.nskip)        /* not recorded: nothing to write */
			unskip(t);
	} else if (!o->ev || !(e = sbt_path_room(t, n))) {
		sbt_count(SBT_CNT_DROPPED);
	} else {
		if (cycling(t)) {
			e[1].t = c1;
			e[1].aux = 0;
			e[1].word = SBT_EV_WORD(SBT_EV_CYCLES, 0, 0);
		}
		count_values(e + 1 + cycling(t), v, nc);
		count_words(e + 1 + cycling(t), nc);
		sbt_ev_commit(e, t1, aux, (o->word + SBT__STOP_DELTA) | crossed);
		sbt_ev_advance(t, n);
	}
	/* Pop, closing the gap when the region was not innermost. */
	memmove(o, o + 1, (d - i) * sizeof *o);
	t->hot.depth = d - 1;
	due_after_stop(t, region, t1);
	assert(!t->chunk || t->hot.cur <= t->chunk_end);
	sbt_gate_open(t);
	return SBT_OK;
}

/* The pair probe: an empty pair right before a region's own START, same
 * cache state, and the same code as the app's inline markers when the
 * thread can use it.  Recorded under the region's site with flag PROBE. */
static __attribute__((noinline)) void pair(struct sbt_thread *t,
					   uint32_t word, sbt_id region)
{
	uint32_t pw = word | SBT_EV_WORD(0, SBT_RF_PROBE, 0), aux;

	if (sbt__start_fast(&t->hot, pw, region, pair_tag)) {
		uint64_t t1 = sbt_read_stop(&aux);
		if (sbt__stop_fast(&t->hot, pair_tag, t1, aux))
			return;
		sbt_gate_shut(t);
		sbt_path_stop(t, region, t1, aux, 0, NULL);
		return;
	}
	sbt_gate_shut(t);
	if (sbt_path_start(t, pw, region, NULL) == SBT_OK) {
		uint64_t t1 = sbt_read_stop(&aux);
		uint64_t c1 = cycles_now(t);
		sbt_gate_shut(t);
		sbt_path_stop(t, region, t1, aux, c1, NULL);
	}
}
