/*
 * spark.c - sparklines: a histogram in one line of text.
 */
#include "spark.h"

#include <stdlib.h>
#include <string.h>

#define SPARK_MAX 256

void sbt_spark(const double *v, size_t n, double lo, double hi, int width,
	       int utf8, char *out, size_t outlen)
{
	static const char *const block[9] = {
		" ", "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83",
		"\xe2\x96\x84", "\xe2\x96\x85", "\xe2\x96\x86",
		"\xe2\x96\x87", "\xe2\x96\x88",
	};
	static const char ramp[] = " .:-=+*#@";
	size_t cnt[SPARK_MAX] = { 0 }, max = 0, used = 0;
	double span = hi - lo;

	if (width > SPARK_MAX)
		width = SPARK_MAX;
	if (outlen)
		out[0] = 0;
	for (size_t i = 0; i < n; i++) {
		if (!(v[i] >= lo && v[i] <= hi))
			continue;
		int b = span > 0 ? (int)((v[i] - lo) / span * width) : 0;
		cnt[b < width ? b : width - 1]++;
	}
	for (int b = 0; b < width; b++)
		if (cnt[b] > max)
			max = cnt[b];
	for (int b = 0; b < width; b++) {
		/* 1..8 for any sample at all, 0 only for none */
		int h = cnt[b] ? 1 + (int)(7 * cnt[b] / max) : 0;
		const char *c = block[h];
		char a[2] = { ramp[h], 0 };
		if (!utf8)
			c = a;
		size_t l = strlen(c);
		if (used + l + 1 > outlen)
			break;
		memcpy(out + used, c, l);
		used += l;
		out[used] = 0;
	}
}
