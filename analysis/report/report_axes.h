/*
 * report_axes.h - the machine's memory-latency axis (score/axes.c) in
 * the text report: its shifts as the machine's, one line each.  Nothing
 * for a log without memory probes.
 */
#ifndef SBT_REPORT_AXES_H
#define SBT_REPORT_AXES_H

#include <stdio.h>
#include "report.h"

/* -v: "memory: the machine's: memory latency +8 % from 1.2 to 3.4 ms
 * (41 probes; region x: 120 samples left out)" a shift, then the
 * axis's count and resolution. */
void sbt_axes_text(FILE *f, const struct sbt_dataset *ds,
		   const struct sbt_result *res);

/* JSON: `, "memory": {...}` after "processor" (its probes, resolution,
 * shifts and threads' timelines); nothing without memory probes. */
void sbt_axes_json(FILE *f, const struct sbt_dataset *ds,
		   const struct sbt_result *res);

/* The default report's line for the largest shift into buf; 0 when
 * there is none. */
int sbt_axes_context(char *buf, size_t n, const struct sbt_result *res);

#endif
