/*
 * html.h - sbt-analyze --html: one self-contained page (inline SVG and
 * CSS) with everything the text report says - its warnings, the findings
 * in words, the totals - and the pictures: per region a histogram with
 * the modes and t_diff marked, the CDF of the kept range before and
 * after the OS filter (the cut samples apart), the samples over time (a
 * lane per thread or rank), the groups compared as boxes, and the call
 * sites with their context.
 */
#ifndef SBT_HTML_H
#define SBT_HTML_H

#include "figures.h"

#define SBT_HTML_PLOTS   4      /* SVG plots per detailed region        */
#define SBT_HTML_REGIONS 100    /* regions drawn in detail, at most      */

struct sbt_html_in {
	const struct sbt_dataset *ds;
	const struct sbt_result *res;      /* per region; sample flags as
					      this analysis left them      */
	const struct sbt_boxes *boxes;     /* the groups compared          */
	const struct sbt_report_opts *o;   /* how boxes are grouped; call
					      sites; cost                  */
	int argc;                          /* the command, for the header  */
	char **argv;
};

/* Write the page.  0, or -1 when out of memory or f failed. */
int sbt_html_write(FILE *f, const struct sbt_html_in *in);

#endif
