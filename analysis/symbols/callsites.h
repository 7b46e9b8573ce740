/*
 * callsites.h - the call sites of each region, symbolized once for all
 * reports, and their sample counts per group.
 */
#ifndef SBT_CALLSITES_H
#define SBT_CALLSITES_H

#include "result.h"
#include "symbolize.h"

/* Where a site's START was called: its frame 0, its innermost source
 * frame only (the rest is in the stack). */
struct sbt_siteat {
	char     module[256];         /* path of the object, "" unknown    */
	uint64_t offset;              /* address - the module's load bias  */
	int      module_state;        /* enum sbt_modstate                 */
	int      nframes;             /* 0 or 1                            */
	struct sbt_symframe f[1];
};

/* One call site (dataset.sites[i]) and its calling context. */
struct sbt_callsite {
	struct sbt_siteat at;         /* frames[0]: where START was called */
	int nstack;                   /* source frames of the whole stack */
	struct sbt_symframe *stack;   /* innermost first: at's frames, then
					 each caller's (inlines expanded) */
	char label[300];              /* "function (file:line)" or
					 module+0xoffset                   */
	uint32_t region;              /* the region it calls             */
	int twin;                     /* 1: another site of its region,
					 not the same location (same[]),
					 is at the same file:line: only its
					 offset tells them apart           */
};

struct sbt_callsites {
	struct sbt_callsite *c;          /* dataset.sites, then one per region
					 that has none (below)            */
	size_t n;
	/* A region whose log gave no SITE entry (interposed APIs record only
	 * the region's first call site) has its samples without a site
	 * counted under that first site: c[fallback[region]].  UINT32_MAX:
	 * no fallback. */
	uint32_t *fallback;
	/* The same code location recorded by several processes (MPI ranks
	 * running one binary) is one call site: c[same[i]] stands for c[i]
	 * (same[i] <= i; same module, offsets and frames). */
	uint32_t *same;
	char **notes;                 /* "path: was rebuilt ..." once each */
	size_t nnotes;
};

/* Symbolize every site of ds (symbols = 0: module+offset only), each
 * distinct address once, `jobs` at a time (sbt_jobs); the result does
 * not depend on jobs.  0, or -1 when out of memory. */
int sbt_callsites_build(const struct sbt_dataset *ds, int symbols, int jobs,
			struct sbt_callsites *cs);
void sbt_callsites_free(struct sbt_callsites *cs);

/* One site's samples in a group. */
struct sbt_sitecount { uint32_t site; uint64_t count; };

/* The sites of group g (indexes into cs->c) and how many of its samples
 * (probes not counted) each holds, most first, ties by index.  *out is
 * malloc'ed (free it); returns the number of entries, or -1 when out of
 * memory.  Samples with no site at all are not listed. */
long sbt_group_sites(const struct sbt_dataset *ds, const struct sbt_result
		     *res, const struct sbt_group *g,
		     const struct sbt_callsites *cs, struct sbt_sitecount **out);

#endif
