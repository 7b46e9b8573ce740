/*
 * readback.h - a thread's own log read back (readback.c; the totals and
 * the last pair the API asks for are recorder.h's sbt_rec_totals and
 * sbt_rec_last).
 */
#ifndef SBT_READBACK_H
#define SBT_READBACK_H

#include <stdint.h>
#include "diag.h"

struct sbt_thread;

/* Thread t's last pair: its STOP, in the current chunk or the one before,
 * and the START it closes, in wall ticks and cycles (0 without a cycle
 * clock).  SBT_EMISUSE when there is none. */
SBT_HIDDEN int sbt_readback_last(const struct sbt_thread *t, uint64_t *ticks,
				 uint64_t *cycles);

#endif
