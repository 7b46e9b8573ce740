/*
 * report_speed.h - the processor's own speed (score/speed.c) in each
 * format: first in the text report, "processor" in JSON, each sample's
 * state in --dump, a speed-over-time figure in HTML.
 */
#ifndef SBT_REPORT_SPEED_H
#define SBT_REPORT_SPEED_H

#include <stdio.h>
#include "report.h"

/* "processor: cpu 1 ran 41 % slower from 0.0 to 7.2 ms (speed probes;
 * regions p)", one line a shift; the cpus or hosts compared under --by;
 * nothing without probes. */
void sbt_speed_text(FILE *f, const struct sbt_dataset *ds,
		    const struct sbt_result *res);

/* "processor": {...}, a member of the top-level object (no comma). */
void sbt_speed_json(FILE *f, const struct sbt_dataset *ds,
		    const struct sbt_result *res);

/* A sample's state for --dump, from its flags and its marks (the
 * analysis's, enum sbt_mark): "processor", "machine", "transient",
 * "dropped", "probe" or "own". */
const char *sbt_speed_state(const struct sbt_sample *s, unsigned mark);

/* The HTML section: each thread's speed over time, shifts shaded. */
void sbt_speed_html(FILE *f, const struct sbt_dataset *ds,
		    const struct sbt_result *res);

#endif
