/*
 * reader.h - read sbtmark logs (format/sbtlog.h) into a dataset.
 */
#ifndef SBT_READER_H
#define SBT_READER_H

#include <stddef.h>
#include "dataset.h"

/* Append every valid sample of the log at `path` to ds, as a new source.
 * Returns 0 when the log was read whole, 1 when it was read but damaged
 * or cut short (the source's `warning` says how; what was valid is kept),
 * -1 when it is not a readable log (err says why in one line).  Regions
 * whose `keep` is below 1 hold only part of their samples (thin.h).
 * With ds->hold_budget set (and ds empty), the log is counted as it is
 * read and held under that budget, as counting it first, planning and
 * reading would hold it (hold.c); the regions' totals and shares set. */
int sbt_read_log(const char *path, struct sbt_dataset *ds, char *err,
		 size_t errlen);

/* Add the samples of the log at `path` (probes too) to the `total` of
 * their regions in ds, creating regions by name; no samples are held.
 * The first step of thinning (thin.h).  0, or -1 with err set. */
int sbt_count_log(const char *path, struct sbt_dataset *ds, char *err,
		  size_t errlen);

/* The same, the log's events read by up to `jobs` threads at once in
 * segments of about `seg_bytes` of events (0: a few per thread, 1 to
 * 4 MB; with one thread, 0 reads the log in one piece and anything
 * else in such segments in turn): the result is the same for any jobs
 * and segments. */
int sbt_read_log_jobs(const char *path, struct sbt_dataset *ds, int jobs,
		      size_t seg_bytes, char *err, size_t errlen);
int sbt_count_log_jobs(const char *path, struct sbt_dataset *ds, int jobs,
		       size_t seg_bytes, char *err, size_t errlen);

/* The log's meta data alone (regions, call sites, modules, its names
 * section) as a new source of ds; no events read.  *cut: a chunk runs
 * past the file's end (the file was cut after the fact); *end: where
 * a chunk may be added (past every chunk and the file's end).  0, or -1
 * with err set. */
int sbt_read_log_meta(const char *path, struct sbt_dataset *ds, int *cut,
		      uint64_t *end, char *err, size_t errlen);

/* Does the file start like an sbtmark log? */
int sbt_is_log(const char *path);

#endif
