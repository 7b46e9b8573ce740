/*
 * hot.c - the marker paths: START, STOP, RESET and what reads them back.
 *
 * A thread's log is a stream of events (format/sbtlog.h): START appends
 * {site, t0}, STOP appends {t1}.  The common case runs inline in the app
 * (markers/sbtmark.h: sbt__start_fast, sbt__stop_fast); the function
 * entry points here (our own, and every interposed API) find the region
 * and its site in the thread's caches and then run the very same inline
 * code.  Only what that refuses comes to the general path below: a full
 * chunk, misuse, a probe due, a cycle clock, CLOSE, a signal handler.
 *
 * The general path keeps the thread's open-region stack exact, so misuse
 * is counted here, when it happens, exactly once; the reader pairs the
 * events again from the stream.  It sets the thread's busy gate for its
 * whole bookkeeping, so a marker in a signal handler that interrupts it
 * (or the inline path) is refused and counted, never interleaved.
 *
 * Sparse recording (SBT_SAMPLE): a sampled region's sites skip calls at
 * random, each counted in a SKIP event of the log; a skipped call sits on
 * the open-region stack with no event, so nesting and misuse are counted
 * as for any call.  The inline markers skip by themselves (sbtmark.h:
 * sbt__skip_fast); here are the rest and the drawing of gaps.  Under
 * SBT_MAX_MB every region is sampled, and gaps grow with the thinning
 * level (cap.h), read when a gap is drawn.
 */
#include "recorder.h"
#include "cap.h"
#include "counters.h"
#include "header.h"
#include "hot.h"
#include "gate.h"
#include "tick.h"
#include "stop.h"

#include <assert.h>
#include <math.h>
#include <string.h>


#define CS_FILLING ((const char *)1)   /* struct sbt_csite being written */


static const char calib_tag[] = "<calibration>";
static const char probe_tag[] = "<probe>";

static inline int busy_set(struct sbt_thread *t)
{
	sbt_gate_shut(t);
	return 1;
}

/* 1 when the innermost open region is a call not recorded. */
static inline int top_skipped(const struct sbt_thread *t)
{
	return sbt_gate_top_skipped(t);
}

/* Reopen the gate; a skipped innermost region keeps STOP off the clock. */
static inline void busy_clear(struct sbt_thread *t)
{
	sbt_gate_open(t);
}

/* A marker is running on the thread (a signal handler interrupted it). */
static inline int in_marker(const struct sbt_thread *t)
{
	return sbt_gate_marking(t);
}

static inline int cycling(const struct sbt_thread *t) { return t->pmc >= 0; }

/* Every marker of the thread takes the general path: it counts cycles
 * or SBT_EVENTS (their events follow START and STOP). */
static inline int slow_only(const struct sbt_thread *t)
{
	return t->pmc >= 0 || t->ctrs;
}

/* COUNT events a START or STOP of the thread writes. */
static inline uint32_t counting(const struct sbt_thread *t)
{
	return t->ctrs ? sbt_ctrs_nev(t->ctrs) : 0;
}

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

static inline uint64_t cycles_now(const struct sbt_thread *t)
{
	return cycling(t) ? sbt_cycles_read((uint32_t)t->pmc) : 0;
}

/* One sample's counts, STOP reading b - START reading a (enabled,
 * running, counters), into sum; those of the multiplexed group (bits of
 * `scaled`) scaled by enabled / running.  A reading with nothing enabled
 * (a failed read) or never running adds nothing. */
static void add_counts(double *sum, const uint64_t *a, const uint64_t *b,
		       uint32_t n, uint32_t scaled)
{
	double on, run;

	if (!a[0] || !b[0] || b[1] <= a[1] || b[0] < a[0])
		return;
	on = (double)(b[0] - a[0]);
	run = (double)(b[1] - a[1]);
	for (uint32_t j = 2; j < n; j++)
		sum[j - 2] += (double)(b[j] - a[j]) *
			      (scaled >> (j - 2) & 1 ? on / run : 1);
}

/* ---- the general path ------------------------------------------------- */

/* Room for n events, or NULL (the chunk is full and no new one, or the
 * log is closed).  The gate is shut: a CLOSE that came before waited for
 * it (recorder.c, quiesce), so the state read here is final. */
static struct sbt_event *room(struct sbt_thread *t, uint32_t n)
{
	if (SBT_UNLIKELY(sbt_thread_log_state() < 0)) {
		sbt_count(SBT_CNT_AFTER_CLOSE);
		return NULL;
	}
	if ((size_t)(t->chunk_end - t->hot.cur) < n &&
	    !sbt_thread_refill(t, n))
		return NULL;
	return (struct sbt_event *)t->hot.cur;
}

static void probe(struct sbt_thread *t, uint32_t word, sbt_id region);

/* The last skipped call closed: the fast path may run again, up to the
 * end sbt_thread_limit() chose (NULL for a cycle clock and after CLOSE). */
static void unskip(struct sbt_thread *t)
{
	sbt_stop_unskip(t);
}

/* Whether opening `region` now is misuse: then counted, gate reopened. */
static int start_misuse(struct sbt_thread *t, sbt_id region)
{
	uint32_t d = t->hot.depth;

	if (d >= SBT_HOT_DEPTH) {
		busy_clear(t);
		sbt_count(SBT_CNT_TOO_DEEP);
		return 1;
	}
	for (uint32_t i = 0; i < d; i++)
		if (t->hot.stack[i].region == region) {
			busy_clear(t);
			sbt_count(SBT_CNT_START_OPEN);
			return 1;
		}
	return 0;
}

/* START of (word, region) under `tag` (NULL: STOP must look the name up)
 * with the busy gate closed by the caller; reopens it before the clock
 * read. */
static int start_slow(struct sbt_thread *t, uint32_t word, sbt_id region,
		      const char *tag)
{
	uint32_t d = t->hot.depth, nc = counting(t), aux;
	uint32_t n = 1 + cycling(t) + nc;
	uint64_t v[SBT_COUNT_MAX + 2];
	struct sbt_event *e;

	assert(SBT__BUSY(&t->hot) && d <= SBT_HOT_DEPTH);
	assert(!t->chunk || t->hot.cur <= t->chunk_end);
	if (start_misuse(t, region))
		return SBT_EMISUSE;
	if (t->probe_at && t->hot.cur >= t->probe_at) {
		t->probe_at = NULL;
		sbt_stop_at(t, slow_only(t) ? NULL : t->chunk_end);
		if (!(word & SBT_EV_WORD(0, SBT_RF_CALIB, 0))) {
			/* inside open regions, the probe's detour is taken
			 * out of them as a tick's is (~70 ns left in made a
			 * third mode of 2 % in an enclosing region) */
			uint64_t a = !d ? 0 : t->probe_in ? t->probe_in :
				     sbt_read_stop(&aux);
			t->probe_in = 0;
			busy_clear(t);
			probe(t, word, region);
			busy_set(t);
			if (d)
				sbt_speed_span(t, a);
		}
		sbt_thread_limit(t);
	}
	/* A tick before the window opens, when no region is open (not in
	 * the calibration burst).  Inside open regions it waits for the
	 * next STOP, whose clock read starts its span: the whole detour,
	 * the STOP's own way through here included, comes out of them. */
	int tick_in = 0;
	if (t->tick_at && t->hot.cur >= t->tick_at &&
	    !(word & SBT_EV_WORD(0, SBT_RF_CALIB, 0))) {
		if (d == 0) {
			sbt_speed_tick(t, 0);
		} else if (!t->tick_in) {
			/* this START's own way through here is the detour's
			 * too: from now to its clock read (SBT_SPEED_SPAN) */
			t->tick_in = sbt_read_stop(&aux);
			tick_in = 1;
		}
	}
	e = room(t, n);
	if (e) {
		e->word = word;
		if (cycling(t))
			e[1].word = SBT_EV_WORD(SBT_EV_CYCLES, 0, 0);
		count_words(e + 1 + cycling(t), nc);
		t->hot.cur += n;
	} else {
		/* Kept open, so that its STOP pairs; counted there. */
		tag = NULL;
	}
	t->hot.stack[d] = (struct sbt__open){ tag, (struct sbt__ev *)e, word,
					      region };
	t->hot.depth = d + 1;
	if (tick_in)
		t->tick_ev = (struct sbt__ev *)e;   /* NULL: no START read */
	busy_clear(t);
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
static int stop_slow(struct sbt_thread *t, sbt_id region, uint64_t t1,
		     uint32_t aux, uint64_t c1, const uint64_t *pre)
{
	uint32_t d = t->hot.depth, i = d, nc = counting(t), crossed = 0;
	uint32_t n = 1 + cycling(t) + nc;
	uint64_t v[SBT_COUNT_MAX + 2];
	struct sbt__open *o;
	struct sbt_event *e;

	assert(SBT__BUSY(&t->hot) && d <= SBT_HOT_DEPTH);
	if (nc && pre)                  /* the window closed at t1 */
		memcpy(v, pre, nc * sizeof *v);
	else if (nc)
		sbt_ctrs_read(t->ctrs, v);

	while (i > 0 && t->hot.stack[i - 1].region != region)
		i--;
	if (i == 0) {
		busy_clear(t);
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
	} else if (!o->ev || !(e = room(t, n))) {
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
		t->hot.cur += n;
	}
	/* Pop, closing the gap when the region was not innermost. */
	memmove(o, o + 1, (d - i) * sizeof *o);
	t->hot.depth = d - 1;
	/* A tick after the window closed; its span from this STOP's read. */
	if (t->tick_at && t->hot.cur >= t->tick_at &&
	    region != SBT_REGION_CALIB)
		sbt_speed_tick(t, t1);
	assert(!t->chunk || t->hot.cur <= t->chunk_end);
	busy_clear(t);
	return SBT_OK;
}

/* ---- sparse recording ------------------------------------------------------ */

/* Whether a region's calls go through the sampled path: under SBT_MAX_MB
 * all of them, but only once level 0 ended (cap.h). */
static int sampled(sbt_id id)
{
	return sbt_regions_gap(id) > 1 || sbt_cap_thinning();
}

/* Calls to skip before the next recorded one: geometric with mean n - 1,
 * so that one call in n is recorded on average, at random - a fixed
 * every-n-th would alias with periodic work. */
static uint32_t draw_gap(struct sbt_thread *t, double n)
{
	double u, k;

	if (n <= 1)
		return 0;
	t->rng ^= t->rng << 13, t->rng ^= t->rng >> 7, t->rng ^= t->rng << 17;
	u = (double)((t->rng >> 11) + 1) * 0x1p-53;      /* (0, 1] */
	k = floor(log(u) / log1p(-1.0 / n));
	return k < 4e9 ? (uint32_t)k : 4000000000u;
}

/* START of a sampled region, busy gate closed by the caller.  The slot
 * of the site (thread.h) runs through a gap: `left` - 1 calls skipped,
 * then one recorded, then left = 0 and the next call draws the next gap
 * and writes the SKIP event that counts it - so each SKIP event counts
 * calls made after the previous recorded call of its site.  A thread's
 * first call of a site (or the first after its slot went to another
 * site) is recorded, so that a SKIP event always has a recorded call
 * before it.  The inline markers (again_ok) skip and record themselves:
 * after drawing, SBT__AGAIN sends them back to do it, so that a recorded
 * call takes the same path - and the same time - as any. */
static int start_sampled(struct sbt_thread *t, uint32_t word, sbt_id region,
			 const char *tag, int again_ok)
{
	uint32_t site = SBT_EV_ID(word), d = t->hot.depth;
	struct sbt__skip *k = &t->hot.skip[site % SBT_HOT_SKIPS];
	struct sbt_event *e;

	if (start_misuse(t, region))
		return SBT_EMISUSE;
	if (k->site != site) {
		*k = (struct sbt__skip){ site, 0, NULL };
		return start_slow(t, word, region, tag);
	}
	if (k->left == 0) {
		uint32_t gap = draw_gap(t, ldexp(sbt_regions_gap(region),
						 (int)sbt_cap_level()));
		k->count = NULL;
		if (gap && !(e = room(t, 1)))
			gap = 0;        /* no room to count: record (or drop) */
		if (gap) {
			sbt_ev_commit(e, 0, 0, SBT_EV_WORD(SBT_EV_SKIP, 0,
							       site));
			t->hot.cur++;
			k->count = &e->t;
		}
		k->left = gap + 1;
		/* Only when the inline markers will take it: a skip needs
		 * an open gate, a recorded call room before hot.end. */
		struct sbt__ev *end = SBT__END(&t->hot);
		if (again_ok && __atomic_load_n(&t->hot.end_saved,
						__ATOMIC_RELAXED) &&
		    !top_skipped(t) &&
		    (k->left > 1 || (end && t->hot.cur < end))) {
			busy_clear(t);
			return SBT_AGAIN;
		}
	}
	if (k->left == 1) {
		k->left = 0;
		return start_slow(t, word, region, tag);
	}
	k->left--;
	++*k->count;                    /* in the log: a crash loses no call */
	t->hot.stack[d] = (struct sbt__open){
		tag, NULL, SBT_EV_WORD(SBT_EV_SKIP, 0, site), region };
	t->hot.depth = d + 1;
	t->hot.nskip++;
	sbt_stop_skip(t);
	busy_clear(t);
	return SBT_OK;
}

/* An empty pair right before a region's own START: same cache state, and
 * the same code as the app's inline markers when the thread can use it.
 * Recorded under the region's site with flag PROBE. */
static __attribute__((noinline)) void probe(struct sbt_thread *t,
					    uint32_t word, sbt_id region)
{
	uint32_t pw = word | SBT_EV_WORD(0, SBT_RF_PROBE, 0), aux;

	if (sbt__start_fast(&t->hot, pw, region, probe_tag)) {
		uint64_t t1 = sbt_read_stop(&aux);
		if (sbt__stop_fast(&t->hot, probe_tag, t1, aux))
			return;
		busy_set(t);
		stop_slow(t, region, t1, aux, 0, NULL);
		return;
	}
	busy_set(t);
	if (start_slow(t, pw, region, NULL) == SBT_OK) {
		uint64_t t1 = sbt_read_stop(&aux);
		uint64_t c1 = cycles_now(t);
		busy_set(t);
		stop_slow(t, region, t1, aux, c1, NULL);
	}
}

/* ---- entering a marker -------------------------------------------------- */

/* A START entering the recorder: inside open regions with an in-situ
 * probe due, the clock now - the probe's detour, taken out of them,
 * starts here, the lookups on the way to start_slow included. */
static inline void probe_entry(struct sbt_thread *t)
{
	uint32_t aux;

	t->probe_in = t->hot.depth && t->probe_at &&
		      t->hot.cur >= t->probe_at ? sbt_read_stop(&aux) : 0;
}

static int calib_pair(void *arg, uint64_t *ticks, uint64_t *cycles);

/* Why the calling thread cannot record now, counted; or the thread,
 * attached, with an open log (calibrated if this opened it). */
static __attribute__((noinline)) struct sbt_thread *ready_slow(int *rc)
{
	struct sbt_thread *t = sbt_me;
	struct sbt_file_header *fresh;

	*rc = SBT_EOFF;
	if (t && in_marker(t)) {
		sbt_count(SBT_CNT_SIGNAL);
		*rc = SBT_EMISUSE;
		return NULL;
	}
	if (sbt_thread_log_state() < 0) {
		sbt_count(SBT_CNT_AFTER_CLOSE);
		return NULL;
	}
	/* Attaching or opening the log takes locks: an attached thread
	 * keeps its busy gate closed meanwhile - as "waiting", so that a
	 * CLOSE holding the lock does not wait for it (recorder.c). */
	if (t)
		sbt_gate_set(t, SBT_GATE_WAITING);
	struct sbt_thread *was = t;
	t = sbt_thread_enter(&fresh);
	if (was)
		busy_clear(was);
	if (!t)
		return NULL;
	if (fresh && sbt_thread_refill(t, 2)) {
		/* t_e,std through the same code as a region's markers; no
		 * probe may interrupt the burst. */
		sbt_stop_at(t, slow_only(t) ? NULL : t->chunk_end);
		sbt_header_calibrate(fresh, calib_pair, t);
		sbt_thread_limit(t);
	} else if (t->chunk && t->thinned != (uint32_t)sbt_cap_thinning()) {
		/* SBT_MAX_MB's level 0 ended: the caches go, the fast path
		 * (shut meanwhile) comes back */
		busy_set(t);
		sbt_thread_limit(t);
		busy_clear(t);
	}
	return t;
}

/* The calling thread, ready to record, or NULL with *rc the answer.  When
 * it returns a thread, that thread's busy gate is open and stays so for
 * the caller: an interrupted marker cannot be below us. */
static inline struct sbt_thread *ready(int *rc)
{
	struct sbt_thread *t = sbt_me;

	/* end is NULL for a thread without a chunk, after CLOSE, and on a
	 * thread that counts cycles or events; only the first two take the
	 * long way (room() sees CLOSE again, under the gate), and such a
	 * thread whose caches are of SBT_MAX_MB's level 0 after it ended. */
	if (SBT_LIKELY(t && !SBT__BUSY(&t->hot) &&
		       (SBT__END(&t->hot) ||
			(slow_only(t) && t->chunk &&
			 sbt_thread_log_state() > 0 &&
			 t->thinned == (uint32_t)sbt_cap_thinning()))))
		return t;
	return ready_slow(rc);
}

/* ---- finding regions and sites -------------------------------------------- */

static __attribute__((noinline)) struct sbt_name_slot *
name_miss(struct sbt_name_slot *s, const void *ra, const char *name,
	  unsigned api)
{
	uint32_t site;
	int verify;
	sbt_id id;

	/* Same pointer, writable memory: a cheap check of the bytes first. */
	if ((s->flags & SBT_SLOT_VERIFY) && s->ra == ra && s->name == name &&
	    name) {
		const char *known = sbt_regions_name(s->region);
		if (known && strncmp(known, name, SBT_MAX_NAME + 1) == 0)
			return s;
	}
	id = sbt_regions_site(ra, name, api, &verify, &site);
	if (!id || !site)
		return NULL;
	s->ra = ra, s->name = name;
	s->region = id;
	s->flags = (verify ? SBT_SLOT_VERIFY : 0) |
		   (sampled(id) ? SBT_SLOT_SAMPLED : 0);
	s->word = SBT_EV_WORD(SBT_EV_START, 0, site);
	return s;
}

/* Region and site of name pointer `name` at `ra`; NULL for a bad name. */
static inline struct sbt_name_slot *lookup(struct sbt_thread *t,
					   const char *name, unsigned api,
					   const void *ra)
{
	struct sbt_name_slot *s = sbt_name_cached(t, name, ra);

	return s ? s : name_miss(sbt_name_slot(t, ra, name), ra, name, api);
}

/* START word of region `id` at `ra`; 0 when no site can be had.  Takes
 * the regions lock: busy gate closed. */
static uint32_t site_word(struct sbt_thread *t, sbt_id id, const void *ra)
{
	struct sbt_site_slot *s = sbt_site_slot(t, id, ra);
	uint32_t site;

	if (!(site = sbt_regions_site_id(ra, id)))
		return 0;
	/* A sampled region's slot never hits sbt_site_cached(). */
	s->ra = ra;
	s->region = id | (sampled(id) ? SBT_SITE_SAMPLED : 0);
	s->word = SBT_EV_WORD(SBT_EV_START, 0, site);
	return s->word;
}

static inline int inline_clock_ok(void)
{
#if defined(__x86_64__)
	return sbt_tsc_way == SBT_TSC_AUX;
#else
	return 1;
#endif
}

/* Hand the thread's fast-path state to an object's inline markers:
 * *hot is the first of sbtmark.h's struct sbt__tls {hot, skip}. */
static void publish(struct sbt_thread *t, struct sbt_hot **hot)
{
	for (int i = 0; i < SBT_HOT_SLOTS; i++) {
		if (t->hot_slots[i] == hot)
			break;
		if (!t->hot_slots[i]) {
			t->hot_slots[i] = hot;
			break;
		}
	}
	for (int i = 0; i < SBT_HOT_SLOTS; i++)
		if (t->hot_slots[i] == hot) {
			hot[1] = NULL;
			*hot = &t->hot;
			return;
		}
}

/* Give a call site's slot a way for this name, once (read-only names
 * only; a site with more names than ways leaves the rest to the
 * thread's name cache). */
static void fill_site(struct sbt_csite *cs, const char *name,
		      uint32_t word, sbt_id region)
{
	for (int w = 0; w < SBT_CSITE_WAYS; w++) {
		const char *none = NULL;
		const char *have = __atomic_load_n(&cs->way[w].tag,
						   __ATOMIC_ACQUIRE);
		if (have == name)
			return;
		if (have || !__atomic_compare_exchange_n(&cs->way[w].tag,
		    &none, CS_FILLING, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			continue;
		if (sbt_cap_on() && SBT_EV_KIND(word) == SBT_EV_START) {
			sbt_cap_site(cs, w, name, word, region);
			return;
		}
		cs->way[w].word = word;
		cs->way[w].region = region;
		__atomic_store_n(&cs->way[w].tag, name, __ATOMIC_RELEASE);
		return;
	}
}

/* ---- the marker paths --------------------------------------------------------- */

/*
 * Each path finds its thread (ready), then its region and site in the
 * thread's caches, and runs the inline fast path.  A cache miss takes
 * locks, so it runs with the busy gate closed, and goes on through the
 * general path; so does whatever the fast path refuses.
 */

static inline int start_word(struct sbt_thread *t, uint32_t word,
			     sbt_id region, const char *tag)
{
	if (SBT_LIKELY(sbt__start_fast(&t->hot, word, region, tag)))
		return SBT_OK;
	busy_set(t);
	return start_slow(t, word, region, tag);
}

/* START by name, past the fast path. */
static __attribute__((noinline)) int
start_name(struct sbt_thread *t, const char *name, unsigned api,
	   const void *ra, struct sbt_csite *cs)
{
	struct sbt_name_slot *s = sbt_name_slot(t, ra, name);

	if (SBT_LIKELY(s->ra == ra && s->name == name && !s->flags))
		return start_word(t, s->word, s->region, name);
	busy_set(t);
	if (!(s->ra == ra && s->name == name &&
	      s->flags == SBT_SLOT_SAMPLED) &&
	    !(s = name_miss(s, ra, name, api))) {
		busy_clear(t);
		return SBT_EMISUSE;
	}
	/* A sampled region's site gets its SKIP word: the inline markers
	 * skip calls by themselves. */
	if (cs && !s->flags)
		fill_site(cs, name, s->word, s->region);
	else if (cs && s->flags == SBT_SLOT_SAMPLED)
		fill_site(cs, name, SBT_EV_WORD(SBT_EV_SKIP, 0,
						SBT_EV_ID(s->word)), s->region);
	if (s->flags & SBT_SLOT_SAMPLED)
		return start_sampled(t, s->word, s->region,
				     s->flags & SBT_SLOT_VERIFY ? NULL : name,
				     cs != NULL);
	return start_slow(t, s->word, s->region, s->flags ? NULL : name);
}

/* What a STOP of a thread that counts cycles or events reads right after
 * its clock, before any lookup: so that the counted span ends where the
 * timed window does. */
struct stop_read {
	uint64_t c1;                    /* cycles, 0 without             */
	const uint64_t *v;              /* counters, NULL: not read      */
	uint64_t buf[SBT_COUNT_MAX + 2];
};

static inline void stop_read(struct stop_read *r)
{
	struct sbt_thread *t = sbt_me;

	r->c1 = 0, r->v = NULL;
	if (!t || in_marker(t))
		return;
	r->c1 = cycles_now(t);
	if (counting(t)) {
		sbt_ctrs_read(t->ctrs, r->buf);
		r->v = r->buf;
	}
}

/* STOP by name, the clock read as (t1, aux) and then r, past the fast
 * path. */
static __attribute__((noinline)) int
stop_name(struct sbt_thread *t, const char *name, unsigned api,
	  const void *ra, uint64_t t1, uint32_t aux,
	  const struct stop_read *r)
{
	uint32_t d = t->hot.depth;
	struct sbt_name_slot *s;
	sbt_id id;

	busy_set(t);
	/* STOP(x) right after START(x) with the same read-only string: no
	 * lookup at all. */
	if (d && name && t->hot.stack[d - 1].tag == name) {
		id = t->hot.stack[d - 1].region;
	} else if ((s = lookup(t, name, api, ra))) {
		id = s->region;
	} else {
		busy_clear(t);
		return SBT_EMISUSE;
	}
	return stop_slow(t, id, t1, aux, r->c1, r->v);
}

/* Each entry point: ready() (the fast path needs none: it refuses a
 * thread without a chunk or with its gate shut), then the general path. */
int sbt_rec_start_slow(const char *name, unsigned api, const void *ra)
{
	struct sbt_thread *t;
	int rc;

	if (!(t = ready(&rc)))
		return rc;
	probe_entry(t);
	return start_name(t, name, api, ra, NULL);
}

int sbt_rec_stop_slow(const char *name, unsigned api, const void *ra,
		      uint64_t t1, uint32_t aux)
{
	struct sbt_thread *t;
	struct stop_read r;
	int rc;

	stop_read(&r);
	if (!(t = ready(&rc)))
		return rc;
	return stop_name(t, name, api, ra, t1, aux, &r);
}

int sbt_rec_start_at(const char *name, struct sbt_csite *cs,
		     struct sbt_hot **hot, const void *ra)
{
	struct sbt_thread *t;
	int rc;

	if (!(t = ready(&rc)))
		return rc;
	probe_entry(t);
	/* The app's inline markers read rdtscp and keep its TSC_AUX: only
	 * for a thread whose TSC_AUX is true (tsc.h).  Others mark here,
	 * their call sites left unfilled (no SBT__AGAIN either). */
	if (!inline_clock_ok())
		return start_name(t, name, SBT_API_SBTMARK, ra, NULL);
	if (hot && *hot != &t->hot)
		publish(t, hot);
	return start_name(t, name, SBT_API_SBTMARK, ra, cs);
}

int sbt_rec_stop_at(const char *name, uint64_t t1, uint32_t aux,
		    const void *ra)
{
	struct sbt_thread *t;
	struct stop_read r;
	int rc;

	stop_read(&r);
	if (!(t = ready(&rc)))
		return rc;
	return stop_name(t, name, SBT_API_SBTMARK, ra, t1, aux, &r);
}

/* The name cache's slot of an API's `key` at `ra` (hot.h): region id,
 * START word `word` (0 with SBT_SLOT_STOP).  Gate closed: a marker in a
 * signal handler never sees it half written. */
static void key_fill(struct sbt_thread *t, const void *key, sbt_id id,
		     const void *ra, uint32_t word, int flags)
{
	struct sbt_name_slot *s = sbt_name_slot(t, ra, (const char *)key);

	s->ra = ra, s->name = (const char *)key;
	s->region = id;
	s->word = word;
	s->flags = flags;
}

int sbt_rec_start_key_slow(const void *key, sbt_id id, const void *ra)
{
	struct sbt_site_slot *s;
	struct sbt_thread *t;
	uint32_t word;
	int rc;

	if (!(t = ready(&rc)))
		return rc;
	if (!id || id >= sbt_regions_count())
		return SBT_EMISUSE;
	probe_entry(t);
	if ((word = sbt_site_cached(t, id, ra))) {
		if (key) {
			busy_set(t);
			key_fill(t, key, id, ra, word, 0);
			busy_clear(t);
		}
		return start_word(t, word, id, NULL);
	}
	busy_set(t);
	s = sbt_site_slot(t, id, ra);
	if (s->ra == ra && s->region == (id | SBT_SITE_SAMPLED)) {
		if (key)
			key_fill(t, key, id, ra, s->word, SBT_SLOT_SAMPLED);
		return start_sampled(t, s->word, id, NULL, 0);
	}
	if (!(word = site_word(t, id, ra))) {
		busy_clear(t);
		return SBT_EMISUSE;
	}
	if (key)
		key_fill(t, key, id, ra, word, s->region & SBT_SITE_SAMPLED ?
			 SBT_SLOT_SAMPLED : 0);
	if (s->region & SBT_SITE_SAMPLED)
		return start_sampled(t, word, id, NULL, 0);
	return start_slow(t, word, id, NULL);
}

int sbt_rec_start_id_slow(sbt_id id, const void *ra)
{
	return sbt_rec_start_key_slow(NULL, id, ra);
}

/* Also while a skipped call is innermost (busy SBT__SKIPPING): the STOP
 * that ends one learns its key too. */
void sbt_rec_key_stop(const void *key, sbt_id id, const void *ra)
{
	struct sbt_thread *t = sbt_me;
	uint32_t was;

	if (!t || !key || !id || id >= sbt_regions_count() ||
	    ((was = SBT__BUSY(&t->hot)) & 1))
		return;
	busy_set(t);
	key_fill(t, key, id, ra, 0, SBT_SLOT_STOP);
	sbt_gate_restore(t, was);
}

int sbt_rec_stop_id_slow(sbt_id id, uint64_t t1, uint32_t aux)
{
	struct sbt_thread *t;
	struct stop_read r;
	int rc;

	stop_read(&r);
	if (!(t = ready(&rc)))
		return rc;
	busy_set(t);
	return stop_slow(t, id, t1, aux, r.c1, r.v);
}

/* ---- the rest of the API (cold) ---------------------------------------------- */

sbt_id sbt_rec_intern(const char *name, size_t len, unsigned api,
		      const void *ra)
{
	return sbt_regions_intern(name, len, api, ra);
}

int sbt_rec_reset_id(sbt_id id)
{
	struct sbt_thread *t;
	struct sbt_event *e;
	uint32_t aux;
	int rc;

	if (!id || id >= sbt_regions_count())
		return SBT_EMISUSE;
	if (!(t = ready(&rc)))
		return rc;
	busy_set(t);
	if ((e = room(t, 1))) {
		uint64_t at = sbt_read_stop(&aux);
		sbt_ev_commit(e, at, aux, SBT_EV_WORD(SBT_EV_RESET, 0, id));
		t->hot.cur++;
	}
	/* Sparse recording starts afresh too: the next call is recorded. */
	for (int i = 0; i < SBT_HOT_SKIPS; i++)
		if (t->hot.skip[i].site &&
		    sbt_regions_site_region(t->hot.skip[i].site) == id)
			t->hot.skip[i] = (struct sbt__skip){ 0, 0, NULL };
	busy_clear(t);
	return SBT_OK;
}

/* The committed events of chunk c: [first, *end). */
static const struct sbt_event *chunk_events(const struct sbt_thread *t,
					    const struct sbt_chunk *c,
					    const struct sbt_event **end)
{
	const struct sbt_event *first = (const void *)(c + 1);
	const struct sbt_event *last = (const void *)((const char *)c +
						      c->size);
	const struct sbt_event *e = first;

	if (c == t->chunk)
		last = (const void *)t->hot.cur;
	while (e < last && e->word)
		e++;
	*end = e;
	return first;
}

/* Walks the thread's own events back to the region's last RESET: totals
 * cost nothing on the hot path, and GetRegion-style calls are rare.  A
 * region has at most one open instance per thread, so walking backwards
 * a STOP is always met before the START it closes.  Under sparse
 * recording the count is every call (SKIP events count the others) and
 * the time is the recorded calls' scaled to all.  COUNT events follow
 * their START or STOP (after its CYCLES): walking back, they are met
 * first and held in `pend` until it comes. */
int sbt_rec_totals(sbt_id id, uint64_t *count, double *seconds, double *ev,
		   uint32_t *nev)
{
	struct sbt_thread *t = sbt_me;
	uint64_t n = 0, ticks = 0, t1 = 0, hz = sbt_thread_tick_hz();
	uint64_t skipped = 0, pend[SBT_COUNT_MAX + 2], stopv[SBT_COUNT_MAX + 2];
	uint32_t nc, pmask = 0, smask = 0;
	int have = 0;
	const uint32_t skip = SBT_RF_PROBE | SBT_RF_CALIB;

	if (!t || !id || !hz || sbt_thread_log_state() != 1)
		return SBT_EMISUSE;
	nc = counting(t);
	for (uint32_t j = 0; ev && j + 2 < nc; j++)
		ev[j] = 0;
	for (const struct sbt_chunk *c = t->chunk; c; c = sbt_thread_chunk_at(c->prev)) {
		const struct sbt_event *first, *e;
		first = chunk_events(t, c, &e);
		while (e-- > first) {
			uint32_t w = e->word, k = SBT_EV_KIND(w), held = pmask;
			if (k == SBT_EV_COUNT) {
				uint32_t i = SBT_EV_ID(w), j =
					i == SBT_COUNT_ENABLED ? 0 :
					i == SBT_COUNT_RUNNING ? 1 : i + 2;
				if (j < nc)
					pend[j] = e->t, pmask |= 1u << j;
				continue;
			}
			if (k == SBT_EV_CYCLES)
				continue;
			pmask = 0;
			if (k == SBT_EV_RESET && SBT_EV_ID(w) == id)
				goto done;
			if (k == SBT_EV_SKIP &&
			    sbt_regions_site_region(SBT_EV_ID(w)) == id)
				skipped += e->t;
			if ((k != SBT_EV_START && k != SBT_EV_STOP) ||
			    (SBT_EV_FLAGS(w) & skip) ||
			    sbt_regions_site_region(SBT_EV_ID(w)) != id)
				continue;
			if (k == SBT_EV_STOP) {
				t1 = e->t, have = 1;
				smask = held;
				memcpy(stopv, pend, sizeof stopv);
			} else if (have) {
				n++, ticks += t1 - e->t, have = 0;
				if (ev && nc && held == smask &&
				    held == (1u << nc) - 1)
					add_counts(ev, pend, stopv, nc,
						   sbt_ctrs_scaled(t->ctrs));
			}
		}
	}
done:
	*count = n + skipped;
	*seconds = n ? (double)ticks / (double)hz * (double)(n + skipped) /
		       (double)n : 0;
	if (nev)
		*nev = nc ? nc - 2 : 0;
	return SBT_OK;
}

/* The thread's last pair: its STOP, in the current chunk or the one
 * before (a speed probe after it may have opened a new chunk), and the
 * START it closes, there or in the chunk before (a SKIP event, being
 * single, can leave a pair split across two chunks). */
static int last_pair(const struct sbt_thread *t, uint64_t *ticks,
		     uint64_t *cycles)
{
	const struct sbt_event *first, *end, *e, *s = NULL;
	const struct sbt_chunk *c = t->chunk;
	uint64_t c1 = 0;

	if (!c)
		return SBT_EMISUSE;
	first = chunk_events(t, c, &end);
	for (int hop = 0; !s && hop < 2; hop++) {
		for (e = end; e-- > first && !s; ) {
			uint32_t k = SBT_EV_KIND(e->word);
			if (k == SBT_EV_CYCLES)
				c1 = e->t;
			else if (k == SBT_EV_COUNT || k == SBT_EV_SPEED)
				continue;
			else if (k == SBT_EV_STOP)
				s = e;
			else
				return SBT_EMISUSE;
		}
		if (!s && (!hop && (c = sbt_thread_chunk_at(c->prev))))
			first = chunk_events(t, c, &end);
		else if (!s)
			return SBT_EMISUSE;
	}
	for (int hop = 0; s && hop < 2; hop++) {
		for (e = hop ? end : s; e-- > first; ) {
			if (SBT_EV_KIND(e->word) != SBT_EV_START ||
			    SBT_EV_ID(e->word) != SBT_EV_ID(s->word))
				continue;
			*ticks = s->t - e->t;
			*cycles = c1 && e + 1 < end &&
				  SBT_EV_KIND(e[1].word) == SBT_EV_CYCLES ?
				  c1 - e[1].t : 0;
			return SBT_OK;
		}
		if (!(c = sbt_thread_chunk_at(c->prev)))
			break;
		first = chunk_events(t, c, &end);
	}
	return SBT_EMISUSE;
}

int sbt_rec_last(uint64_t *ticks, uint64_t *cycles)
{
	const struct sbt_thread *t = sbt_me;

	return t ? last_pair(t, ticks, cycles) : SBT_EMISUSE;
}

/* One calibration pair through the code an app's region runs: the
 * inline markers, or the general path on a thread that counts cycles. */
static int calib_pair(void *arg, uint64_t *ticks, uint64_t *cycles)
{
	const uint32_t word = SBT_EV_WORD(SBT_EV_START, SBT_RF_CALIB,
					  SBT_SITE_CALIB);
	struct sbt_thread *t = arg;
	uint32_t aux;

	if (!slow_only(t)) {
		if (!sbt__start_fast(&t->hot, word, SBT_REGION_CALIB,
				     calib_tag))
			return -1;
		uint64_t t1 = sbt_read_stop(&aux);
		if (!sbt__stop_fast(&t->hot, calib_tag, t1, aux))
			return -1;
	} else {
		busy_set(t);
		if (start_slow(t, word, SBT_REGION_CALIB, calib_tag) != SBT_OK)
			return -1;
		uint64_t t1 = sbt_read_stop(&aux);
		uint64_t c1 = cycles_now(t);
		busy_set(t);
		stop_slow(t, SBT_REGION_CALIB, t1, aux, c1, NULL);
	}
	return last_pair(t, ticks, cycles);
}

int sbt_rec_init(void)
{
	int rc;

	return ready(&rc) ? SBT_OK : rc;
}

int sbt_rec_thread_init(void)
{
	if (sbt_thread_log_state() < 0) {
		sbt_count(SBT_CNT_AFTER_CLOSE);
		return SBT_EOFF;
	}
	return sbt_thread_attach() ? SBT_OK : SBT_EOFF;
}
