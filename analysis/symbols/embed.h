/*
 * embed.h - a log's names written into it (sbt-analyze --embed-names).
 *
 * Where the binaries that ran are at hand (right after the run: sbt-run
 * does it), the log's code addresses - its call sites' frames, its
 * regions' first sites - are resolved as the analysis resolves them and
 * appended to the log as a names section (format/sbtlog.h,
 * SBT_META_NAMES), which the analysis then takes before the binaries:
 * the log is analyzed alike where they are gone.
 */
#ifndef SBT_EMBED_H
#define SBT_EMBED_H

#include <stddef.h>

/* Embed the names of the log at `path` (in place, appended).  0 done;
 * 1 nothing to add (its section holds every name the binaries give, or
 * none could be had); -1 refused or failed.  `msg` says which, in one
 * line. */
int sbt_embed_names(const char *path, char *msg, size_t len);

#endif
