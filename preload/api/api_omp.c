/*
 * api_omp.c - the cold parts of api_omp.h: OpenMP construct names and
 * the per-thread state.
 */
#include "api_omp.h"
#include "api.h"
#include "api_common.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static const char *const kind_name[SBT_OMP__N] = {
	"omp parallel", "omp barrier", "omp loop", "omp sections",
	"omp single", "omp task",
};

/*
 * (kind, code address) -> construct, open addressing over the whole
 * table.  A slot is published by its `ra`, stored last with release;
 * readers need no lock, and a published slot never changes.
 */
#define OMP_SLOTS 4096u

static struct sbt_omp_site table[OMP_SLOTS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t slot_of(unsigned kind, const void *ra)
{
	uint64_t h = ((uint64_t)(uintptr_t)ra >> 2) * 0x9e3779b97f4a7c15ull;
	return (uint32_t)((h >> 40) + kind) & (OMP_SLOTS - 1);
}

/* Whether code address `ra` is the recorder's own: no construct of the
 * app's is there (a runtime call an outlined body made as its last, a
 * tail call, returns into api_gomp.c's trampoline). */
static int ours(const void *ra)
{
	Dl_info me, di;

	return dladdr((const void *)(uintptr_t)ours, &me) &&
	       dladdr(ra, &di) && me.dli_fbase == di.dli_fbase;
}

/* "omp parallel @ app+0x1234": object basename and offset, stable across
 * runs (no load address in it). */
static sbt_id make(unsigned kind, const void *ra)
{
	char buf[SBT_MAX_NAME];
	const char *obj = "?", *sl;
	uintptr_t off = (uintptr_t)ra;
	Dl_info di;

	if (ra && dladdr(ra, &di) && di.dli_fbase) {
		off = (uintptr_t)ra - (uintptr_t)di.dli_fbase;
		if (di.dli_fname && *di.dli_fname)
			obj = (sl = strrchr(di.dli_fname, '/')) ? sl + 1
								 : di.dli_fname;
	}
	snprintf(buf, sizeof buf, "%s @ %s+0x%lx", kind_name[kind], obj,
		 (unsigned long)off);
	return sbt_rec_intern(buf, (size_t)-1, SBT_API_OPENMP, ra);
}

/* The slot of (kind, ra), or the empty slot where it would go; NULL
 * when neither is there (the table is full). */
static struct sbt_omp_site *probe(unsigned kind, const void *ra)
{
	uint32_t i = slot_of(kind, ra);

	for (uint32_t k = 0; k < OMP_SLOTS; k++, i = (i + 1) & (OMP_SLOTS - 1)) {
		const void *r = __atomic_load_n(&table[i].ra, __ATOMIC_ACQUIRE);
		if (!r || (r == ra && table[i].kind == kind))
			return &table[i];
	}
	return NULL;
}

/* The names are made outside the lock (interning the same name twice
 * gives the same id), so the lock nests no other and is held across
 * fork by the handlers below without an order to keep. */
const struct sbt_omp_site *sbt_omp_site(unsigned kind, const void *ra)
{
	struct sbt_omp_site *e;
	sbt_id id, id2;
	int mine;

	if (kind >= SBT_OMP__N || !ra)
		return NULL;
	e = probe(kind, ra);
	if (SBT_LIKELY(e && e->ra))
		return e;
	mine = ours(ra);
	id = mine ? 0 : make(kind, ra);
	id2 = kind == SBT_OMP_PARALLEL && !mine ? make(SBT_OMP_BARRIER, ra)
						: 0;
	pthread_mutex_lock(&table_lock);
	if ((e = probe(kind, ra)) && !e->ra) {
		e->kind = kind;
		e->id = id;
		e->id2 = id2;
		e->ours = mine;
		__atomic_store_n(&e->ra, ra, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&table_lock);
	if (!e)
		sbt_count(SBT_CNT_TOO_MANY_REGIONS);
	return e;
}

static void fork_lock(void) { pthread_mutex_lock(&table_lock); }
static void fork_unlock(void) { pthread_mutex_unlock(&table_lock); }

/* (sbt_omp_finish, below, runs at exit: sbt_api_omp's hook.) */
__attribute__((constructor)) static void omp_setup(void)
{
	pthread_atfork(fork_lock, fork_unlock, fork_unlock);
}

int sbt_omp_level(void)
{
	static void *get;
	static int tried;
	int (*f)(void);

	if (!__atomic_load_n(&tried, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&get, dlsym(RTLD_DEFAULT, "omp_get_level"),
				 __ATOMIC_RELAXED);
		__atomic_store_n(&tried, 1, __ATOMIC_RELEASE);
	}
	*(void **)&f = __atomic_load_n(&get, __ATOMIC_RELAXED);
	return f ? f() : 0;
}

struct sbt_omp_thr *sbt_omp_thr_slow(void)
{
	return sbt_rec_api_state(SBT_SLOT_OMP, sizeof(struct sbt_omp_thr),
				 NULL);
}

void sbt_omp_leave(struct sbt_omp_thr *o)
{
	uint32_t aux = 0;
	uint64_t t1 = 0;

	if (o->level == 0)
		return;
	if (o->level <= SBT_OMP_DEPTH) {
		struct sbt_omp_lv *v = &o->lv[o->level - 1];
		/* a clock read only for a region still open: a worker has
		 * closed its share and wait already, and serialized reads
		 * are what it pays on the team's way to its barrier */
		if (v->work || v->wait || v->share)
			t1 = sbt_hot_stop_clock(&aux);
		/* innermost first, so that each STOP is the fast one */
		if (v->work)
			(void)sbt_hot_stop_id_at(v->work, t1, aux);
		if (v->wait)
			(void)sbt_hot_stop_id_at(v->wait, t1, aux);
		if (v->share)
			(void)sbt_hot_stop_id_at(v->share, t1, aux);
		*v = (struct sbt_omp_lv){ 0 };
	}
	o->level--;
}

int sbt_omp_unrecorded;

/* At exit: a region ran through an entry point we do not record, or an
 * OpenMP runtime is loaded, OMPT did not start, and it is not libgomp
 * (whose entry points api_gomp.c interposes) - e.g. libomp with
 * OMP_TOOL=disabled, or a runtime with neither interface.  Said
 * once, on stderr and (when there is a log) in its header. */
void sbt_omp_finish(void)
{
	void *f = dlsym(RTLD_DEFAULT, "omp_get_thread_num");
	Dl_info di;

	if (!sbt_rec_inert() &&
	    __atomic_load_n(&sbt_omp_unrecorded, __ATOMIC_RELAXED)) {
		sbt_count(SBT_CNT_OMP_UNRECORDED);
		return;
	}
	if (!f || sbt_rec_inert() ||
	    __atomic_load_n(&sbt_ompt_active, __ATOMIC_ACQUIRE) ||
	    (dladdr(f, &di) && di.dli_fname && strstr(di.dli_fname, "libgomp")))
		return;
	sbt_count(SBT_CNT_OMP_UNRECORDED);
}

/* This API in the table (api.h, api/meson.build). */
const struct sbt_api_desc sbt_api_omp = {
	.id = SBT_API_OPENMP,
	.name = "openmp",
	.symbols = "GOMP_|__kmpc_|omp_get_",
	.env = "SBT_OMP_DETAIL",
	.at_exit = sbt_omp_finish,
};
