/*
 * densemap.h - a dense number for each 64-bit key, in order of first
 * appearance: an open-addressing hash map (densemap.c).
 */
#ifndef SBT_DENSEMAP_H
#define SBT_DENSEMAP_H

#include <stddef.h>
#include <stdint.h>

/* Zeroed: empty.  keys[]/val[] of cap slots, val UINT32_MAX: free. */
struct sbt_densemap { uint64_t *keys; uint32_t *val; size_t cap, n; };

/* Dense number of `key`, new ones numbered in order of appearance
 * (0, 1, ...; m->n of them).  -1 when out of memory. */
long sbt_densemap_get(struct sbt_densemap *m, uint64_t key);
void sbt_densemap_free(struct sbt_densemap *m);

#endif
