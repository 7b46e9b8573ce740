/*
 * bigmem.c - see bigmem.h.
 *
 * Every big block is recorded with its mapped length, live or kept, so a
 * block reused for a smaller request is still unmapped at its true size.
 */
#include "bigmem.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

#define SLOTS 64                /* big blocks known at once            */
#define KEEP  8                 /* of which at most this many are free */

static struct { void *p; size_t len; int free; } blk[SLOTS];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;  /* blk */

static void *alloc_locked(size_t bytes)
{
	size_t len = (bytes + SBT_BIG - 1) & ~(size_t)(SBT_BIG - 1);
	int best = -1, empty = -1;

	if (bytes < SBT_BIG)
		return malloc(bytes ? bytes : 1);
	for (int i = 0; i < SLOTS; i++) {
		if (!blk[i].p) {
			if (empty < 0)
				empty = i;
		} else if (blk[i].free && blk[i].len >= len &&
			   (best < 0 || blk[i].len < blk[best].len)) {
			best = i;       /* smallest kept block that fits */
		}
	}
	if (best >= 0) {
		blk[best].free = 0;
		return blk[best].p;
	}
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	(void)madvise(p, len, MADV_HUGEPAGE);
#endif
	if (empty >= 0)
		blk[empty].p = p, blk[empty].len = len, blk[empty].free = 0;
	return p;               /* untracked when the table is full */
}

static void free_locked(void *p, size_t bytes)
{
	int nfree = 0, slot = -1, big = -1;

	if (!p)
		return;
	if (bytes < SBT_BIG) {
		free(p);
		return;
	}
	for (int i = 0; i < SLOTS; i++) {
		if (blk[i].p == p)
			slot = i;
		else if (blk[i].p && blk[i].free) {
			nfree++;
			if (big < 0 || blk[i].len > blk[big].len)
				big = i;
		}
	}
	if (slot < 0) {         /* untracked: its length is the request's */
		munmap(p, (bytes + SBT_BIG - 1) & ~(size_t)(SBT_BIG - 1));
		return;
	}
	blk[slot].free = 1;
	if (nfree >= KEEP) {    /* give back the biggest spare */
		munmap(blk[big].p, blk[big].len);
		blk[big].p = NULL;
	}
}

void *big_alloc(size_t bytes)
{
	if (bytes < SBT_BIG)
		return malloc(bytes ? bytes : 1);
	pthread_mutex_lock(&mu);
	void *p = alloc_locked(bytes);
	pthread_mutex_unlock(&mu);
	return p;
}

void big_free(void *p, size_t bytes)
{
	if (p && bytes < SBT_BIG) {
		free(p);
		return;
	}
	pthread_mutex_lock(&mu);
	free_locked(p, bytes);
	pthread_mutex_unlock(&mu);
}
