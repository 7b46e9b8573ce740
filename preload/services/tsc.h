/*
 * tsc.h - the recorder's serialized clock reads and the cpu each ran on
 * (x86-64: sbtmark.h's sbt_read_start / sbt_read_stop in the recorder's
 * build, SBT_CLOCK_HOOK, over its rdtscp primitives sbt_tscp_start /
 * sbt_tscp_stop; elsewhere sbtmark.h's own).
 *
 * A thread's way of reading is fixed at its start (sbt_tsc_thread):
 *   SBT_TSC_AUX    rdtscp, its TSC_AUX checked against getcpu(): as is
 *   SBT_TSC_RSEQ   the cpu from the kernel's rseq area, read before a
 *                  START's clock read and after a STOP's: never inside
 *                  the timed window
 *   SBT_TSC_NOCPU  cpu unknown (SBT_AUX_UNKNOWN)
 * plus SBT_TSC_FENCED with either of the last two, once checked (CPUID
 * has no RDTSCP, or TSC_AUX is not the cpu): lfence; rdtsc; lfence at
 * both ends (the leading lfence waits for earlier work as rdtscp does,
 * the trailing one holds later work back).  The usual way, SBT_TSC_AUX,
 * costs one thread-local load and a predictable branch over the bare
 * primitive.  The recorder's files include this for sbtmark.h.
 */
#ifndef SBT_TSC_H
#define SBT_TSC_H

#include <stdint.h>

#include "diag.h"
#include "sbtmark.h"

enum {
	SBT_TSC_AUX = 1, SBT_TSC_RSEQ = 2, SBT_TSC_NOCPU = 3,
	SBT_TSC_CPU = 3,               /* the mask of the three above      */
	SBT_TSC_FENCED = 4,
};

/* The calling thread's way; 0 until sbt_tsc_thread() ran on it. */
extern __thread uint32_t sbt_tsc_way
	__attribute__((tls_model("initial-exec"), visibility("hidden")));

/* Check the calling thread and fix its way; returns it. */
SBT_HIDDEN uint32_t sbt_tsc_thread(void);

/* The way of a thread not checked yet: no cpu, and the process's read. */
SBT_HIDDEN uint32_t sbt_tsc_unchecked(void);

/* The cpu word (node << 12 | cpu, or SBT_AUX_UNKNOWN) for a thread of
 * way w that does not take TSC_AUX: the rseq area's cpu_id, now. */
SBT_HIDDEN uint32_t sbt_tsc_cpu(uint32_t w);

/* The way w of the calling thread into its inline markers' state (the
 * cpu word's place, the read): sbtmark_hot.h's struct sbt_hot. */
struct sbt_hot;
SBT_HIDDEN void sbt_tsc_hot(struct sbt_hot *h, uint32_t w);

/* Into the header: the read used and the cpus the machine has; each
 * thread's check adds its way to cpu_from from then on (NULL: no log,
 * a fork child's until its own opens). */
struct sbt_file_header;
SBT_HIDDEN void sbt_tsc_header(struct sbt_file_header *h);

#if defined(__x86_64__) && defined(SBT_CLOCK_HOOK)
static inline __attribute__((always_inline)) uint64_t sbt_tsc_fenced(void)
{
	return sbt__tsc_fenced();
}

static inline __attribute__((always_inline)) uint64_t
sbt_read_start(uint32_t *aux)
{
	uint32_t w = sbt_tsc_way, a;

	if (__builtin_expect(w == SBT_TSC_AUX, 1))
		return sbt_tscp_start(aux);
	if (!w)
		w = sbt_tsc_unchecked();
	*aux = sbt_tsc_cpu(w);         /* before the read: bookkeeping      */
	if (w & SBT_TSC_FENCED)
		return sbt_tsc_fenced();
	return sbt_tscp_start(&a);
}

static inline __attribute__((always_inline)) uint64_t
sbt_read_stop(uint32_t *aux)
{
	uint32_t w = sbt_tsc_way, a;
	uint64_t t;

	if (__builtin_expect(w == SBT_TSC_AUX, 1))
		return sbt_tscp_stop(aux);
	if (!w)
		w = sbt_tsc_unchecked();
	if (w & SBT_TSC_FENCED)
		t = sbt_tsc_fenced();
	else
		t = sbt_tscp_stop(&a);
	*aux = sbt_tsc_cpu(w);         /* after the read: bookkeeping       */
	return t;
}
#endif

#endif
