/*
 * api_caliper.c - Caliper's C annotation API (libcaliper 2.x), interposed.
 *
 * An app annotated with Caliper's macros (cali_macros.h) calls the C entry
 * points below in libcaliper; with libsbtmark.so preloaded our
 * definitions win symbol resolution, as for LIKWID and PAPI-HL, and each
 * call is then passed on to libcaliper (api_next.h), so that Caliper's
 * own report and its RegionProfile values are whole.  Signatures and the macros'
 * expansions are those of Caliper's include/caliper/cali.h and
 * cali_macros.h (2.x; the 2.0-2.2 macros too).
 *
 *   CALI_MARK_BEGIN/END, _FUNCTION_BEGIN/END   cali_begin/end_region
 *   CALI_MARK_PHASE_BEGIN/END                  cali_begin/end_phase
 *   CALI_MARK_COMM_REGION_BEGIN/END            cali_begin/end_comm_region
 *       a region named by the argument; end names what it ends, so it is
 *       our STOP by name, with the recorder's misuse rules (not open: a
 *       STOP without START; not innermost: crossed nesting)
 *   CALI_MARK_LOOP_BEGIN/END                   cali_begin_string /
 *                                              cali_end on the exported
 *                                              cali_loop_attr_id
 *   CALI_MARK_ITERATION_BEGIN/END              cali_begin_int / cali_end
 *                                              on the attribute of
 *                                              cali_make_loop_iteration_
 *                                              attribute(name)
 *   cali_begin(_int|_double|_string)(_byname), cali_end(_byname),
 *   cali_safe_end_string                       the attribute API
 *
 * Attribute API: cali_end(attr) ends the innermost region begun under
 * that attribute on the calling thread (api_common.h's stack keyed by the
 * attribute), as Caliper's blackboard does.  Region names:
 *   - a string value of the built-in region-like attributes (region,
 *     phase, comm.region, annotation, function, statement) is the name;
 *   - a string value V of any other attribute A (the loop attribute
 *     "loop" included) names region "A/V";
 *   - begin without a value, or with a number, names region A: the
 *     iterations of loop L are samples of region "iteration#L" - a
 *     number is a value, not a region of its own.
 * cali_safe_end_string whose value is not the innermost one's is refused
 * and counted as a STOP without START (Caliper refuses it too).
 *
 * Attributes: with libcaliper after us, the app holds libcaliper's ids
 * (it passes them to calls we do not interpose: set, snapshot, channels,
 * configuration), and a table maps each to our attribute of the same
 * name; the exported cali_*_attr_id variables, ours by interposition,
 * start invalid, so the macros call cali_init() and libcaliper stores its
 * own ids there (mapped back to the built-ins).  Without libcaliper the
 * ids are ours: CL_ID_BASE + index, far from Caliper's own small ids, in
 * a fixed table, and the variables hold ours from the start.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "api.h"
#include "api_common.h"
#include "api_next.h"

#define RA() __builtin_return_address(0)

/* From Caliper's common/cali_types.h (not required to build sbtmark). */
typedef uint64_t cali_id_t;
#define CALI_INV_ID    0xFFFFFFFFFFFFFFFFull
enum { CALI_TYPE_INV = 0, CALI_TYPE_INT = 2, CALI_TYPE_STRING = 4,
       CALI_TYPE_DOUBLE = 6, CALI_TYPE_BOOL = 7 };
enum { CALI_ATTR_DEFAULT = 0, CALI_ATTR_ASVALUE = 1,
       CALI_ATTR_NESTED = 256 };

#define CL_ID_BASE 0x5b7ca11000000000ull
#define CL_ATTRS   4096          /* attributes per process              */
#define CL_HASH    (2 * CL_ATTRS)

/* ---- attributes ----------------------------------------------------------- */

struct cl_attr {
	const char *name;        /* immutable once published            */
	const char *prefix;      /* string values name "prefix/value";
				    NULL: the value is the name         */
	int type, props;
	uint32_t index;          /* its id is CL_ID_BASE + index        */
};

enum { B_REGION, B_PHASE, B_COMM, B_LOOP, B_ANNOTATION, B_FUNCTION,
       B_STATEMENT, B__N };

static struct cl_attr builtin[B__N] = {
#define BUILTIN(i, name, prefix) \
	[i] = { name, prefix, CALI_TYPE_STRING, CALI_ATTR_NESTED, i }
	BUILTIN(B_REGION, "region", NULL),
	BUILTIN(B_PHASE, "phase", NULL),
	BUILTIN(B_COMM, "comm.region", NULL),
	BUILTIN(B_LOOP, "loop", "loop"),
	BUILTIN(B_ANNOTATION, "annotation", NULL),
	BUILTIN(B_FUNCTION, "function", NULL),
	BUILTIN(B_STATEMENT, "statement", NULL),
#undef BUILTIN
};

/* The ids Caliper's headers name as variables (api.cpp; older releases
 * the last three).  The macros read them; see the top comment. */
SBT_API cali_id_t cali_region_attr_id = CL_ID_BASE + B_REGION;
SBT_API cali_id_t cali_phase_attr_id = CL_ID_BASE + B_PHASE;
SBT_API cali_id_t cali_loop_attr_id = CL_ID_BASE + B_LOOP;
SBT_API cali_id_t cali_annotation_attr_id = CL_ID_BASE + B_ANNOTATION;
SBT_API cali_id_t cali_function_attr_id = CL_ID_BASE + B_FUNCTION;
SBT_API cali_id_t cali_statement_attr_id = CL_ID_BASE + B_STATEMENT;

/* The built-ins' variables (comm.region has none). */
static cali_id_t *const exported[B__N] = {
	[B_REGION] = &cali_region_attr_id, [B_PHASE] = &cali_phase_attr_id,
	[B_LOOP] = &cali_loop_attr_id,
	[B_ANNOTATION] = &cali_annotation_attr_id,
	[B_FUNCTION] = &cali_function_attr_id,
	[B_STATEMENT] = &cali_statement_attr_id,
};

/* attrs[0 .. nattrs) are published (release) before nattrs covers them;
 * the first B__N are the built-ins.  byname[] holds the created ones by
 * name hash (open addressing), filled under `lock`, read without it. */
static struct cl_attr *attrs[CL_ATTRS] = {
	&builtin[0], &builtin[1], &builtin[2], &builtin[3], &builtin[4],
	&builtin[5], &builtin[6],
};
static uint32_t nattrs = B__N;
static struct cl_attr *byname[CL_HASH];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* libcaliper's ids of our attributes: slot `attr` is stored (release)
 * before `id`, under `lock`; read without it. */
static struct { cali_id_t id; struct cl_attr *attr; } real[CL_HASH];

/* libcaliper is there: its entry points follow ours. */
static int forwarding;

/* Before main: with libcaliper after us, the exported ids start
 * invalid (unless it stored its own already), as in libcaliper. */
__attribute__((constructor)) static void cl_setup(void)
{
	if (!dlsym(RTLD_NEXT, "cali_begin_region"))
		return;
	forwarding = 1;
	for (int i = 0; i < B__N; i++)
		if (exported[i] && *exported[i] == CL_ID_BASE + (cali_id_t)i)
			*exported[i] = CALI_INV_ID;
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static cali_id_t attr_id_of(const struct cl_attr *a)
{
	return CL_ID_BASE + a->index;
}

/* The attribute named `name`, NULL if none. */
static struct cl_attr *find(const char *name)
{
	uint32_t h;

	if (!name)
		return NULL;
	for (int i = 0; i < B__N; i++)
		if (!strcmp(builtin[i].name, name))
			return &builtin[i];
	h = name_hash(name);
	for (uint32_t k = 0; k < CL_HASH; k++) {
		struct cl_attr *a = __atomic_load_n(&byname[(h + k) % CL_HASH],
						    __ATOMIC_ACQUIRE);
		if (!a)
			return NULL;
		if (!strcmp(a->name, name))
			return a;
	}
	return NULL;
}

/* Cold: the attribute named `name`, made with (type, props) if new.
 * NULL (a bad name, counted) when out of room or memory. */
static __attribute__((noinline)) struct cl_attr *make(const char *name,
						      int type, int props)
{
	struct cl_attr *a;
	uint32_t h, i, k;

	if (!name || !*name) {
		sbt_count(SBT_CNT_BAD_NAME);
		return NULL;
	}
	pthread_mutex_lock(&lock);
	if ((a = find(name)))
		goto out;
	i = nattrs;
	if (i >= CL_ATTRS || !(a = calloc(1, sizeof *a)) ||
	    !(a->name = strdup(name))) {
		free(a);
		a = NULL;
		sbt_count(SBT_CNT_BAD_NAME);
		goto out;
	}
	a->prefix = a->name;
	a->type = type;
	a->props = props;
	a->index = i;
	h = name_hash(name);
	for (k = 0; __atomic_load_n(&byname[(h + k) % CL_HASH],
				    __ATOMIC_RELAXED); k++)
		;                       /* at most CL_ATTRS of CL_HASH used */
	__atomic_store_n(&attrs[i], a, __ATOMIC_RELEASE);
	__atomic_store_n(&nattrs, i + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&byname[(h + k) % CL_HASH], a, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&lock);
	return a;
}

static struct cl_attr *find_or_make(const char *name, int type, int props)
{
	struct cl_attr *a = find(name);
	return a ? a : make(name, type, props);
}

static uint32_t id_hash(cali_id_t id)
{
	return (uint32_t)((id * 0x9e3779b97f4a7c15ull) >> 40);
}

/* Remember that libcaliper's `id` is our a (first one wins). */
static void real_put(cali_id_t id, struct cl_attr *a)
{
	uint32_t h = id_hash(id);

	if (!a || id == CALI_INV_ID)
		return;
	pthread_mutex_lock(&lock);
	for (uint32_t k = 0; k < CL_HASH; k++) {
		uint32_t j = (h + k) % CL_HASH;
		cali_id_t have = __atomic_load_n(&real[j].id,
						 __ATOMIC_RELAXED);
		if (have == id)
			break;
		if (have == 0) {
			__atomic_store_n(&real[j].attr, a, __ATOMIC_RELAXED);
			__atomic_store_n(&real[j].id, id, __ATOMIC_RELEASE);
			break;
		}
	}
	pthread_mutex_unlock(&lock);
}

static struct cl_attr *real_get(cali_id_t id)
{
	uint32_t h = id_hash(id);

	for (uint32_t k = 0; k < CL_HASH; k++) {
		uint32_t j = (h + k) % CL_HASH;
		cali_id_t have = __atomic_load_n(&real[j].id,
						 __ATOMIC_ACQUIRE);
		if (have == id)
			return __atomic_load_n(&real[j].attr,
					       __ATOMIC_RELAXED);
		if (have == 0)
			return NULL;
	}
	return NULL;
}

static struct cl_attr *find_or_make(const char *name, int type, int props);

/* libcaliper's id that no call of ours handed out (its C++ API made the
 * attribute): ours of the same name, from libcaliper's answers. */
static __attribute__((noinline)) struct cl_attr *by_real_id(cali_id_t id)
{
	const char *(*name)(cali_id_t) =
		(const char *(*)(cali_id_t))dlsym(RTLD_NEXT,
						  "cali_attribute_name");
	int (*type)(cali_id_t) =
		(int (*)(cali_id_t))dlsym(RTLD_NEXT, "cali_attribute_type");
	int (*props)(cali_id_t) =
		(int (*)(cali_id_t))dlsym(RTLD_NEXT,
					  "cali_attribute_properties");
	const char *n = name ? name(id) : NULL;
	struct cl_attr *a;

	if (!n)
		return NULL;
	a = find_or_make(n, type ? type(id) : CALI_TYPE_STRING,
			 props ? props(id) : CALI_ATTR_DEFAULT);
	real_put(id, a);
	return a;
}

/* The attribute of id `id`, NULL if unknown. */
static inline struct cl_attr *by_id(cali_id_t id)
{
	uint64_t i = id - CL_ID_BASE;
	struct cl_attr *a;

	if (SBT_LIKELY(i < __atomic_load_n(&nattrs, __ATOMIC_ACQUIRE)))
		return __atomic_load_n(&attrs[i], __ATOMIC_ACQUIRE);
	if (id == CALI_INV_ID)
		return NULL;
	/* libcaliper's own ids, stored into the variables we export */
	for (int b = 0; b < B__N; b++)
		if (exported[b] && id == *exported[b])
			return &builtin[b];
	if ((a = real_get(id)) || !forwarding)
		return a;
	return by_real_id(id);
}

/* ---- begin / end under an attribute ---------------------------------------- */

/* Begin region `id` (0: counted already) under attribute a. */
static inline void attr_begin(const struct cl_attr *a, sbt_id id,
			      const void *ra)
{
	if (SBT_LIKELY(a != NULL))
		(void)sbt_api_push(a, id, ra);
	else
		sbt_count(SBT_CNT_BAD_NAME);
}

/* Region named by attribute a itself (no value, or a number). */
static inline sbt_id attr_region(const struct cl_attr *a, const void *ra)
{
	return a ? sbt_api_name_id(a->name, -1, NULL, SBT_API_CALIPER, ra) : 0;
}

/* Region named by string value v of attribute a. */
static inline sbt_id value_region(const struct cl_attr *a, const char *v,
				  const void *ra)
{
	return a ? sbt_api_name_id(v, -1, a->prefix, SBT_API_CALIPER, ra) : 0;
}

/* End the innermost region under a, the clock read as (t1, aux) before
 * a was found (by id: two loads; by name: a hash and a compare, none of
 * it the region's); counted when there is none. */
static inline void attr_end(const struct cl_attr *a, uint64_t t1,
			    uint32_t aux)
{
	if (SBT_LIKELY(a != NULL))
		(void)sbt_api_pop_at(a, t1, aux);
	else
		sbt_count(SBT_CNT_STOP_WITHOUT_START);
}

/* Begin the region named by attribute a itself.  An attribute is never
 * freed or renamed once published, so it is its region's key in the
 * thread's name cache (api_common.h: sbt_api_begin_fast); its first
 * begin at a site, or a sampled region's, comes here. */
static __attribute__((noinline)) void
attr_begin_lookup(const struct cl_attr *a, const void *ra)
{
	if (SBT_LIKELY(a != NULL))
		(void)sbt_api_push_key(a, attr_region(a, ra), a, ra);
	else
		sbt_count(SBT_CNT_BAD_NAME);
}

static __attribute__((noinline)) void
attr_begin_slow(const struct cl_attr *a, const void *ra)
{
	if (a && sbt_api_begin_fast(a, a, ra, 1) != SBT_API_SLOW)
		return;                /* a sampled region's, skipped or not */
	attr_begin_lookup(a, ra);
}

static inline __attribute__((always_inline)) void
attr_begin_self(const struct cl_attr *a, const void *ra)
{
	if (SBT_UNLIKELY(a == NULL) ||
	    sbt_api_begin_fast(a, a, ra, 0) == SBT_API_SLOW)
		attr_begin_slow(a, ra);
}

/* Begins pass the call on first (libcaliper's work stays out of our
 * window), ends after our clock read.  ONLY_PASS: inside libcaliper's
 * own call, pass on and record nothing. */
#define FWD(name, ...) do {                                                  \
		__typeof__(&name) nx_ = SBT_NEXT(name);                     \
		if (nx_)                                                     \
			SBT_PASS(nx_(__VA_ARGS__));                          \
	} while (0)
#define ONLY_PASS(name, ...)                                                 \
	if (SBT_PASSING()) {                                                 \
		FWD(name, __VA_ARGS__);                                      \
		return;                                                      \
	}

SBT_API void cali_begin(cali_id_t attr)
{
	ONLY_PASS(cali_begin, attr);
	FWD(cali_begin, attr);
	attr_begin_self(by_id(attr), RA());
}

SBT_API void cali_begin_int(cali_id_t attr, int val)
{
	ONLY_PASS(cali_begin_int, attr, val);
	FWD(cali_begin_int, attr, val);
	attr_begin_self(by_id(attr), RA());
}

SBT_API void cali_begin_double(cali_id_t attr, double val)
{
	ONLY_PASS(cali_begin_double, attr, val);
	FWD(cali_begin_double, attr, val);
	attr_begin_self(by_id(attr), RA());
}

SBT_API void cali_begin_string(cali_id_t attr, const char *val)
{
	ONLY_PASS(cali_begin_string, attr, val);
	const void *ra = RA();
	struct cl_attr *a;

	FWD(cali_begin_string, attr, val);
	a = by_id(attr);
	attr_begin(a, value_region(a, val, ra), ra);
}

SBT_API void cali_end(cali_id_t attr)
{
	ONLY_PASS(cali_end, attr);
	uint32_t aux;
	uint64_t t1 = sbt_hot_stop_clock(&aux);

	attr_end(by_id(attr), t1, aux);
	FWD(cali_end, attr);
}

/* End under attr only if the innermost entry is val's region. */
static void safe_end(cali_id_t attr, const char *val, const void *ra)
{
	uint32_t aux;
	uint64_t t1 = sbt_hot_stop_clock(&aux);       /* before any lookup */
	struct cl_attr *a = by_id(attr);
	struct sbt_api_stack *st = sbt_api_stack();
	sbt_id id = value_region(a, val, ra);
	uint32_t i;

	if (!a || !st || !id) {
		sbt_count(SBT_CNT_STOP_WITHOUT_START);
		return;
	}
	i = st->n < SBT_API_DEPTH ? st->n : SBT_API_DEPTH;
	while (i > 0 && st->e[i - 1].key != a)
		i--;
	if (st->n > SBT_API_DEPTH || i == 0 || st->e[i - 1].id != id) {
		if (st->n > SBT_API_DEPTH)  /* overflow entries: unrecorded */
			st->n--;
		else
			sbt_count(SBT_CNT_STOP_WITHOUT_START);
		return;
	}
	(void)sbt_api_pop_inner(st, a, t1, aux);
}

SBT_API void cali_safe_end_string(cali_id_t attr, const char *val)
{
	ONLY_PASS(cali_safe_end_string, attr, val);
	safe_end(attr, val, RA());
	FWD(cali_safe_end_string, attr, val);
}

/* ---- by name ------------------------------------------------------------------ */

SBT_API void cali_begin_byname(const char *attr_name)
{
	ONLY_PASS(cali_begin_byname, attr_name);
	const void *ra = RA();
	struct cl_attr *a;

	FWD(cali_begin_byname, attr_name);
	a = find_or_make(attr_name, CALI_TYPE_BOOL, CALI_ATTR_DEFAULT);
	attr_begin(a, attr_region(a, ra), ra);
}

SBT_API void cali_begin_int_byname(const char *attr_name, int val)
{
	ONLY_PASS(cali_begin_int_byname, attr_name, val);
	const void *ra = RA();
	struct cl_attr *a;

	FWD(cali_begin_int_byname, attr_name, val);
	a = find_or_make(attr_name, CALI_TYPE_INT, CALI_ATTR_DEFAULT);
	attr_begin(a, attr_region(a, ra), ra);
}

SBT_API void cali_begin_double_byname(const char *attr_name, double val)
{
	ONLY_PASS(cali_begin_double_byname, attr_name, val);
	const void *ra = RA();
	struct cl_attr *a;

	FWD(cali_begin_double_byname, attr_name, val);
	a = find_or_make(attr_name, CALI_TYPE_DOUBLE, CALI_ATTR_DEFAULT);
	attr_begin(a, attr_region(a, ra), ra);
}

SBT_API void cali_begin_string_byname(const char *attr_name, const char *val)
{
	ONLY_PASS(cali_begin_string_byname, attr_name, val);
	const void *ra = RA();
	struct cl_attr *a;

	FWD(cali_begin_string_byname, attr_name, val);
	a = find_or_make(attr_name, CALI_TYPE_STRING, CALI_ATTR_DEFAULT);
	attr_begin(a, value_region(a, val, ra), ra);
}

SBT_API void cali_end_byname(const char *attr_name)
{
	ONLY_PASS(cali_end_byname, attr_name);
	uint32_t aux;
	uint64_t t1 = sbt_hot_stop_clock(&aux);

	attr_end(find(attr_name), t1, aux);
	FWD(cali_end_byname, attr_name);
}

/* ---- the annotation macros' own entry points ------------------------------------ */

SBT_API void cali_begin_region(const char *name)
{
	ONLY_PASS(cali_begin_region, name);
	FWD(cali_begin_region, name);
	(void)sbt_hot_start(name, SBT_API_CALIPER, RA());
}

SBT_API void cali_end_region(const char *name)
{
	ONLY_PASS(cali_end_region, name);
	(void)sbt_hot_stop(name, SBT_API_CALIPER, RA());
	FWD(cali_end_region, name);
}

SBT_API void cali_begin_phase(const char *name)
{
	ONLY_PASS(cali_begin_phase, name);
	FWD(cali_begin_phase, name);
	(void)sbt_hot_start(name, SBT_API_CALIPER, RA());
}

SBT_API void cali_end_phase(const char *name)
{
	ONLY_PASS(cali_end_phase, name);
	(void)sbt_hot_stop(name, SBT_API_CALIPER, RA());
	FWD(cali_end_phase, name);
}

SBT_API void cali_begin_comm_region(const char *name)
{
	ONLY_PASS(cali_begin_comm_region, name);
	FWD(cali_begin_comm_region, name);
	(void)sbt_hot_start(name, SBT_API_CALIPER, RA());
}

SBT_API void cali_end_comm_region(const char *name)
{
	ONLY_PASS(cali_end_comm_region, name);
	(void)sbt_hot_stop(name, SBT_API_CALIPER, RA());
	FWD(cali_end_comm_region, name);
}

/* Ours for loop `name`'s iterations: "iteration#name". */
static struct cl_attr *iteration_attr(const char *name)
{
	char buf[256];

	if (!name || (size_t)snprintf(buf, sizeof buf, "iteration#%s", name) >=
		     sizeof buf) {
		sbt_count(SBT_CNT_BAD_NAME);
		return NULL;
	}
	return find_or_make(buf, CALI_TYPE_INT, CALI_ATTR_ASVALUE);
}

/* CALI_MARK_LOOP_BEGIN calls this once per loop, not per iteration. */
SBT_API cali_id_t cali_make_loop_iteration_attribute(const char *name)
{
	__typeof__(&cali_make_loop_iteration_attribute) nx =
		SBT_NEXT(cali_make_loop_iteration_attribute);
	struct cl_attr *a = iteration_attr(name);
	cali_id_t id;

	if (!nx)
		return a ? attr_id_of(a) : CALI_INV_ID;
	real_put(id = nx(name), a);
	return id;
}

/* ---- attribute management ---------------------------------------------------- */

SBT_API cali_id_t cali_create_attribute(const char *name, int type,
					int properties)
{
	__typeof__(&cali_create_attribute) nx = SBT_NEXT(cali_create_attribute);
	struct cl_attr *a = find_or_make(name, type, properties);
	cali_id_t id;

	if (!nx)
		return a ? attr_id_of(a) : CALI_INV_ID;
	real_put(id = nx(name, type, properties), a);
	return id;
}

SBT_API cali_id_t cali_create_attribute_with_metadata(
	const char *name, int type, int properties, int n,
	const cali_id_t meta_attr_list[], const void *meta_val_list[],
	const size_t meta_size_list[])
{
	__typeof__(&cali_create_attribute_with_metadata) nx =
		SBT_NEXT(cali_create_attribute_with_metadata);
	struct cl_attr *a;
	cali_id_t id;

	if (!nx)
		return cali_create_attribute(name, type, properties);
	a = find_or_make(name, type, properties);
	real_put(id = nx(name, type, properties, n, meta_attr_list,
			 meta_val_list, meta_size_list), a);
	return id;
}

SBT_API cali_id_t cali_find_attribute(const char *name)
{
	__typeof__(&cali_find_attribute) nx = SBT_NEXT(cali_find_attribute);
	struct cl_attr *a;
	cali_id_t id;

	if (!nx) {
		a = find(name);
		return a ? attr_id_of(a) : CALI_INV_ID;
	}
	if ((id = nx(name)) != CALI_INV_ID && (a = find(name)))
		real_put(id, a);
	return id;
}

SBT_API const char *cali_attribute_name(cali_id_t attr)
{
	__typeof__(&cali_attribute_name) nx = SBT_NEXT(cali_attribute_name);
	struct cl_attr *a;

	if (nx)
		return nx(attr);
	a = by_id(attr);
	return a ? a->name : NULL;
}

SBT_API int cali_attribute_type(cali_id_t attr)
{
	__typeof__(&cali_attribute_type) nx = SBT_NEXT(cali_attribute_type);
	struct cl_attr *a;

	if (nx)
		return nx(attr);
	a = by_id(attr);
	return a ? a->type : CALI_TYPE_INV;
}

SBT_API int cali_attribute_properties(cali_id_t attr)
{
	__typeof__(&cali_attribute_properties) nx =
		SBT_NEXT(cali_attribute_properties);
	struct cl_attr *a;

	if (nx)
		return nx(attr);
	a = by_id(attr);
	return a ? a->props : CALI_ATTR_DEFAULT;
}

/* Opens the log, like LIKWID's; libcaliper's, when it follows, stores
 * its ids in the exported variables. */
SBT_API void cali_init(void)
{
	(void)sbt_rec_init();
	FWD(cali_init);
}

SBT_API int cali_is_initialized(void)
{
	__typeof__(&cali_is_initialized) nx = SBT_NEXT(cali_is_initialized);

	return nx ? nx() : 1;
}

/* This API in the table (api.h, api/meson.build). */
const struct sbt_api_desc sbt_api_caliper = {
	.id = SBT_API_CALIPER,
	.name = "caliper",
	.symbols = "cali_begin",
	.env = "",
	.at_exit = NULL,
};
