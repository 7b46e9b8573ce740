/*
 * regions.c - intern region names and call sites; describe them in the log.
 *
 * Everything here runs under `lock` and off the hot path: the first time a
 * thread meets a call site, the first time a name is seen, and when a log
 * is opened.  Region names are published lock-free for readers through
 * fixed pages of pointers that never move (sbt_regions_name).
 *
 * What goes into the log's META chunks: one MODULE entry per loaded object
 * (so call sites can be symbolized offline), one REGION entry per region,
 * one SITE2 entry per (region, return address) with a short stack
 * (libunwind, when built with it), captured here, off any timed window.
 */
#include "regions.h"
#include "sample.h"
#include "logfile.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef SBT_HAVE_UNWIND
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#endif

#define PAGE_IDS    4096u
#define SITE_FRAMES 12

struct region {
	const char *name;
	uint32_t len;
	uint16_t api;
	uint32_t gap;                  /* SBT_SAMPLE's mean gap, 1: all  */
	const void *site;
};

/* (return address, name pointer) -> region and its site there. */
struct ref {
	const void *ra;
	const char *name;
	sbt_id id;
	uint32_t site;
	int verify;
};

/* A site: (region, return address). */
struct site {
	const void *ra;
	sbt_id region;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* id -> region: pages published with release stores, never freed. */
static struct region *_Atomic pages[SBT_MAX_REGIONS / PAGE_IDS];
static _Atomic uint32_t nregions = 1;          /* id 0 is <calibration> */

/* site id -> site: pages published like the regions'. */
static struct site *_Atomic site_pages[SBT_MAX_SITES / PAGE_IDS];
static _Atomic uint32_t nsites = 1;            /* id 0: calibration   */

/* (api, name) -> id, (ra, name ptr) -> ref, (ra, region) -> site id:
 * open addressing, power-of-two capacity, at most half full. */
static uint32_t *name_tab;  static uint32_t name_cap;
static struct ref *ref_tab; static uint32_t ref_cap, nrefs;
static uint32_t *sid_tab;   static uint32_t sid_cap;

static struct sbt_logfile *log_out;            /* where META goes */
static struct sbt_chunk *meta;                 /* current META chunk */

/* Known modules [lo, hi), to notice objects loaded after the log opened. */
static struct { uintptr_t lo, hi; } *mods; static uint32_t nmods, cap_mods;

/* ---- arena ------------------------------------------------------------- */

static char *arena_p; static size_t arena_left;

static void *arena(size_t n)
{
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (n > arena_left) {
		size_t sz = n > (1u << 20) ? n : (1u << 20);
		p = mmap(NULL, sz, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		if (sz > (1u << 20))
			return p;       /* big one-off: keep the old arena */
		arena_p = p, arena_left = sz;
	}
	p = arena_p;
	arena_p += n, arena_left -= n;
	return p;
}

static uint64_t hash_bytes(const char *s, size_t n, uint64_t h)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33; x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static struct region *region_at(sbt_id id)
{
	struct region *pg = atomic_load_explicit(&pages[id / PAGE_IDS],
						 memory_order_acquire);
	return pg ? &pg[id % PAGE_IDS] : NULL;
}

const char *sbt_regions_name(sbt_id id)
{
	struct region *r;

	if (id >= atomic_load_explicit(&nregions, memory_order_acquire))
		return NULL;
	r = region_at(id);
	return r ? r->name : NULL;
}

uint32_t sbt_regions_gap(sbt_id id)
{
	struct region *r;

	if (id >= atomic_load_explicit(&nregions, memory_order_acquire))
		return 1;
	r = region_at(id);
	return r && r->gap > 1 ? r->gap : 1;
}

unsigned sbt_regions_api(sbt_id id)
{
	struct region *r;

	if (id >= atomic_load_explicit(&nregions, memory_order_acquire))
		return SBT_API__N;
	r = region_at(id);
	return r ? r->api : SBT_API__N;
}

uint32_t sbt_regions_count(void)
{
	return atomic_load_explicit(&nregions, memory_order_acquire);
}

static struct site *site_at(uint32_t id)
{
	struct site *pg = atomic_load_explicit(&site_pages[id / PAGE_IDS],
					       memory_order_acquire);
	return pg ? &pg[id % PAGE_IDS] : NULL;
}

sbt_id sbt_regions_site_region(uint32_t id)
{
	struct site *s;

	if (id == 0 || id >= atomic_load_explicit(&nsites,
						  memory_order_acquire))
		return 0;
	s = site_at(id);
	return s ? s->region : 0;
}

/* ---- META output -------------------------------------------------------- */

static void meta_put(uint16_t type, const void *a, uint32_t alen,
		     const void *b, uint32_t blen)
{
	uint32_t len = alen + blen;
	size_t need = (sizeof(struct sbt_meta) + len + 7) & ~(size_t)7;
	struct sbt_meta *m;

	if (!log_out)
		return;
	if (!meta || meta->used + need > meta->size - sizeof *meta) {
		size_t sz = 65536;
		while (sz < need + sizeof(struct sbt_chunk))
			sz *= 2;
		meta = sbt_log_chunk(log_out, SBT_CHUNK_META, sz, 0,
				     (int32_t)getpid());
		if (!meta)
			return;
	}
	m = (struct sbt_meta *)((char *)(meta + 1) + meta->used);
	m->type = type;
	m->reserved = 0;
	m->len = len;
	memcpy(m + 1, a, alen);
	if (blen)
		memcpy((char *)(m + 1) + alen, b, blen);
	atomic_store_explicit((_Atomic uint64_t *)&meta->used,
			      meta->used + need, memory_order_release);
}

static void meta_region(sbt_id id)
{
	struct region *r = region_at(id);
	struct sbt_meta_region mr = {
		.id = id, .api = r->api, .site = (uint64_t)(uintptr_t)r->site
	};
	meta_put(SBT_META_REGION, &mr, sizeof mr, r->name, r->len);
}

/* The GNU build-id among the module's mapped notes: its length, 0 when
 * it has none.  The notes are part of a loaded segment, so this only
 * reads memory the loader mapped. */
static uint32_t build_id(const struct dl_phdr_info *info, const void **id)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		const char *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const void *)p;
			const char *name = p + sizeof *n;
			const char *desc = name + ((n->n_namesz + 3) & ~3u);
			if (desc + n->n_descsz > end)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4) && n->n_descsz > 0 &&
			    n->n_descsz <= SBT_BUILDID_MAX) {
				*id = desc;
				return n->n_descsz;
			}
			p = desc + ((n->n_descsz + 3) & ~3u);
		}
	}
	return 0;
}

static int module_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct sbt_meta_module mm = { .base = info->dlpi_addr,
				      .lo = UINT64_MAX, .hi = 0 };
	char exe[4096];
	const char *path = info->dlpi_name;
	(void)size, (void)arg;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uint64_t lo = info->dlpi_addr + ph->p_vaddr;
		if (lo < mm.lo) mm.lo = lo;
		if (lo + ph->p_memsz > mm.hi) mm.hi = lo + ph->p_memsz;
	}
	if (mm.hi == 0)
		return 0;
	for (uint32_t i = 0; i < nmods; i++)
		if (mods[i].lo == mm.lo && mods[i].hi == mm.hi)
			return 0;               /* already described */
	if (nmods == cap_mods) {
		uint32_t cap = cap_mods ? 2 * cap_mods : 64;
		void *n = arena(cap * sizeof *mods);
		if (!n)
			return 0;
		if (nmods)
			memcpy(n, mods, nmods * sizeof *mods);
		mods = n, cap_mods = cap;
	}
	mods[nmods].lo = mm.lo, mods[nmods].hi = mm.hi, nmods++;
	if (!path || !*path) {          /* the main program */
		sbt_self_exe(exe, sizeof exe);
		path = exe;
	}
	meta_put(SBT_META_MODULE, &mm, sizeof mm, path, (uint32_t)strlen(path));
	const void *id;
	struct sbt_meta_buildid mb = { .lo = mm.lo };
	if ((mb.len = build_id(info, &id)))
		meta_put(SBT_META_BUILDID, &mb, sizeof mb, id, mb.len);
	return 0;
}

static int known_module(uintptr_t a)
{
	for (uint32_t i = 0; i < nmods; i++)
		if (a >= mods[i].lo && a < mods[i].hi)
			return 1;
	return 0;
}

static void meta_site(uint32_t id)
{
	const struct site *s = site_at(id);
	uint64_t frames[SITE_FRAMES];
	uint32_t depth = 0;

	if (!log_out)
		return;
	if (s->ra && !known_module((uintptr_t)s->ra))
		dl_iterate_phdr(module_cb, NULL);   /* dlopen'd since */
#ifdef SBT_HAVE_UNWIND
	void *buf[SITE_FRAMES + 8];
	int n = unw_backtrace(buf, SITE_FRAMES + 8), first = n;

	/* Our own frames come first; the stack proper starts at the site.
	 * (When the site is not on our stack - a site made known ahead of
	 * the log - only the site itself is kept.) */
	for (int i = 0; i < n; i++)
		if (buf[i] == s->ra) { first = i; break; }
	for (int i = first; i < n && depth < SITE_FRAMES; i++)
		frames[depth++] = (uint64_t)(uintptr_t)buf[i];
#endif
	if (depth == 0 && s->ra)
		frames[depth++] = (uint64_t)(uintptr_t)s->ra;
	struct sbt_meta_site2 ms = { .id = id, .region = s->region,
				     .depth = depth };
	meta_put(SBT_META_SITE2, &ms, sizeof ms, frames,
		 depth * (uint32_t)sizeof frames[0]);
}

/* ---- interning ---------------------------------------------------------- */

static int name_tab_grow(void)
{
	uint32_t cap = name_cap ? 2 * name_cap : 1024;
	uint32_t *t = arena(cap * sizeof *t);

	if (!t)
		return -1;
	memset(t, 0, cap * sizeof *t);
	for (uint32_t i = 0; i < name_cap; i++) {
		if (!name_tab[i])
			continue;
		struct region *r = region_at(name_tab[i]);
		uint64_t h = hash_bytes(r->name, r->len, 0xcbf29ce484222325ull
					^ r->api);
		uint32_t j = (uint32_t)h & (cap - 1);
		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = name_tab[i];
	}
	name_tab = t, name_cap = cap;
	return 0;
}

static sbt_id intern_locked(const char *name, size_t len, unsigned api,
			    const void *site)
{
	uint64_t h;
	uint32_t j;
	sbt_id id;

	if (!name || len == 0 || len > SBT_MAX_NAME) {
		sbt_count(SBT_CNT_BAD_NAME);
		return 0;
	}
	if ((nregions + 1) * 2 > name_cap && name_tab_grow() != 0)
		return 0;
	h = hash_bytes(name, len, 0xcbf29ce484222325ull ^ api);
	for (j = (uint32_t)h & (name_cap - 1); name_tab[j];
	     j = (j + 1) & (name_cap - 1)) {
		struct region *r = region_at(name_tab[j]);
		if (r->api == api && r->len == len &&
		    memcmp(r->name, name, len) == 0)
			return name_tab[j];
	}
	id = atomic_load(&nregions);
	if (id >= SBT_MAX_REGIONS) {
		sbt_count(SBT_CNT_TOO_MANY_REGIONS);
		return 0;
	}
	if (!region_at(id)) {
		struct region *pg = arena(PAGE_IDS * sizeof *pg);
		if (!pg)
			return 0;
		memset(pg, 0, PAGE_IDS * sizeof *pg);
		atomic_store_explicit(&pages[id / PAGE_IDS], pg,
				      memory_order_release);
	}
	char *copy = arena(len + 1);
	if (!copy)
		return 0;
	memcpy(copy, name, len);
	copy[len] = 0;
	struct region *r = region_at(id);
	r->name = copy, r->len = (uint32_t)len, r->api = (uint16_t)api;
	r->site = site;
	r->gap = sbt_sample_gap(copy, len);
	name_tab[j] = id;
	atomic_store_explicit(&nregions, id + 1, memory_order_release);
	meta_region(id);
	return id;
}

sbt_id sbt_regions_intern(const char *name, size_t len, unsigned api,
			  const void *site)
{
	sbt_id id;

	if (name && len == (size_t)-1)
		len = strnlen(name, SBT_MAX_NAME + 1);
	pthread_mutex_lock(&lock);
	id = intern_locked(name, len, api, site);
	pthread_mutex_unlock(&lock);
	return id;
}

/* Is [p, p+1) inside a mapped segment without write permission? */
struct ro_query { uintptr_t p; int ro; };

static int ro_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct ro_query *q = arg;
	(void)size;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && q->p >= lo &&
		    q->p < lo + ph->p_memsz) {
			q->ro = !(ph->p_flags & PF_W);
			return 1;
		}
	}
	return 0;
}

int sbt_regions_readonly(const void *p, size_t len)
{
	struct ro_query a = { (uintptr_t)p, 0 };
	struct ro_query b = { (uintptr_t)p + (len ? len - 1 : 0), 0 };

	dl_iterate_phdr(ro_cb, &a);
	if (!a.ro)
		return 0;
	dl_iterate_phdr(ro_cb, &b);
	return b.ro;
}

static uint32_t ref_hash(const void *ra, const void *name)
{
	return (uint32_t)mix((uintptr_t)ra ^ ((uintptr_t)name << 1));
}

static int ref_tab_grow(void)
{
	uint32_t cap = ref_cap ? 2 * ref_cap : 1024;
	struct ref *t = arena(cap * sizeof *t);

	if (!t)
		return -1;
	memset(t, 0, cap * sizeof *t);
	for (uint32_t i = 0; i < ref_cap; i++) {
		if (!ref_tab[i].id)
			continue;
		uint32_t j = ref_hash(ref_tab[i].ra, ref_tab[i].name) &
			     (cap - 1);
		while (t[j].id)
			j = (j + 1) & (cap - 1);
		t[j] = ref_tab[i];
	}
	ref_tab = t, ref_cap = cap;
	return 0;
}

static int sid_tab_grow(void)
{
	uint32_t cap = sid_cap ? 2 * sid_cap : 1024;
	uint32_t *t = arena(cap * sizeof *t);

	if (!t)
		return -1;
	memset(t, 0, cap * sizeof *t);
	for (uint32_t i = 0; i < sid_cap; i++) {
		if (!sid_tab[i])
			continue;
		const struct site *s = site_at(sid_tab[i]);
		uint32_t j = ref_hash(s->ra, (void *)(uintptr_t)s->region) &
			     (cap - 1);
		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = sid_tab[i];
	}
	sid_tab = t, sid_cap = cap;
	return 0;
}

/* Site id of (region, ra), made and described when new. */
static uint32_t site_locked(const void *ra, sbt_id region)
{
	uint32_t j, id;

	if (!region)
		return 0;
	if ((atomic_load(&nsites) + 1) * 2 > sid_cap && sid_tab_grow() != 0)
		return 0;
	j = ref_hash(ra, (void *)(uintptr_t)region) & (sid_cap - 1);
	for (; sid_tab[j]; j = (j + 1) & (sid_cap - 1)) {
		const struct site *s = site_at(sid_tab[j]);
		if (s->ra == ra && s->region == region)
			return sid_tab[j];
	}
	id = atomic_load(&nsites);
	if (id >= SBT_MAX_SITES) {
		sbt_count(SBT_CNT_TOO_MANY_REGIONS);
		return 0;
	}
	if (!site_at(id)) {
		struct site *pg = arena(PAGE_IDS * sizeof *pg);
		if (!pg)
			return 0;
		memset(pg, 0, PAGE_IDS * sizeof *pg);
		atomic_store_explicit(&site_pages[id / PAGE_IDS], pg,
				      memory_order_release);
	}
	site_at(id)->ra = ra;
	site_at(id)->region = region;
	sid_tab[j] = id;
	atomic_store_explicit(&nsites, id + 1, memory_order_release);
	meta_site(id);
	return id;
}

uint32_t sbt_regions_site_id(const void *ra, sbt_id region)
{
	uint32_t id;

	pthread_mutex_lock(&lock);
	id = site_locked(ra, region);
	pthread_mutex_unlock(&lock);
	return id;
}

sbt_id sbt_regions_site(const void *ra, const char *name, unsigned api,
			int *verify, uint32_t *site)
{
	struct ref *r = NULL;
	sbt_id id = 0;
	size_t len;

	*verify = 0;
	*site = 0;
	if (!name) {
		sbt_count(SBT_CNT_BAD_NAME);
		return 0;
	}
	len = strnlen(name, SBT_MAX_NAME + 1);
	pthread_mutex_lock(&lock);
	if ((nrefs + 1) * 2 > ref_cap && ref_tab_grow() != 0)
		goto out;
	uint32_t j = ref_hash(ra, name) & (ref_cap - 1);
	for (; ref_tab[j].id; j = (j + 1) & (ref_cap - 1)) {
		struct ref *c = &ref_tab[j];
		if (c->ra != ra || c->name != name)
			continue;
		/* A known pointer to writable memory: its bytes may differ
		 * from last time, so intern them again. */
		if (c->verify) {
			*verify = 1;
			if ((id = intern_locked(name, len, api, ra)))
				*site = site_locked(ra, id);
			goto out;
		}
		r = c;
		break;
	}
	if (!r) {
		if (!(id = intern_locked(name, len, api, ra)))
			goto out;
		r = &ref_tab[j];
		r->ra = ra, r->name = name, r->id = id;
		r->verify = !sbt_regions_readonly(name, len + 1);
		r->site = site_locked(ra, id);
		nrefs++;
	}
	id = r->id;
	*verify = r->verify;
	*site = r->site;
out:
	pthread_mutex_unlock(&lock);
	return id;
}

void sbt_regions_attach(struct sbt_logfile *lf)
{
	pthread_mutex_lock(&lock);
	log_out = lf;
	meta = NULL;
	nmods = 0;
	if (lf) {
		dl_iterate_phdr(module_cb, NULL);
		for (sbt_id id = 1; id < nregions; id++)
			meta_region(id);
		for (uint32_t id = 1; id < nsites; id++)
			meta_site(id);
	}
	pthread_mutex_unlock(&lock);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

void sbt_regions_warm(void)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);

	pthread_mutex_lock(&lock);
	if (!name_cap)
		(void)name_tab_grow();
	if (!ref_cap)
		(void)ref_tab_grow();
	if (!sid_cap)
		(void)sid_tab_grow();
	if (arena_left && pg && !(pg & (pg - 1))) {
		uintptr_t a = ((uintptr_t)arena_p + pg - 1) & ~(pg - 1);
		uintptr_t b = ((uintptr_t)arena_p + arena_left) & ~(pg - 1);
		/* fresh zero pages not yet handed out: a zero written is
		 * the same page, where the kernel cannot populate */
		int mapped = a < b &&
			madvise((void *)a, b - a, MADV_POPULATE_WRITE) == 0;
		/* and each touched through the mapping: a shadow-paging
		 * host's trap (logfile.c's populate) taken here */
		for (; a < b; a += pg)
			if (mapped)
				(void)*(volatile const char *)a;
			else
				*(volatile char *)a = 0;
	}
#ifdef SBT_HAVE_UNWIND
	void *buf[4];
	(void)unw_backtrace(buf, 4);      /* libunwind's own first use */
#endif
	pthread_mutex_unlock(&lock);
}

void sbt_regions_meta(uint16_t type, const void *a, uint32_t alen,
		      const void *b, uint32_t blen)
{
	pthread_mutex_lock(&lock);
	meta_put(type, a, alen, b, blen);
	pthread_mutex_unlock(&lock);
}

void sbt_regions_lock(void)   { pthread_mutex_lock(&lock); }
void sbt_regions_unlock(void) { pthread_mutex_unlock(&lock); }
