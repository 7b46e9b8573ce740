/*
 * recorder.c - the process's recording: its log, its threads, fork.
 *
 * The log is opened by the first marker (or INIT) of the process, and of
 * a fork child, and finished at exit or CLOSE.  Each thread that marks
 * gets a struct sbt_thread (thread.h), reached through one initial-exec
 * TLS pointer, and EVENTS chunks of the log, each twice the size of the
 * last up to 1 MiB.  Nothing here runs on the hot path: the marker paths
 * (hot.c, and the inline markers of sbtmark.h) come here for a new thread,
 * a full chunk or a new log.
 *
 * Invariants:
 *   - g.log is non-NULL only in states LOG_OPEN and LOG_CLOSED, and
 *     belongs to this pid.
 *   - every attached thread is on g.threads (under g.lock), so CLOSE can
 *     shut every thread's fast path.
 */
#include "config.h"
#include "recorder.h"
#include "sample.h"
#include "gate.h"
#include "stop.h"
#include "due.h"
#include "cap.h"
#include "clock.h"
#include "counters.h"
#include "diag.h"
#include "header.h"
#include "prefault.h"
#include "logfile.h"
#include "osevents.h"
#include "prepare.h"
#include "probe.h"
#include "thread.h"

#include <assert.h>
#include <limits.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define FIRST_CHUNK   4096u            /* short-lived threads waste <4K  */
#define CALIB_CHUNK   (64u << 10)      /* the opening thread calibrates  */
#define MAX_CHUNK     (1u << 20)

_Static_assert(sizeof(struct sbt__ev) == sizeof(struct sbt_event) &&
	       SBT__START_WORD == SBT_EV_WORD(SBT_EV_START, 0, 0) &&
	       SBT__STOP_DELTA == SBT_EV_WORD(SBT_EV_STOP, 0, 0) -
				  SBT_EV_WORD(SBT_EV_START, 0, 0) &&
	       SBT__SKIP_WORD == SBT_EV_WORD(SBT_EV_SKIP, 0, 0) &&
	       SBT_EV_SKIP == 5 && SBT_EV_ID_BITS == 24 &&
	       offsetof(struct sbt_event, t) == 0,
	       "sbtmark.h's events are sbtlog.h's");

enum { LOG_NONE, LOG_OPEN, LOG_FAILED, LOG_CLOSED };

static struct {
	_Atomic int state;             /* LOG_*                          */
	int inert;                     /* secure-exec or SBT_DISABLE     */
	struct sbt_logfile *log;
	struct sbt_file_header *hdr;
	struct sbt_clockinfo clk;
	_Atomic int clk_ready;         /* clk is set (double-checked)    */
	int forked;                    /* this process is a fork child   */
	size_t reserve;
	char pattern[4096];
	pthread_mutex_t lock;          /* state changes, thread list     */
	pthread_key_t key;
	_Atomic uint32_t nthreads;
	struct sbt_thread *threads;
} g = { .lock = PTHREAD_MUTEX_INITIALIZER };

__thread struct sbt_thread *sbt_me
	__attribute__((tls_model("initial-exec"), visibility("hidden")));
#define me sbt_me

static void thread_exit(void *arg);
static void before_fork(void);
static void after_fork_parent(void);
static void after_fork_child(void);

const struct sbt_chunk *sbt_thread_chunk_at(uint64_t off)
{
	return off && g.hdr ? (const void *)((const char *)g.hdr + off) : NULL;
}

uint64_t sbt_thread_tick_hz(void) { return g.clk.tick_hz; }

int sbt_thread_log_state(void)
{
	int st = atomic_load(&g.state);
	return st == LOG_OPEN ? 1 : st == LOG_CLOSED ? -1 : 0;
}

/* ---- configuration ------------------------------------------------------ */

int sbt_rec_skips;

int sbt_rec_early(void)
{
	const char *want = sbt_cfg_text(SBT_CFG_EARLY);
	char a[PATH_MAX], b[PATH_MAX];

	return !g.inert && want && realpath(want, a) &&
	       realpath("/proc/self/exe", b) && !strcmp(a, b);
}

/* First of the library's constructors (SBT_CTOR_SETUP): every other one
 * may use the configuration. */
__attribute__((constructor(SBT_CTOR_SETUP))) static void sbt_setup(void)
{
	sbt_config_load();
	/* Secure execution (setuid etc.): the environment is not the
	 * user's to trust, and the log would be written with privileges. */
	if (getauxval(AT_SECURE) || sbt_cfg(SBT_CFG_DISABLE))
		g.inert = 1;
	strncpy(g.pattern, sbt_cfg_text(SBT_CFG_OUTPUT), sizeof g.pattern - 1);
	sbt_pair_setup((uint32_t)sbt_cfg(SBT_CFG_PROBE_PERIOD));
	int sampling = sbt_sample_on();  /* parsed with the configuration */
	sbt_speed_setup();
	sbt_prep_setup();
	g.reserve = (size_t)sbt_cfg(SBT_CFG_LOG_MAX_MB) << 20;
	/* SBT_MAX_MB thins before the cap; past it the log is full */
	uint64_t cap = sbt_cap_setup();
	sbt_rec_skips = sampling || cap;
	if (cap && cap < g.reserve)
		g.reserve = (size_t)cap;
	pthread_key_create(&g.key, thread_exit);
	/* for CLOSE's barrier (quiesce); refused: it falls back */
	(void)syscall(SYS_membarrier,
		      MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0);
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

/* Under g.lock, or before any thread could race. */
static void clock_ready(void)
{
	if (!atomic_load(&g.clk_ready)) {
		const char *test = sbt_cfg_text(SBT_CFG_TEST_CLOCK);
		sbt_clock_setup(&g.clk, (int)sbt_cfg(SBT_CFG_CYCLES),
				test && strstr(test, "calibrate"));
		atomic_store(&g.clk_ready, 1);
	}
}

/* ---- the log -------------------------------------------------------------- */

/* Open this process's log; returns its header when this call opened it. */
static struct sbt_file_header *log_open(void)
{
	struct sbt_file_header *fresh = NULL;

	pthread_mutex_lock(&g.lock);
	if (atomic_load(&g.state) == LOG_NONE) {
		int st = LOG_FAILED;
		clock_ready();
		if (!g.inert && (g.log = sbt_log_create(g.pattern, g.reserve))) {
			sbt_prep_start(g.log);
			g.hdr = sbt_log_header(g.log);
			sbt_header_fill(g.hdr, &g.clk, sbt_pair_period(),
					g.forked);
			sbt_os_header(g.hdr);
			sbt_cap_attach(g.hdr);
			sbt_diag_attach(g.hdr);
			sbt_regions_attach(g.log);
			sbt_ctrs_meta();
			sbt_speed_meta();
			sbt_memlat_setup();
			/* our pages before the first window (its START) */
			sbt_prefault_self();
			fresh = g.hdr;
			st = LOG_OPEN;
		}
		atomic_store(&g.state, st);
	}
	pthread_mutex_unlock(&g.lock);
	return fresh;
}

/* ---- threads ---------------------------------------------------------------- */

/* The kernel's events of the calling thread so far, into the log.  From
 * a marker's path (the gate shut already) or, through os_drain_gated,
 * from outside one. */
static void os_drain(struct sbt_thread *t)
{
	if (t && t->os && atomic_load(&g.state) == LOG_OPEN)
		sbt_os_drain(t->os, g.log, t->index, t->tid);
}

int sbt_thread_os_tick(struct sbt_thread *t)
{
	if (!t->os || atomic_load(&g.state) != LOG_OPEN ||
	    !sbt_os_half(t->os))
		return 0;
	os_drain(t);
	return 1;
}

/* The same outside any marker (thread exit, CLOSE, fork, exit): the gate
 * shut meanwhile, so that a signal handler marking then leaves its work
 * to the recorder instead of draining the same ring concurrently.  With
 * the gate already shut, a marker is running here: it drains itself. */
static void os_drain_gated(struct sbt_thread *t)
{
	uint32_t was;

	if (!t || (was = sbt_gate(t)) == SBT_GATE_SHUT)
		return;
	sbt_gate_shut(t);
	os_drain(t);
	sbt_gate_restore(t, was);
}

/* Ticks for a thread that has work at them: a probe when probes are on,
 * else a drain of its kernel-event ring when it has one.  A thread with
 * neither never leaves the fast path for a tick (the chunk not yet
 * given: its first tick is placed with it). */
static void tick_first(struct sbt_thread *t)
{
	int work = sbt_speed_on() || t->os;

	sbt_due_first(t, work ? sbt_speed_period(g.clk.tick_hz) : 0);
}

/* A thread's xorshift state (probe spacing, sampling gaps): the
 * splitmix64 finalizer of its tid, so that threads with neighbouring tids
 * do not draw correlated streams. */
static uint64_t rng_seed(int32_t tid)
{
	uint64_t x = (uint64_t)(uint32_t)tid + 0x9e3779b97f4a7c15ull;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x ? x : 1;
}

static void thread_exit(void *arg)
{
	struct sbt_thread *t = arg;

	if (!t)
		return;
	for (uint32_t i = 0; i < t->hot.depth; i++)
		sbt_count(SBT_CNT_OPEN_AT_EXIT);
	os_drain_gated(t);
	sbt_memlat_flush(t->index);
	sbt_os_close(t->os);
	sbt_ctrs_close(t->ctrs);
	for (int i = 0; i < SBT_SLOT__MAX; i++) {
		if (t->api[i] && t->api_fini[i])
			t->api_fini[i](t->api[i]);
		free(t->api[i]);
	}
	/* No marker of this thread may reach the memory once it is gone. */
	for (int i = 0; i < SBT_HOT_SLOTS; i++)
		if (t->hot_slots[i]) {
			t->hot_slots[i][0] = NULL;   /* struct sbt__tls */
			t->hot_slots[i][1] = NULL;
		}
	me = NULL;
	pthread_mutex_lock(&g.lock);
	if (t->prev)
		t->prev->next = t->next;
	else if (g.threads == t)
		g.threads = t->next;
	if (t->next)
		t->next->prev = t->prev;
	pthread_mutex_unlock(&g.lock);
	munmap(t, sizeof *t);
}

struct sbt_thread *sbt_thread_attach(void)
{
	struct sbt_thread *t = me;

	if (t)
		return t;
	if (g.inert)
		return NULL;
	t = mmap(NULL, sizeof *t, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED)
		return NULL;
#if defined(__x86_64__)
	/* first: the clock's setup below reads it this thread's way; the
	 * inline markers read it so too */
	sbt_tsc_hot(&t->hot, sbt_tsc_thread());
#endif
	pthread_mutex_lock(&g.lock);
	clock_ready();
	t->pmc = g.clk.cycles ? sbt_cycles_open() : -1;
	if (t->pmc < 0)
		t->pmc = -1;
	t->index = atomic_fetch_add(&g.nthreads, 1);
	t->tid = (int32_t)syscall(SYS_gettid);
	t->rng = rng_seed(t->tid);
	t->chunk_size = FIRST_CHUNK;
	t->omp_thread = -1;
	t->next = g.threads;
	if (g.threads)
		g.threads->prev = t;
	g.threads = t;
	pthread_mutex_unlock(&g.lock);
	me = t;
	pthread_setspecific(g.key, t);
	t->os = sbt_os_open();
	/* before the log opens: its header's version depends on it */
	t->ctrs = sbt_ctrs_open();
	tick_first(t);
	sbt_count(SBT_CNT_THREADS);
	return t;
}

struct sbt_thread *sbt_thread_enter(struct sbt_file_header **fresh)
{
	struct sbt_thread *t = sbt_thread_attach();

	*fresh = NULL;
	if (!t)
		return NULL;
	if (atomic_load(&g.state) == LOG_NONE) {
		/* The opening thread's first chunk holds the calibration. */
		if (t->chunk_size < CALIB_CHUNK)
			t->chunk_size = CALIB_CHUNK;
		*fresh = log_open();
	}
	return atomic_load(&g.state) == LOG_OPEN ? t : NULL;
}

/* The START events of regions open across fork go first into the
 * child's first chunk, so their STOPs pair in the child's log. */
static void replay(struct sbt_thread *t)
{
	struct sbt_event *e = (struct sbt_event *)t->hot.cur;
	uint32_t k = 0;

	assert(t->nreplay <= 2 * SBT_HOT_DEPTH &&
	       t->hot.cur + t->nreplay <= t->chunk_end);
	for (uint32_t i = 0; i < t->hot.depth && k < t->nreplay; i++) {
		struct sbt__open *o = &t->hot.stack[i];
		if (!o->ev)
			continue;
		o->ev = (struct sbt__ev *)e;
		*e++ = t->replay[k++];
		if (t->pmc >= 0 && k < t->nreplay &&
		    SBT_EV_KIND(t->replay[k].word) == SBT_EV_CYCLES)
			*e++ = t->replay[k++];
	}
	t->hot.cur = (struct sbt__ev *)e;
	t->nreplay = 0;
}

void sbt_thread_limit(struct sbt_thread *t)
{
	struct sbt__ev *end = sbt_due_next(t);

	/* The recorder sees every marker of a thread that counts cycles
	 * or events, and after CLOSE; and, but for skipped calls, while
	 * one is open.  (Atomic stores: CLOSE shuts `end` from another
	 * thread, recorder.c's quiesce.) */
	if (t->pmc >= 0 || t->ctrs || atomic_load(&g.state) == LOG_CLOSED)
		end = NULL;
	/* Level 0 of SBT_MAX_MB ended: the caches' words go (every region
	 * is sampled now).  A level rise shuts `end` after it announced
	 * itself; with the fence, either we see the rise here or the shut
	 * comes after our store. */
	for (;;) {
		uint32_t thin = (uint32_t)sbt_cap_thinning();
		if (t->thinned != thin) {
			for (int i = 0; i < SBT_CACHE_SLOTS; i++)
				t->names[i].ra = NULL;
			for (int i = 0; i < SBT_SITE_SLOTS; i++)
				t->sites[i].ra = NULL;
			t->thinned = thin;
		}
		sbt_stop_at(t, end);
		atomic_thread_fence(memory_order_seq_cst);
		if ((uint32_t)sbt_cap_thinning() == thin)
			break;
	}
}

/* SBT_MAX_MB's level 0 ended (cap.h): every thread's next marker comes
 * to the recorder, whose sbt_thread_limit drops the thread's cached
 * words of level 0 before it reopens the fast path.  A marker that
 * tested `end` before this records its call at the old rate: one a
 * thread, as a gap drawn just before a rise would.  Called from a
 * marker's general path, the gate shut. */
static void shut_all(void)
{
	/* a full barrier (our shut gate before what we read next), as an
	 * RMW: TSan models those, not a bare fence */
	(void)atomic_fetch_add_explicit(&g.state, 0, memory_order_seq_cst);
	/* Our gate is shut: a CLOSE holding the lock waits for us (quiesce),
	 * and shuts every thread itself. */
	while (pthread_mutex_trylock(&g.lock) != 0) {
		if (atomic_load(&g.state) == LOG_CLOSED)
			return;
		sched_yield();
	}
	for (struct sbt_thread *t = g.threads; t; t = t->next) {
		sbt_stop_shut(t);
	}
	pthread_mutex_unlock(&g.lock);
}

/* META THREAD: who t is, from now on (FORMAT.md).  The name is the
 * kernel's comm (prctl: also a name set by pthread_setname_np). */
static void thread_meta(const struct sbt_thread *t)
{
	struct sbt_meta_thread m;
	char name[17] = "";
	int cpu;

	(void)prctl(PR_GET_NAME, name, 0, 0, 0);
	m = (struct sbt_meta_thread){ .thread = t->index, .tid = t->tid,
		.omp_thread = t->omp_thread, .omp_level = t->omp_level,
		.t = sbt_clock_stop(&cpu) };
	sbt_regions_meta(SBT_META_THREAD, &m, sizeof m, name,
			 (uint32_t)strnlen(name, 16));
}

void sbt_rec_thread_omp(int32_t omp_thread, uint32_t level)
{
	struct sbt_thread *t = sbt_thread_attach();

	if (!t || (t->omp_thread == omp_thread && t->omp_level == level))
		return;
	t->omp_thread = omp_thread;
	t->omp_level = level;
	if (t->chunk)                  /* else its first chunk says it */
		thread_meta(t);
}

int sbt_thread_refill(struct sbt_thread *t, uint32_t n)
{
	struct sbt_chunk *c;
	size_t size = t->chunk_size;

	if (t->hot.cur && (size_t)(t->chunk_end - t->hot.cur) >= n)
		return 1;
	if (atomic_load(&g.state) != LOG_OPEN)
		return 0;
	while (size < sizeof *c + (n + t->nreplay) * sizeof(struct sbt_event))
		size *= 2;
	c = sbt_log_chunk(g.log, SBT_CHUNK_EVENTS, size, t->index, t->tid);
	if (!c)
		return 0;
	if (t->chunk_size < sbt_cap_chunk_max(MAX_CHUNK))
		t->chunk_size *= 2;
	/* Off any timed window, the gate shut (or a fresh log, far below
	 * the first step): a level rise takes the regions lock. */
	if (sbt_cap_used((uint64_t)((char *)c - (char *)g.hdr) + c->size))
		shut_all();
	if (!t->chunk)                 /* the thread's first in this log */
		thread_meta(t);
	c->prev = t->chunk ? (uint64_t)((char *)t->chunk - (char *)g.hdr) : 0;
	sbt_due_chunk_leaving(t);      /* the tick's event count goes on */
	t->chunk = c;
	t->hot.cur = (struct sbt__ev *)(c + 1);
	sbt_due_chunk_entered(t);
	t->chunk_end = (struct sbt__ev *)((char *)c + c->size);
	if (t->nreplay)
		replay(t);
	/* A chunk change with no region open: time to drain, untimed. */
	if (!t->hot.depth)
		os_drain(t);
	sbt_thread_limit(t);
	assert(t->chunk_end - t->hot.cur >= (ptrdiff_t)n);
	return 1;
}

/* ---- the rest of the process-level API ----------------------------------- */

void *sbt_rec_api_state(unsigned slot, size_t size, void (*fini)(void *))
{
	struct sbt_thread *t = sbt_thread_attach();

	if (!t || slot >= SBT_SLOT__MAX)
		return NULL;
	if (!t->api[slot] && (t->api[slot] = calloc(1, size)))
		t->api_fini[slot] = fini;
	return t->api[slot];
}

/* A full barrier on every running thread of the process, so that a
 * store of theirs made with only a compiler barrier (the fast path's gate)
 * is ordered against our loads and stores.  Registered at startup; where
 * the kernel refuses, a global barrier, then time as a last resort. */
static void process_barrier(void)
{
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) &&
	    syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0)) {
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
	}
	/* (a system call orders our own accesses around it) */
}

/*
 * The log is about to be finished (CLOSE, exit): no marker may write into
 * it after that.  g.lock held, g.state LOG_CLOSED already.  Every thread's
 * fast path is shut (end NULL); a marker that tested `end` before that
 * still writes, so wait for every thread whose gate is shut by a marker
 * (busy 1; not one waiting for our lock) - the barrier makes their gates
 * visible to us and our stores to their next test.  A thread stopped
 * inside a marker (a debugger, a signal handler that never returns) is
 * waited for 100 ms at most.  A general path that restored `end` from a
 * state read before ours is undone by the second clearing; later ones
 * read LOG_CLOSED (sbt_thread_limit, room).
 *
 * Not waited for: a START's clock value and TSC_AUX, stored after its
 * clock read, past the gate (a store there would sit in the timed
 * window).  A thread stalled between the two writes them after the log
 * is finished; that START has no STOP (the fast path is shut), and the
 * reader drops it.  rel-closerace allows exactly those bytes to change.
 */
static void quiesce(void)
{
	struct timespec t0, now;

	for (struct sbt_thread *t = g.threads; t; t = t->next) {
		sbt_stop_shut(t);
	}
	process_barrier();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (struct sbt_thread *t = g.threads; t; t = t->next) {
		while (t != me && sbt_gate(t) == SBT_GATE_SHUT) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if ((now.tv_sec - t0.tv_sec) * 1000000000L +
			    (now.tv_nsec - t0.tv_nsec) > 100000000L)
				break;
			sched_yield();
		}
		sbt_stop_shut(t);
	}
}

/* Under g.lock, the log open: its last header fields, then the file. */
static void log_finish(void)
{
	sbt_header_clock_final(g.hdr, &g.clk);
	sbt_log_finish(g.log);
}

int sbt_rec_close(void)
{
	os_drain_gated(me);
	if (me)
		sbt_memlat_flush(me->index);
	pthread_mutex_lock(&g.lock);
	int was = atomic_exchange(&g.state, LOG_CLOSED);
	/* Every thread's markers now come to the recorder, which counts and
	 * ignores them. */
	quiesce();
	if (was == LOG_OPEN)
		log_finish();
	pthread_mutex_unlock(&g.lock);
	return SBT_OK;
}

int sbt_rec_inert(void) { return g.inert; }

int sbt_rec_active(void)
{
	return atomic_load(&g.state) == LOG_OPEN;
}

const char *sbt_rec_log_path(void)
{
	return atomic_load(&g.state) >= LOG_OPEN && g.log ?
	       sbt_log_path(g.log) : NULL;
}

/* ---- process events ---------------------------------------------------------- */

static void before_fork(void)
{
	if (me && !me->hot.depth)      /* never inside a timed region */
		os_drain_gated(me);
	if (me)
		sbt_memlat_flush(me->index);
	pthread_mutex_lock(&g.lock);
	sbt_regions_lock();
	sbt_ctrs_fork_lock();
	sbt_cap_fork_lock();
	sbt_os_fork_prepare();
}

static void after_fork_parent(void)
{
	sbt_os_fork_parent();
	sbt_cap_fork_unlock();
	sbt_ctrs_fork_unlock();
	sbt_regions_unlock();
	pthread_mutex_unlock(&g.lock);
}

/* The child must never write into the parent's file: drop the mapping and
 * let the first marker open the child's own log.  Regions open across the
 * fork stay open: their START events are kept for the child's log. */
static void after_fork_child(void)
{
	struct sbt_thread *t = me;

	/* before_fork holds the regions lock; attach takes it itself. */
	sbt_os_fork_child();
	sbt_cap_fork_unlock();
	sbt_ctrs_fork_unlock();
	sbt_regions_unlock();
	sbt_regions_attach(NULL);
	sbt_diag_attach(NULL);
	sbt_cap_attach(NULL);
#if defined(__x86_64__)
	sbt_tsc_header(NULL);
#endif
	if (t) {
		t->nreplay = 0;
		for (uint32_t i = 0; i < t->hot.depth; i++) {
			struct sbt__open *o = &t->hot.stack[i];
			if (!o->ev)
				continue;
			memcpy(&t->replay[t->nreplay++], o->ev, sizeof *o->ev);
			if (t->pmc >= 0)
				memcpy(&t->replay[t->nreplay++], o->ev + 1,
				       sizeof *o->ev);
		}
		t->chunk = NULL;
		t->hot.cur = t->chunk_end = NULL;
		/* skip counts live in the parent's log */
		memset(t->hot.skip, 0, sizeof t->hot.skip);
		sbt_stop_shut(t);
		t->index = 0;
		t->tid = (int32_t)syscall(SYS_gettid);
		t->rng = rng_seed(t->tid);      /* not the parent's draws */
		t->chunk_size = FIRST_CHUNK;
		t->next = t->prev = NULL;
		/* The inherited events watch the parent's thread. */
		sbt_os_close(t->os);
		t->os = NULL;
		sbt_ctrs_close(t->ctrs);
		t->ctrs = NULL;
	}
	/* Other threads' states stay mapped but unreachable: their threads
	 * do not exist here.  Their events' fds would only leak. */
	for (struct sbt_thread *u = g.threads; u; u = u->next)
		if (u != t) {
			sbt_os_close(u->os);
			u->os = NULL;
			sbt_ctrs_close(u->ctrs);
			u->ctrs = NULL;
		}
	g.threads = t;
	if (g.log && atomic_load(&g.state) == LOG_OPEN)
		sbt_log_abandon(g.log);
	g.log = NULL;
	g.hdr = NULL;
	g.forked = 1;
	if (atomic_load(&g.state) != LOG_CLOSED)
		atomic_store(&g.state, LOG_NONE);
	atomic_store(&g.nthreads, t ? 1 : 0);
	pthread_mutex_unlock(&g.lock);
	if (t) {
		t->os = sbt_os_open();
		t->ctrs = sbt_ctrs_open();
		tick_first(t);
	}
}

/* What the APIs above the recorder want done at exit, before the log is
 * finished (api_omp.c: whether an OpenMP runtime went unrecorded).  The
 * recorder calls no API by name: they register.  Constructors only. */
#define AT_EXIT_MAX 4
static void (*at_exit_fn[AT_EXIT_MAX])(void);
static int at_exit_n;

void sbt_rec_at_exit(void (*fn)(void))
{
	if (at_exit_n < AT_EXIT_MAX)
		at_exit_fn[at_exit_n++] = fn;
}

/* At exit, other threads may still be marking: the log is finished as
 * CLOSE finishes it, but stays open to them (their markers keep writing
 * into their chunks, below the end already recorded, harmlessly). */
__attribute__((destructor)) static void sbt_fini(void)
{
	for (int i = 0; i < at_exit_n; i++)
		at_exit_fn[i]();
	os_drain_gated(me);
	if (me)
		sbt_memlat_flush(me->index);
	pthread_mutex_lock(&g.lock);
	if (atomic_load(&g.state) == LOG_OPEN)
		log_finish();
	pthread_mutex_unlock(&g.lock);
}
