/*
 * cap.h - SBT_MAX_MB: a log that thins as it fills, never cut (cold path).
 *
 * With a cap set, a process-wide thinning level k
 * multiplies each gap's mean: one call in N_r * 2^k is recorded, N_r the
 * region's own from SBT_SAMPLE (else 1).  The level rises as the log's
 * chunks fill it: level k ends when the bytes handed out reach
 * (k+1)/(k+2) of the cap.  Each rise is one THIN meta entry {t, level}
 * and the header's `thin_level`.  The analyzer then holds a sample
 * recorded at level k with probability 2^-(K-k), K the final level, so
 * that every call is held with the same probability 2^-K, as in a
 * reservoir (see cap.c for why the steps are (k+1)/(k+2), not halves).
 * Past the cap itself the log is full: samples are dropped and counted.
 *
 * At level 0 every call is recorded, so regions without a sampling
 * rate of their own (SBT_SAMPLE) take the fast path as without a cap.
 * From level 1 every region is recorded through sparse recording's path
 * (hot.c: start_sampled): the call sites' slots filled meanwhile are
 * turned to their SKIP words here, and every thread's fast path is shut
 * once (recorder.c), so that its caches take the change.
 *
 * Unset, nothing here runs but sbt_cap_on() in cold paths: the hot path
 * is untouched.
 */
#ifndef SBT_CAP_H
#define SBT_CAP_H

#include <stddef.h>
#include <stdint.h>
#include "diag.h"
#include "regions.h"
#include "tsc.h"
#include "sbtmark_hot.h"

/* Read SBT_MAX_MB once at startup; a bad value is told once and no cap
 * is set.  Returns the cap in bytes, 0 for none. */
SBT_HIDDEN uint64_t sbt_cap_setup(void);

/* 1 when SBT_MAX_MB set a cap. */
SBT_HIDDEN int sbt_cap_on(void);

/* 1 when every region is sampled: a cap, past its level 0. */
SBT_HIDDEN int sbt_cap_thinning(void);

/* Give way w of call site cs (slot being filled: tag CS_FILLING) its
 * START word `word` of region `region` under read-only name `tag`, or,
 * once thinning, the SKIP word; remembered until then, to be turned. */
SBT_HIDDEN void sbt_cap_site(struct sbt_csite *cs, int w, const char *tag,
			     uint32_t word, sbt_id region);

/* The thinning level now (0 without a cap).  Lock-free. */
SBT_HIDDEN uint32_t sbt_cap_level(void);

/* The new log's header (NULL: forget the old one, in a fork child):
 * records the cap there and starts the level at 0. */
SBT_HIDDEN void sbt_cap_attach(struct sbt_file_header *h);

/* The log hands out chunks up to `used` bytes: raise the level past
 * each step reached, one THIN entry each.  Any thread, after a chunk
 * of its own was allocated, outside any timed window.  Returns 1 when
 * this call ended level 0 (the caller shuts every thread's fast path),
 * the remembered call sites turned already. */
SBT_HIDDEN int sbt_cap_used(uint64_t used);

/* fork: the call sites' lock held across it (recorder.c's handlers). */
SBT_HIDDEN void sbt_cap_fork_lock(void);
SBT_HIDDEN void sbt_cap_fork_unlock(void);

/* A thread's largest EVENTS chunk: small against the cap, so the level
 * follows the log's filling closely. */
SBT_HIDDEN size_t sbt_cap_chunk_max(size_t max);

#endif
