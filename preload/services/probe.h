/*
 * probe.h - the processor's own speed, measured in situ (SBT_SPEED_US).
 *
 * Every recording thread, about every SBT_SPEED_US microseconds of its
 * marking (default 100, 0: no probes), times a fixed register-only
 * workload between the same serialized clock reads as a region and
 * writes it as a SPEED event (format/sbtlog.h); tick.h says when.
 */
#ifndef SBT_PROBE_H
#define SBT_PROBE_H

#include <stdint.h>
#include "diag.h"

/* Read SBT_SPEED_US (constructor time). */
SBT_HIDDEN void sbt_speed_setup(void);

/* 1 when probes are on. */
SBT_HIDDEN int sbt_speed_on(void);

/* Wall ticks between a thread's ticks at a wall clock of hz, 0 when no
 * tick is needed (hz unknown yet). */
SBT_HIDDEN uint64_t sbt_speed_period(uint64_t hz);

/* The probe's META SPEED entry into a freshly opened log (none when off). */
SBT_HIDDEN void sbt_speed_meta(void);

/* One timed run of the workload: its duration in wall ticks, *t0 and
 * *aux the first read's. */
SBT_HIDDEN uint64_t sbt_speed_probe(uint64_t *t0, uint32_t *aux);

#define SBT_MEMLAT_EVERY 8u            /* speed probes a memory probe  */

/* The memory-latency probe (struct sbt_meta_memlat), with every
 * SBT_MEMLAT_EVERY-th speed probe (the first included): one chase, kept in
 * the calling thread's run (its sbtmark index `thread`), the run written
 * into the log as it fills.  The buffer is built at the first call. */
SBT_HIDDEN void sbt_memlat_probe(uint32_t thread);

/* The chase's buffer built now, with the log (its pages faulted in and
 * flushed out of the caches: a few ms where a fault costs 12 us), not
 * at the first probe, inside some region of the app's.  Nothing when
 * the speed probes are off. */
SBT_HIDDEN void sbt_memlat_setup(void);

/* Write the calling thread's run so far (its end, the log's end, a
 * fork: a child starts with none). */
SBT_HIDDEN void sbt_memlat_flush(uint32_t thread);

#endif
