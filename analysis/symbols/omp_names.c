/*
 * omp_names.c - "omp parallel @ app+0x1234" -> "omp parallel @ solver.c:42"
 * (omp_names.h).
 */
#include "omp_names.h"
#include "symbolize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "<construct> @ file:line" for OpenMP region r in buf, or without a
 * line table "<construct> @ function (module+0x...)" where the symbol
 * table names the function: the offset kept, as one function can hold
 * several constructs.  0, or -1 when it is not such a region or its
 * address has neither. */
static int line_name(const struct sbt_dataset *ds, size_t r,
		     struct sbt_symsess **ss, char *buf, size_t len)
{
	const struct sbt_region *g = &ds->regions[r];
	const char *at = strstr(g->name, " @ "), *file;
	const struct sbt_symframe *f;
	struct sbt_symaddr a;

	if (g->api != SBT_API_OPENMP || !at || !strstr(at, "+0x") ||
	    !g->site || g->source >= ds->nsources)
		return -1;
	if (!ss[g->source] &&
	    !(ss[g->source] = sbt_symsess_open(&ds->sources[g->source])))
		return -1;
	/* libgomp's parallel constructs: their outlined function's entry;
	 * the rest: a return address */
	if (sbt_symbolize_entry(ss[g->source], g->site, &a) &&
	    (sbt_symbolize_addr(ss[g->source], g->site, &a) || a.nframes < 1))
		return -1;
	/* the innermost frame: the pragma's own line, also when the
	 * construct's body was inlined (clang's outlined
	 * .omp_outlined._debug__ into .omp_outlined.) */
	f = &a.f[0];
	if ((!f->file[0] || f->line <= 0) && f->function[0]) {
		snprintf(buf, len, "%.*s @ %s (%s)", (int)(at - g->name),
			 g->name, f->function, at + 3);
		return 0;
	}
	if (!f->file[0] || f->line <= 0)
		return -1;
	file = strrchr(f->file, '/') ? strrchr(f->file, '/') + 1 : f->file;
	snprintf(buf, len, "%.*s @ %s:%d", (int)(at - g->name), g->name, file,
		 f->line);
	return 0;
}

/*
 * One pragma can have several code addresses - a loop around it
 * unrolled, a function holding it inlined twice: those constructs are
 * one region, the first one's, their samples and sites moved to it.
 * Regions held in different shares (the sample budget) stay apart.
 */
int sbt_omp_names(struct sbt_dataset *ds, int symbols)
{
	struct sbt_symsess **ss;
	uint32_t *into;
	int merged = 0, rc = 0;

	if (!symbols || !ds->nregions)
		return 0;
	into = malloc(ds->nregions * sizeof *into);
	ss = calloc(ds->nsources ? ds->nsources : 1, sizeof *ss);
	if (!into || !ss) {
		free(into), free(ss);
		return -1;
	}
	for (size_t r = 0; r < ds->nregions; r++) {
		char name[600];
		long e;

		into[r] = (uint32_t)r;
		if (line_name(ds, r, ss, name, sizeof name) != 0)
			continue;
		if ((rc = sbt_ds_rename(ds, r, name)) < 0)
			break;
		if (rc == 1 && (e = sbt_ds_find(ds, name, SBT_API_OPENMP)) >= 0 &&
		    ds->regions[e].keep == ds->regions[r].keep) {
			into[r] = (uint32_t)e;
			ds->regions[e].total += ds->regions[r].total;
			ds->regions[r].total = 0;
			merged = 1;
		}
	}
	for (size_t i = 0; i < ds->nsources; i++)
		if (ss[i])
			sbt_symsess_close(ss[i]);
	free(ss);
	if (rc < 0) {
		free(into);
		return -1;
	}
	if (merged) {
		for (size_t i = 0; i < ds->n; i++)
			ds->s[i].region = into[ds->s[i].region];
		for (size_t i = 0; i < ds->nsites; i++)
			if (ds->sites[i].region < ds->nregions)
				ds->sites[i].region = into[ds->sites[i].region];
	}
	free(into);
	return 0;
}
