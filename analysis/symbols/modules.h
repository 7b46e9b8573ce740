/*
 * modules.h - which module of a run holds a code address.
 *
 * A log lists its modules (path, load bias, loaded range) in the order
 * the recorder met them.  Looking an address up in that list is a scan;
 * with thousands of sites and a damaged log of thousands of modules that
 * is millions of comparisons, so each source's ranges are sorted once
 * and searched.
 *
 * Real modules do not overlap.  A damaged log's may: then the range
 * starting lower wins (the one listed first, at the same start), and a
 * module overlapping a winner is never found.
 */
#ifndef SBT_MODULES_H
#define SBT_MODULES_H

#include <stddef.h>
#include <stdint.h>
#include "dataset.h"

struct sbt_modindex {
	const struct sbt_source *src;
	uint32_t *at;          /* module numbers, disjoint, by lo        */
	size_t n;
};

/* Index src's modules; -1 out of memory (then `mi` finds nothing). */
int sbt_modindex_build(struct sbt_modindex *mi, const struct sbt_source *src);
void sbt_modindex_free(struct sbt_modindex *mi);

/* The module (its number in src->modules) holding code address `pc`, or
 * -1.  For a return address, pass the call's: addr - 1. */
long sbt_modindex_find(const struct sbt_modindex *mi, uint64_t pc);

#endif
