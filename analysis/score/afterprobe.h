/*
 * afterprobe.h - the calls right after a speed probe.
 *
 * A probe (SBT_SPEED_US) is a detour through the recorder's cold path
 * outside every timed window, but the detour's branches change the
 * predictor state the application's own code meets next: measured on a
 * loop-bound region (tools/accuracy.py, loop work; SBT_SPEED_US=10,
 * 30000 calls), the call the probe preceded ran ~1 clock step faster
 * and the next ~1.4 steps slower on average, settling by the fourth
 * (doc/DESIGN.md).  Straight-line work showed nothing; the probe's own
 * workload is not the cause (a tick without it disturbed as much).
 * So the first SBT_AFTER_PROBE_CALLS samples of the thread that start
 * after each probe are marked SBT_MK_AFTER_PROBE, and a region leaves
 * them out of its own verdict as it does the processor's samples.  The
 * same holds after every other detour of the recorder the log shows (a
 * SPEED SPAN: the ticks that drain the kernel's events, with probes off
 * too, and in-situ noise probes), so those count as probes here.
 */
#ifndef SBT_AFTERPROBE_H
#define SBT_AFTERPROBE_H

#include "dataset.h"
#include "mark.h"

#define SBT_AFTER_PROBE_CALLS 4

/* Mark the first SBT_AFTER_PROBE_CALLS samples (any region; probes,
 * calibration and reset records not counted) of each thread that start
 * after each of its speed probes or recorder detours (ds->detours)
 * SBT_MK_AFTER_PROBE in marks[] (one per sample of ds), clearing the
 * mark elsewhere.  Depends only on the samples' and probes' values, not
 * on their order: the same at every -j.  On up to `jobs` threads (-j).
 * 0, or -1 when out of memory (no mark changed). */
int sbt_after_probe_mark(const struct sbt_dataset *ds, int jobs,
			 uint8_t *marks);

#endif
