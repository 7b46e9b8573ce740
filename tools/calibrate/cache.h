/*
 * cache.h - cache sizes of this machine and the flush that puts the timed
 * code and data into a chosen cache level before every sample.
 *
 * Levels (paper §6.2): l1 = no flush, l2 = stream 4 x L1d, l3 = stream
 * 4 x L2, mem = 4 x L3.  Streaming reads and writes every line of a
 * private buffer, so earlier lines are evicted to the next level.
 *
 * For mem the default is not to stream 4 x L3 (on this VM's 508 MiB
 * "L3" that is 2 GiB per sample) but to evict the same lines the stream
 * would: clflush (Armv8: dc civac) every resident line of every mapping
 * of this process - code, data, stack, the JIT chain, the libraries on
 * the timing path - skipping only the flush buffer, the kernel's vvar /
 * vsyscall pages and mappings larger than SBT_FOOTPRINT_MAX (the
 * recorder's log reservation, heaps of other libraries; nothing there is
 * read inside the timed window).  Afterwards the timing code and data
 * come from memory, which is what the level means.  What it does not do
 * that the stream does: evict TLB and page-walk-cache entries, so mem
 * figures may be slightly optimistic; --mem-mode stream does the literal
 * thing when time allows.
 */
#ifndef SBT_CAL_CACHE_H
#define SBT_CAL_CACHE_H

#include <stddef.h>
#include <stdint.h>

enum sbt_level { SBT_L1, SBT_L2, SBT_L3, SBT_MEM, SBT_NLEVELS };
extern const char *const sbt_level_name[SBT_NLEVELS];

struct sbt_cache_sizes {
	size_t size[3];            /* L1d, L2, L3 in bytes (0: unknown)  */
	char   src[3][64];         /* where each came from               */
};

/* Fill *cs from sysfs, then sysconf, then cpuid (x86), whichever first
 * gives a value, per level.  Overrides (non-zero) win. */
void sbt_cache_detect(struct sbt_cache_sizes *cs, const size_t override[3]);

/* "32K", "1M", "1.5M", "1048576" -> bytes; 0 on error. */
size_t sbt_parse_size(const char *s);

enum sbt_mem_mode { SBT_MEM_CLFLUSH, SBT_MEM_STREAM };

#define SBT_FOOTPRINT_MAX ((size_t)64 << 20)

struct sbt_flush {
	enum sbt_level level;
	enum sbt_mem_mode mem_mode;
	size_t bytes;              /* stream size (0 for l1, clflush)     */
	unsigned char *buf;
	size_t buf_size;
	/* clflush footprint: resident page ranges, refreshed per batch */
	struct { uintptr_t lo, hi; } *range;
	size_t nrange, range_cap, footprint;
};

/* Prepare the flush for a level.  Returns 0, or -1 with a message. */
int sbt_flush_init(struct sbt_flush *f, enum sbt_level level,
		   const struct sbt_cache_sizes *cs, enum sbt_mem_mode mode,
		   char *err, size_t errlen);
void sbt_flush_free(struct sbt_flush *f);

/* Re-read the process's mappings (clflush mode; no-op otherwise).  Call
 * before each batch: libraries and buffers come and go. */
void sbt_flush_refresh(struct sbt_flush *f);

/* Evict: afterwards the next sample's code and data come from the level
 * below the one the flush stands for. */
void sbt_flush_run(struct sbt_flush *f);

/* Bytes a run touches (stream size or clflush footprint). */
size_t sbt_flush_bytes(const struct sbt_flush *f);

#endif
