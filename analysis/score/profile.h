/*
 * profile.h - calibration profiles: what sbt-calibrate measured on a
 * machine (t_min, t_diff per cache level, clock and timing method), in a
 * small line-oriented text file that sbt-analyze reads back.
 *
 * Format, version 1 (one record per line, '#' starts a comment line,
 * fields separated by single spaces, no tabs):
 *
 *   sbtmark-profile 1                       first line, always
 *   host <word>                             metadata: one line each,
 *   cpu <rest of line>                        any order, each at most once
 *   arch x86_64 | aarch64
 *   created <unix seconds>
 *   tick_hz <wall-clock ticks per second>
 *   tick_quantum <smallest tick step>
 *   tick_source <word>                      perf, sysfs, calibrated, cntfrq
 *   cycles <rest of line>                   "none: <why>" or "yes: <how>"
 *   ns_per_add <ns per dependent ADD at calibration time>
 *   params eps=<e> n=<N> p=<p> alpha=<a> q=<q> mem=<clflush|stream>
 *   result level=<l1|l2|l3|mem> clock=<wall|cycles> method=<word>
 *          status=<ok|nc|skip> t_min_adds=<u> t_min_ns=<x> t_diff_adds=<u>
 *          t_diff_ns=<x> te_std_ns=<x> model_t_min_ns=<x>
 *          model_t_diff_ns=<x> flush=<bytes> [note=<rest of line>]
 *                                           (one line; keys in this order)
 *   end                                     last line: a file without it
 *                                           was truncated and is rejected
 *
 * Numbers are decimal; "-" stands for unknown (NAN, or 0 for counts).
 * For clock=cycles the *_ns fields hold cycles.  t_min_ns is the median
 * measured time at t_min_adds after filter_cost and filter_os; t_diff_ns
 * is t_diff_adds * ns_per_add.  status=nc means the search did not
 * converge (note= says why); its numbers are then unknown.
 *
 * Unknown metadata keys are ignored (newer writers may add some); every
 * other deviation is an error with the line number.
 */
#ifndef SBT_PROFILE_H
#define SBT_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SBT_PROFILE_VERSION 1
#define SBT_PROFILE_MAX     96      /* 4 levels x 2 clocks x 12 methods */

struct sbt_profile_entry {
	char     level[8];              /* l1 l2 l3 mem                     */
	char     clock[8];              /* wall cycles                      */
	char     method[16];            /* sbtmark bare clock_gettime ...   */
	char     status[8];             /* ok nc skip                       */
	uint64_t t_min_adds, t_diff_adds;
	double   t_min_ns, t_diff_ns;   /* NAN when unknown                 */
	double   te_std_ns;
	double   model_t_min_ns, model_t_diff_ns;
	uint64_t flush_bytes;
	char     note[160];             /* why not converged / skipped      */
};

struct sbt_profile {
	int      version;
	char     host[64];
	char     cpu[96];
	char     arch[16];
	int64_t  created;
	uint64_t tick_hz;
	uint32_t tick_quantum;
	char     tick_source[16];
	char     cycles[160];
	double   ns_per_add;
	double   eps, alpha;
	unsigned n, p, q;
	char     mem_mode[16];
	size_t   nentries;
	struct sbt_profile_entry e[SBT_PROFILE_MAX];
};

/* Parse the profile at path into *p.  Returns 0, or -1 with a message
 * ("path:line: what is wrong") in err. */
int sbt_profile_read(const char *path, struct sbt_profile *p, char *err,
		     size_t errlen);
/* The same from an open stream; name is used in messages. */
int sbt_profile_parse(FILE *f, const char *name, struct sbt_profile *p,
		      char *err, size_t errlen);

/* Write *p to path (via path.tmp + rename, so readers never see half a
 * file).  Returns 0, or -1 with a message in err. */
int sbt_profile_write(const char *path, const struct sbt_profile *p,
		      char *err, size_t errlen);
/* Print *p in the file format. */
int sbt_profile_print(FILE *f, const struct sbt_profile *p);

/* The entry for (level, clock) that describes the recorder's own marker
 * path: method "sbtmark" when the profile has a converged one, else
 * "bare" (the same serialized clock reads without the recorder's
 * bookkeeping; its figures are a lower bound).  NULL when neither. */
const struct sbt_profile_entry *
sbt_profile_lookup(const struct sbt_profile *p, const char *level,
		   const char *clock);
/* The entry for exactly (level, clock, method), whatever its status. */
const struct sbt_profile_entry *
sbt_profile_find(const struct sbt_profile *p, const char *level,
		 const char *clock, const char *method);

#endif
