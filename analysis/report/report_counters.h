/*
 * report_counters.h - SBT_EVENTS' counts in every output format
 * (report_counters.c; the counts themselves: base/counters.h).
 */
#ifndef SBT_REPORT_COUNTERS_H
#define SBT_REPORT_COUNTERS_H

#include <stdio.h>
#include "counters.h"
#include "report.h"

/* Per region (group): each column over its samples that have it. */
struct sbt_cnt_stat {
	size_t n;                      /* samples with a count          */
	double avg, p90, max, sum;
};

struct sbt_cnt_group {
	uint32_t ncol;
	struct sbt_cnt_stat c[SBT_CNT_COLS];
	double running;                /* mean running share (1: never
					 multiplexed); NAN: none        */
	double ipc;                    /* instructions / cycles; NAN    */
};

/* 0, or -1 when out of memory.  ncol 0 when the dataset has none. */
int sbt_cnt_group(const struct sbt_dataset *ds, const struct sbt_result *res,
		  const struct sbt_group *g, struct sbt_cnt_group *out);

/* Text: "<pre>events: a, b; unavailable: c (why)" for source i. */
void sbt_cnt_text_source(FILE *f, const struct sbt_dataset *ds, size_t i,
			 const char *pre);
/* Text: the per-region section (nothing without counters). */
void sbt_cnt_text(FILE *f, const struct sbt_dataset *ds,
		  const struct sbt_result *res, const struct sbt_report_opts *o);
/* JSON: "events": [...], "events_unavailable": [...],  of source i. */
void sbt_cnt_json_source(FILE *f, const struct sbt_dataset *ds, size_t i);
/* HTML: a table of group g's events per sample (nothing without). */
void sbt_cnt_html_group(FILE *f, const struct sbt_dataset *ds,
			const struct sbt_result *res,
			const struct sbt_group *g);
/* JSON: "counters": {...} or null, of group g. */
void sbt_cnt_json_group(FILE *f, const struct sbt_dataset *ds,
			const struct sbt_result *res,
			const struct sbt_group *g);
/* CSV: the extra header cells (",ev_avg,ev_p90,ev_max,...,ipc") and a
 * group's cells; nothing without counters. */
void sbt_cnt_csv_header(FILE *f, const struct sbt_dataset *ds);
void sbt_cnt_csv_group(FILE *f, const struct sbt_dataset *ds,
		       const struct sbt_result *res, const struct sbt_group *g);
/* --dump: ",name,...,running" and sample i's cells (-1: none). */
void sbt_cnt_dump_header(FILE *f, const struct sbt_dataset *ds);
void sbt_cnt_dump_sample(FILE *f, const struct sbt_dataset *ds, size_t i);

#endif
