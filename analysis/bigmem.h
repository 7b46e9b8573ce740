/*
 * bigmem.h - scratch arrays of a region's size, on huge pages.
 *
 * Touching hundreds of megabytes of fresh memory 4 KiB at a time costs
 * the analyzer more than some of its computing (one page fault per 4 KiB,
 * expensive under virtualization).  Arrays of a megabyte or more come
 * from mmap with transparent huge pages requested; smaller ones from
 * malloc.  big_free() needs the size given to big_alloc().
 */
#ifndef SBT_BIGMEM_H
#define SBT_BIGMEM_H

#include <stdlib.h>
#include <sys/mman.h>

#define SBT_BIG (1u << 20)

static inline void *big_alloc(size_t bytes)
{
	if (bytes < SBT_BIG)
		return malloc(bytes ? bytes : 1);
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	(void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
	return p;
}

static inline void big_free(void *p, size_t bytes)
{
	if (!p)
		return;
	if (bytes < SBT_BIG)
		free(p);
	else
		munmap(p, bytes);
}

#endif
