/*
 * report_util.h - what the report formats share (report_util.c): names
 * of APIs, counters and group keys, a log's warnings, escaping, a
 * group's sample values, the tables' order, call sites as JSON.
 */
#ifndef SBT_REPORT_UTIL_H
#define SBT_REPORT_UTIL_H

#include "escape.h"
#include "report.h"

extern const char *const sbt_counter_names[];  /* by enum sbt_counter;
						   NULL: not a problem  */

/* A log's OS-event state (enum sbt_os_state): "recorded", "off",
 * "unavailable", "not recorded". */
const char *sbt_os_state_name(uint32_t state);

/* The clock's instruction (enum sbt_clock_read): "rdtscp", "rdtsc",
 * "cntvct", or "not recorded" (a log that predates it). */
const char *sbt_clock_read_name(uint32_t how);

/* "thread", "cpu", ... or "site"; "" when ungrouped. */
const char *sbt_by_name(const struct sbt_report_opts *o);

/* A group's key as people read it: "3", "0/3" (rank/thread), a host, or
 * a call site's "file:line". */
void sbt_group_key(const struct sbt_dataset *ds, const struct sbt_group *g,
		   const struct sbt_report_opts *o, char *out, size_t n);


/* The call sites of g as a JSON array (JSON, and CSV's last column). */
void sbt_json_callsites(FILE *f, const struct sbt_dataset *ds,
			const struct sbt_result *res,
			const struct sbt_group *g,
			const struct sbt_report_opts *o);

/* A sample's duration as analyzed: filter_cost applied. */
double sbt_sample_ns(const struct sbt_dataset *ds,
		     const struct sbt_sample *s,
		     const struct sbt_report_opts *o);

/* Copy g's kept samples (not dropped, not probes) into v, cost removed;
 * returns how many. v holds g->n. */
size_t sbt_group_kept(const struct sbt_dataset *ds,
		      const struct sbt_result *res, const struct sbt_group *g,
		      const struct sbt_report_opts *o, double *v);

const char *sbt_api_name(unsigned api);

/* A copy of res->g in o->sort's order into *out (free out->g only);
 * perm[i] (when not NULL; room for res->ngroups) the index in res->g of
 * out->g[i].  0, or -1 when out of memory. */
int sbt_result_sorted(const struct sbt_dataset *ds,
		      const struct sbt_result *res,
		      const struct sbt_report_opts *o, struct sbt_result *out,
		      size_t *perm);

#endif
