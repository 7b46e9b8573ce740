/*
 * bigmem.h - scratch arrays of a region's size, on huge pages, reused.
 *
 * Touching hundreds of megabytes of fresh memory costs the analyzer more
 * than some of its computing: a page fault per 4 KiB (expensive under
 * virtualization) and the kernel zeroing every page.  Arrays of a
 * megabyte or more therefore come from the one heap the whole run
 * shares (main.c: never trimmed, never mmap'd apart), whose freed room
 * the next stage or group reuses, whatever array held it before (the
 * reader's segments, another group's scratch); they are asked for on
 * transparent huge pages where those cost less.  big_free() needs the
 * size given to big_alloc().  Thread-safe as malloc is.
 */
#ifndef SBT_BIGMEM_H
#define SBT_BIGMEM_H

#include <stddef.h>

#define SBT_BIG (1u << 20)

void *big_alloc(size_t bytes);
void big_free(void *p, size_t bytes);
/* realloc(p, bytes) for an array that grows past SBT_BIG (old: its size
 * now): its new room asked for on huge pages before the copy touches it,
 * where realloc would copy into fresh 4 KiB pages first. */
void *big_realloc(void *p, size_t old, size_t bytes);
/* Ask for transparent huge pages on the whole 2 MiB pages inside
 * [p, p + bytes): fewer faults on a big array's first touch; or, once
 * big_populate() found them dearer here, for none. */
void big_huge(void *p, size_t bytes);
/* Fault in the pages of [p, p + bytes) as written, without writing them
 * (MADV_POPULATE_WRITE; nothing where the kernel lacks it): a thread
 * that is not on the critical path pays their zeroing.  Their contents
 * are untouched, so another thread may write them meanwhile.  Timed:
 * whether huge pages pay on this machine (bigmem.c). */
void big_populate(void *p, size_t bytes);

#endif
