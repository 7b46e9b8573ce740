/*
 * sample.h - which regions sparse recording samples, and how sparsely
 * (SBT_SAMPLE='solve:64,halo:8,*:1').
 */
#ifndef SBT_SAMPLE_H
#define SBT_SAMPLE_H

#include <stddef.h>
#include <stdint.h>
#include "diag.h"

/* Sparse recording (spec: SBT_SAMPLE's text or NULL): parsed once, by
 * sbt_config_load().  A malformed value is told once and ignored (every
 * call recorded).  Returns 1 when some region may be sampled. */
SBT_HIDDEN int sbt_sample_setup(const char *spec);

/* 1 when sbt_sample_setup() found a region to sample (the log is then
 * format version 3). */
SBT_HIDDEN int sbt_sample_on(void);

/* The mean gap N for region `name` (len bytes): one call in N on average
 * is recorded.  1: every call (no sampling). */
SBT_HIDDEN uint32_t sbt_sample_gap(const char *name, size_t len);

#endif
