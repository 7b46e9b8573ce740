/*
 * osevents.c - the kernel's context switches, page faults and migrations
 * of each recording thread, into the log.
 *
 * Per thread, three software events share one ring: a dummy event with
 * context_switch = 1 (PERF_RECORD_SWITCH, MISC_SWITCH_OUT_PREEMPT tells a
 * preemption from a voluntary switch), page faults and cpu migrations
 * (one PERF_RECORD_SAMPLE each, sample_period = 1).  All are stamped in
 * CLOCK_MONOTONIC, a clock user space can read beside the wall clock.
 *
 * Time: the kernel stamps CLOCK_MONOTONIC ns, samples are in wall ticks.
 * Each drain reads both clocks side by side (an anchor); the events of a
 * drain lie between the previous anchor and this one, and are mapped by
 * the straight line through the two.  That needs neither tick_hz to be
 * exact nor the two clocks to keep one rate over the whole run.
 *
 * Fault storms: a record costs the faulting thread about a microsecond
 * of kernel time (measured once, at the first thread's open: faults
 * with one more sampled event on, against off).  A thread whose faults
 * come faster than that cost affords - FAULT_BUDGET of its time - has
 * its fault event sampled 1 in K instead (PERF_EVENT_IOC_PERIOD, K a
 * power of two, decided at its drains over windows of STORM_WINDOW_NS);
 * each FAULT event's count says the K it stands for, and K goes back
 * down when the storm ends.
 *
 * Never lost: a thread's drains run only between its marker calls, and a
 * burst of faults inside one region (no marker call for ms) can fill the
 * ring meanwhile.  So the ring wakes a drainer thread (one a process) when
 * it holds a quarter of its size (perf's wakeup_watermark; poll(), no
 * timer: a thread whose ring stays calm is never woken on).  The drainer
 * copies the records out, as they are, into the ring's spill buffer and
 * frees the ring; the owner drains at its next tick (a spill waiting is
 * reason enough: sbt_os_half), the spill first, then the ring, and writes
 * both to the log as before.  The drainer never touches
 * the log, and runs on no thread's timed path: it is a thread of its own.
 *
 * Invariants:
 *   - an open struct sbt_os has all three fds and its ring mapped;
 *   - o->tail is what the recorder has consumed (spilled or drained); the
 *     kernel's data_tail is set to it after each copy, so the kernel never
 *     overwrites an unread record (it counts them lost instead);
 *   - o->mu guards tail, the spill and the ring's fds against the two
 *     readers; the drainer takes dr.lock, then o->mu, never the reverse,
 *     and touches a ring only while it is on dr's list (under dr.lock).
 */
#include "config.h"
#include "osevents.h"
#include "tsc.h"

#include <linux/perf_event.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define OS_CHUNK_MIN  4096u            /* a short thread's few events  */
#define OS_CHUNK_MAX  (256u << 10)
#define FULL_MARGIN   128u             /* free bytes below which the ring
					  may have refused a record      */
#define OS_PAGES      16               /* SBT_OS_PAGES' default         */
#define OS_PAGES_MAX  1024
#define FULL_AT(size) ((size) / 4 * 3) /* a drain this late: grow        */
#define WAKE_AT(size) ((size) / 4)     /* the drainer's watermark       */
#define SPILL_MAX     (64u << 20)      /* spilled bytes a ring, at most */
#define FAULT_BUDGET  0.01             /* of a thread's time, on records */
#define STORM_WINDOW_NS 10000000u      /* a fault rate is judged over    */
#define STORM_FAULTS  4096u            /* ... or over this many faults   */
#define PERIOD_MAX    4096u            /* 1 fault in K recorded, at most */
#define RECORD_PAGES  64               /* faults timed each way          */

enum { EV_SWITCH, EV_FAULT, EV_MIGRATE, EV__N };

struct anchor { uint64_t ns, ticks; };

struct sbt_os {
	int fd[EV__N];
	uint64_t id[EV__N];            /* PERF_EVENT_IOC_ID of each     */
	struct perf_event_mmap_page *page;
	char *data;                    /* the ring's data pages         */
	uint64_t size;                 /* data bytes, a power of two    */
	uint64_t tail;
	struct anchor last;            /* clocks at the previous drain  */
	uint32_t period;               /* faults a FAULT record stands for */
	uint32_t drained;              /* FAULT records this drain       */
	uint64_t win_ns, win_faults;   /* the storm window: its start, the
					  faults taken since             */
	struct sbt_chunk *chunk;       /* current META chunk            */
	uint32_t chunk_size;           /* next chunk's size             */
	uint32_t seq;                  /* runs written                  */
	/* shared with the drainer (o->mu, see the invariants) */
	pthread_mutex_t mu;
	char *spill;                   /* records copied out, in order  */
	size_t spill_len, spill_cap;
	int spilled;                   /* since the owner's last drain
					  (atomic: sbt_os_half reads it
					  without the lock)             */
	/* the drainer's own (under dr.lock) */
	struct sbt_os *next;
	int hup;                       /* its poll hung up: not polled  */
};

/* The process's state: decided once, by the first thread that tries. */
static struct {
	_Atomic int state;             /* enum sbt_os_state, 0: not yet;
					  -1 while note is written      */
	_Atomic uint32_t pages;        /* ring data pages at first       */
	_Atomic uint32_t grow;         /* ... grown since (ring_grow)    */
	char note[64];                 /* set once, before state > 0    */
	/* the kernel's record of a fault: its cost (ns, measured once by
	 * the first thread that opens) and the faults a second a thread
	 * records whole within FAULT_BUDGET */
	pthread_once_t measured;
	uint32_t record_ns, rate_max;
} os = { .measured = PTHREAD_ONCE_INIT };

/* PERF_SAMPLE_IDENTIFIER | TID | TIME | CPU, as a SAMPLE lays it out. */
struct os_sample {
	uint64_t id;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
};

/* ... and as sample_id_all appends it to SWITCH and LOST records. */
struct os_sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
	uint64_t id;
};

static void dr_wake(void);

static int os_perf_open(uint64_t config, uint64_t size)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	a.sample_id_all = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.exclude_kernel = 1;          /* unprivileged: paranoid 2 */
	a.exclude_hv = 1;
	if (config == PERF_COUNT_SW_DUMMY) {
		a.context_switch = 1;
		a.watermark = 1;       /* its ring: wake the drainer */
		a.wakeup_watermark = (uint32_t)WAKE_AT(size);
	} else {
		a.sample_period = 1;   /* one record per fault / move */
	}
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Both clocks at one moment: the tick read between two ns reads.  A
 * thread preempted between them (a busy process on its cpu: a whole
 * time slice) would place the tick anywhere in that gap, and every event
 * of the drain by as much: so the tightest of a few tries, the first
 * that is tight enough (two vDSO reads and a tick read: < 1 us). */
#define ANCHOR_TRIES  4
#define ANCHOR_TIGHT  2000             /* ns between the two ns reads  */

static struct anchor anchor_now(void)
{
	struct anchor best = { 0, 0 };
	uint64_t width = UINT64_MAX;

	for (int k = 0; k < ANCHOR_TRIES && width > ANCHOR_TIGHT; k++) {
		int cpu;
		uint64_t a = now_ns();
		uint64_t t = sbt_clock_stop(&cpu);
		uint64_t b = now_ns();
		if (b - a < width) {
			width = b - a;
			best = (struct anchor){ a + (b - a) / 2, t };
		}
	}
	return best;
}

/* The first thread's outcome is the process's: `what` and errno `err`
 * (0: none) become the header's note. */
static void os_decide(int state, const char *what, int err)
{
	int none = 0;

	if (atomic_compare_exchange_strong(&os.state, &none, -1)) {
		snprintf(os.note, sizeof os.note, "%s%s%s", what,
			 err ? ": " : "", err ? strerror(err) : "");
		atomic_store(&os.state, state);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The lower quartile: a fault's time less the host's and the
 * scheduler's hiccups, which the upper half collects. */
static double quartile_ns(uint64_t *d, int n)
{
	qsort(d, (size_t)n, sizeof *d, cmp_u64);
	return (double)d[n / 4];
}

/* What the kernel's record of one page fault costs this thread: fresh
 * pages touched with one more sampled fault event (with its own ring) on
 * and off by turns, so that drift falls on both alike; the difference of
 * the lower quartiles, at least 100 ns (a cost below the touches' noise
 * is still a cost).  From it, the fault rate a thread records whole.
 * Huge pages refused: one fault would stand for 512 pages. */
static void measure_record(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t on[RECORD_PAGES], off[RECORD_PAGES];
	size_t len = 2 * RECORD_PAGES * (size_t)pg;
	double ns = 1000;              /* unmeasured: a typical record */
	volatile char *m;
	void *ring = MAP_FAILED;
	int fd;

	fd = os_perf_open(PERF_COUNT_SW_PAGE_FAULTS, (uint64_t)pg);
	if (fd >= 0)
		ring = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE,
			    MAP_SHARED, fd, 0);
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE |
		 MAP_ANONYMOUS, -1, 0);
	if (ring != MAP_FAILED && m != MAP_FAILED) {
#ifdef MADV_NOHUGEPAGE
		(void)madvise((void *)m, len, MADV_NOHUGEPAGE);
#endif
		for (int i = 0; i < 2 * RECORD_PAGES; i++) {
			(void)ioctl(fd, i & 1 ? PERF_EVENT_IOC_ENABLE :
				    PERF_EVENT_IOC_DISABLE, 0);
			uint64_t a = now_ns();
			m[(size_t)i * (size_t)pg] = 1;
			uint64_t d = now_ns() - a;
			*(i & 1 ? &on[i / 2] : &off[i / 2]) = d;
		}
		ns = quartile_ns(on, RECORD_PAGES) -
		     quartile_ns(off, RECORD_PAGES);
		if (ns < 100)
			ns = 100;
	}
	if (m != MAP_FAILED)
		munmap((void *)m, len);
	if (ring != MAP_FAILED)
		munmap(ring, 2 * (size_t)pg);
	if (fd >= 0)
		close(fd);
	os.record_ns = ns > 1e6 ? 1000000u : (uint32_t)ns;
	os.rate_max = sbt_cfg(SBT_CFG_OS_FAULT_RATE) ?
		      (uint32_t)sbt_cfg(SBT_CFG_OS_FAULT_RATE) :
		      (uint32_t)(FAULT_BUDGET * 1e9 / os.record_ns);
}

/* A storm's sampling period: at each drain the thread's faults join the
 * window, which starts at the drain before them (since_ns: a storm that
 * one drain takes whole is judged there); once it spans STORM_WINDOW_NS
 * or STORM_FAULTS (a fast storm is told soon), the smallest power of two K
 * that keeps its records within rate_max a second - kept from rising
 * back at once: lowered only where half the rate would fit - goes to the
 * kernel.  A refused ioctl leaves K as it was (the counts stay true). */
static void storm(struct sbt_os *o, uint64_t since_ns, uint64_t now_ns)
{
	uint64_t dt;
	double rate;
	uint32_t k = 1;

	o->win_faults += (uint64_t)o->drained * o->period;
	o->drained = 0;
	if (!o->win_ns)
		o->win_ns = since_ns;
	dt = now_ns - o->win_ns;
	if ((dt < STORM_WINDOW_NS && o->win_faults < STORM_FAULTS) || !dt ||
	    !os.rate_max)
		return;
	rate = (double)o->win_faults * 1e9 / (double)dt;
	o->win_ns = now_ns, o->win_faults = 0;
	while (k < PERIOD_MAX && rate / k > os.rate_max)
		k *= 2;
	if (k < o->period && rate / k > os.rate_max / 2.0)
		k *= 2;
	if (k != o->period) {
		uint64_t p = k;
		if (ioctl(o->fd[EV_FAULT], PERF_EVENT_IOC_PERIOD, &p) == 0)
			o->period = k;
	}
}

/* Unmap the ring and close the fds (none left open). */
static void ring_close(struct sbt_os *o)
{
	for (int i = 0; i < EV__N; i++) {
		/* off first: the drainer's poll() may hold the event a
		 * moment longer, and must not see it fill */
		if (o->fd[i] >= 0) {
			ioctl(o->fd[i], PERF_EVENT_IOC_DISABLE, 0);
			close(o->fd[i]);
		}
		o->fd[i] = -1;
	}
	if (o->page)
		munmap(o->page, (size_t)o->size + (size_t)sysconf(_SC_PAGESIZE));
	o->page = NULL;
}

static void os_free(struct sbt_os *o)
{
	ring_close(o);
	free(o->spill);
	free(o);
}

/* Open the three events into one ring of `size` data bytes: fd[],
 * id[], page, data, size of `o` (all or none).  0, or errno. */
static int ring_open(struct sbt_os *o, uint64_t size)
{
	static const uint64_t config[EV__N] = {
		PERF_COUNT_SW_DUMMY, PERF_COUNT_SW_PAGE_FAULTS,
		PERF_COUNT_SW_CPU_MIGRATIONS };
	long pg = sysconf(_SC_PAGESIZE);
	int err = 0;
	void *p;

	for (int i = 0; i < EV__N; i++)
		o->fd[i] = -1;
	o->page = NULL;
	o->size = size;
	/* The ring belongs to the switch event; the others write into it,
	 * which the kernel allows only once it is mapped. */
	for (int i = 0; i < EV__N && !err; i++) {
		o->fd[i] = os_perf_open(config[i], size);
		if (o->fd[i] < 0) {
			err = errno ? errno : EINVAL;
			break;
		}
		if (i == 0) {
			/* Writable: data_tail tells the kernel what we
			 * consumed.  Fails past the locked-memory limit. */
			p = mmap(NULL, (size_t)size + (size_t)pg,
				 PROT_READ | PROT_WRITE, MAP_SHARED,
				 o->fd[0], 0);
			if (p == MAP_FAILED) {
				err = ENOMEM;
				break;
			}
			o->page = p;
		}
		if (ioctl(o->fd[i], PERF_EVENT_IOC_ID, &o->id[i]) != 0 ||
		    (i && ioctl(o->fd[i], PERF_EVENT_IOC_SET_OUTPUT,
				o->fd[0]) != 0))
			err = -(errno ? errno : EINVAL);   /* ioctl: < 0 */
	}
	if (err) {
		ring_close(o);
		return err;
	}
	o->data = (char *)o->page + pg;
	o->tail = 0;
	return 0;
}

/* ---- the drainer thread ------------------------------------------------- */

static struct {
	pthread_mutex_t lock;          /* the list, the thread's start  */
	struct sbt_os *list;           /* the process's open rings      */
	int evfd;                      /* wakes the drainer: list changed */
	pid_t pid;                     /* the drainer runs in this process */
	_Atomic int child;             /* a fork child not yet drained  */
} dr = { PTHREAD_MUTEX_INITIALIZER, NULL, -1, 0, 0 };

static void dr_wake(void)
{
	uint64_t one = 1;

	if (dr.evfd >= 0 && write(dr.evfd, &one, sizeof one) < 0) {
		/* full counter: a wake-up is pending anyway */
	}
}

/* Copy what the ring holds into its spill, and free the ring.  Under
 * o->mu.  Past SPILL_MAX the ring is left to fill (the kernel counts
 * the loss, the owner's drain reports it). */
static void spill(struct sbt_os *o)
{
	uint64_t head = __atomic_load_n(&o->page->data_head, __ATOMIC_ACQUIRE);
	uint64_t n = head - o->tail, at = o->tail & (o->size - 1);

	if (!n || o->spill_len + n > SPILL_MAX)
		return;
	if (o->spill_len + n > o->spill_cap) {
		size_t cap = o->spill_cap ? 2 * o->spill_cap : 4 * o->size;
		while (cap < o->spill_len + n)
			cap *= 2;
		char *b = realloc(o->spill, cap);
		if (!b)
			return;
		o->spill = b, o->spill_cap = cap;
	}
	/* whole records only: the kernel publishes data_head past them */
	if (at + n <= o->size) {
		memcpy(o->spill + o->spill_len, o->data + at, n);
	} else {
		memcpy(o->spill + o->spill_len, o->data + at, o->size - at);
		memcpy(o->spill + o->spill_len + (o->size - at), o->data,
		       n - (o->size - at));
	}
	o->spill_len += n;
	__atomic_store_n(&o->spilled, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&o->tail, head, __ATOMIC_RELAXED);
	__atomic_store_n(&o->page->data_tail, head, __ATOMIC_RELEASE);
}

/* The pollfds: the wake-up fd, then each ring's fd[0] (read under its
 * lock: ring_grow changes it, and wakes the drainer to come here again).
 * A number closed and reused meanwhile is harmless: poll() holds the
 * file it was given, and the rings are reached through the list, never
 * through this set.  Under dr.lock.  Their number. */
static nfds_t dr_pollset(struct pollfd **set, struct sbt_os ***who,
			 nfds_t *cap)
{
	nfds_t n = 1;

	for (struct sbt_os *o = dr.list; o; o = o->next)
		n++;
	if (n > *cap) {
		struct pollfd *p = realloc(*set, n * sizeof *p);
		if (p)
			*set = p;
		struct sbt_os **w = realloc(*who, n * sizeof *w);
		if (w)
			*who = w;
		if (!p || !w)
			return 1;
		*cap = n;
	}
	(*set)[0] = (struct pollfd){ dr.evfd, POLLIN, 0 };
	n = 1;
	for (struct sbt_os *o = dr.list; o; o = o->next) {
		if (o->hup)
			continue;
		pthread_mutex_lock(&o->mu);
		(*set)[n] = (struct pollfd){ o->fd[0], POLLIN, 0 };
		pthread_mutex_unlock(&o->mu);
		(*who)[n++] = o;
	}
	return n;
}

/* Sleeps in poll() until a ring passes its watermark or the list
 * changes; then spills every ring past it. */
/* A short time slice for the drainer (EEVDF, Linux 6.12+; unprivileged):
 * its earlier deadline lets its wake-up preempt a busy co-runner at once
 * instead of after that one's slice, and a 64 KB ring filled by a fault
 * a microsecond does not wait for a slice.  Older kernels refuse: as
 * before. */
static void dr_short_slice(void)
{
	struct {                        /* struct sched_attr, Linux 6.12 */
		uint32_t size, policy;
		uint64_t flags;
		int32_t nice;
		uint32_t priority;
		uint64_t runtime, deadline, period;
		uint32_t util_min, util_max;
	} a = { .size = sizeof a, .policy = 0 /* SCHED_OTHER */,
		.runtime = 100000 /* ns */ };

	a.nice = getpriority(PRIO_PROCESS, 0);
#ifdef SYS_sched_setattr
	(void)syscall(SYS_sched_setattr, 0, &a, 0);
#endif
}

static void *dr_main(void *arg)
{
	struct pollfd *set = NULL;
	struct sbt_os **who = NULL;
	nfds_t cap = 0, n;
	uint64_t v;
	int r;

	(void)arg;
	dr_short_slice();
	for (;;) {
		pthread_mutex_lock(&dr.lock);
		n = dr_pollset(&set, &who, &cap);
		pthread_mutex_unlock(&dr.lock);
		if ((r = poll(set, n, -1)) < 0 && errno != EINTR)
			break;
		if (read(dr.evfd, &v, sizeof v) < 0) {
			/* nothing pending */
		}
		pthread_mutex_lock(&dr.lock);
		/* a ring whose thread is gone (not yet closed) hangs up:
		 * polled no more, or poll() would return at once forever.
		 * Only rings still listed (who[] may name a freed one), and
		 * still on that fd (ring_grow may have replaced it: the old
		 * number's hang-up is not the ring's). */
		for (nfds_t i = 1; i < n && r > 0; i++)
			if (set[i].revents & POLLHUP)
				for (struct sbt_os *o = dr.list; o;
				     o = o->next)
					if (o == who[i]) {
						pthread_mutex_lock(&o->mu);
						o->hup = o->fd[0] == set[i].fd;
						pthread_mutex_unlock(&o->mu);
					}
		for (struct sbt_os *o = dr.list; o; o = o->next) {
			pthread_mutex_lock(&o->mu);
			if (__atomic_load_n(&o->page->data_head,
					    __ATOMIC_ACQUIRE) - o->tail >=
			    WAKE_AT(o->size))
				spill(o);
			pthread_mutex_unlock(&o->mu);
		}
		pthread_mutex_unlock(&dr.lock);
	}
	free(set), free(who);
	return NULL;
}

/* The drainer of this process, started if it is not running (under
 * dr.lock).  Without one (no thread, no fd), the owners' drains alone
 * remain, as before. */
static void dr_start(void)
{
	pthread_attr_t at;
	pthread_t th;
	sigset_t all, old;

	if (dr.pid == getpid())
		return;
	if (dr.evfd < 0)
		dr.evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	/* no signal of the app's is ever delivered to it */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (dr.evfd >= 0 && pthread_attr_init(&at) == 0) {
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&at, 64u << 10);
		if (pthread_create(&th, &at, dr_main, NULL) == 0)
			dr.pid = getpid();
		pthread_attr_destroy(&at);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Put o on the drainer's list (starting the drainer). */
static void dr_add(struct sbt_os *o)
{
	pthread_mutex_lock(&dr.lock);
	if (!atomic_load(&dr.child))
		dr_start();
	o->next = dr.list;
	dr.list = o;
	pthread_mutex_unlock(&dr.lock);
	dr_wake();
}

/* A fork child starts its drainer at its first drain, not in the fork
 * handler: a child that only execs never gets one. */
static void dr_child_start(void)
{
	if (!atomic_load_explicit(&dr.child, memory_order_relaxed))
		return;
	pthread_mutex_lock(&dr.lock);
	atomic_store(&dr.child, 0);
	dr_start();
	pthread_mutex_unlock(&dr.lock);
	dr_wake();
}

/* Take o off the list: the drainer no longer touches it. */
static void dr_remove(struct sbt_os *o)
{
	pthread_mutex_lock(&dr.lock);
	for (struct sbt_os **p = &dr.list; *p; p = &(*p)->next)
		if (*p == o) {
			*p = o->next;
			break;
		}
	pthread_mutex_unlock(&dr.lock);
	dr_wake();
}

void sbt_os_fork_prepare(void)
{
	pthread_mutex_lock(&dr.lock);
}

void sbt_os_fork_parent(void)
{
	pthread_mutex_unlock(&dr.lock);
}

/* The child has no drainer and none of the parent's rings (the recorder
 * closes them): a fresh list, and a drainer of its own when it opens
 * one. */
void sbt_os_fork_child(void)
{
	/* the forking thread took it (sbt_os_fork_prepare) and is the
	 * child's one thread: unlocked, not re-made (TSan follows that) */
	pthread_mutex_unlock(&dr.lock);
	dr.list = NULL;
	if (dr.evfd >= 0)
		close(dr.evfd);
	dr.evfd = -1;
	dr.pid = 0;
	atomic_store(&dr.child, 1);
}

struct sbt_os *sbt_os_open(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct sbt_os *o;
	int err;

	if (atomic_load(&os.state) == 0 &&
	    !sbt_cfg(SBT_CFG_OS_EVENTS)) {
		os_decide(SBT_OS_OFF, "off (SBT_OS_EVENTS=0)", 0);
		return NULL;
	}
	if (atomic_load(&os.state) == SBT_OS_OFF ||
	    atomic_load(&os.state) == SBT_OS_UNAVAILABLE)
		return NULL;
	if (!atomic_load(&os.pages)) {
		long n = sbt_cfg(SBT_CFG_OS_PAGES);
		while (n & (n - 1))
			n &= n - 1;    /* the kernel wants a power of two */
		atomic_store(&os.pages, (uint32_t)n);
		atomic_store(&os.grow, (uint32_t)n);
	}
	if (!(o = calloc(1, sizeof *o)))
		return NULL;
	o->chunk_size = OS_CHUNK_MIN;
	/* a ring grown by an earlier thread's rate, else the first size;
	 * the grown one may not fit the locked-memory limit */
	err = ring_open(o, (uint64_t)atomic_load(&os.grow) * (uint64_t)pg);
	if (err == ENOMEM && atomic_load(&os.grow) > atomic_load(&os.pages))
		err = ring_open(o, (uint64_t)atomic_load(&os.pages) *
				   (uint64_t)pg);
	if (err) {
		/* Refused outright (policy, not resources): the whole
		 * process goes without.  Else this thread alone. */
		if (err < 0)
			os_decide(SBT_OS_UNAVAILABLE, "perf ioctl", -err);
		else if (err != EMFILE && err != ENFILE && err != ENOMEM)
			os_decide(SBT_OS_UNAVAILABLE, "perf_event_open", err);
		if (atomic_load(&os.state) != SBT_OS_UNAVAILABLE)
			sbt_count(SBT_CNT_OS_MISSED);
		free(o);
		return NULL;
	}
	pthread_once(&os.measured, measure_record);
	o->period = 1;
	o->last = anchor_now();
	pthread_mutex_init(&o->mu, NULL);
	os_decide(SBT_OS_ON, "", 0);
	dr_add(o);
	return o;
}

/* The ring filled past FULL_AT before a drain: the thread's events come
 * faster than its ticks drain them.  A ring twice the size, opened
 * before the old one closes (events meanwhile go to both; the old one's
 * are never read again), so nothing is lost in the swap.  Kept as is
 * when the new one cannot be had (locked memory). */
static void ring_grow(struct sbt_os *o)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct sbt_os n;
	uint64_t pages = 2 * o->size / (uint64_t)pg;

	if (pages > OS_PAGES_MAX || ring_open(&n, pages * (uint64_t)pg) != 0)
		return;
	ring_close(o);
	memcpy(o->fd, n.fd, sizeof o->fd);
	memcpy(o->id, n.id, sizeof o->id);
	o->page = n.page, o->data = n.data, o->size = n.size;
	if (o->period > 1) {           /* the storm's period goes along */
		uint64_t p = o->period;
		if (ioctl(o->fd[EV_FAULT], PERF_EVENT_IOC_PERIOD, &p) != 0)
			o->period = 1;
	}
	__atomic_store_n(&o->tail, 0, __ATOMIC_RELAXED);
	dr_wake();                     /* to poll the new ring */
	if (atomic_load(&os.grow) < pages)   /* later threads start there */
		atomic_store(&os.grow, (uint32_t)pages);
}

int sbt_os_half(const struct sbt_os *o)
{
	uint64_t head = __atomic_load_n(&o->page->data_head, __ATOMIC_ACQUIRE);

	/* tail: the drainer's too; a stale one only drains early.  A
	 * spill drains at the next tick too: storms are judged at these
	 * drains, and a drainer that keeps the ring under half would
	 * otherwise leave a storm unjudged, every fault recorded, until
	 * the thread's end */
	return head - __atomic_load_n(&o->tail, __ATOMIC_RELAXED) > o->size / 2 ||
	       __atomic_load_n(&o->spilled, __ATOMIC_RELAXED);
}

void sbt_os_close(struct sbt_os *o)
{
	if (!o)
		return;
	dr_remove(o);
	os_free(o);
}

void sbt_os_header(struct sbt_file_header *h)
{
	int st = atomic_load(&os.state);

	h->os_events = st > 0 ? (uint32_t)st : SBT_OS_NONE;
	h->os_pages = atomic_load(&os.pages);
	snprintf(h->os_note, sizeof h->os_note, "%s", st > 0 ? os.note : "");
	if (st == SBT_OS_ON) {
		h->fault_record_ns = os.record_ns;
		h->fault_rate_max = os.rate_max;
	}
}

/* ---- draining ------------------------------------------------------------- */

/* Where a drain writes: a run (one META entry) in the thread's chunk. */
struct run {
	struct sbt_logfile *lf;
	struct sbt_meta *m;            /* NULL: no run open              */
	struct sbt_meta_os *hd;
	struct sbt_os_event *ev, *end;
	uint64_t until;                /* what the runs so far cover     */
	uint32_t thread;
	int32_t tid;
};

/* Commit the open run: its length, then the chunk's `used` past it. */
static void run_close(struct sbt_os *o, struct run *r)
{
	uint32_t n;
	size_t need;

	if (!r->m)
		return;
	n = (uint32_t)(r->ev - (struct sbt_os_event *)(r->hd + 1));
	r->hd->n = n;
	r->m->len = (uint32_t)(sizeof *r->hd + n * sizeof *r->ev);
	need = sizeof *r->m + r->m->len;   /* both multiples of 8 */
	atomic_store_explicit((_Atomic uint64_t *)&o->chunk->used,
			      o->chunk->used + need, memory_order_release);
	o->seq++;
	r->m = NULL;
}

/* A new run with room for one event at least (in a new chunk when this
 * one is full).  0 when the log has no space. */
static int run_open(struct sbt_os *o, struct run *r)
{
	size_t min = sizeof(struct sbt_meta) + sizeof *r->hd + sizeof *r->ev;

	if (!o->chunk || o->chunk->used + min >
			 o->chunk->size - sizeof *o->chunk) {
		o->chunk = sbt_log_chunk(r->lf, SBT_CHUNK_META, o->chunk_size,
					 r->thread, r->tid);
		if (!o->chunk)
			return 0;
		if (o->chunk_size < OS_CHUNK_MAX)
			o->chunk_size *= 2;
	}
	r->m = (struct sbt_meta *)((char *)(o->chunk + 1) + o->chunk->used);
	r->m->type = SBT_META_OS;
	r->m->reserved = 0;
	r->hd = (struct sbt_meta_os *)(r->m + 1);
	*r->hd = (struct sbt_meta_os){ .thread = r->thread, .tid = r->tid,
				       .seq = o->seq, .until = r->until };
	r->ev = (struct sbt_os_event *)(r->hd + 1);
	/* whole events only: the run need not end on a 16-byte boundary */
	r->end = r->ev + ((char *)o->chunk + o->chunk->size -
			  (char *)r->ev) / (ptrdiff_t)sizeof *r->ev;
	return 1;
}

/* Room for one more event: in the open run, or in a new one. */
static int run_room(struct sbt_os *o, struct run *r)
{
	if (r->m && r->ev < r->end)
		return 1;
	run_close(o, r);
	return run_open(o, r);
}

/* CLOCK_MONOTONIC ns -> wall ticks on the line through two anchors. */
static uint64_t to_ticks(struct anchor a, struct anchor b, uint64_t ns)
{
	double slope = b.ns > a.ns ? (double)(b.ticks - a.ticks) /
				     (double)(b.ns - a.ns) : 0;
	double d = ((double)ns - (double)a.ns) * slope;

	return d < 0 && -d > (double)a.ticks ? 0 :
	       (uint64_t)((double)a.ticks + d);
}

static void put(struct sbt_os *o, struct run *r, uint16_t kind,
		uint64_t ticks, uint32_t cpu, uint32_t count)
{
	if (!run_room(o, r))
		return;
	*r->ev++ = (struct sbt_os_event){ ticks, kind, (uint16_t)cpu, count };
}

/* One record, whole in b[0..n) (n its size, or the first 256 bytes of
 * it), into the run. */
static void take(struct sbt_os *o, struct run *r, const char *b, size_t n,
		 struct anchor now)
{
	struct perf_event_header h;

	memcpy(&h, b, sizeof h);
	if (h.type == PERF_RECORD_SAMPLE &&
	    n >= sizeof h + sizeof(struct os_sample)) {
		struct os_sample s;
		memcpy(&s, b + sizeof h, sizeof s);
		int fault = s.id != o->id[EV_MIGRATE];
		/* a fault stands for the period in force since the last
		 * drain: only drains change it */
		o->drained += fault;
		put(o, r, fault ? SBT_OS_FAULT : SBT_OS_MIGRATE,
		    to_ticks(o->last, now, s.time), s.cpu,
		    fault ? o->period : 1);
	} else if (h.type == PERF_RECORD_SWITCH &&
		   n >= sizeof h + sizeof(struct os_sample_id)) {
		struct os_sample_id s;
		uint16_t k = SBT_OS_SWITCH_IN;
		memcpy(&s, b + sizeof h, sizeof s);
		if (h.misc & PERF_RECORD_MISC_SWITCH_OUT)
			k = h.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT ?
			    SBT_OS_PREEMPTED : SBT_OS_SWITCH_OUT;
		put(o, r, k, to_ticks(o->last, now, s.time), s.cpu, 1);
	} else if (h.type == PERF_RECORD_LOST &&
		   n >= sizeof h + 16 + sizeof(struct os_sample_id)) {
		uint64_t lost;
		struct os_sample_id s;
		memcpy(&lost, b + sizeof h + 8, sizeof lost);
		memcpy(&s, b + sizeof h + 16, sizeof s);
		put(o, r, SBT_OS_LOST, to_ticks(o->last, now, s.time), s.cpu,
		    lost > UINT32_MAX ? UINT32_MAX : (uint32_t)lost);
	}
}

/* The drainer's spill, in order: records laid end to end. */
static void take_spill(struct sbt_os *o, struct run *r, struct anchor now)
{
	struct perf_event_header h;

	for (size_t at = 0; at + sizeof h <= o->spill_len; at += h.size) {
		memcpy(&h, o->spill + at, sizeof h);
		if (h.size < sizeof h || at + h.size > o->spill_len)
			break;
		take(o, r, o->spill + at, h.size, now);
	}
	o->spill_len = 0;
}

void sbt_os_drain(struct sbt_os *o, struct sbt_logfile *lf, uint32_t thread,
		  int32_t tid)
{
	struct run r = { .lf = lf, .thread = thread, .tid = tid };
	uint64_t head, tail;
	struct anchor now;
	int full, late;

	if (!o || !lf)
		return;
	dr_child_start();
	pthread_mutex_lock(&o->mu);
	r.until = o->last.ticks;
	head = __atomic_load_n(&o->page->data_head, __ATOMIC_ACQUIRE);
	now = anchor_now();            /* after head: every record is older */
	/* A full ring drops what comes next, and says so only with the
	 * next record it takes: none may come (thread exit).  Say it here,
	 * count unknown (0), at the end of this drain's events. */
	full = o->size - (head - o->tail) < FULL_MARGIN;
	/* the drainer had to step in: the ring is small for this thread */
	late = head - o->tail > FULL_AT(o->size) ||
	       __atomic_load_n(&o->spilled, __ATOMIC_RELAXED);
	__atomic_store_n(&o->spilled, 0, __ATOMIC_RELAXED);
	take_spill(o, &r, now);
	for (tail = o->tail; tail + sizeof(struct perf_event_header) <= head;) {
		char b[256];
		struct perf_event_header h;
		uint64_t at = tail & (o->size - 1), n;

		memcpy(&h, o->data + at, sizeof h);
		if (h.size < sizeof h || tail + h.size > head)
			break;         /* torn: the kernel never does this */
		n = h.size < sizeof b ? h.size : sizeof b;
		/* A record may wrap around the ring's end. */
		if (at + n <= o->size) {
			memcpy(b, o->data + at, n);
		} else {
			memcpy(b, o->data + at, o->size - at);
			memcpy(b + (o->size - at), o->data,
			       n - (o->size - at));
		}
		tail += h.size;
		take(o, &r, b, n, now);
	}
	if (full)
		put(o, &r, SBT_OS_LOST, now.ticks, SBT_CPU_UNKNOWN, 0);
	/* The last run says the thread's record is whole up to now; it is
	 * written even without events, for the reader to know. */
	if (r.m || run_open(o, &r))
		r.hd->until = now.ticks;
	run_close(o, &r);
	__atomic_store_n(&o->tail, tail, __ATOMIC_RELAXED);
	__atomic_store_n(&o->page->data_tail, tail, __ATOMIC_RELEASE);
	uint64_t since_ns = o->last.ns;
	o->last = now;
	if (late)
		ring_grow(o);
	storm(o, since_ns, now.ns);
	pthread_mutex_unlock(&o->mu);
}
