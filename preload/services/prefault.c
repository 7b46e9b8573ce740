/*
 * prefault.c - the recorder's own pages in the page table before any
 * timed window.
 *
 * A window (a START's counter and clock reads to its STOP's) runs some
 * of our code: an interposer's entry, the STOP path up to its reads.
 * The first run of a text page, or the first write of a data page, that
 * is not yet in the process's page table is a page fault inside the
 * user's window: timed as theirs, and counted as theirs under SBT_EVENTS
 * page-faults.  Which page that is depends only on how the linker laid
 * the library out (a function straddling a page boundary): any code
 * added anywhere can move it.  So every page of this library's loaded
 * segments is mapped when the log opens, before the first window:
 * read-only segments read in, writable ones made present for writing
 * without writing them (MADV_POPULATE_WRITE), page by page, so that the
 * part of a segment that relocation made read-only (RELRO) is only read;
 * and every page read once through the mapping (see logfile.c's
 * populate: a shadow-paging host's trap, taken here).
 */
#include "prefault.h"

#include <link.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ  22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* Read one byte of each page of [a, b): the kernel maps it (older kernels
 * have no MADV_POPULATE_READ).  A page's byte, not an object's: it may
 * be a sanitizer's padding between two globals, which it may not see. */
__attribute__((no_sanitize("address", "thread")))
static void read_pages(uintptr_t a, uintptr_t b, uintptr_t pg)
{
	for (; a < b; a += pg)
		(void)*(volatile const char *)a;
}

static void populate(uintptr_t a, uintptr_t b, uintptr_t pg, int writable)
{
	if (!writable) {
		if (madvise((void *)a, b - a, MADV_POPULATE_READ) != 0)
			read_pages(a, b, pg);
		return;
	}
	/* Read after populating too: a guest under shadow paging maps a
	 * page for its host at the first access through the mapping. */
	for (; a < b; a += pg) {
		(void)madvise((void *)a, pg, MADV_POPULATE_WRITE);
		read_pages(a, a + pg, pg);
	}
}

/* dl_iterate_phdr's callback: the object holding `me` (our own code),
 * each of its loaded segments populated; 1 stops the walk there. */
static int each_object(struct dl_phdr_info *o, size_t size, void *me)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), at = (uintptr_t)me;
	int ours = 0;

	(void)size;
	for (int i = 0; i < o->dlpi_phnum && !ours; i++) {
		const ElfW(Phdr) *p = &o->dlpi_phdr[i];
		uintptr_t a = o->dlpi_addr + p->p_vaddr;
		ours = p->p_type == PT_LOAD && at >= a && at < a + p->p_memsz;
	}
	if (!ours || pg == 0 || (pg & (pg - 1)))
		return ours;
	for (int i = 0; i < o->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &o->dlpi_phdr[i];
		if (p->p_type != PT_LOAD || !p->p_memsz)
			continue;
		uintptr_t a = (o->dlpi_addr + p->p_vaddr) & ~(pg - 1);
		uintptr_t b = (o->dlpi_addr + p->p_vaddr + p->p_memsz +
			       pg - 1) & ~(pg - 1);
		populate(a, b, pg, !!(p->p_flags & PF_W));
	}
	return 1;
}

void sbt_prefault_self(void)
{
	(void)dl_iterate_phdr(each_object, (void *)(uintptr_t)sbt_prefault_self);
}
