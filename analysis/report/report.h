/*
 * report.h - print an analysis: a text table, CSV, JSON or an HTML page.
 */
#ifndef SBT_REPORT_H
#define SBT_REPORT_H

#include <stdio.h>
#include "result.h"
#include "callsites.h"

enum sbt_format { SBT_FMT_TEXT, SBT_FMT_CSV, SBT_FMT_JSON };

/* Order of the text table and the HTML summary (CSV and JSON keep the
 * analysis's: by name).  By the region's sum over its groups, largest
 * first, but by name; a region's groups stay together, in key order. */
enum sbt_sort { SBT_SORT_TOTAL, SBT_SORT_NAME, SBT_SORT_MEDIAN,
		SBT_SORT_CALLS, SBT_SORT_COUNT };

struct sbt_report_opts {
	enum sbt_format format;
	enum sbt_by by;               /* how res was grouped             */
	int by_site;                  /* res groups are call sites: each
					 group's key is a site index      */
	int filters;                  /* enum sbt_filters, as analyzed   */
	double cost_ns;               /* < 0: each log's t_e,std         */
	int spark;                    /* text: a sparkline per group     */
	enum sbt_sort sort;           /* text and HTML tables            */
	const struct sbt_callsites *cs; /* NULL: no call sites           */
};

void sbt_report(FILE *f, const struct sbt_dataset *ds,
		const struct sbt_result *res, const struct sbt_report_opts *o);

/* Every sample as CSV, with its filter outcome. */
int sbt_dump(FILE *f, const struct sbt_dataset *ds);

const char *sbt_api_name(unsigned api);

/* A copy of res->g in o->sort's order into *out (free out->g only);
 * perm[i] (when not NULL; room for res->ngroups) the index in res->g of
 * out->g[i].  0, or -1 when out of memory. */
int sbt_result_sorted(const struct sbt_dataset *ds,
		      const struct sbt_result *res,
		      const struct sbt_report_opts *o, struct sbt_result *out,
		      size_t *perm);

#endif
