/*
 * report_compare.h - print a comparison (compare.h): text, CSV, JSON, or
 * an HTML page with each region's two sides overlaid.
 */
#ifndef SBT_REPORT_COMPARE_H
#define SBT_REPORT_COMPARE_H

#include <stdio.h>

#include "compare.h"
#include "report.h"

/* In o->format (text, CSV or JSON). */
void sbt_report_compare(FILE *f, const struct sbt_cmp *c,
			const struct sbt_cmp_side *b,
			const struct sbt_cmp_side *n,
			const struct sbt_report_opts *o);

/* The HTML page.  0, or -1 when out of memory or f failed. */
int sbt_html_compare(FILE *f, const struct sbt_cmp *c,
		     const struct sbt_cmp_side *b,
		     const struct sbt_cmp_side *n,
		     const struct sbt_report_opts *o);

#endif
