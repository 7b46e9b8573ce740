/*
 * bysite.c - group by call site.
 *
 * analyze.c keys groups by sample.site (SBT_BY_SITE).  A sample without a
 * site of its own (an interposed API that recorded none) is counted under
 * its region's fallback site (callsites.c): the options carry that table
 * to the grouping, so the samples stay as read.
 */
#include "bysite.h"

int sbt_analyze_by_site(const struct sbt_dataset *ds,
			const struct sbt_options *o,
			const struct sbt_callsites *cs,
			struct sbt_result *res)
{
	struct sbt_options so = *o;

	so.by = SBT_BY_SITE;
	so.site_fallback = cs->fallback;
	return sbt_analyze(ds, &so, res);
}
