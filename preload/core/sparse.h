/*
 * sparse.h - sparse recording's START (sparse.c).
 */
#ifndef SBT_SPARSE_H
#define SBT_SPARSE_H

#include <stdint.h>
#include "recorder.h"

struct sbt_thread;

/* Whether region id's calls go through the sampled path. */
SBT_HIDDEN int sbt_sparse_on(sbt_id id);

/* START of a sampled region, busy gate closed by the caller; SBT_AGAIN
 * (again_ok: the caller is the inline markers) sends them back to skip
 * or record by themselves. */
SBT_HIDDEN int sbt_sparse_start(struct sbt_thread *t, uint32_t word,
				sbt_id region, const char *tag, int again_ok);

#endif
