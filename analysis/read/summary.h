/*
 * summary.h - a log's samples in a small file that merges (.sbts).
 *
 * `sbt-analyze --summary` reads one log (one rank's, on its own node) and
 * writes what the analysis of it needs: the log's facts (header, module
 * map, counters, OS events' state), its regions with their exact sample
 * counts, its call sites, and its samples, compressed, at most a budget
 * of them (thin.h: the large regions keep a random share, calls exact).
 * `sbt-analyze a.sbts b.sbts ...` then reads summaries as it reads logs,
 * so the report of merged summaries is the report of the logs: every
 * filter runs per log either way.  The layout is in format/SUMMARY.md.
 */
#ifndef SBT_SUMMARY_H
#define SBT_SUMMARY_H

#include <stddef.h>

#include "dataset.h"

#define SBT_SUMMARY_VERSION 11  /* reads 1 (no speed probes), 2 (no
				   threads), 3 (no detours), 4 (no
				   detours' places), 5 (no recorder
				   facts), 6 (no fault cost), 7 (no
				   names), 8 (no probes' switch-outs),
				   9 (no memory probes), 10 (no fault
				   storms) and 11 */
/* Samples a summary holds at most by default (--max-samples sets it). */
#define SBT_SUMMARY_SAMPLES_DEFAULT 1000000u

/* Write source `src` of ds (its samples, regions and sites) to path.
 * 0, or -1 with err set (the file is removed). */
int sbt_summary_write(const char *path, const struct sbt_dataset *ds,
		      uint32_t src, char *err, size_t errlen);

/* Append the summary at path to ds as a new source, holding only the
 * share of each region its `keep` allows (thin.h).  0 read whole, -1 not
 * a readable summary (err says why: damaged, cut short, foreign, of
 * another version). */
int sbt_summary_read(const char *path, struct sbt_dataset *ds, char *err,
		     size_t errlen);

/* Add the summary's regions' sample counts to ds's regions' `total`
 * (creating them by name), and lower their `keep` to the share the
 * summary holds.  0, or -1 with err set. */
int sbt_summary_count(const char *path, struct sbt_dataset *ds, char *err,
		      size_t errlen);

/* Does the file start like a summary (a gzip stream)? */
int sbt_is_summary(const char *path);

#endif
