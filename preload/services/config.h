/*
 * config.h - every SBT_* variable the recorder reads, in one table.
 *
 * The table is the reference: the README's and sbtmark(7)'s environment
 * tables are checked against it (tests/unit/config_doc.py), and nothing in
 * preload/ calls getenv() for an SBT_* name but config.c.  All values are
 * read once, by sbt_config_load() in the library's constructor, before the
 * program's main(): setting a variable later in the program changes
 * nothing (set it in the environment that starts the program).
 *
 * Types:
 *   STR   the text as given; unset or empty is the default (NULL for none)
 *   LONG  a decimal integer in [lo, hi]
 *   BOOL  1/0, true/false, yes/no, on/off (any case); nothing else
 * A value that does not parse is told once on stderr and the default used.
 *
 * X(id, "name", type, default number, default text, lo, hi, meaning)
 */
#ifndef SBT_CONFIG_H
#define SBT_CONFIG_H

#include "diag.h"
#include "sbtlog.h"

#define SBT_CONFIG(X)                                                        \
	X(OUTPUT, "SBT_OUTPUT", STR, 0, "region.log", 0, 0,                  \
	  "log name pattern: %p pid, %r rank, %h host, %% a percent sign")   \
	X(QUIET, "SBT_QUIET", BOOL, 0, NULL, 0, 1,                           \
	  "no messages on stderr")                                           \
	X(DISABLE, "SBT_DISABLE", BOOL, 0, NULL, 0, 1,                       \
	  "the recorder stays inert")                                        \
	X(PROBE_PERIOD, "SBT_PROBE_PERIOD", LONG, 64, NULL, 0, 1000000,      \
	  "an in-situ noise probe every N region starts per thread; 0 off")  \
	X(LOG_MAX_MB, "SBT_LOG_MAX_MB", LONG, 65536, NULL, 2, 1L << 24,      \
	  "largest log; beyond it samples are dropped and counted")          \
	X(MAX_MB, "SBT_MAX_MB", LONG, 0, NULL, 2, 1L << 24,                  \
	  "cap the log, thinning as it fills (unset: no cap)")               \
	X(SAMPLE, "SBT_SAMPLE", STR, 0, NULL, 0, 0,                          \
	  "sparse recording: region:N,...,*:N")                              \
	X(EVENTS, "SBT_EVENTS", STR, 0, NULL, 0, 0,                          \
	  "count these events per sample (perf or libpfm4 names)")           \
	X(CYCLES, "SBT_CYCLES", BOOL, 1, NULL, 0, 1,                         \
	  "try the core-cycle counter")                                      \
	X(OS_EVENTS, "SBT_OS_EVENTS", BOOL, 1, NULL, 0, 1,                   \
	  "record the kernel's switches, faults and migrations per thread")  \
	X(OS_PAGES, "SBT_OS_PAGES", LONG, 16, NULL, 1, 1024,                 \
	  "data pages of each thread's kernel event ring (power of two)")    \
	X(OS_FAULT_RATE, "SBT_OS_FAULT_RATE", LONG, 0, NULL, 0, 1000000000,  \
	  "page faults a second a thread records each of; faster, 1 in K; "  \
	  "0: what 1 % of its time affords (measured)")                      \
	X(PREPARE, "SBT_PREPARE", STR, 0, "auto", 0, 0,                      \
	  "where a thread readies the log's pages ahead: auto, off, or cpus " \
	  "(0,2-3)")                                                          \
	X(SPEED_US, "SBT_SPEED_US", LONG, SBT_SPEED_US_DEFAULT, NULL, 0, 10000000,            \
	  "a speed probe every N us of each thread's marking; 0 off")        \
	X(ITT_DOMAIN_PREFIX, "SBT_ITT_DOMAIN_PREFIX", BOOL, 0, NULL, 0, 1,   \
	  "ITT task names as domain/name")                                   \
	X(NVTX_DOMAIN_PREFIX, "SBT_NVTX_DOMAIN_PREFIX", BOOL, 0, NULL, 0, 1, \
	  "NVTX range names as domain/name")                                 \
	X(OMP_DETAIL, "SBT_OMP_DETAIL", BOOL, 0, NULL, 0, 1,                 \
	  "also OpenMP loops, sections, single and explicit tasks (OMPT)")   \
	X(EARLY, "SBT_EARLY", STR, 0, NULL, 0, 0,                            \
	  "the program (its path) whose log opens before main; sbt-run "     \
	  "sets it")                                                          \
	X(TEST_CLOCK, "SBT_TEST_CLOCK", STR, 0, NULL, 0, 0,                  \
	  "for tests only: force the clock's other paths: aux-wrong, "       \
	  "no-rdtscp, no-rseq, calibrate (any of them, comma-separated)")

enum sbt_cfg_type { SBT_CFG_STR, SBT_CFG_LONG, SBT_CFG_BOOL };

enum sbt_cfg {
#define SBT_X_ENUM(id, name, type, num, text, lo, hi, meaning) SBT_CFG_##id,
	SBT_CONFIG(SBT_X_ENUM)
#undef SBT_X_ENUM
	SBT_CFG__N
};

struct sbt_cfg_var {
	const char *name;
	enum sbt_cfg_type type;
	long def;                      /* LONG, BOOL                    */
	const char *def_text;          /* STR                           */
	long lo, hi;
	const char *meaning;
};

/* Read every variable of the table, once (the constructor calls it). */
SBT_HIDDEN void sbt_config_load(void);

/* The values, written by sbt_config_load() only: read through sbt_cfg,
 * inline, as hot paths read their settings (one load, no call). */
extern SBT_HIDDEN long sbt_cfg_num[SBT_CFG__N];

/* A LONG or BOOL variable's value; a STR variable's text, or its default
 * (NULL when it has none).  Valid after sbt_config_load(). */
static inline long sbt_cfg(enum sbt_cfg v) { return sbt_cfg_num[v]; }
SBT_HIDDEN const char *sbt_cfg_text(enum sbt_cfg v);

/* The table itself, for tools and tests: SBT_CFG__N entries. */
SBT_HIDDEN const struct sbt_cfg_var *sbt_config_table(void);

/* Parse s as a BOOL: 0 or 1, -1 when it is none of the spellings. */
SBT_HIDDEN int sbt_cfg_parse_bool(const char *s);

#endif
