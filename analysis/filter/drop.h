/*
 * drop.h - the drop filters: stages that leave samples out of a group's
 * statistics as noise, each named on the command line (--filter NAME).
 *
 * A filter is one file, analysis/filter/drop_NAME.c, defining
 *     const struct sbt_drop_filter sbt_drop_NAME = { "NAME", ... };
 * and NAME in `drop_filters` in analysis/meson.build, which makes the
 * table below (drop_filters.h).  The pipeline (run.c) runs every
 * filter the user chose, in the table's order, on each log's samples of
 * each group (a log's noise is its own: one node's OS is not another's),
 * and counts what each dropped (JSON "dropped_by").  The timing method's
 * own cost (filter_cost, --filter cost) is not a drop filter: it corrects
 * every value and runs first.
 */
#ifndef SBT_DROP_H
#define SBT_DROP_H

#include "dataset.h"
#include "drop_filters.h"
#include "filter.h"

#include <stddef.h>
#include <stdint.h>

/* One log's samples of one group, as a filter sees them: all of them,
 * those an earlier filter dropped too (keep[i] is 0 for those). */
struct sbt_drop_in {
	const double *ns;             /* n times, the cost already removed */
	const double *cycles;         /* n cycle counts, or NULL           */
	const uint32_t *sample;       /* n indexes into ds->s              */
	size_t n;
	const struct sbt_dataset *ds;
	const struct sbt_source *src; /* the log                           */
	double quantum_ns;            /* the group's clock quantum         */
	double median_ns;             /* of ns[], or NAN (not known yet)   */
	uint64_t seed;                /* --seed: randomized filters repeat */
	enum sbt_os_method os_method; /* --os-filter                       */
	double *scratch;              /* room for n doubles, the filter's  */
};

/* What it did. */
struct sbt_drop_out {
	float *score;                 /* n per-sample scores, or NULL (the
					 filter does not score)            */
	double cut;                   /* the score cut it chose, or NAN    */
};

struct sbt_drop_filter {
	const char *name;             /* --filter NAME                     */
	const char *help;             /* --help: what it leaves out        */
	/* Clear keep[i] of each sample it finds to be noise; never set
	 * one.  0, or -1 out of memory (keep[] unchanged). */
	int (*run)(const struct sbt_drop_in *in, uint8_t *keep,
		   struct sbt_drop_out *out);
};

/* Their ids, in the table's order: SBT_DROP_ID_os, ... */
#define SBT_DROP(name) SBT_DROP_ID_##name,
enum sbt_drop_id { SBT_DROP_FILTERS SBT_NDROP };
#undef SBT_DROP

/* The table, SBT_NDROP long. */
extern const struct sbt_drop_filter *const sbt_drop_filters[SBT_NDROP];

/* The --filter bits: the cost correction, and drop filter i. */
#define SBT_F_NONE     0u
#define SBT_F_COST     1u
#define SBT_F_DROP(i)  (2u << (i))
#define SBT_F_ALL      ((2u << SBT_NDROP) - 1)

/* --filter's value, "none", "all" or a comma-separated list of "cost"
 * and the filters' names, as bits; -1 with the unknown name in bad. */
int sbt_drop_parse(const char *list, char *bad, size_t badlen);

#endif
