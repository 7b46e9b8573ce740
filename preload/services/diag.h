/*
 * diag.h - what the recorder tells the user.  A leaf: it calls nothing
 * else in preload/ (the environment is config.h's).
 *
 * Warnings go to stderr, at most 20 lines per process (SBT_QUIET=1: none).
 * Counters (format/sbtlog.h's SBT_COUNTERS) live in the log header once a
 * log is open, so a crash cannot lose them; counts made before that wait
 * in the process and are moved in when the header appears.
 */
#ifndef SBT_DIAG_H
#define SBT_DIAG_H

#include <stddef.h>
#include <stdint.h>
#include "sbtlog.h"

#define SBT_HIDDEN __attribute__((visibility("hidden")))
#define SBT_LIKELY(x)   __builtin_expect(!!(x), 1)
#define SBT_UNLIKELY(x) __builtin_expect(!!(x), 0)

SBT_HIDDEN void sbt_warn(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* Count one event of kind c; the first of each misuse kind is also told. */
SBT_HIDDEN void sbt_count(enum sbt_counter c);

/* Counts go to h from now on (NULL: held until the next header). */
SBT_HIDDEN void sbt_diag_attach(struct sbt_file_header *h);

SBT_HIDDEN void sbt_diag_quiet(int quiet);

/* This process's rank and rank count from the launcher's variables (the
 * first launcher of format/launchers.h whose rank variable is
 * set).  Returns the rank variable's text, NULL (and -1, -1) when none. */
SBT_HIDDEN const char *sbt_env_rank(int *rank, int *nranks);

/* The running executable's path into out (n bytes); "" when unknown. */
SBT_HIDDEN void sbt_self_exe(char *out, size_t n);

#endif
