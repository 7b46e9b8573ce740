/*
 * report_trace.h - the samples on a timeline: Chrome's Trace Event Format
 * (JSON), which Perfetto UI (ui.perfetto.dev) and chrome://tracing open.
 */
#ifndef SBT_REPORT_TRACE_H
#define SBT_REPORT_TRACE_H

#include <stdio.h>
#include "analyze.h"

#define SBT_TRACE_MAX_DEFAULT 1000000u

/*
 * One track per process and thread; one complete ("X") event per held
 * sample (probes left out), at most `max` of them (0: all) chosen evenly
 * over time; nested samples inside their parents after rounding to the
 * nanosecond; res's machine events and the kernel's interruptions as
 * instant events; SBT_EVENTS counts as counter tracks.  What was left
 * out is said in "otherData".  0, or -1 on an I/O or memory failure.
 */
int sbt_trace_write(FILE *f, const struct sbt_dataset *ds,
		    const struct sbt_result *res, size_t max);

#endif
