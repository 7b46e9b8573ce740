/*
 * cmp_app.c - regions whose work the test sets, for sbt-analyze --compare.
 *
 *   cmp_app N GROW_PCT SHARE
 *
 * N iterations of, each a dependent multiply-add chain (register only,
 * so a co-runner streaming memory does not touch it):
 *   steady   1000 links
 *   grow     1000 * (1 + GROW_PCT / 100) links: GROW_PCT % more work
 *   modal    1000 links, or 3000 with probability SHARE: a second mode
 *            holding SHARE of the samples
 */
#include <stdio.h>
#include <stdlib.h>
#include <sbtmark.h>

static unsigned long chain(unsigned long x, long n)
{
	for (long i = 0; i < n; i++) {
		x = x * 6364136223846793005ul + 1442695040888963407ul;
		__asm__ __volatile__("" : "+r"(x));
	}
	return x;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: cmp_app N GROW_PCT SHARE\n");
		return 2;
	}
	long n = atol(argv[1]);
	long grow = (long)(1000 * (1 + atof(argv[2]) / 100) + 0.5);
	double share = atof(argv[3]);
	unsigned long x = 1, r = 12345;

	SBT_MARKER_INIT;
	for (long i = 0; i < n; i++) {
		SBT_MARKER_START("steady");
		x = chain(x, 1000);
		SBT_MARKER_STOP("steady");

		SBT_MARKER_START("grow");
		x = chain(x, grow);
		SBT_MARKER_STOP("grow");

		r = r * 6364136223846793005ul + 1;
		long m = (double)(r >> 11) * 0x1p-53 < share ? 3000 : 1000;
		SBT_MARKER_START("modal");
		x = chain(x, m);
		SBT_MARKER_STOP("modal");
	}
	SBT_MARKER_CLOSE;
	return (int)(x & 1);
}
