/*
 * report.h - print an analysis: a text table, CSV, JSON or an HTML page.
 */
#ifndef SBT_REPORT_H
#define SBT_REPORT_H

#include <stdio.h>
#include "analyze.h"
#include "callsites.h"

enum sbt_format { SBT_FMT_TEXT, SBT_FMT_CSV, SBT_FMT_JSON };

struct sbt_report_opts {
	enum sbt_format format;
	enum sbt_by by;               /* how res was grouped             */
	int by_site;                  /* res groups are call sites: each
					 group's key is a site index      */
	int filters;                  /* enum sbt_filters, as analyzed   */
	double cost_ns;               /* < 0: each log's t_e,std         */
	int spark;                    /* text: a sparkline per group     */
	const struct sbt_callsites *cs; /* NULL: no call sites           */
};

void sbt_report(FILE *f, const struct sbt_dataset *ds,
		const struct sbt_result *res, const struct sbt_report_opts *o);

/* Every sample as CSV, with its filter outcome. */
int sbt_dump(FILE *f, const struct sbt_dataset *ds);

const char *sbt_api_name(unsigned api);

#endif
