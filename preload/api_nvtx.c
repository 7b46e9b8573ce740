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
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hot.h"

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
	struct nvtx_domain *link;
};

/* nvtxStringHandle_t points at one of these: interned at registration, so
 * a range named by a registered string costs one load to resolve. */
struct nvtx_string {
	sbt_id id;
	const struct nvtx_domain *dom;
	char *str;
	struct nvtx_string *link;
};

static pthread_mutex_t nvtx_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nvtx_domain *domains;
static struct nvtx_string *strings;

/* In api_likwid.c: region id of a name at a call site, per-thread cache. */
SBT_HIDDEN sbt_id sbt_api_name_id(const char *s, int len, const char *prefix,
				  unsigned api, const void *site);

static int want_prefix(void)
{
	const char *e = getenv("SBT_NVTX_DOMAIN_PREFIX");
	return e && *e && *e != '0';
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

/* ---- push / pop: a per-thread stack of (domain, id) ---------------------- */

/*
 * Pop names a domain, not a range: it ends that domain's innermost pushed
 * range on this thread.  Keeping (domain, id) here lets pop stop exactly
 * that region even when domains interleave, and pairs pops with pushes
 * that could not be recorded (id 0).  Deeper than RSTACK: counted and not
 * recorded, but still paired.
 */
#define RSTACK 32

struct rstack {
	uint32_t n;
	uint32_t token;              /* this thread's start/end range token  */
	struct { const struct nvtx_domain *dom; sbt_id id; } e[RSTACK];
};

static struct rstack *rstack(void)
{
	return sbt_rec_api_state(SBT_SLOT_NVTX, sizeof(struct rstack), NULL);
}

static int push_id(const struct nvtx_domain *d, sbt_id id, const void *site)
{
	struct rstack *rs = rstack();

	if (!rs)
		return -1;
	uint32_t n = rs->n++;

	if (n >= RSTACK) {
		sbt_count(SBT_CNT_TOO_DEEP);
		return (int)n;
	}
	rs->e[n].dom = d;
	rs->e[n].id = id && sbt_hot_start_id(id, site) == SBT_OK ? id : 0;
	return (int)n;               /* 0-based level of the new range      */
}

static int pop_dom(const struct nvtx_domain *d)
{
	struct rstack *rs = rstack();
	sbt_id id;

	if (!rs)
		return -1;
	uint32_t i = rs->n;

	if (i == 0) {
		sbt_count(SBT_CNT_STOP_WITHOUT_START);
		return -1;
	}
	if (i > RSTACK)
		return (int)--rs->n;
	while (i > 0 && rs->e[i - 1].dom != d)
		i--;
	if (i == 0) {
		sbt_count(SBT_CNT_STOP_WITHOUT_START);
		return -1;
	}
	id = rs->e[i - 1].id;
	memmove(&rs->e[i - 1], &rs->e[i], (rs->n - i) * sizeof rs->e[0]);
	rs->n--;
	if (id)
		(void)sbt_hot_stop_id(id);
	return (int)i - 1;           /* level of the range ended            */
}

static int range_push_a(const char *msg)
{
	const void *site = __builtin_return_address(0);
	return push_id(NULL, sbt_api_name_id(msg, -1, NULL, SBT_API_NVTX, site),
		       site);
}

static int range_push_ex(const struct nvtx_event_attributes *a)
{
	const void *site = __builtin_return_address(0);
	return push_id(NULL, attr_id(NULL, a, site), site);
}

static int range_pop(void) { return pop_dom(NULL); }

static int domain_range_push_ex(struct nvtx_domain *d,
				const struct nvtx_event_attributes *a)
{
	const void *site = __builtin_return_address(0);
	return push_id(d, attr_id(d, a, site), site);
}

static int domain_range_pop(struct nvtx_domain *d) { return pop_dom(d); }

/* ---- start / end ----------------------------------------------------------- */

static uint32_t next_token = 1;
static uint32_t thread_token(void)
{
	struct rstack *rs = rstack();

	if (!rs)
		return 0;
	if (!rs->token)
		rs->token = __atomic_fetch_add(&next_token, 1, __ATOMIC_RELAXED);
	return rs->token;
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
	if (rid == 0)
		return;                  /* its start was not recorded         */
	if ((uint32_t)(rid >> 32) != thread_token()) {
		sbt_count(SBT_CNT_CROSSED);
		sbt_warn("NVTX: a start/end range ended on another thread "
			     "than it started on; such ranges are not recorded");
		return;
	}
	(void)sbt_hot_stop_id((sbt_id)rid);
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

static struct nvtx_domain *domain_create_a(const char *name)
{
	struct nvtx_domain *d;

	if (!name)
		return NULL;
	pthread_mutex_lock(&nvtx_lock);
	for (d = domains; d; d = d->link)
		if (!strcmp(d->name, name))
			break;
	if (!d && (d = calloc(1, sizeof *d)) != NULL) {
		if ((d->name = strdup(name)) == NULL) {
			free(d);
			d = NULL;
		} else {
			d->prefix = want_prefix() ? d->name : NULL;
			d->link = domains;
			domains = d;
		}
	}
	pthread_mutex_unlock(&nvtx_lock);
	return d;
}

static sbt_id intern_str(const char *prefix, const char *str, const void *site)
{
	char buf[1024];
	int k;

	if (!prefix)
		return sbt_rec_intern(str, (size_t)-1, SBT_API_NVTX, site);
	k = snprintf(buf, sizeof buf, "%s/%s", prefix, str);
	if (k < 0 || (size_t)k >= sizeof buf)
		return sbt_rec_intern(NULL, 0, SBT_API_NVTX, site); /* counted */
	return sbt_rec_intern(buf, (size_t)k, SBT_API_NVTX, site);
}

/* Handles stay valid for the process: other libraries' instances may
 * share the domain. */
static void domain_destroy(struct nvtx_domain *d) { (void)d; }

static struct nvtx_string *domain_register_string_a(struct nvtx_domain *d,
						    const char *str)
{
	const void *site = __builtin_return_address(0);
	struct nvtx_string *s;

	if (!str)
		return NULL;
	pthread_mutex_lock(&nvtx_lock);
	for (s = strings; s; s = s->link)
		if (s->dom == d && !strcmp(s->str, str))
			break;
	if (!s && (s = calloc(1, sizeof *s)) != NULL) {
		if ((s->str = strdup(str)) == NULL) {
			free(s);
			s = NULL;
		} else {
			s->dom = d;
			s->id = intern_str(dom_prefix(d), s->str, site);
			s->link = strings;
			strings = s;
		}
	}
	pthread_mutex_unlock(&nvtx_lock);
	return s;
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
