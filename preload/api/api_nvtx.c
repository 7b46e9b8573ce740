/*
 * api_nvtx.c - libsbtmark.so as an NVTX injection library.
 *
 * NVTX v3 is header-only: every library that includes nvToolsExt.h owns
 * one NVTX instance (its own globals and function-pointer tables).  The
 * first NVTX call of an instance reads NVTX_INJECTION64_PATH, dlopen()s
 * that library and calls its
 *
 *     int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
 *
 * get(NVTX_ETID_CALLBACKS) yields GetModuleFunctionTable(module, &table,
 * &size); table[cbid] points at the instance's function pointer for
 * callback id cbid (1 .. size-1).  We store our functions there for the
 * CORE and CORE2 modules; the instance then sets every pointer we left
 * alone to a no-op.  This runs once per instance, so once per NVTX-using
 * library: it only writes that instance's tables, and all instances share
 * our domains, strings and per-thread state.
 *
 * Mapping:
 *   nvtxRangePushA/Ex, nvtxDomainRangePushEx  START of the message's region
 *   nvtxRangePop, nvtxDomainRangePop          STOP of that domain's
 *                                             innermost pushed range
 *   nvtxRangeStartA/Ex, nvtxDomainRangeStartEx START; returns a range id
 *   nvtxRangeEnd, nvtxDomainRangeEnd          STOP of that range
 *   nvtxDomainCreateA, DomainRegisterStringA  handles (shared, never freed)
 * Messages: ASCII or registered strings; unicode messages are counted as
 * bad names.  The region is named by the message; with
 * SBT_NVTX_DOMAIN_PREFIX=1 ranges in a non-default domain are named
 * "<domain>/<message>".  Marks, category and thread naming are no-ops.
 *
 * Start/end ranges may end on another thread than the one that started
 * them.  sbtmark's samples are per thread (serialized reads of one core's
 * clock), so a range ended on its own thread is recorded like a push/pop;
 * one ended on another thread is counted as SBT_CNT_CROSSED, warned about
 * once and not recorded, and stays open on its starting thread (closed
 * out when that thread exits).  The range id carries the starting thread's
 * token in its high 32 bits to tell the two cases apart.
 *
 * The ABI declarations below are ours, written from the public NVTX v3
 * headers (nvToolsExt.h, nvtxDetail/nvtxTypes.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "api.h"
#include "api_common.h"

/* ---- the NVTX ABI ------------------------------------------------------- */

typedef void (*nvtx_fn)(void);
typedef const void *(*nvtx_get_export_table)(uint32_t id);

enum { ETID_CALLBACKS = 1, ETID_VERSIONINFO = 3 };
enum { CB_MODULE_CORE = 1, CB_MODULE_CORE2 = 5 };
enum {  /* NvtxCallbackIdCore */
	CORE_RangeStartEx = 4, CORE_RangeStartA = 5, CORE_RangeEnd = 7,
	CORE_RangePushEx = 8, CORE_RangePushA = 9, CORE_RangePop = 11,
};
enum {  /* NvtxCallbackIdCore2 */
	CORE2_DomainRangeStartEx = 2, CORE2_DomainRangeEnd = 3,
	CORE2_DomainRangePushEx = 4, CORE2_DomainRangePop = 5,
	CORE2_DomainRegisterStringA = 10, CORE2_DomainCreateA = 12,
	CORE2_DomainDestroy = 14,
};
enum { MSG_ASCII = 1, MSG_UNICODE = 2, MSG_REGISTERED = 3 };

struct nvtx_callbacks {             /* NvtxExportTableCallbacks          */
	size_t struct_size;
	int (*get_module_function_table)(int module, nvtx_fn ***table,
					 unsigned int *size);
};

struct nvtx_version_info {          /* NvtxExportTableVersionInfo        */
	size_t   struct_size;
	uint32_t version;
	uint32_t reserved0;
	void   (*set_injection_nvtx_version)(uint32_t version);
};

struct nvtx_string;                 /* our registered string, below      */

struct nvtx_event_attributes {      /* nvtxEventAttributes_v2, 48 bytes  */
	uint16_t version;
	uint16_t size;
	uint32_t category;
	int32_t  color_type;
	uint32_t color;
	int32_t  payload_type;
	int32_t  reserved0;
	uint64_t payload;
	int32_t  message_type;
	union {
		const char *ascii;
		const void *unicode;
		const struct nvtx_string *registered;
	} message;
};

_Static_assert(sizeof(struct nvtx_event_attributes) == 48,
	       "nvtxEventAttributes_v2 layout");

/* ---- our handles ---------------------------------------------------------- */

/* nvtxDomainHandle_t points at one of these.  NULL is the default domain.
 * `prefix` is the name when SBT_NVTX_DOMAIN_PREFIX is set, else NULL. */
struct nvtx_domain {
	char *name;
	const char *prefix;
};

/* nvtxStringHandle_t points at one of these: interned at registration, so
 * a range named by a registered string costs one load to resolve. */
struct nvtx_string {
	sbt_id id;
	const struct nvtx_domain *dom;
	char *str;
};

static struct sbt_api_list domains, strings;

static int want_prefix(void)
{
	return (int)sbt_cfg(SBT_CFG_NVTX_DOMAIN_PREFIX);
}

static const char *dom_prefix(const struct nvtx_domain *d)
{
	return d ? d->prefix : NULL;
}

/* Region id of an event's message.  0 (counted) when it has none we can
 * use. */
static sbt_id attr_id(const struct nvtx_domain *d,
		      const struct nvtx_event_attributes *a, const void *site)
{
	if (a && a->message_type == MSG_ASCII)
		return sbt_api_name_id(a->message.ascii, -1, dom_prefix(d),
				       SBT_API_NVTX, site);
	if (a && a->message_type == MSG_REGISTERED && a->message.registered)
		return a->message.registered->id;
	return sbt_rec_intern(NULL, 0, SBT_API_NVTX, site);  /* counted */
}

/* ---- push / pop ------------------------------------------------------------ */

/* Pop names a domain, not a range: api_common.h's per-thread stack ends
 * that domain's innermost pushed range. */
static int pop_dom(const struct nvtx_domain *d)
{
	return sbt_api_pop(d);
}

/*
 * A push's fast path (api_common.h: sbt_api_begin_fast) finds the region
 * by a key in the thread's name cache: a registered string's handle, or
 * an ASCII message in read-only memory when the domain adds no prefix -
 * each always the same region.  The first push at a site, or one with
 * another message, finds the region as below and teaches the recorder
 * the key.
 */
static const void *attr_key(const struct nvtx_domain *d,
			    const struct nvtx_event_attributes *a)
{
	if (SBT_UNLIKELY(a == NULL))
		return NULL;
	if (a->message_type == MSG_REGISTERED)
		return a->message.registered;
	if (a->message_type == MSG_ASCII && !dom_prefix(d))
		return a->message.ascii;
	return NULL;
}

static __attribute__((noinline)) int
push_a_lookup(const char *msg, const void *site)
{
	const void *key;
	sbt_id id = sbt_api_name_keyed(msg, -1, NULL, SBT_API_NVTX, site, &key);

	return sbt_api_push_key(NULL, id, key, site);
}

/* The slow paths skip (or record) a sampled region's push first, calling
 * nothing but the lookup, last: few registers to save. */
static __attribute__((noinline)) int
push_a_slow(const char *msg, const void *site)
{
	int r;

	if (msg && (r = sbt_api_begin_fast(NULL, msg, site, 1)) != SBT_API_SLOW)
		return r;
	return push_a_lookup(msg, site);
}

static __attribute__((noinline)) int
push_ex_lookup(const struct nvtx_domain *d,
	       const struct nvtx_event_attributes *a, const void *site)
{
	const void *key = NULL;
	sbt_id id;

	if (a && a->message_type == MSG_ASCII && !dom_prefix(d))
		id = sbt_api_name_keyed(a->message.ascii, -1, NULL,
					SBT_API_NVTX, site, &key);
	else if ((id = attr_id(d, a, site)) != 0 &&
		 a->message_type == MSG_REGISTERED)
		key = a->message.registered;
	return sbt_api_push_key(d, id, key, site);
}

static __attribute__((noinline)) int
push_ex_slow(const struct nvtx_domain *d,
	     const struct nvtx_event_attributes *a, const void *site)
{
	const void *key = attr_key(d, a);
	int r;

	if (key && (r = sbt_api_begin_fast(d, key, site, 1)) != SBT_API_SLOW)
		return r;
	return push_ex_lookup(d, a, site);
}

static inline __attribute__((always_inline)) int
push_ex(const struct nvtx_domain *d, const struct nvtx_event_attributes *a,
	const void *site)
{
	const void *key = attr_key(d, a);
	int r;

	if (SBT_LIKELY(key != NULL) &&
	    (r = sbt_api_begin_fast(d, key, site, 0)) != SBT_API_SLOW)
		return r;
	return push_ex_slow(d, a, site);
}

static int range_push_a(const char *msg)
{
	const void *site = __builtin_return_address(0);
	int r;

	if (SBT_LIKELY(msg != NULL) &&
	    (r = sbt_api_begin_fast(NULL, msg, site, 0)) != SBT_API_SLOW)
		return r;
	return push_a_slow(msg, site);
}

static int range_push_ex(const struct nvtx_event_attributes *a)
{
	return push_ex(NULL, a, __builtin_return_address(0));
}

static int range_pop(void) { return pop_dom(NULL); }

static int domain_range_push_ex(struct nvtx_domain *d,
				const struct nvtx_event_attributes *a)
{
	return push_ex(d, a, __builtin_return_address(0));
}

static int domain_range_pop(struct nvtx_domain *d) { return pop_dom(d); }

/* ---- start / end ----------------------------------------------------------- */

static uint32_t next_token = 1;
static uint32_t thread_token(void)
{
	struct sbt_api_stack *st = sbt_api_stack();

	if (!st)
		return 0;
	if (!st->token)
		st->token = __atomic_fetch_add(&next_token, 1, __ATOMIC_RELAXED);
	return st->token;
}

/* Range id: (thread token << 32) | region id; 0 when nothing started. */
static uint64_t start_id(sbt_id id, const void *site)
{
	if (!id || sbt_hot_start_id(id, site) != SBT_OK)
		return 0;
	return (uint64_t)thread_token() << 32 | id;
}

static void end_id(uint64_t rid)
{
	uint32_t aux;
	uint64_t t1 = sbt_hot_stop_clock(&aux);      /* before any bookkeeping */

	if (rid == 0)
		return;                  /* its start was not recorded         */
	if ((uint32_t)(rid >> 32) != thread_token()) {
		sbt_count(SBT_CNT_CROSSED);
		sbt_warn("NVTX: a start/end range ended on another thread "
			 "than it started on; such ranges are not recorded");
		return;
	}
	(void)sbt_hot_stop_id_at((sbt_id)rid, t1, aux);
}

static uint64_t range_start_a(const char *msg)
{
	const void *site = __builtin_return_address(0);
	return start_id(sbt_api_name_id(msg, -1, NULL, SBT_API_NVTX, site),
			site);
}

static uint64_t range_start_ex(const struct nvtx_event_attributes *a)
{
	const void *site = __builtin_return_address(0);
	return start_id(attr_id(NULL, a, site), site);
}

static void range_end(uint64_t rid) { end_id(rid); }

static uint64_t domain_range_start_ex(struct nvtx_domain *d,
				      const struct nvtx_event_attributes *a)
{
	const void *site = __builtin_return_address(0);
	return start_id(attr_id(d, a, site), site);
}

static void domain_range_end(struct nvtx_domain *d, uint64_t rid)
{
	(void)d;
	end_id(rid);
}

/* ---- domains and registered strings (cold) -------------------------------- */

static void dom_init(void *o, const char *name, const void *owner,
		     const void *arg)
{
	struct nvtx_domain *d = o;
	(void)owner, (void)arg;
	d->name = (char *)name;
	d->prefix = want_prefix() ? d->name : NULL;
}

static struct nvtx_domain *domain_create_a(const char *name)
{
	return sbt_api_object(&domains, NULL, name, sizeof(struct nvtx_domain),
			      dom_init, NULL);
}

/* Handles stay valid for the process: other libraries' instances may
 * share the domain. */
static void domain_destroy(struct nvtx_domain *d) { (void)d; }

/* The region is interned at registration (`arg`: the registering call
 * site; ranges named by the handle take their own sites as they start). */
static void str_init(void *o, const char *name, const void *owner,
		     const void *arg)
{
	struct nvtx_string *s = o;
	s->str = (char *)name;
	s->dom = owner;
	s->id = sbt_api_intern(dom_prefix(owner), name, (size_t)-1,
			       SBT_API_NVTX, arg);
}

static struct nvtx_string *domain_register_string_a(struct nvtx_domain *d,
						    const char *str)
{
	return sbt_api_object(&strings, d, str, sizeof(struct nvtx_string),
			      str_init, __builtin_return_address(0));
}

/* ---- attaching to an NVTX instance ---------------------------------------- */

struct slot { int cbid; nvtx_fn fn; };

static const struct slot core_slots[] = {
	{ CORE_RangeStartEx, (nvtx_fn)range_start_ex },
	{ CORE_RangeStartA,  (nvtx_fn)range_start_a },
	{ CORE_RangeEnd,     (nvtx_fn)range_end },
	{ CORE_RangePushEx,  (nvtx_fn)range_push_ex },
	{ CORE_RangePushA,   (nvtx_fn)range_push_a },
	{ CORE_RangePop,     (nvtx_fn)range_pop },
};

static const struct slot core2_slots[] = {
	{ CORE2_DomainRangeStartEx,    (nvtx_fn)domain_range_start_ex },
	{ CORE2_DomainRangeEnd,        (nvtx_fn)domain_range_end },
	{ CORE2_DomainRangePushEx,     (nvtx_fn)domain_range_push_ex },
	{ CORE2_DomainRangePop,        (nvtx_fn)domain_range_pop },
	{ CORE2_DomainRegisterStringA, (nvtx_fn)domain_register_string_a },
	{ CORE2_DomainCreateA,         (nvtx_fn)domain_create_a },
	{ CORE2_DomainDestroy,         (nvtx_fn)domain_destroy },
};

/* Point the instance's pointers for `module` at ours.  0 on failure. */
static int attach(const struct nvtx_callbacks *cb, int module,
		  const struct slot *s, size_t n)
{
	nvtx_fn **table = NULL;
	unsigned int size = 0;

	if (!cb->get_module_function_table(module, &table, &size) || !table)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned)s[i].cbid < size && table[s[i].cbid])
			*table[s[i].cbid] = s[i].fn;
	return 1;
}

SBT_API int InitializeInjectionNvtx2(nvtx_get_export_table get)
{
	const struct nvtx_callbacks *cb;
	const struct nvtx_version_info *vi;

	if (!get)
		return 0;
	cb = get(ETID_CALLBACKS);
	if (!cb || cb->struct_size < sizeof *cb || !cb->get_module_function_table)
		return 0;
	vi = get(ETID_VERSIONINFO);
	if (vi && vi->struct_size >= sizeof *vi && vi->set_injection_nvtx_version)
		vi->set_injection_nvtx_version(2);
	if (!attach(cb, CB_MODULE_CORE, core_slots,
		    sizeof core_slots / sizeof core_slots[0]) ||
	    !attach(cb, CB_MODULE_CORE2, core2_slots,
		    sizeof core2_slots / sizeof core2_slots[0]))
		return 0;
	(void)sbt_rec_init();
	return 1;
}

/* This API in the table (api.h, api/meson.build). */
const struct sbt_api_desc sbt_api_nvtx = {
	.id = SBT_API_NVTX,
	.name = "nvtx",
	.symbols = "nvtx",
	.env = "SBT_NVTX_DOMAIN_PREFIX",
	.at_exit = NULL,
};
