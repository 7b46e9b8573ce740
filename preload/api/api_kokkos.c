/*
 * api_kokkos.c - libsbtmark.so as a Kokkos Tools library.
 *
 * Kokkos::initialize() dlopen()s the library named by
 * KOKKOS_PROFILE_LIBRARY (Kokkos 3.x; Debian's libtrilinos-kokkos, tools
 * interface 20210225) or KOKKOS_TOOLS_LIBS (Kokkos 4.x), looks up the
 * kokkosp_* callbacks below with dlsym() on that handle, and calls them
 * from the thread that launches each kernel.  When libsbtmark.so is also
 * preloaded, dlopen() returns the copy already loaded.
 *
 * Mapping (every region under API "kokkos"):
 *   begin/end_parallel_for, _reduce, _scan   a region named by the kernel
 *   begin/end_fence                          a region named by the fence
 *   push/pop_profile_region                  a region; pop ends the
 *                                            thread's innermost one
 *   begin/end_deep_copy                      "deep_copy DST=SRC" (labels)
 *   create/start/stop_profile_section        a region named by the section
 * The rest (allocations, metadata, events, tuning) is left undefined, so
 * Kokkos skips it at no cost.  Global fencing (Kokkos' default for a
 * tool) stays on: a kernel's region ends after the kernel has, on any
 * backend.
 *
 * Signatures are those of impl/Kokkos_Profiling_C_Interface.h (Kokkos
 * 3.4, interface 20210225); Kokkos 4 keeps them.
 *
 * Hot path: a kernel's begin hands Kokkos an id, its end gives it back.
 * The thread's ids are (thread token << 32 | sequence) and live in a
 * fixed table of KK_OPEN slots indexed by the sequence, so begin and end
 * allocate nothing and search nothing.  Kernel names arrive as a
 * std::string's bytes, often at a new address each launch: they are
 * looked up by content (hash, then compare) in a per-thread table of
 * KK_NAMES entries; only a miss interns and copies (cold).  A call site
 * launches the same kernel again and again: the entry it found last is
 * tried first (a string compare, which ends at the first difference,
 * instead of hashing every byte: the hash's multiply chain cost ~17 ns
 * before the clock read on an 8-byte label).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api.h"
#include "api_common.h"

#define RA() __builtin_return_address(0)

#define KK_OPEN     64       /* kernels and fences in flight per thread */
#define KK_NAMES    64       /* kernel names cached per thread          */
#define KK_SECTIONS 4096     /* profile sections per process            */
#define KK_SITES    16       /* last entry per call site, direct-mapped */

/* ---- per-thread state ---------------------------------------------------- */

struct kk_name {
	uint64_t hash;
	char    *text;           /* malloc'd copy, NUL-terminated, or NULL */
	uint32_t len;
	sbt_id   id;
};

/* Invariant: open[k % KK_OPEN].kid == k for every id k handed out and
 * not yet ended, unless KK_OPEN kernels were in flight at once (then the
 * older one's end is counted as a STOP without START; the recorder's own
 * depth limit, 64, is reached first). */
struct kk_open {
	uint64_t kid;            /* 0: free                                 */
	sbt_id   id;             /* its region, 0: not recorded             */
};

struct kk_thread {
	uint32_t token;          /* sbtmark thread index + 1                */
	uint32_t seq;            /* kernels begun on this thread            */
	struct kk_open open[KK_OPEN];
	struct kk_name names[KK_NAMES];
	struct kk_name *last[KK_SITES]; /* by call site: an entry of names[]
					   (its text may change: compared) */
};

static void kk_fini(void *p)
{
	struct kk_thread *st = p;

	for (int i = 0; i < KK_NAMES; i++)
		free(st->names[i].text);
}

static __attribute__((noinline)) struct kk_thread *kk_state_slow(void)
{
	struct kk_thread *st = sbt_rec_api_state(SBT_SLOT_KOKKOS, sizeof *st,
						 kk_fini);

	if (st && !st->token)
		st->token = sbt_me->index + 1;
	return st;
}

/* The calling thread's state, NULL when inert or out of memory. */
static inline struct kk_thread *kk_state(void)
{
	struct sbt_thread *t = sbt_me;

	if (SBT_LIKELY(t != NULL) && SBT_LIKELY(t->api[SBT_SLOT_KOKKOS] != NULL))
		return t->api[SBT_SLOT_KOKKOS];
	return kk_state_slow();
}

/* ---- names by content ------------------------------------------------------ */

/* FNV-1a over the NUL-terminated s; its length in *len. */
static inline uint64_t kk_hash(const char *s, uint32_t *len)
{
	uint64_t h = 0xcbf29ce484222325u;
	const unsigned char *p = (const unsigned char *)s;

	while (*p)
		h = (h ^ *p++) * 0x100000001b3u;
	*len = (uint32_t)(p - (const unsigned char *)s);
	return h;
}

/* Cold: intern name and keep a copy in slot e. */
static __attribute__((noinline)) sbt_id kk_name_miss(struct kk_name *e,
						     const char *name,
						     uint32_t len,
						     uint64_t h,
						     const void *ra)
{
	sbt_id id = sbt_api_intern(NULL, name, len, SBT_API_KOKKOS, ra);
	char *copy;

	if (!id || !(copy = malloc((size_t)len + 1)))
		return id;               /* counted when bad; else uncached */
	memcpy(copy, name, (size_t)len + 1);
	free(e->text);
	*e = (struct kk_name){ h, copy, len, id };
	return id;
}

/* kk_name_id past the site's last entry: by hash; the entry found
 * becomes the site's. */
static __attribute__((noinline)) sbt_id
kk_name_hashed(struct kk_thread *st, const char *name, const void *ra,
	       struct kk_name **last)
{
	struct kk_name *e;
	uint32_t len;
	uint64_t h;
	sbt_id id;

	if (SBT_UNLIKELY(!name))
		return sbt_rec_intern(NULL, 0, SBT_API_KOKKOS, ra);
	h = kk_hash(name, &len);
	e = &st->names[h % KK_NAMES];
	if (SBT_LIKELY(e->hash == h && e->len == len && e->text &&
		       !memcmp(e->text, name, len)))
		id = e->id;
	else
		id = kk_name_miss(e, name, len, h, ra);
	if (id && e->text && e->id == id)
		*last = e;
	return id;
}

/* Region id of `name` for a call at ra; 0 for a bad name (counted). */
static inline sbt_id kk_name_id(struct kk_thread *st, const char *name,
				const void *ra)
{
	struct kk_name **last = &st->last[((uintptr_t)ra >> 4) % KK_SITES];
	struct kk_name *e = *last;

	if (SBT_LIKELY(e && name && e->text && !strcmp(e->text, name)))
		return e->id;
	return kk_name_hashed(st, name, ra, last);
}

/* ---- kernels and fences: begin hands out an id, end brings it back -------- */

static inline __attribute__((always_inline)) void
kk_begin(const char *name, uint64_t *kid, const void *ra)
{
	struct kk_thread *st = kk_state();
	struct kk_open *o;
	sbt_id id;
	uint64_t k;

	if (SBT_UNLIKELY(!kid))
		return;
	if (SBT_UNLIKELY(!st)) {
		*kid = 0;
		return;
	}
	id = kk_name_id(st, name, ra);
	k = (uint64_t)st->token << 32 | ++st->seq;
	o = &st->open[k % KK_OPEN];
	/* Everything is stored before START: its clock read comes last. */
	o->kid = k;
	o->id = id;
	*kid = k;
	if (id && sbt_hot_start_id(id, ra) != SBT_OK)
		o->id = 0;               /* misuse, counted: no window open */
}

static inline __attribute__((always_inline)) void kk_end(uint64_t kid)
{
	uint32_t aux;
	uint64_t t1 = sbt_hot_stop_clock(&aux);       /* before any lookup */
	struct kk_thread *st = kk_state();
	struct kk_open *o;

	if (SBT_UNLIKELY(!st) || kid == 0)       /* begun while inert */
		return;
	o = &st->open[kid % KK_OPEN];
	if (SBT_LIKELY(o->kid == kid)) {
		sbt_id id = o->id;
		o->kid = 0;
		if (id)
			(void)sbt_hot_stop_id_at(id, t1, aux);
		return;
	}
	/* Never handed out on this thread, ended twice, or evicted. */
	sbt_count(SBT_CNT_STOP_WITHOUT_START);
}

SBT_API void kokkosp_begin_parallel_for(const char *name, uint32_t dev,
					uint64_t *kid)
{
	(void)dev;
	kk_begin(name, kid, RA());
}

SBT_API void kokkosp_end_parallel_for(uint64_t kid) { kk_end(kid); }

SBT_API void kokkosp_begin_parallel_reduce(const char *name, uint32_t dev,
					   uint64_t *kid)
{
	(void)dev;
	kk_begin(name, kid, RA());
}

SBT_API void kokkosp_end_parallel_reduce(uint64_t kid) { kk_end(kid); }

SBT_API void kokkosp_begin_parallel_scan(const char *name, uint32_t dev,
					 uint64_t *kid)
{
	(void)dev;
	kk_begin(name, kid, RA());
}

SBT_API void kokkosp_end_parallel_scan(uint64_t kid) { kk_end(kid); }

SBT_API void kokkosp_begin_fence(const char *name, uint32_t dev,
				 uint64_t *kid)
{
	(void)dev;
	kk_begin(name, kid, RA());
}

SBT_API void kokkosp_end_fence(uint64_t kid) { kk_end(kid); }

/* ---- regions: pop names nothing -------------------------------------------- */

/* Keys of api_common.h's per-thread stack: pop ends the innermost entry
 * pushed under the same key, whatever other APIs pushed meanwhile. */
static const char kk_region_key, kk_copy_key;

SBT_API void kokkosp_push_profile_region(const char *name)
{
	const void *ra = RA();
	struct kk_thread *st = kk_state();

	if (st)
		(void)sbt_api_push(&kk_region_key, kk_name_id(st, name, ra), ra);
}

SBT_API void kokkosp_pop_profile_region(void)
{
	(void)sbt_api_pop(&kk_region_key);
}

/* ---- deep copies ------------------------------------------------------------- */

struct kk_space { char name[64]; };     /* Kokkos_Profiling_SpaceHandle */

SBT_API void kokkosp_begin_deep_copy(struct kk_space dst_space,
				     const char *dst_label,
				     const void *dst_ptr,
				     struct kk_space src_space,
				     const char *src_label,
				     const void *src_ptr, uint64_t size)
{
	const void *ra = RA();
	struct kk_thread *st = kk_state();
	char name[256];

	(void)dst_space, (void)dst_ptr, (void)src_space, (void)src_ptr;
	(void)size;
	if (!st)
		return;
	/* Labels are the views'; a long one is cut, never refused. */
	snprintf(name, sizeof name, "deep_copy %.100s=%.100s",
		 dst_label ? dst_label : "", src_label ? src_label : "");
	(void)sbt_api_push(&kk_copy_key, kk_name_id(st, name, ra), ra);
}

SBT_API void kokkosp_end_deep_copy(void)
{
	(void)sbt_api_pop(&kk_copy_key);
}

/* ---- profile sections: process-wide handles -------------------------------- */

/* sections[i] is the region of section id i for i < nsections; written
 * once, before the id is handed out.  Ids are never reused. */
static sbt_id sections[KK_SECTIONS];
static uint32_t nsections;

SBT_API void kokkosp_create_profile_section(const char *name, uint32_t *sec)
{
	sbt_id id = sbt_rec_intern(name, (size_t)-1, SBT_API_KOKKOS, RA());
	uint32_t i;

	if (!sec)
		return;
	i = __atomic_fetch_add(&nsections, 1, __ATOMIC_RELAXED);
	if (i >= KK_SECTIONS) {
		sbt_count(SBT_CNT_TOO_MANY_REGIONS);
		*sec = UINT32_MAX;
		return;
	}
	__atomic_store_n(&sections[i], id, __ATOMIC_RELEASE);
	*sec = i;
}

static sbt_id section_id(uint32_t sec)
{
	return sec < KK_SECTIONS ?
	       __atomic_load_n(&sections[sec], __ATOMIC_ACQUIRE) : 0;
}

SBT_API void kokkosp_start_profile_section(uint32_t sec)
{
	sbt_id id = section_id(sec);

	if (id)
		(void)sbt_hot_start_id(id, RA());
	else
		sbt_count(SBT_CNT_BAD_NAME);    /* unknown or unnamed section */
}

SBT_API void kokkosp_stop_profile_section(uint32_t sec)
{
	uint32_t aux;
	uint64_t t1 = sbt_hot_stop_clock(&aux);
	sbt_id id = section_id(sec);

	if (id)
		(void)sbt_hot_stop_id_at(id, t1, aux);
	else
		sbt_count(SBT_CNT_STOP_WITHOUT_START);
}

/* Ids are not reused, so a destroyed section needs nothing undone. */
SBT_API void kokkosp_destroy_profile_section(uint32_t sec) { (void)sec; }

/* ---- library ------------------------------------------------------------------ */

/* Kokkos::initialize(): open the log now, like LIKWID's markerInit. */
SBT_API void kokkosp_init_library(int load_seq, uint64_t interface_version,
				  uint32_t ndevices, void *devices)
{
	(void)load_seq, (void)interface_version, (void)ndevices;
	(void)devices;
	(void)sbt_rec_init();
}

/* Kokkos::finalize(): the app may go on marking (other APIs, or Kokkos
 * again); the log is finished at exit as always. */
SBT_API void kokkosp_finalize_library(void) { }

/* This API in the table (api.h, api/meson.build). */
const struct sbt_api_desc sbt_api_kokkos = {
	.id = SBT_API_KOKKOS,
	.name = "kokkos",
	.symbols = "kokkosp_|Kokkos",
	.env = "",
	.at_exit = NULL,
};
