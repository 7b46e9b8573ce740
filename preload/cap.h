/*
 * cap.h - SBT_MAX_MB: a log that thins as it fills, never cut (cold path).
 *
 * With a cap set, every region is recorded through sparse recording's
 * path (hot.c: start_sampled), and a process-wide thinning level k
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
 * Unset, nothing here runs but sbt_cap_on() in cold paths: the hot path
 * is untouched.
 */
#ifndef SBT_CAP_H
#define SBT_CAP_H

#include <stddef.h>
#include <stdint.h>
#include "diag.h"

/* Read SBT_MAX_MB once at startup; a bad value is told once and no cap
 * is set.  Returns the cap in bytes, 0 for none. */
SBT_HIDDEN uint64_t sbt_cap_setup(void);

/* 1 when SBT_MAX_MB set a cap: every region is then sampled. */
SBT_HIDDEN int sbt_cap_on(void);

/* The thinning level now (0 without a cap).  Lock-free. */
SBT_HIDDEN uint32_t sbt_cap_level(void);

/* The new log's header (NULL: forget the old one, in a fork child):
 * records the cap there and starts the level at 0. */
SBT_HIDDEN void sbt_cap_attach(struct sbt_file_header *h);

/* The log hands out chunks up to `used` bytes: raise the level past
 * each step reached, one THIN entry each.  Any thread, after a chunk
 * of its own was allocated, outside any timed window. */
SBT_HIDDEN void sbt_cap_used(uint64_t used);

/* A thread's largest EVENTS chunk: small against the cap, so the level
 * follows the log's filling closely. */
SBT_HIDDEN size_t sbt_cap_chunk_max(size_t max);

#endif
