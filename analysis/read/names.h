/*
 * names.h - a log's names section (format/sbtlog.h, SBT_META_NAMES):
 * its code addresses resolved to source frames after the run, read back
 * and checked, so that the symbolizer takes them before the binaries.
 */
#ifndef SBT_NAMES_H
#define SBT_NAMES_H

#include <stddef.h>
#include <stdint.h>
#include "dataset.h"

/* The NAMES entry of `len` bytes at p, of a log whose modules src holds
 * (all of them: the section comes last).  0 and *out (one allocation,
 * free() it); -1 when damaged or out of memory, `why` saying which. */
int sbt_names_parse(const struct sbt_source *src, const void *p, size_t len,
		    struct sbt_names **out, char *why, size_t whylen);

/* The same from the inflated table (a summary's copy of it). */
int sbt_names_from_raw(const struct sbt_source *src, const void *raw,
		       size_t len, struct sbt_names **out, char *why,
		       size_t whylen);

/* The inflated table of n: *raw and its length. */
size_t sbt_names_raw(const struct sbt_names *n, const void **raw);

/* The entry of return address `addr`, or NULL. */
const struct sbt_names_addr *sbt_names_find(const struct sbt_names *n,
					    uint64_t addr);

#endif
