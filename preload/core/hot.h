/*
 * hot.h - the fast path of the recorder's own entry points.
 *
 * markers.c and every interposed API enter through these: a hit in the
 * thread's cache, then the inline markers' own fast path (sbtmark_hot.h), all
 * inlined into the entry point, so that a function call into the recorder
 * costs little more than the inline markers do.  Anything else goes to
 * the general path (recorder.h's sbt_rec_*_slow, in hot.c), which does
 * not try the fast path again and handles every case.
 */
#ifndef SBT_HOT_H
#define SBT_HOT_H

#include "gate.h"
#include "recorder.h"
#include "thread.h"

/* The thread's cache slot for name pointer `name` at `ra`. */
static inline struct sbt_name_slot *sbt_name_slot(struct sbt_thread *t,
						  const void *ra,
						  const char *name)
{
	uintptr_t h = ((uintptr_t)ra ^ (uintptr_t)name) >> 3;
	return &t->names[(h ^ (h >> 8)) & (SBT_CACHE_SLOTS - 1)];
}

/* The thread's name cache slot of (name, ra) whatever its flags, or NULL. */
static inline struct sbt_name_slot *sbt_name_known(struct sbt_thread *t,
						   const char *name,
						   const void *ra)
{
	struct sbt_name_slot *s = sbt_name_slot(t, ra, name);
	return s->ra == ra && s->name == name ? s : NULL;
}

/* The hit in the thread's name cache for the fast path, or NULL. */
static inline struct sbt_name_slot *sbt_name_cached(struct sbt_thread *t,
						    const char *name,
						    const void *ra)
{
	struct sbt_name_slot *s = sbt_name_known(t, name, ra);
	return s && !s->flags ? s : NULL;
}

/*
 * The interposed APIs' keys.  An API whose begin is named by something
 * that stands for one region at every call - an ITT string handle, an
 * NVTX registered string, a name in read-only memory (with its Fortran
 * length folded in, sbt_key_len) - finds the region and its START word
 * in the thread's name cache under (call site, key): one probe, no
 * region lookup of its own.  The recorder fills the slot on the first
 * call (sbt_rec_start_key_slow; a STOP site's slot: sbt_rec_key_stop,
 * flags SBT_SLOT_STOP, no START word).  A key is only compared, never
 * read through.
 */
static inline struct sbt_name_slot *sbt_key_slot(struct sbt_thread *t,
						 const void *key,
						 const void *ra)
{
	return sbt_name_known(t, (const char *)key, ra);
}

/* Key of a Fortran name (pointer, hidden length): the length in the
 * pointer's unused top bits (user addresses are below 2^48), so that a
 * shorter name at the same address is another key.  NULL (no key) for a
 * length that does not fit. */
static inline const void *sbt_key_len(const char *s, int len)
{
	if (SBT_UNLIKELY(len < 0 || len >= (1 << 15) ||
			 (uintptr_t)s >> 48))
		return NULL;
	return (const void *)((uintptr_t)s | (uintptr_t)len << 48);
}

static inline struct sbt_site_slot *sbt_site_slot(struct sbt_thread *t,
						  sbt_id id, const void *ra)
{
	uintptr_t h = ((uintptr_t)ra >> 2) ^ id;
	return &t->sites[(h ^ (h >> 6)) & (SBT_SITE_SLOTS - 1)];
}

/* START word of region `id` at `ra` if the thread knows it, else 0. */
static inline uint32_t sbt_site_cached(struct sbt_thread *t, sbt_id id,
				       const void *ra)
{
	struct sbt_site_slot *s = sbt_site_slot(t, id, ra);
	return s->ra == ra && s->region == id ? s->word : 0;
}

/* sbt__stop_fast for a STOP by region id: the region is innermost and
 * was recorded (not a skipped call). */
static inline int sbt_stop_fast_id(struct sbt_thread *t, sbt_id id,
				   uint64_t t1, uint32_t aux)
{
	struct sbt_hot *h = &t->hot;
	uint32_t d;

	if (!sbt__enter(h))
		return 0;
	d = h->depth;
	if (SBT_UNLIKELY(d == 0 || h->cur >= SBT__END(h) ||
			 h->stack[d - 1].region != id ||
			 !h->stack[d - 1].ev)) {
		sbt__leave(h);
		return 0;
	}
	sbt__stop_commit(h, d, h->cur, t1, aux);
	return 1;
}

/* ---- the entry points' fast path ------------------------------------- */

/* A STOP's clock read on thread t (NULL: not attached) the way its
 * inline markers read it: from the thread's clock word (sbtmark_hot.h),
 * one load where tsc.h's sbt_read_stop asks for the cpu in a call. */
static inline __attribute__((always_inline)) uint64_t
sbt_hot_read_stop(struct sbt_thread *t, uint32_t *aux)
{
	return SBT_LIKELY(t != NULL) ? sbt__stop_clock(&t->hot, aux) :
				       sbt_read_stop(aux);
}

/* A sampled region's START word, as its call site's SKIP word. */
static inline uint32_t sbt_skip_word(uint32_t word)
{
	return SBT_EV_WORD(SBT_EV_SKIP, 0, SBT_EV_ID(word));
}

/* START of the region of key slot s (sbt_key_slot's hit) on thread t by
 * the inline fast path, a sampled region's skipped or not: 1 done, 0
 * having changed nothing (the recorder must do it). */
static inline __attribute__((always_inline)) int
sbt_key_start_fast(struct sbt_thread *t, const struct sbt_name_slot *s)
{
	if (SBT_LIKELY(!s->flags))
		return sbt__start_fast(&t->hot, s->word, s->region, NULL);
	return s->flags == SBT_SLOT_SAMPLED &&
	       sbt__skip_fast(&t->hot, sbt_skip_word(s->word), s->region,
			      NULL);
}

/* A sampled region's calls skip here as the inline markers' do (the
 * recorder draws the gaps); a name whose bytes must be compared each
 * call (SBT_SLOT_VERIFY) goes to the general path. */
static inline __attribute__((always_inline)) int
sbt_hot_start(const char *name, unsigned api, const void *ra)
{
	struct sbt_thread *t = sbt_me;

	if (SBT_LIKELY(t != NULL)) {
		struct sbt_name_slot *s = sbt_name_known(t, name, ra);
		if (SBT_LIKELY(s != NULL)) {
			if (SBT_LIKELY(!s->flags)) {
				if (SBT_LIKELY(sbt__start_fast(&t->hot,
				    s->word, s->region, name)))
					return SBT_OK;
			} else if (s->flags == SBT_SLOT_SAMPLED &&
				   sbt__skip_fast(&t->hot,
				   sbt_skip_word(s->word), s->region, name)) {
				return SBT_OK;
			}
		}
	}
	return sbt_rec_start_slow(name, api, ra);
}

/* STOP reads the clock before its bookkeeping: whatever follows is
 * outside the recorded window.  Before the read, as the inline STOP's
 * test of its thread pointer, one test where calls may be skipped
 * (sbt_rec_skips): is the innermost call a skipped one?  Then no clock
 * is read (5 vs 30 ns a skipped likwid pair, bench-overhead's lksparse
 * row).  Its cost to a recorded call, in the window: the load of a
 * constant flag and, where it is set, the thread pointer's load and its
 * gate's. */
static inline __attribute__((always_inline)) int
sbt_hot_stop(const char *name, unsigned api, const void *ra)
{
	struct sbt_thread *t = sbt_me;
	uint32_t aux;

	if (SBT_UNLIKELY(sbt_rec_skips) && t != NULL &&
	    sbt_gate(t) == SBT_GATE_SKIPPING &&
	    sbt__unskip_fast(&t->hot, name))
		return SBT_OK;
	uint64_t t1 = sbt_hot_read_stop(t, &aux);
	if (SBT_LIKELY(t != NULL) &&
	    SBT_LIKELY(sbt__stop_fast(&t->hot, name, t1, aux)))
		return SBT_OK;
	return sbt_rec_stop_slow(name, api, ra, t1, aux);
}

static inline __attribute__((always_inline)) int
sbt_hot_start_id(sbt_id id, const void *ra)
{
	struct sbt_thread *t = sbt_me;

	if (SBT_LIKELY(t != NULL)) {
		struct sbt_site_slot *s = sbt_site_slot(t, id, ra);
		if (SBT_LIKELY(s->ra == ra && s->region == id)) {
			if (SBT_LIKELY(sbt__start_fast(&t->hot, s->word, id,
						       NULL)))
				return SBT_OK;
		} else if (s->ra == ra && s->region == (id | SBT_SITE_SAMPLED) &&
			   sbt__skip_fast(&t->hot, sbt_skip_word(s->word), id,
					  NULL)) {
			return SBT_OK;
		}
	}
	return sbt_rec_start_id_slow(id, ra);
}

/* START of region `id` by the fast path at a time already read: (t0,
 * aux), the STOP's clock of the region it follows without a gap (an
 * OpenMP thread's share, then its wait at the closing barrier), one
 * serialized read for both.  1 done; 0, having changed nothing, for
 * anything else (t0 = 0: no read, a skipped call; a probe or tick due;
 * a first call): then sbt_hot_start_id, with a read of its own. */
static inline __attribute__((always_inline)) int
sbt_hot_start_id_at(sbt_id id, const void *ra, uint64_t t0, uint32_t aux)
{
	struct sbt_thread *t = sbt_me;
	struct sbt_site_slot *s;
	struct sbt__ev *e;

	if (SBT_UNLIKELY(t == NULL || t0 == 0))
		return 0;
	s = sbt_site_slot(t, id, ra);
	if (SBT_UNLIKELY(s->ra != ra || s->region != id) ||
	    SBT_UNLIKELY(!(e = sbt__start_claim(&t->hot, s->word, id, NULL))))
		return 0;
	e->t = t0;
	e->aux = aux;
	return 1;
}

/* STOP's clock for sbt_hot_stop_id_at, read first by APIs that must find
 * the region before they can stop it: (0, 0), no read, when the innermost
 * open call is a skipped one (sparse recording), as sbt_hot_stop's test. */
static inline __attribute__((always_inline)) uint64_t
sbt_hot_stop_clock(uint32_t *aux)
{
	struct sbt_thread *t;

	t = sbt_me;
	if (SBT_UNLIKELY(sbt_rec_skips) && t != NULL &&
	    sbt_gate(t) == SBT_GATE_SKIPPING) {
		*aux = 0;
		return 0;
	}
	return sbt_hot_read_stop(t, aux);
}

/* STOP of region `id`, the clock read by the caller as (t1, aux), or
 * t1 = 0 from sbt_hot_stop_clock: then the skipped call ends here, and
 * anything else (another region, misuse) reads the clock now. */
static inline __attribute__((always_inline)) int
sbt_hot_stop_id_on(struct sbt_thread *t, sbt_id id, uint64_t t1,
		   uint32_t aux)
{
	if (SBT_UNLIKELY(t1 == 0)) {
		if (t && sbt__unskip_at(&t->hot, NULL, id))
			return SBT_OK;
		t1 = sbt_read_stop(&aux);
	}
	if (SBT_LIKELY(t != NULL) &&
	    (SBT_LIKELY(sbt_stop_fast_id(t, id, t1, aux)) ||
	     sbt__unskip_at(&t->hot, NULL, id)))
		return SBT_OK;
	return sbt_rec_stop_id_slow(id, t1, aux);
}

/* The same, t the calling thread's sbt_me (the callers have it). */
static inline __attribute__((always_inline)) int
sbt_hot_stop_id_at(sbt_id id, uint64_t t1, uint32_t aux)
{
	return sbt_hot_stop_id_on(sbt_me, id, t1, aux);
}

static inline __attribute__((always_inline)) int sbt_hot_stop_id(sbt_id id)
{
	uint32_t aux;
	uint64_t t1 = sbt_hot_stop_clock(&aux);

	return sbt_hot_stop_id_at(id, t1, aux);
}

#endif
