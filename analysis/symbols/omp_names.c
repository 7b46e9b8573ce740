/*
 * omp_names.c - "omp parallel @ app+0x1234" -> "omp parallel @ solver.c:42"
 * (omp_names.h).
 */
#include "omp_names.h"
#include "symbolize.h"

#include <stdio.h>
#include <string.h>

int sbt_omp_names(struct sbt_dataset *ds, int symbols)
{
	if (!symbols)
		return 0;
	for (size_t r = 0; r < ds->nregions; r++) {
		const struct sbt_region *g = &ds->regions[r];
		const char *at = strstr(g->name, " @ ");
		const struct sbt_symframe *f;
		struct sbt_symaddr a;
		char name[600];
		const char *file;

		if (g->api != SBT_API_OPENMP || !at || !strstr(at, "+0x") ||
		    !g->site || g->source >= ds->nsources)
			continue;
		if (sbt_symbolize_addr(&ds->sources[g->source], g->site, &a) ||
		    a.nframes < 1)
			continue;
		/* the innermost frame: the pragma's own line, also when
		 * the construct's body was inlined (clang's outlined
		 * .omp_outlined._debug__ into .omp_outlined.) */
		f = &a.f[0];
		if (!f->file[0] || f->line <= 0)
			continue;
		file = strrchr(f->file, '/') ? strrchr(f->file, '/') + 1
					     : f->file;
		snprintf(name, sizeof name, "%.*s @ %s:%d",
			 (int)(at - g->name), g->name, file, f->line);
		if (sbt_ds_rename(ds, r, name) < 0)
			return -1;
	}
	return 0;
}
