/*
 * report.h - print an analysis as a text table, CSV or JSON.
 */
#ifndef SBT_REPORT_H
#define SBT_REPORT_H

#include <stdio.h>
#include "analyze.h"

enum sbt_format { SBT_FMT_TEXT, SBT_FMT_CSV, SBT_FMT_JSON };

struct sbt_report_opts {
	enum sbt_format format;
	enum sbt_by by;
	int symbols;                  /* symbolize call sites            */
	int filters;
};

void sbt_report(FILE *f, const struct sbt_dataset *ds,
		const struct sbt_result *res, const struct sbt_report_opts *o);

/* Every sample as CSV, with its filter outcome. */
int sbt_dump(FILE *f, const struct sbt_dataset *ds);

const char *sbt_api_name(unsigned api);

#endif
