/*
 * header.h - what a log's header says about the process and its clocks:
 * who wrote it, and t_e,std, the timing method's own cost, measured at
 * startup.  Cold path, once per log.
 */
#ifndef SBT_HEADER_H
#define SBT_HEADER_H

#include <stdint.h>
#include "clock.h"
#include "diag.h"

/* Fill everything but the live fields (flags beyond the static ones,
 * counters, end_offset). */
SBT_HIDDEN void sbt_header_fill(struct sbt_file_header *h,
				const struct sbt_clockinfo *clk,
				uint32_t probe_period, int forked);

/* As the log is finished: a tick rate calibrated at the start is the
 * run's now (sbt_clock_refined), said as tick_source "run". */
SBT_HIDDEN void sbt_header_clock_final(struct sbt_file_header *h,
				       const struct sbt_clockinfo *clk);

/* One empty START/STOP pair through the marker path; its duration in
 * ticks and cycles (0 without a cycle clock).  0 on success. */
typedef int (*sbt_pair_fn)(void *arg, uint64_t *ticks, uint64_t *cycles);

/* t_e,std from a burst of pairs, and the kernel-entry floor. */
SBT_HIDDEN void sbt_header_calibrate(struct sbt_file_header *h,
				     sbt_pair_fn pair, void *arg);

#endif
