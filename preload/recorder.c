/*
 * recorder.c - per-thread recording: the hot path, and the setup around it.
 *
 * Each thread owns a struct sbt_thread reached through one initial-exec TLS
 * pointer.  START looks the call site up in the thread's direct-mapped
 * cache, pushes the region on the thread's open stack, and reads the clock
 * last.  STOP reads the clock first, then pops the region and stores one
 * 32-byte record into the thread's current chunk of the log.  Neither takes
 * a lock, makes a syscall or allocates; a thread goes to the cold path only
 * for a new call site, a full chunk, or misuse.
 *
 * Invariants:
 *   - t->cur <= t->end; [t->cur, t->end) is free space in t->chunk.
 *   - t->chunk->used == (t->cur - first record) * sizeof(record), stored
 *     after the record it covers (crash-safe commit point).
 *   - t->busy is set while a marker runs on the thread; a marker that
 *     finds it set is a signal handler interrupting a marker (counted,
 *     ignored), so the thread's state is never seen half-updated.
 *   - g.log is non-NULL only in state LOG_OPEN, and belongs to this pid.
 */
#include "recorder.h"
#include "clock.h"
#include "logfile.h"
#include "regions.h"
#include "sbtmark.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define MAX_DEPTH     64               /* open regions per thread        */
#define CACHE_SLOTS   256              /* call-site cache per thread     */
#define FIRST_CHUNK   4096u            /* short-lived threads waste <4K  */
#define MAX_CHUNK     (1u << 20)
#define CALIB_PAIRS   1000

struct open_region {
	uint64_t t0;                   /* wall ticks at START            */
	uint64_t c0;                   /* cycles at START                */
	const char *name;              /* START's name pointer when it is
					  read-only, else NULL           */
	sbt_id   id;
	uint16_t cpu;
	uint16_t flags;                /* SBT_RF_* for the record        */
};

struct site_slot {
	const void *site;
	const char *name;
	sbt_id id;
	int verify;                    /* compare name bytes every call  */
};

struct sbt_thread {
	/* hot */
	struct sbt_record *cur, *end;
	struct sbt_chunk *chunk;
	uint32_t depth;
	uint32_t busy;
	uint32_t probe_left;
	int32_t  pmc;                  /* rdpmc index, -1: no cycles     */
	uint32_t index;                /* sbtmark thread number          */
	int32_t  tid;
	uint32_t chunk_size;           /* next chunk's size              */
	void *api[SBT_SLOT__N];        /* sbt_rec_api_state() blocks     */
	void (*api_fini[SBT_SLOT__N])(void *);
	struct open_region stack[MAX_DEPTH];
	struct site_slot cache[CACHE_SLOTS];
} __attribute__((aligned(64)));

enum { LOG_NONE, LOG_OPEN, LOG_FAILED, LOG_CLOSED };

static struct {
	_Atomic int state;             /* LOG_*                          */
	int inert;                     /* secure-exec or SBT_DISABLE     */
	int quiet;
	struct sbt_logfile *log;
	struct sbt_file_header *hdr;
	struct sbt_clockinfo clk;
	_Atomic int clk_ready;         /* clk is set (double-checked)    */
	int forked;                    /* this process is a fork child   */
	uint32_t probe_period;
	size_t reserve;
	char pattern[4096];
	pthread_mutex_t open_lock;
	pthread_key_t key;
	_Atomic uint32_t nthreads;
	_Atomic uint32_t warned;       /* bit per counter, reported once */
	_Atomic int warn_lines;
	uint64_t pending[SBT_CNT__N];  /* counted before the log opened  */
} g = { .open_lock = PTHREAD_MUTEX_INITIALIZER };

static __thread struct sbt_thread *me
	__attribute__((tls_model("initial-exec")));

static void record_probe(struct sbt_thread *t, sbt_id id);
static void thread_exit(void *arg);
static void before_fork(void);
static void after_fork_parent(void);
static void after_fork_child(void);

/* ---- warnings and counters (cold) ------------------------------------- */

void sbt_rec_warn(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	if (g.quiet || atomic_fetch_add(&g.warn_lines, 1) >= 20)
		return;
	n = snprintf(buf, sizeof buf, "sbtmark: ");
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof buf - 2)
		n = (int)sizeof buf - 2;
	buf[n++] = '\n';
	(void)!write(2, buf, (size_t)n);
}

static const char *counter_text[SBT_CNT__N] = {
	[SBT_CNT_STOP_WITHOUT_START] = "STOP of a region that is not open",
	[SBT_CNT_START_OPEN] = "START of a region that is already open",
	[SBT_CNT_CROSSED] = "regions stopped out of nesting order",
	[SBT_CNT_BAD_NAME] = "NULL, empty or over-long region name",
	[SBT_CNT_TOO_DEEP] = "regions nested deeper than 64",
	[SBT_CNT_TOO_MANY_REGIONS] = "more than 1048575 distinct regions",
	[SBT_CNT_DROPPED] = "samples dropped: no space left for the log",
	[SBT_CNT_AFTER_CLOSE] = "markers after CLOSE",
	[SBT_CNT_SIGNAL] = "marker interrupted a marker (signal handler)",
	[SBT_CNT_OPEN_AT_EXIT] = "regions still open when a thread exited",
};

/* The header, once the log was opened: g.hdr is stored before g.state
 * leaves LOG_NONE, so it may be read when the state says so. */
static struct sbt_file_header *opened_hdr(void)
{
	int st = atomic_load(&g.state);
	return st == LOG_OPEN || st == LOG_CLOSED ? g.hdr : NULL;
}

/* Move counts made before the log opened into its header.  Run after the
 * state changes (log_open) and after every pending count, so a count that
 * raced with the opening is not left behind in g.pending. */
static void merge_pending(void)
{
	struct sbt_file_header *h = opened_hdr();

	for (int c = 0; h && c < SBT_CNT__N; c++) {
		uint64_t v = atomic_exchange((_Atomic uint64_t *)&g.pending[c],
					     0);
		if (v)
			atomic_fetch_add((_Atomic uint64_t *)&h->counters[c],
					 v);
	}
}

void sbt_rec_count(enum sbt_counter c)
{
	struct sbt_file_header *h = opened_hdr();

	if (h) {
		atomic_fetch_add((_Atomic uint64_t *)&h->counters[c], 1);
	} else {
		atomic_fetch_add((_Atomic uint64_t *)&g.pending[c], 1);
		merge_pending();
	}
	if (counter_text[c] && c != SBT_CNT_THREADS &&
	    !(atomic_fetch_or(&g.warned, 1u << c) & (1u << c)))
		sbt_rec_warn("%s (counted in the log header; reported once)",
			     counter_text[c]);
}

/* ---- configuration (cold) --------------------------------------------- */

static long env_long(const char *name, long def, long lo, long hi)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < lo || v > hi) {
		sbt_rec_warn("%s='%s' is not a number in [%ld, %ld]; using %ld",
			     name, s, lo, hi, def);
		return def;
	}
	return v;
}

__attribute__((constructor)) static void sbt_setup(void)
{
	const char *out = getenv("SBT_OUTPUT");

	g.quiet = env_long("SBT_QUIET", 0, 0, 1);
	/* Secure execution (setuid etc.): the environment is not the
	 * user's to trust, and the log would be written with privileges. */
	if (getauxval(AT_SECURE) || env_long("SBT_DISABLE", 0, 0, 1))
		g.inert = 1;
	snprintf(g.pattern, sizeof g.pattern, "%s",
		 out && *out ? out : "region.log");
	g.probe_period = (uint32_t)env_long("SBT_PROBE_PERIOD", 64, 0,
					    1000000);
	g.reserve = (size_t)env_long("SBT_LOG_MAX_MB", 65536, 2,
				     1L << 24) << 20;
	pthread_key_create(&g.key, thread_exit);
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

/* ---- the log (cold) ---------------------------------------------------- */

static void fill_header(struct sbt_file_header *h)
{
	struct utsname u;
	struct timespec ts;
	FILE *f;
	char line[256];
	int cpu;

	h->version = SBT_LOG_VERSION;
	h->header_size = SBT_HEADER_SIZE;
#if defined(__x86_64__)
	h->arch = SBT_ARCH_X86_64;
	h->flags = SBT_HF_CPU_AUX;
#else
	h->arch = SBT_ARCH_AARCH64;
#endif
	h->record_size = sizeof(struct sbt_record);
	h->clocks = SBT_CLOCK_WALL | (g.clk.cycles ? SBT_CLOCK_CYCLES : 0);
	h->tick_hz = g.clk.tick_hz;
	h->tick_quantum = g.clk.quantum;
	snprintf(h->tick_source, sizeof h->tick_source, "%s", g.clk.source);
	snprintf(h->cycles_note, sizeof h->cycles_note, "%s",
		 g.clk.cycles_note);
	h->pid = getpid();
	h->ppid = getppid();
	h->rank = -1, h->nranks = -1;
	static const char *rk[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK",
		"PMIX_RANK", "SLURM_PROCID", "MV2_COMM_WORLD_RANK", 0 };
	static const char *sz[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
		"PMIX_SIZE", "SLURM_NTASKS", "MV2_COMM_WORLD_SIZE", 0 };
	for (int i = 0; rk[i]; i++)
		if (getenv(rk[i])) {
			h->rank = atoi(getenv(rk[i]));
			h->nranks = getenv(sz[i]) ? atoi(getenv(sz[i])) : -1;
			break;
		}
	clock_gettime(CLOCK_REALTIME, &ts);
	h->start_unix_ns = (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
	h->start_ticks = sbt_clock_stop(&cpu);
	h->probe_period = g.probe_period;
	if (uname(&u) == 0)
		snprintf(h->host, sizeof h->host, "%.63s", u.nodename);
	if ((f = fopen("/proc/cpuinfo", "re"))) {
		while (fgets(line, sizeof line, f)) {
			char *c = strchr(line, ':');
			if (c && (!strncmp(line, "model name", 10) ||
				  !strncmp(line, "CPU part", 8))) {
				c += 1 + (c[1] == ' ');
				c[strcspn(c, "\n")] = 0;
				snprintf(h->cpu_model, sizeof h->cpu_model,
					 "%s", c);
				break;
			}
		}
		fclose(f);
	}
	ssize_t n = readlink("/proc/self/exe", h->exe, sizeof h->exe - 1);
	h->exe[n > 0 ? n : 0] = 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* t_e,std: empty pairs through the same code as a real region.  The
 * records land in the log too (flag CALIB), as evidence. */
static void calibrate(struct sbt_file_header *h)
{
	static uint64_t d[CALIB_PAIRS];
	uint64_t cmin = UINT64_MAX;
	struct timespec ts;
	int cpu, n = 0;

	for (int i = 0; i < CALIB_PAIRS; i++) {
		if (sbt_rec_start_id(SBT_REGION_CALIB, NULL) != SBT_OK)
			break;
		sbt_rec_stop_id(SBT_REGION_CALIB);
		struct sbt_thread *t = me;
		if (!t || !t->chunk || t->cur == (struct sbt_record *)
		    (t->chunk + 1))
			break;
		d[n++] = t->cur[-1].ticks;
		if (t->cur[-1].cycles && t->cur[-1].cycles < cmin)
			cmin = t->cur[-1].cycles;
	}
	if (n) {
		qsort(d, (size_t)n, sizeof d[0], cmp_u64);
		h->te_min_ticks = d[0];
		h->te_p50_ticks = d[n / 2];
		h->te_p999_ticks = d[(n * 999) / 1000];
		h->te_min_cycles = cmin == UINT64_MAX ? 0 : cmin;
		h->te_samples = (uint32_t)n;
	}
	/* The cheapest way the OS can intrude on a sample is one kernel
	 * entry and exit: the smallest jump that can be OS noise. */
	double best = 1e12;
	for (int i = 0; i < 200; i++) {
		uint64_t a = sbt_clock_start(&cpu);
		syscall(SYS_getppid);
		uint64_t b = sbt_clock_stop(&cpu);
		if ((double)(b - a) < best)
			best = (double)(b - a);
	}
	h->kernel_entry_ns = (uint32_t)(best * 1e9 / (double)g.clk.tick_hz);
	(void)ts;
}

/* Open this process's log.  Returns 0 when recording. */
static int log_open(void)
{
	int st;

	pthread_mutex_lock(&g.open_lock);
	st = atomic_load(&g.state);
	if (st == LOG_NONE && g.inert)
		st = LOG_FAILED;
	if (st == LOG_NONE) {
		if (!g.clk_ready) {
			sbt_clock_setup(&g.clk,
				(int)env_long("SBT_CYCLES", 1, 0, 1));
			g.clk_ready = 1;
		}
		g.log = sbt_log_create(g.pattern, g.reserve);
		if (g.log) {
			g.hdr = sbt_log_header(g.log);
			fill_header(g.hdr);
			if (g.forked)
				g.hdr->flags |= SBT_HF_FORKED;
			atomic_store(&g.state, LOG_OPEN);
			merge_pending();
			sbt_regions_attach(g.log);
			calibrate(g.hdr);
			st = LOG_OPEN;
		} else {
			st = LOG_FAILED;
		}
		atomic_store(&g.state, st);
	}
	pthread_mutex_unlock(&g.open_lock);
	return st == LOG_OPEN ? 0 : -1;
}

/* ---- threads (cold) ---------------------------------------------------- */

static void thread_exit(void *arg)
{
	struct sbt_thread *t = arg;

	if (!t)
		return;
	for (uint32_t i = 0; i < t->depth; i++)
		sbt_rec_count(SBT_CNT_OPEN_AT_EXIT);
	for (int i = 0; i < SBT_SLOT__N; i++) {
		if (t->api[i] && t->api_fini[i])
			t->api_fini[i](t->api[i]);
		free(t->api[i]);
	}
	me = NULL;
	munmap(t, sizeof *t);
}

static struct sbt_thread *thread_attach(void)
{
	struct sbt_thread *t;

	if (g.inert || atomic_load(&g.state) == LOG_CLOSED)
		return NULL;
	t = mmap(NULL, sizeof *t, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED)
		return NULL;
	t->pmc = -1;
	if (!g.clk_ready) {
		pthread_mutex_lock(&g.open_lock);
		if (!g.clk_ready) {
			sbt_clock_setup(&g.clk,
				(int)env_long("SBT_CYCLES", 1, 0, 1));
			g.clk_ready = 1;
		}
		pthread_mutex_unlock(&g.open_lock);
	}
	if (g.clk.cycles)
		t->pmc = sbt_cycles_open();
	if (t->pmc < 0)
		t->pmc = -1;
	t->index = atomic_fetch_add(&g.nthreads, 1);
	t->tid = (int32_t)syscall(SYS_gettid);
	t->chunk_size = FIRST_CHUNK;
	t->probe_left = g.probe_period ? g.probe_period : UINT32_MAX;
	me = t;
	pthread_setspecific(g.key, t);
	sbt_rec_count(SBT_CNT_THREADS);
	return t;
}

/* Make room for one record.  Returns 0 when there is none (dropped). */
static __attribute__((noinline)) int next_chunk(struct sbt_thread *t)
{
	struct sbt_chunk *c;

	if (atomic_load(&g.state) != LOG_OPEN)
		return 0;
	c = sbt_log_chunk(g.log, SBT_CHUNK_SAMPLES, t->chunk_size, t->index,
			  t->tid);
	if (!c)
		return 0;
	if (t->chunk_size < MAX_CHUNK)
		t->chunk_size *= 2;
	c->prev = t->chunk ? (uint64_t)((char *)t->chunk - (char *)g.hdr) : 0;
	t->chunk = c;
	t->cur = (struct sbt_record *)(c + 1);
	t->end = (struct sbt_record *)((char *)c + c->size);
	return 1;
}

/* ---- call-site cache ---------------------------------------------------- */

static inline struct site_slot *slot_of(struct sbt_thread *t,
					const void *site, const char *name)
{
	uintptr_t h = (uintptr_t)site ^ ((uintptr_t)name >> 3);
	h ^= h >> 11;
	return &t->cache[(h ^ (h >> 7)) & (CACHE_SLOTS - 1)];
}

static __attribute__((noinline)) sbt_id
site_miss(struct site_slot *s, const void *site, const char *name,
	  unsigned api)
{
	int verify;
	sbt_id id;

	/* Same pointer, writable memory: cheap check of the bytes first. */
	if (s->verify && s->site == site && s->name == name && name) {
		const char *known = sbt_regions_name(s->id);
		if (known && strncmp(known, name, SBT_MAX_NAME + 1) == 0)
			return s->id;
	}
	id = sbt_regions_site(site, name, api, &verify);
	if (id) {
		s->site = site, s->name = name;
		s->id = id, s->verify = verify;
	}
	return id;
}

static inline sbt_id lookup(struct sbt_thread *t, const char *name,
			    unsigned api, const void *site)
{
	struct site_slot *s = slot_of(t, site, name);

	if (likely(s->site == site && s->name == name && !s->verify))
		return s->id;
	return site_miss(s, site, name, api);
}

/* ---- the hot path -------------------------------------------------------- */

static inline int start_id(struct sbt_thread *t, sbt_id id, uint16_t flags,
			   const char *name)
{
	struct open_region *o;
	int cpu;

	if (unlikely(t->depth >= MAX_DEPTH)) {
		sbt_rec_count(SBT_CNT_TOO_DEEP);
		return SBT_EMISUSE;
	}
	for (uint32_t i = 0; i < t->depth; i++)
		if (unlikely(t->stack[i].id == id)) {
			sbt_rec_count(SBT_CNT_START_OPEN);
			return SBT_EMISUSE;
		}
	if (unlikely(--t->probe_left == 0))
		record_probe(t, id);
	o = &t->stack[t->depth++];
	o->id = id;
	o->name = name;
	o->flags = flags;
	o->c0 = 0;
	if (t->pmc >= 0)
		o->c0 = sbt_cycles_read((uint32_t)t->pmc);
	/* Last: nothing of ours runs after this read. */
	o->t0 = sbt_clock_start(&cpu);
	o->cpu = (uint16_t)cpu;
	return SBT_OK;
}

/* Close region `id`, whose STOP read the clock as (t1, cpu1). */
static inline int stop_id(struct sbt_thread *t, sbt_id id, uint64_t t1,
			  int cpu1, uint64_t c1)
{
	struct open_region *o;
	struct sbt_record *r;
	uint32_t i = t->depth;
	uint16_t flags;

	while (i > 0 && t->stack[i - 1].id != id)
		i--;
	if (unlikely(i == 0)) {
		sbt_rec_count(SBT_CNT_STOP_WITHOUT_START);
		return SBT_EMISUSE;
	}
	o = &t->stack[i - 1];
	flags = o->flags;
	if (unlikely(i != t->depth)) {
		sbt_rec_count(SBT_CNT_CROSSED);
		flags |= SBT_RF_CROSSED;
	}
	if (unlikely(t->cur == t->end) && !next_chunk(t)) {
		sbt_rec_count(SBT_CNT_DROPPED);
	} else {
		r = t->cur++;
		r->start = o->t0;
		r->ticks = t1 - o->t0;
		r->cycles = t->pmc >= 0 ? c1 - o->c0 : 0;
		r->region = id | ((uint32_t)flags << SBT_REC_ID_BITS);
		r->cpu_start = o->cpu;
		r->cpu_stop = (uint16_t)cpu1;
		/* Commit: `used` covers the record only once it is whole. */
		atomic_signal_fence(memory_order_release);
		t->chunk->used += sizeof *r;
	}
	/* Pop, closing the gap when the region was not innermost. */
	for (; i < t->depth; i++)
		t->stack[i - 1] = t->stack[i];
	t->depth--;
	return SBT_OK;
}

/* An empty pair right before a region's own START: same cache state, and
 * like a real region a function return and a call lie between the two
 * clock reads.  Recorded under the region's id with flag PROBE. */
static __attribute__((noinline)) int probe_begin(struct sbt_thread *t,
						 sbt_id id)
{
	return start_id(t, id, SBT_RF_PROBE, NULL);
}

static __attribute__((noinline)) void probe_end(struct sbt_thread *t,
						sbt_id id)
{
	int cpu;
	uint64_t t1 = sbt_clock_stop(&cpu);
	uint64_t c1 = t->pmc >= 0 ? sbt_cycles_read((uint32_t)t->pmc) : 0;

	stop_id(t, id, t1, cpu, c1);
}

static __attribute__((noinline)) void record_probe(struct sbt_thread *t,
						   sbt_id id)
{
	t->probe_left = g.probe_period ? g.probe_period : UINT32_MAX;
	if (id != SBT_REGION_CALIB && probe_begin(t, id) == SBT_OK)
		probe_end(t, id);
}

/* Why a marker cannot run now; counts the reason. */
static __attribute__((noinline)) int refused(void)
{
	int st = atomic_load(&g.state);

	if (st == LOG_CLOSED) {
		sbt_rec_count(SBT_CNT_AFTER_CLOSE);
		return SBT_EOFF;
	}
	if (me && me->busy) {
		sbt_rec_count(SBT_CNT_SIGNAL);
		return SBT_EMISUSE;
	}
	return SBT_EOFF;
}

/* A marker's way in when the fast checks fail: attach the thread, open the
 * log (this is where the log of a process or a fork child is created, and
 * t_e,std calibrated - never while a marker is half done), or refuse. */
static __attribute__((noinline)) struct sbt_thread *enter_slow(void)
{
	struct sbt_thread *t = me;

	if (t && t->busy)
		return NULL;
	if (!t && !(t = thread_attach()))
		return NULL;
	if (atomic_load(&g.state) == LOG_NONE)
		log_open();
	return atomic_load(&g.state) == LOG_OPEN ? t : NULL;
}

/* Every marker runs between ENTER and LEAVE. */
#define ENTER(t)                                                         \
	struct sbt_thread *t = me;                                       \
	if (unlikely(!t || t->busy ||                                    \
		     atomic_load_explicit(&g.state, memory_order_relaxed)\
		     != LOG_OPEN) && !(t = enter_slow()))                \
		return refused();                                        \
	t->busy = 1;                                                     \
	atomic_signal_fence(memory_order_seq_cst)

#define LEAVE(t, rc)                                                     \
	do {                                                             \
		int rc_ = (rc);                                          \
		atomic_signal_fence(memory_order_seq_cst);               \
		t->busy = 0;                                             \
		return rc_;                                              \
	} while (0)

int sbt_rec_start(const char *name, unsigned api, const void *site)
{
	ENTER(t);
	struct site_slot *s = slot_of(t, site, name);
	sbt_id id;
	if (likely(s->site == site && s->name == name && !s->verify))
		LEAVE(t, start_id(t, s->id, 0, name));
	id = site_miss(s, site, name, api);
	LEAVE(t, id ? start_id(t, id, 0, s->verify ? NULL : name)
		    : SBT_EMISUSE);
}

int sbt_rec_start_id(sbt_id id, const void *site)
{
	(void)site;
	ENTER(t);
	LEAVE(t, id < sbt_regions_count() ?
		 start_id(t, id, id == SBT_REGION_CALIB ? SBT_RF_CALIB : 0,
			  NULL) :
		 SBT_EMISUSE);
}

/* STOP reads the clock before anything else, even before finding its
 * thread: whatever follows is outside the recorded window. */
#define STOP_CLOCK(t1, cpu1)                                             \
	int cpu1;                                                        \
	uint64_t t1 = sbt_clock_stop(&cpu1)

static inline uint64_t stop_cycles(struct sbt_thread *t)
{
	return t->pmc >= 0 ? sbt_cycles_read((uint32_t)t->pmc) : 0;
}

int sbt_rec_stop(const char *name, unsigned api, const void *site)
{
	STOP_CLOCK(t1, cpu1);
	ENTER(t);
	uint64_t c1 = stop_cycles(t);
	/* The usual case, STOP(x) right after START(x) with the same
	 * read-only string: no lookup at all. */
	if (likely(t->depth && t->stack[t->depth - 1].name == name && name))
		LEAVE(t, stop_id(t, t->stack[t->depth - 1].id, t1, cpu1, c1));
	sbt_id id = lookup(t, name, api, site);
	LEAVE(t, id ? stop_id(t, id, t1, cpu1, c1) : SBT_EMISUSE);
}

int sbt_rec_stop_id(sbt_id id)
{
	STOP_CLOCK(t1, cpu1);
	ENTER(t);
	uint64_t c1 = stop_cycles(t);
	LEAVE(t, stop_id(t, id, t1, cpu1, c1));
}

/* ---- the rest of the API (cold) ---------------------------------------- */

sbt_id sbt_rec_intern(const char *name, size_t len, unsigned api,
		      const void *site)
{
	return sbt_regions_intern(name, len, api, site);
}

int sbt_rec_reset_id(sbt_id id)
{
	int cpu;

	if (!id || id >= sbt_regions_count())
		return SBT_EMISUSE;
	ENTER(t);
	/* A RESET event: a zero-length record the analyzer honours. */
	if (t->cur != t->end || next_chunk(t)) {
		struct sbt_record *r = t->cur++;
		r->start = sbt_clock_stop(&cpu);
		r->ticks = r->cycles = 0;
		r->region = id | ((uint32_t)SBT_RF_RESET << SBT_REC_ID_BITS);
		r->cpu_start = r->cpu_stop = (uint16_t)cpu;
		atomic_signal_fence(memory_order_release);
		t->chunk->used += sizeof *r;
	}
	LEAVE(t, SBT_OK);
}

/* Walks the thread's own records back to the region's last RESET: totals
 * cost nothing on the hot path, and GetRegion-style calls are rare. */
int sbt_rec_totals(sbt_id id, uint64_t *count, double *seconds)
{
	struct sbt_thread *t = me;
	uint64_t n = 0, ticks = 0;

	if (!t || !id || !g.clk.tick_hz || atomic_load(&g.state) != LOG_OPEN)
		return SBT_EMISUSE;
	for (struct sbt_chunk *c = t->chunk; c;
	     c = c->prev ? (struct sbt_chunk *)((char *)g.hdr + c->prev)
			 : NULL) {
		const struct sbt_record *first = (const void *)(c + 1);
		const struct sbt_record *r = first + c->used / sizeof *r;
		while (r-- > first) {
			if (SBT_REC_ID(r->region) != id)
				continue;
			uint32_t fl = SBT_REC_FLAGS(r->region);
			if (fl & SBT_RF_RESET)
				goto done;
			if (!(fl & (SBT_RF_PROBE | SBT_RF_CALIB)))
				n++, ticks += r->ticks;
		}
	}
done:
	*count = n;
	*seconds = (double)ticks / (double)g.clk.tick_hz;
	return SBT_OK;
}

void *sbt_rec_api_state(enum sbt_slot slot, size_t size,
			void (*fini)(void *))
{
	struct sbt_thread *t = me;

	if (!t && !(t = thread_attach()))
		return NULL;
	if (!t->api[slot] && (t->api[slot] = calloc(1, size)))
		t->api_fini[slot] = fini;
	return t->api[slot];
}

int sbt_rec_last(uint64_t *ticks, uint64_t *cycles)
{
	struct sbt_thread *t = me;

	if (!t || !t->chunk || t->cur == (struct sbt_record *)(t->chunk + 1))
		return SBT_EMISUSE;
	*ticks = t->cur[-1].ticks;
	*cycles = t->cur[-1].cycles;
	return SBT_OK;
}

int sbt_rec_init(void)
{
	if (atomic_load(&g.state) == LOG_CLOSED)
		return refused();
	return enter_slow() ? SBT_OK : SBT_EOFF;
}

int sbt_rec_thread_init(void)
{
	if (me)
		return SBT_OK;
	return thread_attach() ? SBT_OK : refused();
}

int sbt_rec_active(void)
{
	return atomic_load(&g.state) == LOG_OPEN;
}

int sbt_rec_close(void)
{
	pthread_mutex_lock(&g.open_lock);
	if (atomic_load(&g.state) == LOG_OPEN)
		sbt_log_finish(g.log);
	atomic_store(&g.state, LOG_CLOSED);
	pthread_mutex_unlock(&g.open_lock);
	return SBT_OK;
}

const char *sbt_rec_log_path(void)
{
	return atomic_load(&g.state) >= LOG_OPEN && g.log ?
	       sbt_log_path(g.log) : NULL;
}

/* ---- process events ------------------------------------------------------ */

static void before_fork(void)
{
	pthread_mutex_lock(&g.open_lock);
	sbt_regions_lock();
}

static void after_fork_parent(void)
{
	sbt_regions_unlock();
	pthread_mutex_unlock(&g.open_lock);
}

/* The child must never write into the parent's file: drop the mapping and
 * let the first record open the child's own log.  Regions open across the
 * fork stay open: their start times are valid in the child too. */
static void after_fork_child(void)
{
	struct sbt_thread *t = me;

	/* before_fork holds the regions lock; attach takes it itself. */
	sbt_regions_unlock();
	sbt_regions_attach(NULL);
	if (g.log && atomic_load(&g.state) == LOG_OPEN)
		sbt_log_abandon(g.log);
	g.log = NULL;
	g.hdr = NULL;
	g.forked = 1;
	if (atomic_load(&g.state) != LOG_CLOSED)
		atomic_store(&g.state, LOG_NONE);
	atomic_store(&g.nthreads, t ? 1 : 0);
	if (t) {
		t->chunk = NULL;
		t->cur = t->end = NULL;
		t->index = 0;
		t->tid = (int32_t)syscall(SYS_gettid);
		t->chunk_size = FIRST_CHUNK;
	}
	pthread_mutex_unlock(&g.open_lock);
}

__attribute__((destructor)) static void sbt_fini(void)
{
	pthread_mutex_lock(&g.open_lock);
	if (atomic_load(&g.state) == LOG_OPEN)
		sbt_log_finish(g.log);
	pthread_mutex_unlock(&g.open_lock);
}
