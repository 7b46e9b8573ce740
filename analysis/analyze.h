/*
 * analyze.h - the analysis pipeline: group -> filter_cost -> filter_os ->
 * statistics -> scoring, for every region (or region x thread/cpu/rank/
 * host).  Reports (report/) only print what this produces.
 */
#ifndef SBT_ANALYZE_H
#define SBT_ANALYZE_H

#include "jobs.h"
#include "result.h"

/* Run the pipeline on ds, which it only reads: what it says of each
 * sample is res->mark's (and res->score's), so any number of analyses
 * of one dataset, in any order, each says the same.  The probes of ds in
 * sbt_probe_cmp order, as the readers leave them.  0, or -1 (out of
 * memory, or probes out of order). */
int sbt_analyze(const struct sbt_dataset *ds, const struct sbt_options *o,
		struct sbt_result *res);
void sbt_result_free(struct sbt_result *res);

#endif
