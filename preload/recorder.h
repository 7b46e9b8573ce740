/*
 * recorder.h - the recorder's internal API.
 *
 * Every way a region reaches sbtmark - our own markers (markers.c), the
 * interposed LIKWID / PAPI-HL / ITT / NVTX entry points (api_*.c) - calls
 * these.  Adding an interposed API means one new api_*.c file that maps
 * its calls onto sbt_rec_*; nothing else changes.
 *
 * Hot path: sbt_rec_start*, sbt_rec_stop*.  No lock, no syscall, no
 * allocation once a thread has seen a call site.  All functions are safe
 * to call before init (they initialize lazily), after close (counted and
 * ignored), from any thread, and with bad arguments (counted).
 */
#ifndef SBT_RECORDER_H
#define SBT_RECORDER_H

#include <stddef.h>
#include <stdint.h>
#include "../format/sbtlog.h"

#define SBT_API __attribute__((visibility("default")))
#define SBT_HIDDEN __attribute__((visibility("hidden")))

/* Return codes. */
enum {
	SBT_OK        =  0,
	SBT_EMISUSE   = -1,    /* counted in the log header                  */
	SBT_EOFF      = -2,    /* recorder inert (closed, secure-exec, ...)  */
};

/* Region ids are stable for the life of the process, 1 .. 2^24-1. */
typedef uint32_t sbt_id;

/* Intern `name` (len bytes; len == (size_t)-1: NUL-terminated) for `api`,
 * with `site` its first call site.  Cold path: takes a lock, hashes.
 * Returns 0 for a bad name (NULL, empty, too long) and counts it. */
SBT_HIDDEN sbt_id sbt_rec_intern(const char *name, size_t len, unsigned api,
				 const void *site);

/* By name: looks the (site, name pointer) pair up in the thread's cache,
 * interning on a miss.  `site` is the app's call site (the caller's
 * __builtin_return_address(0)).  Names in writable memory are compared
 * with the cached name on every call, so a reused buffer is safe. */
SBT_HIDDEN int sbt_rec_start(const char *name, unsigned api, const void *site);
SBT_HIDDEN int sbt_rec_stop(const char *name, unsigned api, const void *site);

/* By id, for APIs that hand out handles (ITT string handles, NVTX
 * registered strings, PAPI/LIKWID after a first lookup). */
SBT_HIDDEN int sbt_rec_start_id(sbt_id id, const void *site);
SBT_HIDDEN int sbt_rec_stop_id(sbt_id id);

/* RESET: this thread's earlier samples of the region no longer count. */
SBT_HIDDEN int sbt_rec_reset_id(sbt_id id);

/* Per-thread running totals of a region since its last reset (for
 * LIKWID's GetRegion, PAPI_hl_read).  Returns 0 and fills the outputs, or
 * a negative code when the region is unknown on this thread. */
SBT_HIDDEN int sbt_rec_totals(sbt_id id, uint64_t *count, double *seconds);

/* Per-thread state of an interposed API, kept in the recorder's thread
 * state so that no API needs TLS of its own (the library must stay
 * dlopen-able: INTEL_LIBITTNOTIFY64 / NVTX_INJECTION64_PATH load it that
 * way).  Returns the calling thread's zeroed block of `size` bytes for
 * `slot`, allocated on first use; at thread exit fini(block) runs (when
 * not NULL) and the block is freed.  NULL when out of memory or inert. */
enum sbt_slot { SBT_SLOT_NAMES, SBT_SLOT_ITT, SBT_SLOT_NVTX, SBT_SLOT__N };
SBT_HIDDEN void *sbt_rec_api_state(enum sbt_slot slot, size_t size,
				   void (*fini)(void *));

/* Process-level. */
SBT_HIDDEN int sbt_rec_init(void);          /* open the log now          */
SBT_HIDDEN int sbt_rec_thread_init(void);   /* attach this thread now    */
SBT_HIDDEN int sbt_rec_close(void);         /* finish; markers go inert  */
SBT_HIDDEN int sbt_rec_active(void);        /* 1 if recording            */
SBT_HIDDEN const char *sbt_rec_log_path(void); /* NULL until open       */
/* The calling thread's last record (calibration tools). */
SBT_HIDDEN int sbt_rec_last(uint64_t *ticks, uint64_t *cycles);
SBT_HIDDEN void sbt_rec_count(enum sbt_counter c);  /* misuse counters   */
SBT_HIDDEN void sbt_rec_warn(const char *fmt, ...)  /* rate-limited      */
	__attribute__((format(printf, 1, 2)));

#endif /* SBT_RECORDER_H */
