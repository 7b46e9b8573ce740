/*
 * analyze.h - the analysis pipeline: group -> filter_cost -> filter_os ->
 * statistics -> scoring, for every region (or region x thread/cpu/rank/
 * host).  Reports (report/) only print what this produces.
 */
#ifndef SBT_ANALYZE_H
#define SBT_ANALYZE_H

#include "jobs.h"
#include "result.h"

/* Run the pipeline.  Marks samples (SBT_SF_DROPPED, score).  0 or -1. */
int sbt_analyze(struct sbt_dataset *ds, const struct sbt_options *o,
		struct sbt_result *res);
void sbt_result_free(struct sbt_result *res);

#endif
