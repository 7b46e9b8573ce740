/*
 * report_compare.h - print a comparison (compare.h): text, CSV, JSON, or
 * an HTML page with each region's two sides overlaid.
 */
#ifndef SBT_REPORT_COMPARE_H
#define SBT_REPORT_COMPARE_H

#include <stdio.h>

#include "compare.h"
#include "report.h"

/* A comparison and its two sides, as a format writes it. */
struct sbt_compare_in {
	const struct sbt_cmp *c;
	const struct sbt_cmp_side *b, *n;   /* base, new */
	const struct sbt_report_opts *o;
};

/* The comparison in each format that has one (report.h's compare):
 * 0, or -1 when out of memory or f failed. */
int sbt_compare_text(FILE *f, const struct sbt_compare_in *in);
int sbt_compare_csv(FILE *f, const struct sbt_compare_in *in);
int sbt_compare_json(FILE *f, const struct sbt_compare_in *in);
int sbt_compare_html(FILE *f, const struct sbt_compare_in *in);

#endif
