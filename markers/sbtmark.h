/*
 * sbtmark.h - mark code regions for the sbtmark recorder.
 *
 *   #include <sbtmark.h>
 *   SBT_MARKER_INIT;
 *   SBT_MARKER_START("solve");   ...work...   SBT_MARKER_STOP("solve");
 *   SBT_MARKER_CLOSE;
 *
 * Compile with -DSBT_MARKER to activate the markers; without it they
 * compile to nothing (on any ISA).  The app links no sbtmark library: the
 * marker functions are weak references that the preloaded recorder fills
 * in.
 *
 *   cc -DSBT_MARKER -I markers app.c -o app        # runs as usual
 *   LD_PRELOAD=libsbtmark.so ./app                 # also writes region.log
 *
 * Without the preload each marker costs two loads and two predictable
 * branches.  With it, START and STOP are inline: once a call site and a
 * thread are known to the recorder, a pair appends two 16-byte events to
 * the thread's log with no call at all.  START reads the clock after its
 * bookkeeping and STOP reads it before any, so the recorded window holds
 * the region, the two serialized clock reads and the store of t0.
 *
 * Semantics (the LIKWID marker API's shape):
 *   SBT_MARKER_INIT          optional; creates the log now instead of at
 *                            the first marker
 *   SBT_MARKER_THREADINIT    optional; attaches the calling thread now
 *   SBT_MARKER_REGISTER(t)   optional; interns region t ahead of time
 *   SBT_MARKER_START(t)      opens region t on the calling thread
 *   SBT_MARKER_STOP(t)       closes it and records one sample
 *   SBT_MARKER_RESET(t)      discards t's earlier samples on this thread
 *                            (the analyzer honours it; the log keeps them)
 *   SBT_MARKER_CLOSE         finishes the log; later markers are ignored
 *
 * Regions are named by strings; different regions nest; each thread marks
 * independently.  Misuse (STOP without START, START of an open region,
 * NULL names, ...) is counted and reported once, never fatal.
 *
 * Define SBT_MARKER_CALL as well to get plain function calls instead of
 * the inline fast path (no thread-local variable in the app).
 *
 * The serialized clock primitives are below, for timing by hand.
 */
#ifndef SBTMARK_H
#define SBTMARK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the marker entry points (defined by libsbtmark.so) ---------------- */

/* Each returns 0 on success and a negative value on misuse. */
int sbt_marker_init(void) __attribute__((weak));
int sbt_marker_thread_init(void) __attribute__((weak));
int sbt_marker_register(const char *tag) __attribute__((weak));
int sbt_marker_start(const char *tag) __attribute__((weak));
int sbt_marker_stop(const char *tag) __attribute__((weak));
int sbt_marker_reset(const char *tag) __attribute__((weak));
int sbt_marker_close(void) __attribute__((weak));

/* ---- serialized-barrier clock reads ----------------------------------- */
/*
 * sbt_clock_start() is for the beginning of a timed window, sbt_clock_stop()
 * for its end.  Both return wall-clock ticks (x86-64: TSC, Armv8: the
 * virtual counter) and store the cpu the read ran on (-1 when unknown).
 *
 * x86-64:  start = lfence; rdtscp; lfence    (earlier work has finished,
 *                                              later work has not begun)
 *          stop  = rdtscp; lfence             (rdtscp waits for the region)
 * Armv8:   start = isb; mrs cntvct_el0; isb
 *          stop  = isb; mrs cntvct_el0
 *
 * The sbt_read_* forms return the raw auxiliary word instead (x86: TSC_AUX,
 * which Linux sets to node << 12 | cpu; Armv8: 0): one instruction less.
 *
 * Frequencies: x86 TSC rate from the kernel (the recorder stores it in the
 * log); Armv8 from sbt_clock_hz().  Only these need an ISA: everything
 * else in this header compiles anywhere.
 */
#if defined(__x86_64__)
#define SBT_HAVE_CLOCK 1

/* The recorder's own build (SBT_CLOCK_HOOK) names these sbt_tscp_* and
 * defines sbt_read_* itself, over them (it picks per thread between them
 * and a read without rdtscp, and where the cpu comes from).  The app's
 * inline markers take the same thread's way from its struct sbt_hot
 * (sbtmark_hot.h: sbt__start_clock, sbt__stop_clock). */
#ifdef SBT_CLOCK_HOOK
#define sbt_read_start sbt_tscp_start
#define sbt_read_stop  sbt_tscp_stop
#endif

/* Each read joins edx:eax inside its asm: two instructions (shl, or),
 * where the compiler, not knowing rdtsc clears the upper halves, spends
 * three or four. */
#define SBT__JOIN "\n\tshl $32, %%rdx\n\tor %%rdx, %%rax"

static inline uint64_t sbt_read_start(uint32_t *aux)
{
	uint64_t t;
	__asm__ __volatile__("lfence\n\trdtscp\n\tlfence" SBT__JOIN
			     : "=a"(t), "=c"(*aux) :: "rdx", "memory");
	return t;
}

static inline uint64_t sbt_read_stop(uint32_t *aux)
{
	uint64_t t;
	__asm__ __volatile__("rdtscp\n\tlfence" SBT__JOIN
			     : "=a"(t), "=c"(*aux) :: "rdx", "memory");
	return t;
}

/* lfence; rdtsc; lfence: the read where TSC_AUX is not the cpu (CPUID
 * hides RDTSCP, or the kernel does not keep it), at both ends of a window
 * (the leading lfence waits for earlier work as rdtscp does, the trailing
 * one holds later work back). */
static inline __attribute__((always_inline)) uint64_t sbt__tsc_fenced(void)
{
	uint64_t t;
	__asm__ __volatile__("lfence\n\trdtsc\n\tlfence" SBT__JOIN
			     : "=a"(t) :: "rdx", "memory");
	return t;
}

#ifdef SBT_CLOCK_HOOK
#undef sbt_read_start
#undef sbt_read_stop
static inline uint64_t sbt_read_start(uint32_t *aux);
static inline uint64_t sbt_read_stop(uint32_t *aux);
#endif

/* Core cycles from a perf_event counter index (perf mmap page's index-1). */
static inline uint64_t sbt_cycles_read(uint32_t counter)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdpmc\n\tlfence"
			     : "=a"(lo), "=d"(hi) : "c"(counter) : "memory");
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t sbt_clock_hz(void) { return 0; /* ask the kernel */ }
static inline int sbt__aux_cpu(uint32_t aux) { return (int)(aux & 0xfff); }

#elif defined(__aarch64__)
#define SBT_HAVE_CLOCK 1

static inline uint64_t sbt_read_start(uint32_t *aux)
{
	uint64_t v;
	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0\n\tisb"
			     : "=r"(v) :: "memory");
	*aux = 0;
	return v;
}

static inline uint64_t sbt_read_stop(uint32_t *aux)
{
	uint64_t v;
	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v) :: "memory");
	*aux = 0;
	return v;
}

static inline uint64_t sbt_cycles_read(uint32_t counter)
{
	uint64_t v;
	(void)counter;
	__asm__ __volatile__("isb\n\tmrs %0, pmccntr_el0" : "=r"(v) :: "memory");
	return v;
}

static inline uint64_t sbt_clock_hz(void)
{
	uint64_t f;
	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(f));
	return f;
}

static inline int sbt__aux_cpu(uint32_t aux) { (void)aux; return -1; }
#endif

#ifdef SBT_HAVE_CLOCK
static inline uint64_t sbt_clock_start(int *cpu)
{
	uint32_t aux;
	uint64_t t = sbt_read_start(&aux);
	*cpu = sbt__aux_cpu(aux);
	return t;
}

static inline uint64_t sbt_clock_stop(int *cpu)
{
	uint32_t aux;
	uint64_t t = sbt_read_stop(&aux);
	*cpu = sbt__aux_cpu(aux);
	return t;
}
#endif
/* ---- the inline markers ------------------------------------------------ */
/* The inline fast path, the ABI shared with libsbtmark.so, is in
 * sbtmark_hot.h; without it (SBT_MARKER_CALL) markers are calls. */
#if defined(SBT_MARKER) && !defined(SBT_MARKER_CALL)
#include "sbtmark_hot.h"
#else
#define SBT__START(tag) SBT__CALL(sbt_marker_start, tag)
#define SBT__STOP(tag)  SBT__CALL(sbt_marker_stop, tag)
#endif

#ifdef SBT_MARKER
#define SBT__CALL(f, ...) do { if (f) (void)f(__VA_ARGS__); } while (0)
#define SBT_MARKER_INIT          SBT__CALL(sbt_marker_init)
#define SBT_MARKER_THREADINIT    SBT__CALL(sbt_marker_thread_init)
#define SBT_MARKER_REGISTER(tag) SBT__CALL(sbt_marker_register, tag)
#define SBT_MARKER_START(tag)    SBT__START(tag)
#define SBT_MARKER_STOP(tag)     SBT__STOP(tag)
#define SBT_MARKER_RESET(tag)    SBT__CALL(sbt_marker_reset, tag)
#define SBT_MARKER_CLOSE         SBT__CALL(sbt_marker_close)
#else
#define SBT_MARKER_INIT          do { } while (0)
#define SBT_MARKER_THREADINIT    do { } while (0)
#define SBT_MARKER_REGISTER(tag) do { } while (0)
#define SBT_MARKER_START(tag)    do { } while (0)
#define SBT_MARKER_STOP(tag)     do { } while (0)
#define SBT_MARKER_RESET(tag)    do { } while (0)
#define SBT_MARKER_CLOSE         do { } while (0)
#endif

#ifdef __cplusplus
}
#endif
#endif /* SBTMARK_H */
