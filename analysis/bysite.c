/*
 * bysite.c - group by call site.
 *
 * analyze.c keys groups by sample.site (SBT_BY_SITE).  A sample without a
 * site of its own (an interposed API that recorded none) is counted under
 * its region's fallback site (callsites.c) for the run, and given back
 * its own value after.
 */
#include "bysite.h"

#include <stdlib.h>

int sbt_analyze_by_site(struct sbt_dataset *ds, const struct sbt_options *o,
			const struct sbt_callsites *cs,
			struct sbt_result *res)
{
	struct sbt_options so = *o;
	uint8_t *lent;
	int rc;

	if (!(lent = calloc(ds->n ? ds->n : 1, 1)))
		return -1;
	for (size_t i = 0; i < ds->n; i++) {
		struct sbt_sample *s = &ds->s[i];
		if (s->site >= ds->nsites) {
			s->site = cs->fallback[s->region];
			lent[i] = 1;
		}
	}
	so.by = SBT_BY_SITE;
	rc = sbt_analyze(ds, &so, res);
	for (size_t i = 0; i < ds->n; i++)
		if (lent[i])
			ds->s[i].site = SBT_SITE_NONE;
	free(lent);
	return rc;
}
