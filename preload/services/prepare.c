/*
 * prepare.c - the preparer thread: where it runs, how it is woken.
 *
 * It sleeps on a futex word and is woken by the chunk taker that finds
 * less than half of the wanted space ready (logfile.c calls prep_low):
 * one atomic add, and a system call only when the preparer sleeps - once
 * every half megabyte or more of log, outside any timed window (chunks
 * are taken on the recorder's path).  It never takes a lock a marking
 * thread waits for but the file's growth lock, which the taker would
 * take itself to grow the file.
 *
 * Invariants:
 *   - pr.seq changes at every wake-up; the preparer sleeps only on the
 *     value it read before its last sbt_log_prepare round, and only with
 *     pr.sleeping set (seq_cst both sides: a waker either sees sleeping
 *     or the preparer sees the new seq);
 *   - a fork child has no preparer (threads do not cross fork); its own
 *     log, opened by its first marker, starts one (sbt_prep_start).
 */
#include "prepare.h"
#include "config.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { PREP_AUTO, PREP_OFF, PREP_LIST };

static struct {
	int mode;                      /* PREP_*, from SBT_PREPARE       */
	cpu_set_t list;                /* PREP_LIST's cpus               */
	cpu_set_t start;               /* the process's as it started    */
	int start_known;
	_Atomic uint32_t seq;          /* futex word: wake-ups           */
	_Atomic int sleeping;
} pr;

/* "0,2-3" into *set; -1 when it is not such a list (or names no cpu). */
static int parse_cpus(const char *s, cpu_set_t *set)
{
	CPU_ZERO(set);
	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s || a < 0 || a >= CPU_SETSIZE)
			return -1;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a || b >= CPU_SETSIZE)
				return -1;
		}
		for (long c = a; c <= b; c++)
			CPU_SET((int)c, set);
		if (*end == ',')
			end++;
		else if (*end)
			return -1;
		s = end;
	}
	return CPU_COUNT(set) ? 0 : -1;
}

void sbt_prep_setup(void)
{
	const char *s = sbt_cfg_text(SBT_CFG_PREPARE);

	/* Before main(): what the process was started with (taskset's),
	 * before the app (an OpenMP runtime, say) pins its own threads. */
	pr.start_known = sched_getaffinity(0, sizeof pr.start,
					   &pr.start) == 0;
	pr.mode = PREP_AUTO;
	if (!s || !strcmp(s, "auto"))
		return;
	if (!strcmp(s, "off")) {
		pr.mode = PREP_OFF;
	} else if (parse_cpus(s, &pr.list) == 0) {
		pr.mode = PREP_LIST;
	} else {
		sbt_warn("SBT_PREPARE='%s' is not auto, off or a cpu list "
			 "(0,2-3); using auto", s);
	}
}

static long futex(_Atomic uint32_t *w, int op, uint32_t v)
{
	return syscall(SYS_futex, w, op, v, NULL, NULL, 0);
}

/* The log's readied space runs low (a chunk taker, any thread, also in
 * a signal handler: an atomic add and maybe a futex wake). */
static void prep_low(void)
{
	atomic_fetch_add(&pr.seq, 1);
	if (atomic_load(&pr.sleeping))
		futex(&pr.seq, FUTEX_WAKE_PRIVATE, 1);
}

static void *prep_main(void *arg)
{
	struct sbt_logfile *lf = arg;

	for (;;) {
		uint32_t seq = atomic_load(&pr.seq);

		while (sbt_log_prepare(lf))
			;
		atomic_store(&pr.sleeping, 1);
		if (atomic_load(&pr.seq) == seq)
			futex(&pr.seq, FUTEX_WAIT_PRIVATE, seq);
		atomic_store(&pr.sleeping, 0);
	}
	return NULL;
}

/* Where the preparer may run; 0 when nowhere but the process's own
 * single cpu (auto) - there it would only move the same work into the
 * app's timed regions, at moments of the scheduler's choosing.  (Cpus
 * the kernel does not have or the cpuset refuses are dropped by it; with
 * none left, the thread is not made.) */
static int where(cpu_set_t *set)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	if (pr.mode == PREP_LIST) {
		*set = pr.list;
		return 1;
	}
	if (!pr.start_known)
		return 0;
	if (CPU_COUNT(&pr.start) >= 2) {
		*set = pr.start;
		return 1;
	}
	CPU_ZERO(set);
	for (long c = 0; c < n && c < CPU_SETSIZE; c++)
		if (!CPU_ISSET((int)c, &pr.start))
			CPU_SET((int)c, set);
	return CPU_COUNT(set) > 0;
}

void sbt_prep_start(struct sbt_logfile *lf)
{
	pthread_attr_t at;
	pthread_t th;
	sigset_t all, old;
	cpu_set_t set;
	int err = EAGAIN;

	if (pr.mode == PREP_OFF || !where(&set))
		return;
	atomic_store(&pr.seq, 0);
	atomic_store(&pr.sleeping, 0);
	/* no signal of the app's is ever delivered to it */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_attr_init(&at) == 0) {
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&at, 64u << 10);
		if (pthread_attr_setaffinity_np(&at, sizeof set, &set) == 0)
			err = pthread_create(&th, &at, prep_main, lf);
		pthread_attr_destroy(&at);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err == 0) {
		/* named before anyone can look (ps, tests) */
		(void)pthread_setname_np(th, "sbt-prepare");
		sbt_log_on_low(lf, prep_low);
	} else if (pr.mode == PREP_LIST) {
		sbt_warn("SBT_PREPARE: cannot run a thread on cpus %s (%s); "
			 "threads ready their own log pages",
			 sbt_cfg_text(SBT_CFG_PREPARE), strerror(err));
	}
}
