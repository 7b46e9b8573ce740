/*
 * fitname.h - a name in a table's column (fitname.c): whole when it
 * fits; else whole words kept, never a word cut in its middle: the end
 * that tells the rows apart (file:line, the function, the offset), with
 * as much of the start as fits, the dropped part marked '~':
 * "omp parallel @ main ~+0x11ff)", "~initialization [A]".
 */
#ifndef SBT_FITNAME_H
#define SBT_FITNAME_H

#include <stddef.h>

/* The names a column holds, the one fitted among them: a row is told
 * apart from every other name here. */
struct sbt_fit_rows {
	const char *(*at)(const void *ctx, size_t i);
	const void *ctx;
	size_t n;
};

/* Beyond this many names the rows are not checked against each other
 * (a check of every pair would cost more than the report). */
#define SBT_FIT_CHECK_MAX 2000

/* The least width at which name has a form told apart from the other
 * names of all (at most its length). */
int sbt_fit_need(const char *name, const struct sbt_fit_rows *all);

/* name in w columns into out (room for w + 1): whole, else the form
 * that keeps the most of it told apart from the others, else (no such
 * form fits) the most of it that fits; padded to w. */
void sbt_fit_name(char *out, size_t len, const char *name, int w,
		  const struct sbt_fit_rows *all);

/* The column's width for the names of all: their longest while it fits
 * in room; past it, room widened to the least width that tells the
 * names apart, each name that needs no more than limit. */
int sbt_fit_width(const struct sbt_fit_rows *all, int room, int limit);

#endif
