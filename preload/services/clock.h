/*
 * clock.h - what the recorder knows about its clocks (cold setup only).
 *
 * The hot-path clock reads are the inline primitives in markers/sbtmark.h;
 * this module answers the questions asked once per process or thread:
 * how fast does the wall clock tick, how coarse is it, is there a usable
 * core-cycle counter, and what CPU is this.
 */
#ifndef SBT_CLOCK_H
#define SBT_CLOCK_H

#include <stddef.h>
#include <stdint.h>

struct sbt_clockinfo {
	uint64_t tick_hz;          /* wall-clock ticks per second           */
	uint32_t quantum;          /* smallest non-zero step, in ticks      */
	char     source[16];       /* where tick_hz came from               */
	int      cycles;           /* 1: core-cycle counter usable          */
	char     cycles_note[64];  /* why (not)                             */
	uint64_t anchor_ticks;     /* source "calibrated": a clock read and */
	double   anchor_ns;        /* CLOCK_MONOTONIC_RAW beside it; 0: none */
};

/* Fill *ci.  Takes ~4 ms when the frequency must be calibrated (or
 * `calibrate` says to, as a test does on a machine that need not), else
 * ~1 ms (the quantum). */
void sbt_clock_setup(struct sbt_clockinfo *ci, int want_cycles,
		     int calibrate);

/* The tick rate: when setup calibrated it and at least 100 ms went by
 * since, ticks over CLOCK_MONOTONIC_RAW from setup's anchor to now (the
 * log's rate, written as it is finished); else ci->tick_hz. */
uint64_t sbt_clock_refined(const struct sbt_clockinfo *ci);

/* Per-thread cycle counter.  Returns the counter index for
 * sbt_cycles_read(), or -1 when this thread has none. */
int sbt_cycles_open(void);

/* The CPU's name: the first "model name" (x86) or "CPU part" (Armv8)
 * line of /proc/cpuinfo; out is left as it was when there is none. */
void sbt_cpu_model(char *out, size_t n);

#endif
