/*
 * hot.c - the marker paths: START, STOP, RESET and what reads them back.
 *
 * A thread's log is a stream of events (format/sbtlog.h): START appends
 * {site, t0}, STOP appends {t1}.  The common case runs inline in the app
 * (markers/sbtmark_hot.h: sbt__start_fast, sbt__stop_fast); the function
 * entry points here (our own, and every interposed API) find the region
 * and its site in the thread's caches and then run the very same inline
 * code.  Only what that refuses comes to the general path below: a full
 * chunk, misuse, a probe due, a cycle clock, CLOSE, a signal handler.
 *
 * The general path (path.c) keeps the thread's open-region stack exact;
 * it sets the thread's busy gate for its whole bookkeeping, so a marker
 * in a signal handler that interrupts it (or the inline path) is refused
 * and counted, never interleaved.  Sampled regions go through sparse.c,
 * a thread's own log is read back in readback.c.
 */
#include "recorder.h"
#include "cap.h"
#include "counters.h"
#include "due.h"
#include "header.h"
#include "hot.h"
#include "path.h"
#include "readback.h"
#include "regions.h"
#include "sparse.h"
#include "stop.h"

#include <string.h>


#define CS_FILLING ((const char *)1)   /* struct sbt_csite being written */


static const char calib_tag[] = "<calibration>";

/* ---- entering a marker -------------------------------------------------- */

static int calib_pair(void *arg, uint64_t *ticks, uint64_t *cycles);

/* Why the calling thread cannot record now, counted; or the thread,
 * attached, with an open log (calibrated if this opened it). */
static __attribute__((noinline)) struct sbt_thread *ready_slow(int *rc)
{
	struct sbt_thread *t = sbt_me;
	struct sbt_file_header *fresh;

	*rc = SBT_EOFF;
	if (t && sbt_gate_marking(t)) {
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
		sbt_gate_open(was);
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
		sbt_gate_shut(t);
		sbt_thread_limit(t);
		sbt_gate_open(t);
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
	 * long way (sbt_path_room() sees CLOSE again, under the gate), and such a
	 * thread whose caches are of SBT_MAX_MB's level 0 after it ended. */
	if (SBT_LIKELY(t && sbt_gate(t) == SBT_GATE_OPEN &&
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
		   (sbt_sparse_on(id) ? SBT_SLOT_SAMPLED : 0);
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
	s->region = id | (sbt_sparse_on(id) ? SBT_SITE_SAMPLED : 0);
	s->word = SBT_EV_WORD(SBT_EV_START, 0, site);
	return s->word;
}

/* Whether an object's inline markers built against header version abi
 * (SBT_HOT_ABI) read the calling thread's clock right: from 2 on they
 * read it its way (struct sbt_hot's cpu); before, rdtscp with its TSC_AUX
 * as the cpu, true only where the thread's check found it so (tsc.h). */
static inline int inline_clock_ok(unsigned abi)
{
#if defined(__x86_64__)
	return abi >= 2 || sbt_tsc_way == SBT_TSC_AUX;
#else
	(void)abi;
	return 1;
#endif
}

/* Hand the thread's fast-path state to an object's inline markers:
 * *hot is the first of sbtmark_hot.h's struct sbt__tls {hot, skip}. */
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
	sbt_gate_shut(t);
	return sbt_path_start(t, word, region, tag);
}

/* START by name, past the fast path. */
static __attribute__((noinline)) int
start_name(struct sbt_thread *t, const char *name, unsigned api,
	   const void *ra, struct sbt_csite *cs)
{
	struct sbt_name_slot *s = sbt_name_slot(t, ra, name);

	if (SBT_LIKELY(s->ra == ra && s->name == name && !s->flags))
		return start_word(t, s->word, s->region, name);
	sbt_gate_shut(t);
	if (!(s->ra == ra && s->name == name &&
	      s->flags == SBT_SLOT_SAMPLED) &&
	    !(s = name_miss(s, ra, name, api))) {
		sbt_gate_open(t);
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
		return sbt_sparse_start(t, s->word, s->region,
				     s->flags & SBT_SLOT_VERIFY ? NULL : name,
				     cs != NULL);
	return sbt_path_start(t, s->word, s->region, s->flags ? NULL : name);
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
	if (!t || sbt_gate_marking(t))
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

	sbt_gate_shut(t);
	/* STOP(x) right after START(x) with the same read-only string: no
	 * lookup at all. */
	if (d && name && t->hot.stack[d - 1].tag == name) {
		id = t->hot.stack[d - 1].region;
	} else if ((s = lookup(t, name, api, ra))) {
		id = s->region;
	} else {
		sbt_gate_open(t);
		return SBT_EMISUSE;
	}
	return sbt_path_stop(t, id, t1, aux, r->c1, r->v);
}

/* Each entry point: ready() (the fast path needs none: it refuses a
 * thread without a chunk or with its gate shut), then the general path. */
int sbt_rec_start_slow(const char *name, unsigned api, const void *ra)
{
	struct sbt_thread *t;
	int rc;

	if (!(t = ready(&rc)))
		return rc;
	sbt_due_pair_enter(t);
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
		     struct sbt_hot **hot, unsigned abi, const void *ra)
{
	struct sbt_thread *t;
	int rc;

	if (!(t = ready(&rc)))
		return rc;
	sbt_due_pair_enter(t);
	/* Inline markers that would misread this thread's clock mark here,
	 * their call sites left unfilled (no SBT__AGAIN either). */
	if (!inline_clock_ok(abi))
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
	sbt_due_pair_enter(t);
	if ((word = sbt_site_cached(t, id, ra))) {
		if (key) {
			sbt_gate_shut(t);
			key_fill(t, key, id, ra, word, 0);
			sbt_gate_open(t);
		}
		return start_word(t, word, id, NULL);
	}
	sbt_gate_shut(t);
	s = sbt_site_slot(t, id, ra);
	if (s->ra == ra && s->region == (id | SBT_SITE_SAMPLED)) {
		if (key)
			key_fill(t, key, id, ra, s->word, SBT_SLOT_SAMPLED);
		return sbt_sparse_start(t, s->word, id, NULL, 0);
	}
	if (!(word = site_word(t, id, ra))) {
		sbt_gate_open(t);
		return SBT_EMISUSE;
	}
	if (key)
		key_fill(t, key, id, ra, word, s->region & SBT_SITE_SAMPLED ?
			 SBT_SLOT_SAMPLED : 0);
	if (s->region & SBT_SITE_SAMPLED)
		return sbt_sparse_start(t, word, id, NULL, 0);
	return sbt_path_start(t, word, id, NULL);
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
	    sbt_gate_marking(t))
		return;
	was = sbt_gate(t);
	sbt_gate_shut(t);
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
	sbt_gate_shut(t);
	return sbt_path_stop(t, id, t1, aux, r.c1, r.v);
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
	sbt_gate_shut(t);
	if ((e = sbt_path_claim(t))) {    /* its time after the room */
		uint64_t at = sbt_read_stop(&aux);
		sbt_ev_commit(e, at, aux, SBT_EV_WORD(SBT_EV_RESET, 0, id));
	}
	/* Sparse recording starts afresh too: the next call is recorded. */
	for (int i = 0; i < SBT_HOT_SKIPS; i++)
		if (t->hot.skip[i].site &&
		    sbt_regions_site_region(t->hot.skip[i].site) == id)
			t->hot.skip[i] = (struct sbt__skip){ 0, 0, NULL };
	sbt_gate_open(t);
	return SBT_OK;
}

int64_t sbt_rec_thread_index(void)
{
	struct sbt_thread *t = sbt_me;

	return t ? (int64_t)t->index : -1;
}

int sbt_rec_join(sbt_id id, uint64_t link)
{
	struct sbt_thread *t = sbt_me;
	const struct sbt__open *o;
	int done = 0;

	if (!t || sbt_gate_marking(t))  /* a marker interrupted */
		return 0;
	sbt_gate_shut(t);
	o = t->hot.depth ? &t->hot.stack[t->hot.depth - 1] : NULL;
	if (o && o->region == id && o->ev &&
	    SBT_EV_KIND(o->word) == SBT_EV_START &&
	    sbt_path_append(t, link, 0, SBT_EV_WORD(SBT_EV_JOIN, 0,
						    SBT_EV_ID(o->word))))
		done = 1;
	sbt_gate_open(t);
	return done;
}

void sbt_rec_release(uint64_t at, uint32_t aux, uint32_t inst)
{
	struct sbt_thread *t;
	int rc;

	if (!(t = ready(&rc)))
		return;
	if (!at)
		at = sbt_read_stop(&aux);
	sbt_gate_shut(t);
	(void)sbt_path_append(t, at, aux, SBT_EV_WORD(SBT_EV_RELEASE, 0,
						     inst & 0xffffffu));
	sbt_gate_open(t);
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
		sbt_gate_shut(t);
		if (sbt_path_start(t, word, SBT_REGION_CALIB, calib_tag) != SBT_OK)
			return -1;
		uint64_t t1 = sbt_read_stop(&aux);
		uint64_t c1 = cycles_now(t);
		sbt_gate_shut(t);
		sbt_path_stop(t, SBT_REGION_CALIB, t1, aux, c1, NULL);
	}
	return sbt_readback_last(t, ticks, cycles);
}

int sbt_rec_init(void)
{
	int rc;

	return ready(&rc) ? SBT_OK : rc;
}

__attribute__((constructor(SBT_CTOR_EARLY))) static void early_open(void)
{
	if (sbt_rec_early() && sbt_rec_init() == SBT_OK)
		sbt_regions_warm();
}

int sbt_rec_thread_init(void)
{
	if (sbt_thread_log_state() < 0) {
		sbt_count(SBT_CNT_AFTER_CLOSE);
		return SBT_EOFF;
	}
	return sbt_thread_attach() ? SBT_OK : SBT_EOFF;
}
