/*
 * bigmem.c - see bigmem.h.
 *
 * Not a pool of its own: one kept apart from the heap could not lend
 * its free blocks to the heap's arrays nor borrow the heap's holes, so
 * each would fault in fresh pages the other holds idle.
 *
 * Huge pages or not.  A fresh huge page usually costs the kernel one
 * fault and its zeroing, less than 512 faults of 4 KiB pages.  But a
 * virtual machine's host may take back the guest's free memory in
 * large blocks (free page reporting): a huge page is then taken from
 * such a block and faulted in on the host page by page, several times
 * what 4 KiB pages cost, while the first ones, from blocks the host
 * still backs, cost little.  So the pages big_populate() faults in
 * are timed: once whole huge pages cost more a MiB than 4 KiB pages
 * did (one huge page's worth of those, timed once), DEARER times
 * over, no more are asked for in this run.
 *
 * What 4 KiB pages cost is timed once, on a mapping of the judge's own:
 * faulted in, then written once each, since under shadow paging that first
 * access through the mapping traps to the host again.  Leaving that access
 * out priced them at a fraction of their cost, and a single dear judgement
 * then gave up huge pages for the run: 10^8 samples on the family 26 guest
 * took 5.3-7.9 s against 4.0-4.2 s on huge pages, its user time nearly
 * doubled by the 4 KiB pages' many mappings (not timed here, another
 * reason for the margin).  Where the host takes huge pages back they
 * cost several times more (4.8 on one guest): hence giving them up at all.
 */
#include "bigmem.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define HUGE ((uintptr_t)2 << 20)
#define DEARER 2.0             /* see above */
#define JUDGED 16              /* huge pages a judgement times */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
/* all below: one writer at a time, under mu */
static double small_ns = -1;   /* cpu ns a HUGE of 4 KiB pages took to
				  fault in; 0 while being timed, -1 not yet */
static double ns, got;         /* cpu ns and bytes populated since the
				  last judgement, huge pages asked for */
static int no_huge;            /* huge pages cost more: none asked for */

/* Advise the huge pages inside [p, p + bytes), or (out) those it
 * touches: a huge page half in it is faulted in whole. */
static void advise(void *p, size_t bytes, int advice, int out)
{
	uintptr_t a = (uintptr_t)p + (out ? 0 : HUGE - 1);
	uintptr_t e = (uintptr_t)p + bytes + (out ? HUGE - 1 : 0);

	a &= ~(HUGE - 1), e &= ~(HUGE - 1);
	if (e > a)
		(void)madvise((void *)a, e - a, advice);
}

void big_huge(void *p, size_t bytes)
{
#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
	pthread_mutex_lock(&mu);
	int no = no_huge;
	pthread_mutex_unlock(&mu);
	/* where huge pages were asked for before (the heap's room reused) */
	advise(p, bytes, no ? MADV_NOHUGEPAGE : MADV_HUGEPAGE, no);
#else
	(void)p, (void)bytes;
#endif
}

static double cpu_ns(void)
{
	struct timespec t;

	(void)clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* cpu ns to fault [a, a + bytes) in as written (a page-aligned).  No
 * page is read through the mapping here: a worker readies an array's far
 * end while the main thread may move or free it (fill_ahead), and a read
 * there faults where the madvise only fails. */
static double populate(uintptr_t a, size_t bytes)
{
	double t0 = cpu_ns();

	/* an older kernel says EINVAL: the writer faults them itself */
	(void)madvise((void *)a, bytes, MADV_POPULATE_WRITE);
	return cpu_ns() - t0;
}

/* cpu ns a HUGE of 4 KiB pages costs, faulted in and then written once
 * each: under shadow paging that first access through the mapping traps
 * to the host again, a cost huge pages pay once a huge page (and where
 * the kernel cannot populate, the write faults each in).  Timed on a
 * mapping of its own, which no other thread can move or free. */
static double small_price(uintptr_t pg)
{
	char *m = mmap(NULL, HUGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return -1;
	(void)madvise(m, HUGE, MADV_NOHUGEPAGE);
	double t0 = cpu_ns();
	(void)madvise(m, HUGE, MADV_POPULATE_WRITE);
	for (uintptr_t o = 0; o < HUGE; o += pg)
		*(volatile char *)(m + o) = 0;
	double t = cpu_ns() - t0;
	(void)munmap(m, HUGE);
	return t > 0 ? t : 1;
}

void big_populate(void *p, size_t bytes)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)p & ~(pg - 1), e = (uintptr_t)p + bytes;
	uintptr_t ha = (a + HUGE - 1) & ~(HUGE - 1), he = e & ~(HUGE - 1);

	if (!bytes)
		return;
#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
	int time_small = 0;
	pthread_mutex_lock(&mu);
	int no = no_huge;
	if (!no && small_ns < 0 && he > ha)
		small_ns = 0, time_small = 1;
	pthread_mutex_unlock(&mu);
	if (no) {
		advise(p, bytes, MADV_NOHUGEPAGE, 1);
	} else if (time_small) {
		double t = small_price(pg);
		pthread_mutex_lock(&mu);
		small_ns = t;	/* -1 (no room to time in): timed again */
		pthread_mutex_unlock(&mu);
	}
	double t = populate(a, e - a);
	if (no)
		return;
	/* Judged on what JUDGED huge pages or more took, summed over calls:
	 * a call that starts a huge page pays for all of it, and a shared
	 * host moves the time of a few by a third or more. */
	pthread_mutex_lock(&mu);
	ns += t;
	got += (double)(e - a);
	if (got >= JUDGED * (double)HUGE && small_ns > 0) {
		no_huge = ns / got > DEARER * small_ns / (double)HUGE;
		ns = got = 0;
	}
	pthread_mutex_unlock(&mu);
#else
	(void)populate(a, e - a), (void)ha, (void)he;
#endif
}

void *big_alloc(size_t bytes)
{
	void *p = malloc(bytes ? bytes : 1);

	if (p && bytes >= SBT_BIG)
		big_huge(p, bytes);
	return p;
}

void big_free(void *p, size_t bytes)
{
	(void)bytes;
	free(p);
}

void *big_realloc(void *p, size_t old, size_t bytes)
{
	if (bytes < SBT_BIG)
		return realloc(p, bytes ? bytes : 1);
	void *q = big_alloc(bytes);
	if (q && p)
		memcpy(q, p, old < bytes ? old : bytes);
	if (q)
		free(p);
	return q;
}
