/*
 * api_common.c - the cold parts of api_common.h.
 */
#include "api_common.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ------------------------------------------------------------- */

#define NC_MAXCOPY 1024      /* longer writable names are not cached     */

/*
 * (ra, pointer, length, prefix) -> region id, per thread (struct
 * sbt_ncache[SBT_NC_SLOTS]).  A literal lives in read-only memory: the
 * same (pointer, length) always means the same name.  A CHARACTER
 * variable or a char buffer may change under the same pointer; for those
 * the entry keeps a copy of the bytes and compares them on every call -
 * the recorder's policy for C names too.
 */
static void names_fini(void *p)
{
	struct sbt_ncache *n = p;
	for (int i = 0; i < SBT_NC_SLOTS; i++)
		free(n[i].verify);
}

sbt_id sbt_api_intern(const char *prefix, const char *name, size_t len,
		      unsigned api, const void *ra)
{
	char buf[SBT_MAX_NAME + 1];
	int k;

	if (!prefix || !name)
		return sbt_rec_intern(name, len, api, ra);  /* counts bad names */
	if (len == (size_t)-1)
		len = strnlen(name, SBT_MAX_NAME + 1);
	k = snprintf(buf, sizeof buf, "%s/%.*s", prefix,
		     (int)(len > SBT_MAX_NAME ? SBT_MAX_NAME + 1 : len), name);
	if (k < 0 || (size_t)k >= sizeof buf)
		return sbt_rec_intern(NULL, 0, api, ra);     /* counted */
	return sbt_rec_intern(buf, (size_t)k, api, ra);
}

/* Cold path: intern the name and refill the slot. */
static sbt_id name_miss(struct sbt_ncache *e, const char *s, int len,
			const char *prefix, unsigned api, const void *ra)
{
	size_t bytes, n;
	char *copy = NULL;
	sbt_id id;

	if (!s)
		return sbt_rec_intern(NULL, 0, api, ra);
	bytes = len < 0 ? strlen(s) + 1 : (size_t)len;
	n = len < 0 ? bytes - 1 : bytes;
	if (len >= 0)
		while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\0'))
			n--;
	if ((id = sbt_api_intern(prefix, s, n, api, ra)) == 0)
		return 0;
	if (!sbt_regions_readonly(s, bytes)) {
		if (bytes > NC_MAXCOPY || !(copy = malloc(bytes)))
			return id;           /* correct, just not cached */
		memcpy(copy, s, bytes);
	}
	free(e->verify);
	e->ra = ra;
	e->ptr = s;
	e->prefix = prefix;
	e->len = len < 0 ? -1 : len;
	e->verify = copy;
	e->id = id;
	return id;
}

sbt_id sbt_api_name_slow(const char *s, int len, const char *prefix,
			 unsigned api, const void *ra)
{
	struct sbt_ncache *nc = sbt_rec_api_state(SBT_SLOT_NAMES,
		SBT_NC_SLOTS * sizeof *nc, names_fini);

	if (!nc)
		return 0;
	struct sbt_ncache *e = &nc[((uintptr_t)ra >> 2) % SBT_NC_SLOTS];

	if (e->ra == ra && e->ptr == s && e->prefix == prefix &&
	    e->len == (len < 0 ? -1 : len) && s &&
	    (!e->verify || (len < 0 ? !strcmp(e->verify, s)
				    : !memcmp(e->verify, s, (size_t)len))))
		return e->id;
	return name_miss(e, s, len, prefix, api, ra);
}

sbt_id sbt_api_name_keyed(const char *s, int len, const char *prefix,
			  unsigned api, const void *ra, const void **key)
{
	sbt_id id = sbt_api_name_id(s, len, prefix, api, ra);
	struct sbt_thread *t = sbt_me;
	struct sbt_ncache *e;

	*key = NULL;
	if (!id || prefix || !t || !t->api[SBT_SLOT_NAMES])
		return id;
	/* The entry just hit or filled: no copy to compare means read-only
	 * bytes (a name not cached at all finds another entry here). */
	e = (struct sbt_ncache *)t->api[SBT_SLOT_NAMES] +
	    ((uintptr_t)ra >> 2) % SBT_NC_SLOTS;
	if (e->ra == ra && e->ptr == s && e->prefix == NULL &&
	    e->len == (len < 0 ? -1 : len) && e->id == id && !e->verify)
		*key = len < 0 ? (const void *)s : sbt_key_len(s, len);
	return id;
}

/* The name's region, the recorder learning its key. */
static __attribute__((noinline)) int
fstart_lookup(const char *s, int len, unsigned api, const void *ra)
{
	const void *key;
	sbt_id id = sbt_api_name_keyed(s, len, NULL, api, ra, &key);

	return id ? sbt_api_start_key(id, key, ra) : SBT_EMISUSE;
}

/* A sampled region's call, skipped or not, without the recorder: this
 * part calls nothing but the lookup, last, so it saves few registers. */
int sbt_api_fstart_slow(const char *s, int len, unsigned api,
			const void *ra)
{
	struct sbt_thread *t = sbt_me;
	const void *key = sbt_key_len(s, len);
	struct sbt_name_slot *k;

	if (t && key && (k = sbt_key_slot(t, key, ra)) != NULL &&
	    k->flags == SBT_SLOT_SAMPLED &&
	    sbt__skip_fast(&t->hot, sbt_skip_word(k->word), k->region, NULL))
		return SBT_OK;
	return fstart_lookup(s, len, api, ra);
}

int sbt_api_fstop_slow(const char *s, int len, unsigned api, const void *ra,
		       uint64_t t1, uint32_t aux)
{
	const void *key;
	sbt_id id = sbt_api_name_keyed(s, len, NULL, api, ra, &key);

	if (!id)
		return SBT_EMISUSE;
	if (key)
		sbt_rec_key_stop(key, id, ra);
	return sbt_hot_stop_id_at(id, t1, aux);
}

/* ---- the per-thread stack ---------------------------------------------- */

/* The first API call of a thread attaches it. */
struct sbt_api_stack *sbt_api_stack_slow(void)
{
	struct sbt_thread *t = sbt_thread_attach();

	return t ? &t->apis : NULL;
}

int sbt_api_pop_inner(struct sbt_api_stack *st, const void *key,
		      uint64_t t1, uint32_t aux)
{
	uint32_t i = st->n;
	sbt_id id;

	if (i == 0) {
		sbt_count(SBT_CNT_STOP_WITHOUT_START);
		return -1;
	}
	if (i > SBT_API_DEPTH)               /* an unrecorded overflow entry */
		return (int)--st->n;
	while (i > 0 && st->e[i - 1].key != key)
		i--;
	if (i == 0) {                        /* nothing open under this key */
		sbt_count(SBT_CNT_STOP_WITHOUT_START);
		return -1;
	}
	id = st->e[i - 1].id;
	memmove(&st->e[i - 1], &st->e[i], (st->n - i) * sizeof st->e[0]);
	st->n--;
	if (id)
		(void)sbt_hot_stop_id_at(id, t1, aux);
	return (int)i - 1;
}

/* ---- handles ----------------------------------------------------------- */

static pthread_mutex_t obj_lock = PTHREAD_MUTEX_INITIALIZER;

/* An object's bookkeeping sits after its `size` bytes (whose layout the
 * API prescribes), at an aligned offset. */
struct tail {
	void *next;                    /* the next object of the list     */
	const void *owner;
	char *name;
};

static size_t tail_off(size_t size)
{
	return (size + _Alignof(struct tail) - 1) &
	       ~(_Alignof(struct tail) - 1);
}

static struct tail *tail_of(void *obj, size_t size)
{
	return (struct tail *)((char *)obj + tail_off(size));
}

void *sbt_api_object(struct sbt_api_list *l, const void *owner,
		     const char *name, size_t size,
		     void (*init)(void *obj, const char *name,
				  const void *owner, const void *arg),
		     const void *arg)
{
	void *o;

	if (!name)
		return NULL;
	pthread_mutex_lock(&obj_lock);
	for (o = l->first; o; o = tail_of(o, size)->next)
		if (tail_of(o, size)->owner == owner &&
		    !strcmp(tail_of(o, size)->name, name))
			break;
	if (!o && (o = calloc(1, tail_off(size) + sizeof(struct tail)))) {
		struct tail *tl = tail_of(o, size);
		if (!(tl->name = strdup(name))) {
			free(o);
			o = NULL;
		} else {
			tl->owner = owner;
			init(o, tl->name, owner, arg);
			tl->next = l->first;
			__atomic_store_n(&l->first, o, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&obj_lock);
	return o;
}

