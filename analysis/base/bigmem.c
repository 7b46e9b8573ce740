/*
 * bigmem.c - see bigmem.h.
 *
 * Not a pool of its own: one kept apart from the heap could not lend
 * its free blocks to the heap's arrays nor borrow the heap's holes, so
 * each would fault in fresh pages the other holds idle.
 */
#include "bigmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define HUGE ((uintptr_t)2 << 20)

void big_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	uintptr_t a = ((uintptr_t)p + HUGE - 1) & ~(HUGE - 1);
	uintptr_t e = ((uintptr_t)p + bytes) & ~(HUGE - 1);

	if (e > a)
		(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
	(void)p, (void)bytes;
#endif
}

void big_populate(void *p, size_t bytes)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)p & ~(pg - 1);

	/* an older kernel says EINVAL: the writer faults them itself */
	if (bytes)
		(void)madvise((void *)a, (uintptr_t)p + bytes - a,
			      MADV_POPULATE_WRITE);
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
