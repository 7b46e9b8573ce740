/*
 * diag.c - warnings, counters and the environment (cold paths only).
 */
#include "launchers.h"
#include "diag.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_LINES 20

static int quiet;
static _Atomic int lines;
static _Atomic uint32_t warned;                  /* bit per counter       */
static struct sbt_file_header *_Atomic hdr;
static _Atomic uint64_t pending[SBT_CNT__N];      /* counted before a log */

static const char *const counter_text[SBT_CNT__N] = {
#define SBT_X_TEXT(name, key, text) [SBT_CNT_##name] = text,
	SBT_COUNTERS(SBT_X_TEXT)
#undef SBT_X_TEXT
};

void sbt_diag_quiet(int q) { quiet = q; }

void sbt_warn(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	if (quiet || atomic_fetch_add(&lines, 1) >= MAX_LINES)
		return;
	n = snprintf(buf, sizeof buf, "sbtmark: ");
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof buf - 2)
		n = (int)sizeof buf - 2;
	buf[n++] = '\n';
	(void)!write(2, buf, (size_t)n);
}

/* Move held counts into the header.  Run after every held count too, so
 * a count that raced with sbt_diag_attach() is not left behind. */
static void merge_pending(void)
{
	struct sbt_file_header *h = atomic_load(&hdr);

	for (int c = 0; h && c < SBT_CNT__N; c++) {
		uint64_t v = atomic_exchange(&pending[c], 0);
		if (v)
			atomic_fetch_add((_Atomic uint64_t *)&h->counters[c],
					 v);
	}
}

void sbt_diag_attach(struct sbt_file_header *h)
{
	atomic_store(&hdr, h);
	merge_pending();
}

void sbt_count(enum sbt_counter c)
{
	struct sbt_file_header *h = atomic_load(&hdr);

	if (h) {
		atomic_fetch_add((_Atomic uint64_t *)&h->counters[c], 1);
	} else {
		atomic_fetch_add(&pending[c], 1);
		merge_pending();
	}
	if (counter_text[c] &&
	    !(atomic_fetch_or(&warned, 1u << c) & (1u << c)))
		sbt_warn("%s (counted in the log header; reported once)",
			 counter_text[c]);
}

void sbt_self_exe(char *out, size_t n)
{
	ssize_t k = n ? readlink("/proc/self/exe", out, n - 1) : -1;

	if (n)
		out[k > 0 ? k : 0] = 0;
}

static const char *const rank_vars[][2] = {
#define SBT_X_VARS(rank, size, who) { rank, size },
	SBT_LAUNCHERS(SBT_X_VARS)
#undef SBT_X_VARS
};

const char *sbt_env_rank(int *rank, int *nranks)
{
	*rank = *nranks = -1;
	for (size_t i = 0; i < sizeof rank_vars / sizeof rank_vars[0]; i++) {
		const char *r = getenv(rank_vars[i][0]);
		const char *n = getenv(rank_vars[i][1]);
		if (!r)
			continue;
		*rank = atoi(r);
		*nranks = n ? atoi(n) : -1;
		return r;
	}
	return NULL;
}
