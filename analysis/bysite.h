/*
 * bysite.h - the analysis per (region, call site): sbt-analyze --by site.
 */
#ifndef SBT_BYSITE_H
#define SBT_BYSITE_H

#include "analyze.h"
#include "callsites.h"

/* sbt_analyze() with one group per region and call site; each group's
 * key is its index into cs->c (UINT32_MAX: samples with no site).
 * 0, -1 out of memory, -2 too many sites. */
int sbt_analyze_by_site(const struct sbt_dataset *ds,
			const struct sbt_options *o,
			const struct sbt_callsites *cs,
			struct sbt_result *res);

#endif
