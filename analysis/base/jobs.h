/*
 * jobs.h - how many threads the analyzer's pools use (-j), and the pool
 * that works on items in parallel and merges them in order.
 */
#ifndef SBT_JOBS_H
#define SBT_JOBS_H

#include <stddef.h>

/* How many threads `jobs` asks for: itself, or one per online core when
 * 0 or less; 1 to SBT_JOBS_MAX. */
#define SBT_JOBS_MAX 64
int sbt_jobs(int jobs);

/* Items 0 .. n-1: each worked on once by work(arg, i) on one of up to
 * `jobs` threads, taken in order and at most `ahead` (>= 1) past the
 * last one merged, which bounds what finished, unmerged items hold; and
 * merged by merge(arg, i) on the calling thread, strictly in order, each
 * after its work.  So the merged result does not depend on `jobs`.
 * With jobs <= 1 (or no thread to be had) each item is worked and merged
 * in turn on the calling thread.  A merge that returns nonzero stops
 * it: no item is taken after, those taken are finished (work) but not
 * merged.  Returns that value, or 0 when every item was merged. */
int sbt_jobs_ordered(size_t n, int jobs, size_t ahead,
		     void (*work)(void *arg, size_t i),
		     int (*merge)(void *arg, size_t i), void *arg);

/* Items 0 .. n-1, each worked on once by work(arg, i, t), in no set
 * order, on up to `jobs` threads (the calling thread one of them); t,
 * below sbt_jobs_width(n, jobs), names the thread, for scratch of its
 * own.  What must not depend on `jobs` (a sum of floating-point numbers)
 * is made per item and combined by the caller in item order: items are
 * fixed blocks of the work (SBT_JOBS_BLOCK), never one per thread. */
#define SBT_JOBS_BLOCK ((size_t)1 << 16)
int sbt_jobs_width(size_t n, int jobs);
void sbt_jobs_each(size_t n, int jobs,
		   void (*work)(void *arg, size_t i, int t), void *arg);

/* Blocks of about SBT_JOBS_BLOCK items that n items are cut into: at
 * least 1, at most `most` (so that per-block arrays stay small); block
 * b is [b * n / nb, (b + 1) * n / nb).  Depends on n and most only. */
size_t sbt_jobs_blocks(size_t n, size_t most);

#endif
