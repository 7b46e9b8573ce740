/*
 * omp_names.h - OpenMP regions named by source line.
 *
 * The recorder names an OpenMP construct's regions by its code address
 * as "omp parallel @ app+0x1234" (object and offset: the same in every
 * run and rank, preload/api/api_omp.h).  With debug info that becomes
 * "omp parallel @ solver.c:42": the line of the construct's call into
 * the runtime, i.e. of its pragma.
 */
#ifndef SBT_OMP_NAMES_H
#define SBT_OMP_NAMES_H

#include "dataset.h"

/* Rename every such region of ds whose address symbolizes to a file
 * and line (symbols = 0: none); constructs of one line become one region.
 * Before anything is analyzed or reported (it moves samples between
 * regions).  0, or -1 when out of memory. */
int sbt_omp_names(struct sbt_dataset *ds, int symbols);

#endif
