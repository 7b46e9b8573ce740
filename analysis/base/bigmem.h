/*
 * bigmem.h - scratch arrays of a region's size, on huge pages, reused.
 *
 * Touching hundreds of megabytes of fresh memory costs the analyzer more
 * than some of its computing: a page fault per 4 KiB (expensive under
 * virtualization) and the kernel zeroing every page.  Arrays of a
 * megabyte or more therefore come from mmap with transparent huge pages
 * requested, and freed ones are kept for the next request that fits
 * instead of being returned and zeroed again.  Smaller ones use malloc.
 * big_free() needs the size given to big_alloc().  Thread-safe (one
 * lock): the analyzer's scoring workers (-j) take and give back their
 * groups' scratch and sort buffers at once.
 */
#ifndef SBT_BIGMEM_H
#define SBT_BIGMEM_H

#include <stddef.h>

#define SBT_BIG (1u << 20)

void *big_alloc(size_t bytes);
void big_free(void *p, size_t bytes);

#endif
