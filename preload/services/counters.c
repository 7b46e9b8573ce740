/*
 * counters.c - the events named in SBT_EVENTS, per recording thread, in
 * perf event groups read with read() around each sample.
 *
 * Groups: one per kind of PMU behind the events (evname.h's classes):
 * every hardware event in one group, so that one read() gives values of
 * one moment and the kernel multiplexes them together; the kernel's
 * software events in another; task-clock and cpu-clock each alone (as a
 * sibling of another software event task-clock read 0, or too little,
 * in most runs on Linux 6.18).  A thread reads
 * its groups one after the other; `perf stat` does the same.
 *
 * The process decides once, at its first thread, which events can be
 * counted: each is opened into its group in turn, and one the kernel
 * refuses is told and left out (a hardware event on a machine without a
 * PMU, anything under a seccomp policy).  Later threads open the same
 * list; one that cannot (out of fds) goes without, told once.
 *
 * Scaling: the first group's time enabled and running go into the log
 * with the values; only that group can be multiplexed (software events
 * always count), so only its events are marked scaled in their META
 * entries.  Hardware events count user mode only (what
 * perf_event_paranoid 2 allows); software events count the kernel's
 * part too where permitted - a context switch or a migration happens in
 * the kernel, and in user mode only it reads 0, which is told (the log's
 * META entry flags every event counted in user mode only).
 *
 * rdpmc (no syscall) is not used: a group read keeps a reading's values
 * consistent with each other, and software events have no counter to
 * read in user space.
 *
 * Invariants:
 *   - ev[0 .. nev) are the events named, in SBT_EVENTS order; ord[0 ..
 *     nuse) the indexes of those counted, grouped by class in class
 *     order: COUNT id k is ev[ord[k]];
 *   - `decided` is set (under lock) once ev[] and ord[] are final.
 */
#include "config.h"
#include "counters.h"
#include "evname.h"
#include "regions.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_NAMED 32                   /* names kept from SBT_EVENTS     */

struct named {
	char name[SBT_EVNAME_MAX + 1];
	struct perf_event_attr attr;   /* as opened (exclude_kernel set) */
	int known;                     /* a table resolved the name      */
	int cls;                       /* sbt_evname_class()             */
	int err;                       /* errno when not counted, or 0   */
	uint32_t index;                /* COUNT id or SBT_COUNTER_NONE   */
};

static struct {
	pthread_mutex_t lock;
	_Atomic int decided;           /* 1: on, -1: nothing to count    */
	_Atomic int told_thread;       /* "a thread went without" told   */
	uint32_t nev, nuse;
	struct named ev[MAX_NAMED];
	uint32_t ord[SBT_COUNT_MAX];
} P = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct sbt_ctrs {
	uint32_t n;                    /* counters, in COUNT id order    */
	int fd[SBT_COUNT_MAX];
	uint32_t ngroup;
	struct { uint32_t first, n; } group[SBT_EVCLASS_N];
};

static int perf_open(const struct perf_event_attr *base, int group)
{
	struct perf_event_attr a = *base;

	a.size = sizeof a;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, group,
			    PERF_FLAG_FD_CLOEXEC);
}

/* Software events that happen only in the kernel: user mode only, 0. */
static int kernel_only(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
		a->config == PERF_COUNT_SW_CPU_MIGRATIONS);
}

static void add_name(const char *name, void *arg)
{
	struct named *e;

	(void)arg;
	if (P.nev == MAX_NAMED)
		return;
	e = &P.ev[P.nev++];
	snprintf(e->name, sizeof e->name, "%s", name);
	e->index = SBT_COUNTER_NONE;
	e->known = sbt_evname_resolve(name, &e->attr) == 0;
	e->cls = e->known ? sbt_evname_class(&e->attr) : 0;
	if (!e->known)
		sbt_warn("unknown event '%s' in SBT_EVENTS, not counted (list "
			 "them with `sbt-run --list-events`)", name);
}

/* The leader's fd of the group of class `cls`, -1: none yet (events come
 * class by class, so it is the last group or none). */
static int leader(const struct sbt_ctrs *c, int cls)
{
	uint32_t g = c->ngroup;

	return g && P.ev[P.ord[c->group[g - 1].first]].cls == cls ?
	       c->fd[c->group[g - 1].first] : -1;
}

/* Counter c->n (P.ord[c->n] set), open as fd, into its group. */
static void add_fd(struct sbt_ctrs *c, int cls, int fd)
{
	if (leader(c, cls) < 0) {
		c->group[c->ngroup].first = c->n;
		c->group[c->ngroup++].n = 0;
	}
	c->group[c->ngroup - 1].n++;
	c->fd[c->n++] = fd;
}

/* Open every known event, class by class, leaving out (and telling)
 * those the kernel refuses.  Under P.lock. */
static void decide(struct sbt_ctrs *c)
{
	for (int cls = 0; cls < SBT_EVCLASS_N; cls++)
		for (uint32_t i = 0; i < P.nev; i++) {
			struct named *e = &P.ev[i];
			int fd;
			if (!e->known || e->cls != cls)
				continue;
			if (c->n == SBT_COUNT_MAX) {
				e->err = E2BIG;
				sbt_warn("event '%s': more than %u events in "
					 "SBT_EVENTS, not counted", e->name,
					 SBT_COUNT_MAX);
				continue;
			}
			/* software: with the kernel's part where allowed */
			e->attr.exclude_kernel = cls == 0;
			fd = perf_open(&e->attr, leader(c, cls));
			if (fd < 0 && cls && (errno == EACCES ||
					      errno == EPERM)) {
				e->attr.exclude_kernel = 1;
				fd = perf_open(&e->attr, leader(c, cls));
				if (fd >= 0 && kernel_only(&e->attr))
					sbt_warn("event '%s' counts user mode "
						 "only here (perf_event_paranoid"
						 "), where it never happens: it "
						 "reads 0", e->name);
			}
			if (fd < 0) {
				e->err = errno;
				sbt_warn("event '%s' cannot be counted here "
					 "(perf_event_open: %s); the run goes "
					 "on without it", e->name,
					 strerror(e->err));
				continue;
			}
			e->index = c->n;
			P.ord[c->n] = i;
			add_fd(c, cls, fd);
		}
	P.nuse = c->n;
}

static void close_fds(struct sbt_ctrs *c)
{
	while (c->n)
		close(c->fd[--c->n]);
	c->ngroup = 0;
}

struct sbt_ctrs *sbt_ctrs_open(void)
{
	const char *list;
	struct sbt_ctrs *c;

	if (atomic_load(&P.decided) < 0)
		return NULL;
	if (!(c = calloc(1, sizeof *c)))
		return NULL;
	/* The lock only while undecided: a thread attaching while another
	 * forks must not leave it held in the child (the fork handlers take
	 * it too, sbt_ctrs_fork_lock). */
	if (!atomic_load(&P.decided)) {
		pthread_mutex_lock(&P.lock);
		if (!atomic_load(&P.decided)) {
			list = sbt_cfg_text(SBT_CFG_EVENTS);
			if (list)
				sbt_evname_split(list, add_name, NULL);
			decide(c);
			atomic_store(&P.decided, c->n ? 1 : -1);
			pthread_mutex_unlock(&P.lock);
			if (c->n)
				return c;
			free(c);
			return NULL;
		}
		pthread_mutex_unlock(&P.lock);
	}
	if (atomic_load(&P.decided) < 0) {
		free(c);
		return NULL;
	}
	/* P.ord is final once decided: read without the lock. */
	for (uint32_t k = 0; k < P.nuse; k++) {
		const struct named *e = &P.ev[P.ord[k]];
		int fd = perf_open(&e->attr, leader(c, e->cls));
		if (fd < 0) {
			int e = errno, tell;
			close_fds(c);
			free(c);
			tell = !atomic_exchange(&P.told_thread, 1);
			if (tell)
				sbt_warn("a thread's counters could not be "
					 "opened (perf_event_open: %s); its "
					 "samples have none", strerror(e));
			return NULL;
		}
		add_fd(c, e->cls, fd);
	}
	return c;
}

uint32_t sbt_ctrs_nev(const struct sbt_ctrs *c)
{
	return c->n + 2;
}

uint32_t sbt_ctrs_scaled(const struct sbt_ctrs *c)
{
	return c->ngroup ? (1u << c->group[0].n) - 1 : 0;
}

/* Each group in turn; the first one's times.  A failed read of any
 * leaves the reading all zeros: no count from it. */
void sbt_ctrs_read(const struct sbt_ctrs *c, uint64_t *v)
{
	uint64_t buf[3 + SBT_COUNT_MAX];

	for (uint32_t g = 0; g < c->ngroup; g++) {
		uint32_t first = c->group[g].first, n = c->group[g].n;
		size_t want = (3 + n) * sizeof buf[0];
		if (read(c->fd[first], buf, want) != (ssize_t)want ||
		    buf[0] != n) {
			memset(v, 0, (c->n + 2) * sizeof *v);
			return;
		}
		if (g == 0)
			v[0] = buf[1], v[1] = buf[2];
		memcpy(v + 2 + first, buf + 3, n * sizeof *v);
	}
}

void sbt_ctrs_close(struct sbt_ctrs *c)
{
	if (c) {
		close_fds(c);
		free(c);
	}
}

int sbt_ctrs_on(void)
{
	return atomic_load(&P.decided) > 0;
}

void sbt_ctrs_meta(void)
{
	if (!atomic_load(&P.decided))
		return;
	for (uint32_t i = 0; i < P.nev; i++) {
		const struct named *e = &P.ev[i];
		struct sbt_meta_counter m = {
			.index = e->index, .err = e->known ? e->err : -1,
			.type = e->attr.type, .config = e->attr.config,
			.flags = (e->index == SBT_COUNTER_NONE ? 0 :
				  e->cls == P.ev[P.ord[0]].cls ?
				  SBT_COUNTER_SCALED : 0) |
				 (e->attr.exclude_kernel ?
				  SBT_COUNTER_USER : 0) };
		sbt_regions_meta(SBT_META_COUNTER, &m, sizeof m, e->name,
				 (uint32_t)strlen(e->name));
	}
}

void sbt_ctrs_fork_lock(void)
{
	pthread_mutex_lock(&P.lock);
}

void sbt_ctrs_fork_unlock(void)
{
	pthread_mutex_unlock(&P.lock);
}
