/*
 * regions.h - region names and call sites, process-wide (cold path).
 *
 * A region is (api, name).  Ids are handed out from 1 in order of first
 * use and never change.  A site is (region, return address): its id (from
 * 1, in order of first use) goes into every START event, and its calling
 * context into one SITE2 meta entry.  A name pointer seen at a return
 * address is remembered too, so the per-thread caches in hot.c consult
 * this module once per thread per (return address, name pointer), under
 * one lock.
 *
 * Nothing here calls malloc: memory comes from an mmap arena, so a marker
 * in a signal handler cannot deadlock inside the allocator.
 */
#ifndef SBT_REGIONS_H
#define SBT_REGIONS_H

#include <stddef.h>
#include <stdint.h>
#include "diag.h"

/* Region ids are stable for the life of the process, 1 .. 2^20-1. */
typedef uint32_t sbt_id;

#define SBT_MAX_NAME     1024          /* longest accepted region name   */
#define SBT_MAX_REGIONS  (1u << 20)    /* ids 1 .. SBT_MAX_REGIONS-1     */

struct sbt_logfile;

/* Id of (api, name) (len bytes), creating it.  0 for a bad name or a
 * full table (counted).  `site` is remembered for a new region. */
sbt_id sbt_regions_intern(const char *name, size_t len, unsigned api,
			  const void *site);

/* Resolve name pointer `name` at return address `ra`: its region, and in
 * *site that region's site id at ra (0 when the site table is full,
 * counted).  Sets *verify when the name lies in writable memory (its bytes
 * may change under the same pointer: compare them on every call).
 * Returns 0 for a bad name. */
sbt_id sbt_regions_site(const void *ra, const char *name, unsigned api,
			int *verify, uint32_t *site);

/* Site id of (region, ra), creating it.  0 when the table is full. */
uint32_t sbt_regions_site_id(const void *ra, sbt_id region);

/* Lock-free: the region of site id `site` (0 when unknown). */
sbt_id sbt_regions_site_region(uint32_t site);

/* 1 when [p, p+len) lies in a read-only segment of a loaded object:
 * bytes there cannot change under the same pointer.  Cold path. */
int sbt_regions_readonly(const void *p, size_t len);

/* Lock-free: the name of a region (NUL-terminated), or NULL. */
const char *sbt_regions_name(sbt_id id);
/* Lock-free: the region's api (enum sbt_api), SBT_API__N when unknown. */
unsigned sbt_regions_api(sbt_id id);
uint32_t sbt_regions_count(void);      /* highest id + 1 */

/* Lock-free: the region's mean sampling gap (SBT_SAMPLE), 1 when every
 * call is recorded. */
uint32_t sbt_regions_gap(sbt_id id);

/* Start writing META entries into `lf`: the module map, then every
 * region and site known so far; later ones are written as they come.
 * NULL stops (fork child before its own log exists). */
void sbt_regions_attach(struct sbt_logfile *lf);

/* fork(2) handlers: hold the lock across fork. */
void sbt_regions_lock(void);

/* One META entry {type, a, b} into the log (no-op without one). */
void sbt_regions_meta(uint16_t type, const void *a, uint32_t alen,
		      const void *b, uint32_t blen);
void sbt_regions_unlock(void);

/* What the first START of a name would touch for the first time - the
 * name and site tables, the arena's fresh pages, libunwind's caches -
 * touched now: for a log opened before main (SBT_EARLY), none of it in
 * the app's first window. */
void sbt_regions_warm(void);

#endif
