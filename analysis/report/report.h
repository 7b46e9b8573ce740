/*
 * report.h - the report formats, peers behind one interface: text, CSV,
 * JSON, the HTML page, every sample (dump) and the timeline (trace).
 *
 * A format is one file, report/report_NAME.c, defining
 *     const struct sbt_report_format sbt_format_NAME;
 * and its NAME in analysis/meson.build's report_formats, from which the
 * build makes the table report.c looks names up in.  Formats share
 * report_util.h's helpers and the sections several of them print
 * (report_counters.h, report_speed.h, figures.h, plot.h), never another
 * format's file.
 */
#ifndef SBT_REPORT_H
#define SBT_REPORT_H

#include <stdio.h>
#include "result.h"
#include "callsites.h"

struct sbt_boxes;               /* figures.h */
struct sbt_compare_in;          /* report_compare.h */

/* Order of the text table and the HTML summary (CSV and JSON keep the
 * analysis's: by name).  By the region's sum over its groups, largest
 * first, but by name; a region's groups stay together, in key order. */
enum sbt_sort { SBT_SORT_TOTAL, SBT_SORT_NAME, SBT_SORT_MEDIAN,
		SBT_SORT_CALLS, SBT_SORT_COUNT };

struct sbt_report_opts {
	const struct sbt_report_format *format; /* of the report on stdout */
	enum sbt_by by;               /* how res was grouped             */
	int by_site;                  /* res groups are call sites: each
					 group's key is a site index      */
	int filters;                  /* enum sbt_filters, as analyzed   */
	double cost_ns;               /* < 0: each log's t_e,std         */
	int spark;                    /* text: a sparkline per group     */
	int verbose;                  /* text: the evidence per group    */
	const char *explain;          /* text: the evidence of this region
					 alone; NULL: none                */
	int width;                    /* text: columns; 0: COLUMNS or 100 */
	enum sbt_sort sort;           /* text and HTML tables            */
	const struct sbt_callsites *cs; /* NULL: no call sites           */
};

/* What a format writes: an analysis and how it was asked for. */
struct sbt_report_in {
	const struct sbt_dataset *ds; /* as read: what the analysis says
					 of a sample is res->mark's       */
	const struct sbt_result *res; /* grouped as o says; per region for
					 a per_region format              */
	const struct sbt_report_opts *o;
	const struct sbt_boxes *boxes; /* per_region formats: the groups
					  compared, grouped as o says    */
	int argc;                     /* the command, for a page's header */
	char **argv;
	size_t trace_max;             /* trace: at most this many samples
					 (0: all)                         */
};

struct sbt_report_format {
	const char *name;             /* --format NAME                    */
	/* Wants res per region and boxes: the groups compared as o says,
	 * analyzed before (the HTML page's plots). */
	int per_region;
	/* 0, or -1 when out of memory or f failed. */
	int (*write)(FILE *f, const struct sbt_report_in *in);
	/* A comparison (--compare) in this format; NULL: none. */
	int (*compare)(FILE *f, const struct sbt_compare_in *in);
};

/* Every format, NULL-terminated, in analysis/meson.build's order. */
extern const struct sbt_report_format *const sbt_report_formats[];

/* The format of that name, or NULL. */
const struct sbt_report_format *sbt_report_format(const char *name);

/* Write in with the named format: its write(), or -1 for no such
 * format. */
int sbt_report(FILE *f, const char *format, const struct sbt_report_in *in);

#endif
