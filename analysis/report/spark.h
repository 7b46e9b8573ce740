/*
 * spark.h - a distribution as one line of text: a histogram drawn with
 * the eight block characters (or an ASCII ramp).
 */
#ifndef SBT_SPARK_H
#define SBT_SPARK_H

#include <stddef.h>

/* Histogram of v[0..n) over [lo, hi] in `width` cells into out (NUL-
 * terminated; UTF-8 needs 3 bytes a cell).  Heights are linear in the
 * count, but a cell holding any sample is never blank, so rare tails
 * and small modes stay visible.  utf8 = 0: " .:-=+*#" instead. */
void sbt_spark(const double *v, size_t n, double lo, double hi, int width,
	       int utf8, char *out, size_t outlen);

#endif
