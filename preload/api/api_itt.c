/*
 * api_itt.c - libsbtmark.so as an Intel ITT collector.
 *
 * Apps (and runtimes such as TBB or OpenMP) carry ittnotify's "static
 * part": every __itt_* call goes through a function pointer that starts
 * out at an init stub.  The first call reads INTEL_LIBITTNOTIFY64,
 * dlopen()s that library and, because it exports __itt_api_init, calls
 *
 *     __itt_api_init(__itt_global *g, __itt_group_id groups)
 *
 * The collector then walks g->api_list_ptr (entries {name, &fnptr, ...})
 * and points each entry it implements at its own function.  Each library
 * with its own static part has its own __itt_global, so __itt_api_init
 * may run several times: it is idempotent per global and the objects we
 * hand out are shared by all of them.
 *
 * Mapping: __itt_task_begin(domain, id, parent, name) starts a region
 * named by the string handle; __itt_task_end(domain) ends that domain's
 * innermost task on this thread.  With SBT_ITT_DOMAIN_PREFIX=1 in the
 * environment the region is named "<domain>/<name>" instead.
 * __itt_task_begin_fn names the region after the function's symbol (or
 * "fn@0x..." when it has none).  Frames (__itt_frame_begin_v3/end_v3)
 * become a region "<domain>/frame".  Every other entry point is declined
 * the way ITT declines it without a collector (see __itt_api_init).
 *
 * Handles created before the collector loads: __itt_domain_create and
 * __itt_string_handle_create do not load the collector; the static part
 * creates those objects itself (domain flags = 1, extra fields zero) and
 * later passes them to us.  So nothing assumes we allocated an object:
 * a handle's region id is cached in its extra2 field ("reserved to the
 * runtime" - we are the runtime), filled lazily on first use from strA.
 *
 * The ABI declarations below are ours, written from the public ittnotify
 * headers (ittnotify.h, ittnotify_config.h); they keep only the fields we
 * touch, with the layout of the x86-64 / aarch64 LP64 ABI.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "api.h"
#include "api_common.h"

/* ---- the ITT ABI (layout-exact prefixes) ------------------------------- */

typedef struct itt_id { unsigned long long d1, d2, d3; } itt_id;

typedef struct itt_domain {
	volatile int flags;          /* 0: disabled; the static part checks */
	const char  *nameA;
	void        *nameW;
	int          extra1;
	void        *extra2;         /* ours: struct hmap * (frame region)  */
	struct itt_domain *next;
} itt_domain;

typedef struct itt_string_handle {
	const char  *strA;
	void        *strW;
	int          extra1;
	void        *extra2;         /* ours: struct hmap * chain           */
	struct itt_string_handle *next;
} itt_string_handle;

/* __itt_api_info; builds up to 20101001 lack null_func. */
typedef struct itt_api_info {
	const char *name;
	void      **func_ptr;
	void       *init_func;
	void       *null_func;
	int         group;
} itt_api_info;

typedef struct itt_api_info_old {
	const char *name;
	void      **func_ptr;
	void       *init_func;
	int         group;
} itt_api_info_old;

/* __itt_global up to api_list_ptr (the fields after it are not read). */
typedef struct itt_global {
	unsigned char   magic[8];
	unsigned long   version_major;
	unsigned long   version_minor;
	unsigned long   version_build;
	volatile long   api_initialized;
	volatile long   mutex_initialized;
	volatile long   atomic_counter;
	pthread_mutex_t mutex;
	void           *lib;
	void           *error_handler;
	const char    **dll_path_ptr;
	void           *api_list_ptr;
	struct itt_global *next;
} itt_global;

static const unsigned char itt_magic[8] =
	{ 0xED, 0xAB, 0xAB, 0xEC, 0x0D, 0xEE, 0xDA, 0x30 };

/* ---- handle -> region id ------------------------------------------------ */

/*
 * A string handle maps to one region per domain when domains prefix the
 * name, else to one region.  The map is a short list hanging off the
 * handle, appended under a lock and read without one: nodes are never
 * freed or changed once published (release store, acquire load).
 */
struct hmap {
	const itt_domain *dom;       /* NULL when not prefixing              */
	sbt_id            id;
	struct hmap      *next;
};

static pthread_mutex_t itt_lock = PTHREAD_MUTEX_INITIALIZER;

static int want_prefix(void)
{
	return (int)sbt_cfg(SBT_CFG_ITT_DOMAIN_PREFIX);
}

static sbt_id intern_pair(const char *dom, const char *name, size_t len,
			  const void *site)
{
	return sbt_api_intern(dom, name, len, SBT_API_ITT, site);
}

/* Cold path: find or add the (domain) node of list head *head. */
static sbt_id hmap_add(void **head, const itt_domain *d, const char *dname,
		       const char *name, size_t len, const void *site)
{
	struct hmap *m;
	sbt_id id = 0;

	pthread_mutex_lock(&itt_lock);
	for (m = *head; m; m = m->next)
		if (m->dom == d)
			break;
	if (m) {
		id = m->id;
	} else if ((id = intern_pair(dname, name, len, site)) != 0 &&
		   (m = malloc(sizeof *m)) != NULL) {
		m->dom = d;
		m->id = id;
		m->next = *head;
		__atomic_store_n(head, (void *)m, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&itt_lock);
	return id;
}

/* handle_id's first call of (d, h), or a handle without a name. */
static __attribute__((noinline)) sbt_id
handle_id_new(const itt_domain *d, itt_string_handle *h, const void *site)
{
	const itt_domain *key = want_prefix() ? d : NULL;

	if (!h || !h->strA)
		return sbt_rec_intern(NULL, 0, SBT_API_ITT, site); /* counted */
	return hmap_add(&h->extra2, key, key && d ? d->nameA : NULL, h->strA,
			strlen(h->strA), site);
}

/* Region id of task name `h` in domain `d`.  Hot path: one or two loads
 * (and no call: the entry points stay leaves until the recorder). */
static inline sbt_id handle_id(const itt_domain *d, itt_string_handle *h,
			       const void *site)
{
	const itt_domain *key = want_prefix() ? d : NULL;

	if (SBT_LIKELY(h != NULL))
		for (struct hmap *m = __atomic_load_n(&h->extra2,
						      __ATOMIC_ACQUIRE);
		     m; m = m->next)
			if (m->dom == key)
				return m->id;
	return handle_id_new(d, h, site);
}

/* ---- per-thread task stack ---------------------------------------------- */

/* __itt_task_end names a domain, not a task: api_common.h's stack ends
 * that domain's innermost task on this thread. */
static void task_push(const itt_domain *d, sbt_id id, const void *site)
{
	(void)sbt_api_push(d, id, site);
}

/* task_begin past its fast path: the handle's region, and the recorder
 * learns the handle as its key (unless domains prefix the name: then the
 * region depends on the domain too). */
static __attribute__((noinline)) void
task_begin_lookup(const itt_domain *d, itt_string_handle *h,
		  const void *site)
{
	(void)sbt_api_push_key(d, handle_id(d, h, site),
			       want_prefix() ? NULL : h, site);
}

/* A sampled region's begin is skipped (or recorded) here, calling
 * nothing but the lookup, last: few registers to save. */
static __attribute__((noinline)) void
task_begin_slow(const itt_domain *d, itt_string_handle *h, const void *site)
{
	if (h && sbt_api_begin_fast(d, h, site, 1) != SBT_API_SLOW)
		return;
	task_begin_lookup(d, h, site);
}

static void task_pop(const itt_domain *d)
{
	(void)sbt_api_pop(d);
}

/* ---- the collector's entry points --------------------------------------- */

/* Objects we hand out live for the process (ITT has no destroy). */
static struct sbt_api_list domains, strings;

static void dom_init(void *o, const char *name, const void *owner,
		     const void *arg)
{
	itt_domain *d = o;
	(void)owner, (void)arg;
	d->flags = 1;
	d->nameA = name;
}

static void str_init(void *o, const char *name, const void *owner,
		     const void *arg)
{
	itt_string_handle *h = o;
	(void)owner, (void)arg;
	h->strA = name;
}

static itt_domain *itt_domain_create(const char *name)
{
	return sbt_api_object(&domains, NULL, name, sizeof(itt_domain),
			      dom_init, NULL);
}

static itt_string_handle *itt_string_handle_create(const char *name)
{
	return sbt_api_object(&strings, NULL, name,
			      sizeof(itt_string_handle), str_init, NULL);
}

/* Once the collector is loaded the app calls our functions through the
 * static part's pointers directly (the __itt_* macros), so the return
 * address is the app's call site.  (Only the very first call comes
 * through the static part's init stub.) */
static void itt_task_begin(const itt_domain *d, itt_id id, itt_id parent,
			   itt_string_handle *name)
{
	const void *site = __builtin_return_address(0);
	(void)id;
	(void)parent;
	if (SBT_UNLIKELY(name == NULL) ||
	    sbt_api_begin_fast(d, name, site, 0) == SBT_API_SLOW)
		task_begin_slow(d, name, site);
}

/* task_begin_fn: one region per function, named by its symbol.  The name
 * is interned per call (cold-path cost): rare in practice. */
static void itt_task_begin_fn(const itt_domain *d, itt_id id, itt_id parent,
			      void *fn)
{
	const void *site = __builtin_return_address(0);
	char buf[64];
	const char *nm = buf;
	Dl_info di;

	(void)id;
	(void)parent;
	if (dladdr(fn, &di) && di.dli_sname && di.dli_saddr == fn)
		nm = di.dli_sname;
	else
		snprintf(buf, sizeof buf, "fn@%p", fn);
	task_push(d, intern_pair(want_prefix() && d ? d->nameA : NULL, nm,
				 strlen(nm), site), site);
}

static void itt_task_end(const itt_domain *d) { task_pop(d); }

/* Frames: one region "<domain>/frame", id kept in the domain's extra2. */
static void itt_frame_begin_v3(const itt_domain *d, itt_id *id)
{
	const void *site = __builtin_return_address(0);
	struct hmap *m;
	sbt_id rid;

	(void)id;
	if (!d)
		return;
	m = __atomic_load_n(&((itt_domain *)d)->extra2, __ATOMIC_ACQUIRE);
	rid = m ? m->id : hmap_add(&((itt_domain *)d)->extra2, d, d->nameA,
				   "frame", 5, site);
	task_push(d, rid, site);
}

static void itt_frame_end_v3(const itt_domain *d, itt_id *id)
{
	(void)id;
	if (d)
		task_pop(d);
}

static const struct { const char *name; void *fn; } itt_impl[] = {
	{ "__itt_domain_create",        (void *)itt_domain_create },
	{ "__itt_string_handle_create", (void *)itt_string_handle_create },
	{ "__itt_task_begin",           (void *)itt_task_begin },
	{ "__itt_task_begin_fn",        (void *)itt_task_begin_fn },
	{ "__itt_task_end",             (void *)itt_task_end },
	{ "__itt_frame_begin_v3",       (void *)itt_frame_begin_v3 },
	{ "__itt_frame_end_v3",         (void *)itt_frame_end_v3 },
};

static void *impl_of(const char *name)
{
	for (size_t i = 0; i < sizeof itt_impl / sizeof itt_impl[0]; i++)
		if (!strcmp(itt_impl[i].name, name))
			return itt_impl[i].fn;
	return NULL;
}

/*
 * Called by each static part, under its own mutex, while loading us.
 * Every entry gets an answer: ours where we implement it, else the one
 * the static part gives when no collector is loaded at all - its
 * null_func: NULL for a function with no static implementation (the
 * __itt_* macros and callers test the pointer and skip the call), its
 * own stub for those it implements itself (domain_create and the like).
 * Leaving an entry at its init stub instead is not a refusal: the stub
 * is non-NULL, so a runtime takes the call as supported, and it then
 * returns 0 - LLVM's libomp asserted on exactly that, a NULL
 * __itt_stack_caller_create().  Builds up to 20101001 have
 * no null_func: NULL there, as their static part's own nullify did.
 * `groups` is not consulted: we implement only what we record.
 */
SBT_API void __itt_api_init(itt_global *g, int groups)
{
	(void)groups;
	if (!g || memcmp(g->magic, itt_magic, sizeof itt_magic) ||
	    !g->api_list_ptr) {
		sbt_warn("ITT: __itt_api_init with an unknown __itt_global");
		return;
	}
	if (g->version_build > 20101001) {
		for (itt_api_info *a = g->api_list_ptr; a->name; a++) {
			void *fn = impl_of(a->name);
			if (a->func_ptr)
				*a->func_ptr = fn ? fn : a->null_func;
		}
	} else {
		for (itt_api_info_old *a = g->api_list_ptr; a->name; a++) {
			void *fn = impl_of(a->name);
			if (a->func_ptr)
				*a->func_ptr = fn;
		}
	}
	(void)sbt_rec_init();
}

/* This API in the table (api.h, api/meson.build). */
const struct sbt_api_desc sbt_api_itt = {
	.id = SBT_API_ITT,
	.name = "itt",
	.symbols = "__itt_",
	.env = "SBT_ITT_DOMAIN_PREFIX",
	.at_exit = NULL,
};
