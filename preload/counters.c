/*
 * counters.c - one perf event group per recording thread, of the events
 * named in SBT_EVENTS, read with read() around each sample.
 *
 * The process decides once, at its first thread, which events can be
 * counted: each is opened into the group in turn, and one the kernel
 * refuses is told and left out (a hardware event on a machine without a
 * PMU, anything under a seccomp policy).  Hardware events go first, so
 * that a hardware event leads the group when there is one.  Later threads
 * open the same list; one that cannot (out of fds) goes without, told
 * once.
 *
 * Values: PERF_FORMAT_GROUP with TOTAL_TIME_ENABLED / RUNNING, so one
 * read() gives every counter and how long the group was on the PMU; the
 * analyzer scales deltas by enabled / running when the kernel
 * multiplexed it.  rdpmc (no syscall) is not used: the group read is what
 * keeps the counters of one reading consistent with each other, and what
 * software events need.
 *
 * Invariants:
 *   - ev[0 .. nev) are the events named, in SBT_EVENTS order; ord[0 ..
 *     nuse) the indexes of those counted, in group order: COUNT id k is
 *     ev[ord[k]];
 *   - `decided` is set (under lock) once ev[] and ord[] are final.
 */
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
	struct perf_event_attr attr;
	int known;                     /* a table resolved the name      */
	int err;                       /* errno when not counted, or 0   */
	uint32_t index;                /* COUNT id or SBT_COUNTER_NONE   */
};

static struct {
	pthread_mutex_t lock;
	_Atomic int decided;           /* 1: on, -1: nothing to count    */
	int told_thread;               /* "a thread went without" told   */
	uint32_t nev, nuse;
	struct named ev[MAX_NAMED];
	uint32_t ord[SBT_COUNT_MAX];
} P = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct sbt_ctrs {
	uint32_t n;                    /* counters in the group          */
	int fd[SBT_COUNT_MAX];         /* fd[0] leads                    */
};

static int perf_open(const struct perf_event_attr *base, int group)
{
	struct perf_event_attr a = *base;

	a.size = sizeof a;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.exclude_kernel = 1;          /* unprivileged: paranoid 2 */
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, group,
			    PERF_FLAG_FD_CLOEXEC);
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
	if (!e->known)
		sbt_warn("unknown event '%s' in SBT_EVENTS, not counted (list "
			 "them with `sbt-run --list-events`)", name);
}

/* Open every known event into one group, hardware first, leaving out
 * (and telling) those the kernel refuses.  Under P.lock. */
static void decide(struct sbt_ctrs *c)
{
	for (int sw = 0; sw < 2; sw++)
		for (uint32_t i = 0; i < P.nev; i++) {
			struct named *e = &P.ev[i];
			int fd;
			if (!e->known || sbt_evname_software(&e->attr) != sw)
				continue;
			if (c->n == SBT_COUNT_MAX) {
				e->err = E2BIG;
				sbt_warn("event '%s': more than %u events in "
					 "SBT_EVENTS, not counted", e->name,
					 SBT_COUNT_MAX);
				continue;
			}
			fd = perf_open(&e->attr, c->n ? c->fd[0] : -1);
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
			c->fd[c->n++] = fd;
		}
	P.nuse = c->n;
}

static void close_fds(struct sbt_ctrs *c)
{
	while (c->n)
		close(c->fd[--c->n]);
}

struct sbt_ctrs *sbt_ctrs_open(void)
{
	const char *list;
	struct sbt_ctrs *c;

	if (atomic_load(&P.decided) < 0)
		return NULL;
	if (!(c = calloc(1, sizeof *c)))
		return NULL;
	pthread_mutex_lock(&P.lock);
	if (!atomic_load(&P.decided)) {
		list = getenv("SBT_EVENTS");
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
	if (atomic_load(&P.decided) < 0) {
		free(c);
		return NULL;
	}
	/* P.ord is final once decided: read without the lock. */
	for (uint32_t k = 0; k < P.nuse; k++) {
		int fd = perf_open(&P.ev[P.ord[k]].attr, k ? c->fd[0] : -1);
		if (fd < 0) {
			int e = errno, tell;
			close_fds(c);
			free(c);
			pthread_mutex_lock(&P.lock);
			tell = !P.told_thread;
			P.told_thread = 1;
			pthread_mutex_unlock(&P.lock);
			if (tell)
				sbt_warn("a thread's counters could not be "
					 "opened (perf_event_open: %s); its "
					 "samples have none", strerror(e));
			return NULL;
		}
		c->fd[c->n++] = fd;
	}
	return c;
}

uint32_t sbt_ctrs_nev(const struct sbt_ctrs *c)
{
	return c->n + 2;
}

void sbt_ctrs_read(const struct sbt_ctrs *c, uint64_t *v)
{
	uint64_t buf[3 + SBT_COUNT_MAX];
	size_t want = (3 + c->n) * sizeof buf[0];

	if (read(c->fd[0], buf, want) != (ssize_t)want || buf[0] != c->n) {
		memset(v, 0, (c->n + 2) * sizeof *v);
		return;
	}
	memcpy(v, buf + 1, (c->n + 2) * sizeof *v);
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
			.type = e->attr.type, .config = e->attr.config };
		sbt_regions_meta(SBT_META_COUNTER, &m, sizeof m, e->name,
				 (uint32_t)strlen(e->name));
	}
}
