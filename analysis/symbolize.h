/*
 * symbolize.h - call-site addresses to "function (file:line)", offline.
 */
#ifndef SBT_SYMBOLIZE_H
#define SBT_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>
#include "dataset.h"

/* Describe return address `addr` recorded in `src`.  Writes "" when it
 * cannot (no libdw, module gone, no symbols).  Returns 0 on success. */
int sbt_symbolize(const struct sbt_source *src, uint64_t addr, char *out,
		  size_t outlen);
void sbt_symbolize_end(void);

#endif
