/*
 * api_common.h - what every interposed API (api_*.c) needs beyond the
 * recorder's entry points: region ids for names that are not plain C
 * strings, a per-thread stack for APIs whose "end" names a domain rather
 * than a region, and shared handle objects found or made by name.
 *
 * Adding an API means one api_*.c file built on this and recorder.h /
 * hot.h, and one line in meson.build.
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

/* ---- a per-thread stack of (key, region) ------------------------------ */

/*
 * ITT's task_end and NVTX's pop name a domain, not a region: they end
 * that domain's innermost open range on this thread.  The stack keeps
 * (domain, id) so an end stops exactly that region even when domains
 * interleave, and pairs ends with begins that could not be recorded
 * (id 0).  Beyond SBT_API_DEPTH entries begins are counted and not
 * recorded, but still paired.
 */
#define SBT_API_DEPTH 32

struct sbt_api_stack {
	uint32_t n;
	uint32_t token;                /* this thread's range token (NVTX) */
	struct { const void *key; sbt_id id; } e[SBT_API_DEPTH];
};

SBT_HIDDEN struct sbt_api_stack *sbt_api_stack_slow(void);

/* The calling thread's stack, NULL when out of memory or inert. */
static inline struct sbt_api_stack *sbt_api_stack(void)
{
	struct sbt_thread *t = sbt_me;

	if (SBT_LIKELY(t != NULL) && SBT_LIKELY(t->api[SBT_SLOT_STACK] != NULL))
		return t->api[SBT_SLOT_STACK];
	return sbt_api_stack_slow();
}

/* Begin region `id` (0: not recordable) under `key` at `ra`; returns the
 * 0-based level of the new entry, -1 without a stack. */
static inline int sbt_api_push(const void *key, sbt_id id, const void *ra)
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
	st->e[n].key = key;
	st->e[n].id = id && sbt_hot_start_id(id, ra) == SBT_OK ? id : 0;
	return (int)n;
}

SBT_HIDDEN int sbt_api_pop_inner(struct sbt_api_stack *st, const void *key,
				 uint64_t t1, uint32_t aux);

/* End the innermost entry under `key`; returns its level, -1 when none
 * (counted as a STOP without START).  The clock is read first: finding
 * the entry is not part of the region. */
static inline int sbt_api_pop(const void *key)
{
	uint32_t aux;
	uint64_t t1 = sbt_hot_stop_clock(&aux);
	struct sbt_api_stack *st = sbt_api_stack();
	uint32_t n;

	if (!st)
		return -1;
	n = st->n;
	/* The usual case: the innermost entry is the key's. */
	if (SBT_LIKELY(n > 0 && n <= SBT_API_DEPTH && st->e[n - 1].key == key)) {
		sbt_id id = st->e[n - 1].id;
		st->n = n - 1;
		if (id)
			(void)sbt_hot_stop_id_at(id, t1, aux);
		return (int)n - 1;
	}
	return sbt_api_pop_inner(st, key, t1, aux);
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
