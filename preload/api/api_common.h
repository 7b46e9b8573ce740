/*
 * api_common.h - what every interposed API (api_*.c) needs beyond the
 * recorder's entry points: region ids for names that are not plain C
 * strings, a per-thread stack for APIs whose "end" names a domain rather
 * than a region, and shared handle objects found or made by name.
 *
 * Adding an API means one api_*.c file built on this and recorder.h /
 * hot.h, ending in its descriptor (api.h), and its name in
 * api/meson.build.
 */
#ifndef SBT_API_COMMON_H
#define SBT_API_COMMON_H

#include <stddef.h>
#include "hot.h"

/* ---- names ------------------------------------------------------------- */

/* Region id of name s (len bytes, blank-padded as Fortran passes them,
 * or NUL-terminated when len < 0), under "prefix/" when prefix != NULL (a
 * stable pointer), for a call at `ra`.  0 for a bad name (counted).  A
 * per-thread cache keyed by (ra, pointer, length, prefix) makes the usual
 * call one probe, plus a compare for names in writable memory. */
static inline sbt_id sbt_api_name_id(const char *s, int len,
				     const char *prefix, unsigned api,
				     const void *ra);

/* Intern "prefix/name" (name: len bytes, or NUL-terminated when len is
 * (size_t)-1); just name when prefix is NULL.  0 (counted) when bad or
 * too long. */
SBT_HIDDEN sbt_id sbt_api_intern(const char *prefix, const char *name,
				 size_t len, unsigned api, const void *ra);

#define SBT_NC_SLOTS 16      /* direct-mapped by call site               */

struct sbt_ncache {
	const void *ra;
	const char *ptr;
	const char *prefix;
	char       *verify;      /* malloc'd copy of the bytes, or NULL      */
	int32_t     len;
	sbt_id      id;
};

SBT_HIDDEN sbt_id sbt_api_name_slow(const char *s, int len, const char *prefix,
				    unsigned api, const void *ra);

static inline sbt_id sbt_api_name_id(const char *s, int len,
				     const char *prefix, unsigned api,
				     const void *ra)
{
	struct sbt_thread *t = sbt_me;
	struct sbt_ncache *e;

	if (SBT_UNLIKELY(!t || !t->api[SBT_SLOT_NAMES]))
		return sbt_api_name_slow(s, len, prefix, api, ra);
	e = (struct sbt_ncache *)t->api[SBT_SLOT_NAMES] +
	    ((uintptr_t)ra >> 2) % SBT_NC_SLOTS;
	if (SBT_LIKELY(e->ra == ra && e->ptr == s && e->prefix == prefix &&
		       e->len == (len < 0 ? -1 : len) && s && !e->verify))
		return e->id;
	return sbt_api_name_slow(s, len, prefix, api, ra);
}

/* Region id of a name as sbt_api_name_id, and in *key its key for the
 * recorder's cache (hot.h: sbt_key_slot; a Fortran name's with its
 * length, sbt_key_len) when the name is in read-only memory and has no
 * prefix: then it always means the same region.  Else *key is NULL. */
SBT_HIDDEN sbt_id sbt_api_name_keyed(const char *s, int len,
				     const char *prefix, unsigned api,
				     const void *ra, const void **key);

/* START of region `id` at `ra` past an API's fast path: by key when it
 * has one (the recorder learns it), else by id. */
static inline int sbt_api_start_key(sbt_id id, const void *key,
				    const void *ra)
{
	return key ? sbt_rec_start_key_slow(key, id, ra)
		   : sbt_hot_start_id(id, ra);
}

/* A Fortran name's START and STOP (pointer, hidden length) at `ra`:
 * read-only names by key, in one probe of the thread's name cache; the
 * rest by id through sbt_api_name_id.  Return the recorder's code. */
SBT_HIDDEN int sbt_api_fstart_slow(const char *s, int len, unsigned api,
				   const void *ra);
SBT_HIDDEN int sbt_api_fstop_slow(const char *s, int len, unsigned api,
				  const void *ra, uint64_t t1, uint32_t aux);

static inline __attribute__((always_inline)) int
sbt_api_fstart(const char *s, int len, unsigned api, const void *ra)
{
	struct sbt_thread *t = sbt_me;
	const void *key = sbt_key_len(s, len);
	struct sbt_name_slot *k;

	if (SBT_LIKELY(t != NULL && key != NULL) &&
	    SBT_LIKELY((k = sbt_key_slot(t, key, ra)) != NULL) &&
	    SBT_LIKELY(!k->flags) &&
	    SBT_LIKELY(sbt__start_fast(&t->hot, k->word, k->region, NULL)))
		return SBT_OK;
	return sbt_api_fstart_slow(s, len, api, ra);   /* sampled: there */
}

/* The clock is read first, before the name is looked at. */
static inline __attribute__((always_inline)) int
sbt_api_fstop(const char *s, int len, unsigned api, const void *ra)
{
	uint32_t aux;
	uint64_t t1 = sbt_hot_stop_clock(&aux);
	struct sbt_thread *t = sbt_me;
	const void *key = sbt_key_len(s, len);
	struct sbt_name_slot *k;

	if (SBT_LIKELY(t != NULL && key != NULL) &&
	    SBT_LIKELY((k = sbt_key_slot(t, key, ra)) != NULL) &&
	    SBT_LIKELY(!(k->flags & SBT_SLOT_VERIFY)))
		return sbt_hot_stop_id_on(t, k->region, t1, aux);
	return sbt_api_fstop_slow(s, len, api, ra, t1, aux);
}

/* ---- a per-thread stack of (key, region) ------------------------------ */

/* thread.h's struct sbt_api_stack: ITT's task_end and NVTX's pop end
 * their domain's innermost begin on this thread. */

SBT_HIDDEN struct sbt_api_stack *sbt_api_stack_slow(void);

/* The calling thread's stack, NULL when inert. */
static inline struct sbt_api_stack *sbt_api_stack(void)
{
	struct sbt_thread *t = sbt_me;

	if (SBT_LIKELY(t != NULL))
		return &t->apis;
	return sbt_api_stack_slow();
}

/* Begin region `id` (0: not recordable) under `key` at `ra`, through
 * the recorder's START by key `hkey` (hot.h: sbt_key_slot) when not
 * NULL, so that the next begin at `ra` takes sbt_api_begin_fast;
 * returns the 0-based level of the new entry, -1 without a stack.  The
 * entry is pushed before the START, whose clock read comes last. */
static inline int sbt_api_push_key(const void *key, sbt_id id,
				   const void *hkey, const void *ra)
{
	struct sbt_api_stack *st = sbt_api_stack();
	uint32_t n;

	if (!st)
		return -1;
	n = st->n++;
	if (n >= SBT_API_DEPTH) {
		sbt_count(SBT_CNT_TOO_DEEP);
		return (int)n;
	}
	SBT__FENCE();                  /* n first: see sbt_api_begin_fast */
	st->e[n].key = key;
	st->e[n].id = id;
	if (id && sbt_api_start_key(id, hkey, ra) != SBT_OK)
		st->e[n].id = 0;
	return (int)n;
}

static inline int sbt_api_push(const void *key, sbt_id id, const void *ra)
{
	return sbt_api_push_key(key, id, NULL, ra);
}

/*
 * The begin's fast path: `hkey` (non-NULL) found at `ra` in the thread's
 * name cache (filled by sbt_api_push_key's first call there) gives the
 * region and its START word, so the work before the clock read is the
 * thread pointer, one probe, the stack's top and the inline START's own.
 * Returns the level of the new entry as sbt_api_push_key, or -2, having
 * changed nothing: the caller finds the region and calls that.
 *
 * `sampled` 0 is the entry points' own path: a recorded region only.
 * Few enough values live in it that the entry point needs no register
 * saved (its window holds no restore); a sampled region's begin goes to
 * the API's slow path, which tries sampled 1 first: skipped there
 * without the recorder.
 */
#define SBT_API_SLOW (-2)

static inline __attribute__((always_inline)) int
sbt_api_begin_fast(const void *key, const void *hkey, const void *ra,
		   int sampled)
{
	struct sbt_thread *t = sbt_me;
	struct sbt_name_slot *s;
	struct sbt_api_stack *st;
	uint32_t n;

	if (SBT_UNLIKELY(t == NULL))
		return SBT_API_SLOW;
	s = sbt_key_slot(t, hkey, ra);
	st = &t->apis;
	n = st->n;
	if (SBT_UNLIKELY(s == NULL || n >= SBT_API_DEPTH ||
			 (s->flags && !sampled)))
		return SBT_API_SLOW;
	/* n first: a signal handler's begins push above our entry. */
	st->n = n + 1;
	SBT__FENCE();
	st->e[n].key = key;
	st->e[n].id = s->region;
	if (SBT_LIKELY(sampled ? sbt_key_start_fast(t, s) :
		       sbt__start_fast(&t->hot, s->word, s->region, NULL)))
		return (int)n;
	SBT__FENCE();
	st->n--;                       /* the recorder's turn, from scratch
					  (a signal handler's pushes were
					  popped: n + 1 again) */
	return SBT_API_SLOW;
}

SBT_HIDDEN int sbt_api_pop_inner(struct sbt_api_stack *st, const void *key,
				 uint64_t t1, uint32_t aux);

/* End the innermost entry under `key`, the clock read by the caller
 * (sbt_hot_stop_clock) before it found the key; returns its level, -1
 * when none (counted as a STOP without START). */
static inline __attribute__((always_inline)) int
sbt_api_pop_at(const void *key, uint64_t t1, uint32_t aux)
{
	struct sbt_thread *t = sbt_me;
	struct sbt_api_stack *st;
	uint32_t n;

	if (SBT_UNLIKELY(t == NULL))
		return (st = sbt_api_stack_slow()) ?
			sbt_api_pop_inner(st, key, t1, aux) : -1;
	st = &t->apis;
	n = st->n;
	/* The usual case: the innermost entry is the key's. */
	if (SBT_LIKELY(n > 0 && n <= SBT_API_DEPTH && st->e[n - 1].key == key)) {
		sbt_id id = st->e[n - 1].id;
		st->n = n - 1;
		if (id)
			(void)sbt_hot_stop_id_on(t, id, t1, aux);
		return (int)n - 1;
	}
	return sbt_api_pop_inner(st, key, t1, aux);
}

/* The same for a key at hand: the clock is read first, finding the entry
 * is not part of the region. */
static inline __attribute__((always_inline)) int sbt_api_pop(const void *key)
{
	uint32_t aux;
	uint64_t t1 = sbt_hot_stop_clock(&aux);

	return sbt_api_pop_at(key, t1, aux);
}

/* ---- handles found or made by name -------------------------------------- */

/*
 * Domains and string handles live for the process (the APIs have no
 * destroy, or other libraries may still hold them), shared by all threads
 * and all instances.  An object is `size` bytes, made zeroed, with
 * init(object, its own copy of the name, owner, arg) run once, under the
 * lock; it is found by (owner, name).
 */
struct sbt_api_list { void *first; };

SBT_HIDDEN void *sbt_api_object(struct sbt_api_list *l, const void *owner,
				const char *name, size_t size,
				void (*init)(void *obj, const char *name,
					     const void *owner, const void *arg),
				const void *arg);


#endif
