/*
 * nvtx_instance.c - one NVTX instance (see nvtx_instance.h).  Build with
 * -DNVTX_LIB_ENTRY=nvtx_lib_a (or _b) into its own shared library; all
 * other symbols are hidden, like the real header's.
 *
 * Reproduced from the ABI because the injection depends on it:
 *   - every API function calls through a pointer that starts at an init
 *     function; the first call of any runs the one-time init;
 *   - init reads NVTX_INJECTION64_PATH, dlopen()s it, looks up
 *     InitializeInjectionNvtx2 and calls it with this instance's
 *     GetExportTable; then every pointer still at its init function is
 *     set to NULL (no-op);
 *   - GetExportTable(1) returns {struct_size, GetModuleFunctionTable};
 *     GetExportTable(3) returns the version info; GetModuleFunctionTable
 *     gives, per module, an array of pointers to this instance's
 *     function pointers indexed by callback id, with size = entries - 1
 *     (index 0 unused; the array ends with NULL);
 *   - nvtxEventAttributes_v2 layout, messages ASCII or registered.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "nvtx_instance.h"

#pragma GCC visibility push(hidden)

typedef void (*fnp)(void);

struct attrs {                          /* nvtxEventAttributes_v2 */
	uint16_t version, size;
	uint32_t category;
	int32_t  color_type;
	uint32_t color;
	int32_t  payload_type, reserved0;
	uint64_t payload;
	int32_t  message_type;
	union { const char *ascii; const void *registered; } message;
};

static struct attrs make_attrs(int type, const void *msg)
{
	struct attrs a;
	memset(&a, 0, sizeof a);
	a.version = 2;
	a.size = (uint16_t)sizeof a;
	a.message_type = type;               /* 1 ASCII, 3 registered */
	if (type == 1)
		a.message.ascii = msg;
	else
		a.message.registered = msg;
	return a;
}

/* Implementation pointers, in callback-id order of their module. */
static void init_once(void);
#define INIT_FN(ret, name, params, args, fallback)                      \
	static ret name##_init params;                                  \
	static ret (*name##_ptr) params = name##_init;                  \
	static ret name##_init params                                   \
	{ init_once(); return name##_ptr ? name##_ptr args : fallback; }

INIT_FN(void, MarkA, (const char *m), (m), (void)0)
INIT_FN(uint64_t, RangeStartEx, (const struct attrs *a), (a), 0)
INIT_FN(uint64_t, RangeStartA, (const char *m), (m), 0)
INIT_FN(void, RangeEnd, (uint64_t id), (id), (void)0)
INIT_FN(int, RangePushEx, (const struct attrs *a), (a), -2)
INIT_FN(int, RangePushA, (const char *m), (m), -2)
INIT_FN(int, RangePop, (void), (), -2)
INIT_FN(uint64_t, DomainRangeStartEx, (void *d, const struct attrs *a),
	(d, a), 0)
INIT_FN(void, DomainRangeEnd, (void *d, uint64_t id), (d, id), (void)0)
INIT_FN(int, DomainRangePushEx, (void *d, const struct attrs *a), (d, a), -2)
INIT_FN(int, DomainRangePop, (void *d), (d), -2)
INIT_FN(void *, DomainRegisterStringA, (void *d, const char *s), (d, s), NULL)
INIT_FN(void *, DomainCreateA, (const char *n), (n), NULL)
INIT_FN(void, DomainDestroy, (void *d), (d), (void)0)

/* NvtxCallbackIdCore: 1 MarkEx .. 15 NameOsThreadW; size 16. */
static fnp *table_core[17] = {
	[2]  = (fnp *)&MarkA_ptr,
	[4]  = (fnp *)&RangeStartEx_ptr,
	[5]  = (fnp *)&RangeStartA_ptr,
	[7]  = (fnp *)&RangeEnd_ptr,
	[8]  = (fnp *)&RangePushEx_ptr,
	[9]  = (fnp *)&RangePushA_ptr,
	[11] = (fnp *)&RangePop_ptr,
};
/* NvtxCallbackIdCore2: 1 DomainMarkEx .. 15 Initialize; size 16. */
static fnp *table_core2[17] = {
	[2]  = (fnp *)&DomainRangeStartEx_ptr,
	[3]  = (fnp *)&DomainRangeEnd_ptr,
	[4]  = (fnp *)&DomainRangePushEx_ptr,
	[5]  = (fnp *)&DomainRangePop_ptr,
	[10] = (fnp *)&DomainRegisterStringA_ptr,
	[12] = (fnp *)&DomainCreateA_ptr,
	[14] = (fnp *)&DomainDestroy_ptr,
};
/* The real tables have a slot for every id; unlisted ones point at a
 * pointer the injection may fill and we never call. */
static fnp unused_slots[2][17];

static int get_module_function_table(int module, fnp ***out,
				     unsigned int *size)
{
	fnp **t;
	switch (module) {
	case 1: t = table_core; break;           /* NVTX_CB_MODULE_CORE  */
	case 5: t = table_core2; break;          /* NVTX_CB_MODULE_CORE2 */
	default: return 0;
	}
	for (int i = 1; i < 16; i++)
		if (!t[i])
			t[i] = &unused_slots[t == table_core2][i];
	if (size)
		*size = 16;      /* NVTX_CBID_*_SIZE: entries - 1 */
	if (out)
		*out = t;
	return 1;
}

static void set_injection_version(uint32_t v) { (void)v; }

static const struct { size_t size; void *fn; } etbl_callbacks =
	{ sizeof etbl_callbacks, (void *)get_module_function_table };
static const struct {
	size_t size; uint32_t version, reserved0; void *fn;
} etbl_version = { sizeof etbl_version, 3, 0,
		   (void *)set_injection_version };

static const void *get_export_table(uint32_t id)
{
	return id == 1 ? (const void *)&etbl_callbacks :
	       id == 3 ? (const void *)&etbl_version : NULL;
}

static int inits;

/* nvtxInitOnce (single-threaded here: the tests call from one thread). */
static void init_once(void)
{
	static int done;
	const char *path = getenv("NVTX_INJECTION64_PATH");
	void *h;
	int (*init)(const void *(*)(uint32_t)) = NULL;
	int ok = 0;

	if (done)
		return;
	done = 1;
	if (path && (h = dlopen(path, RTLD_LAZY)) &&
	    (init = (int (*)(const void *(*)(uint32_t)))
		dlsym(h, "InitializeInjectionNvtx2")))
		ok = init(get_export_table);
	inits += ok;
#define NOOP(name) if (!ok || name##_ptr == name##_init) name##_ptr = NULL
	NOOP(MarkA); NOOP(RangeStartEx); NOOP(RangeStartA); NOOP(RangeEnd);
	NOOP(RangePushEx); NOOP(RangePushA); NOOP(RangePop);
	NOOP(DomainRangeStartEx); NOOP(DomainRangeEnd);
	NOOP(DomainRangePushEx); NOOP(DomainRangePop);
	NOOP(DomainRegisterStringA); NOOP(DomainCreateA); NOOP(DomainDestroy);
}

/* The public inline functions' shape (nvtxImplCore.h). */
static int push_a(const char *m)
{ return RangePushA_ptr ? RangePushA_ptr(m) : -2; }
static int push_ex_ascii(const char *m)
{ struct attrs a = make_attrs(1, m);
  return RangePushEx_ptr ? RangePushEx_ptr(&a) : -2; }
static int pop(void) { return RangePop_ptr ? RangePop_ptr() : -2; }
static uint64_t start_a(const char *m)
{ return RangeStartA_ptr ? RangeStartA_ptr(m) : 0; }
static void end(uint64_t id) { if (RangeEnd_ptr) RangeEnd_ptr(id); }
static void *domain_create(const char *n)
{ return DomainCreateA_ptr ? DomainCreateA_ptr(n) : NULL; }
static void *register_string(void *d, const char *s)
{ return DomainRegisterStringA_ptr ? DomainRegisterStringA_ptr(d, s) : NULL; }
static int domain_push_registered(void *d, void *s)
{ struct attrs a = make_attrs(3, s);
  return DomainRangePushEx_ptr ? DomainRangePushEx_ptr(d, &a) : -2; }
static int domain_push_ascii(void *d, const char *m)
{ struct attrs a = make_attrs(1, m);
  return DomainRangePushEx_ptr ? DomainRangePushEx_ptr(d, &a) : -2; }
static int domain_pop(void *d)
{ return DomainRangePop_ptr ? DomainRangePop_ptr(d) : -2; }
static uint64_t domain_start_registered(void *d, void *s)
{ struct attrs a = make_attrs(3, s);
  return DomainRangeStartEx_ptr ? DomainRangeStartEx_ptr(d, &a) : 0; }
static void domain_end(void *d, uint64_t id)
{ if (DomainRangeEnd_ptr) DomainRangeEnd_ptr(d, id); }
static void mark_a(const char *m) { if (MarkA_ptr) MarkA_ptr(m); }
static int init_calls(void) { return inits; }

static const struct nvtx_api api = {
	push_a, push_ex_ascii, pop, start_a, end, domain_create,
	register_string, domain_push_registered, domain_push_ascii,
	domain_pop, domain_start_registered, domain_end, mark_a, init_calls,
};

#pragma GCC visibility pop

__attribute__((visibility("default")))
const struct nvtx_api *NVTX_LIB_ENTRY(void) { return &api; }
