/*
 * report_trace.h - the samples on a timeline: Chrome's Trace Event Format
 * (JSON), which Perfetto UI (ui.perfetto.dev) and chrome://tracing open.
 */
#ifndef SBT_REPORT_TRACE_H
#define SBT_REPORT_TRACE_H

#define SBT_TRACE_MAX_DEFAULT 1000000u   /* --trace-max */

#endif
