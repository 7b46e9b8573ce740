/*
 * bench_record.c - the sustained recording rate of one thread, and a big
 * log for the analyzer benchmark.
 *
 *   LD_PRELOAD=libsbtmark.so SBT_OUTPUT=big.log bench-record [N]
 *
 * Marks N (default 10^7) empty regions back to back, alternating between
 * two names, and prints samples per second.  Run it without the preload
 * to see the cost of the loop alone.  Each pair holds two serialized clock
 * reads, so no recorder can beat the bare pair's rate (bench-overhead).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "sbtmark.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000L;
	struct timespec a, b;

	if (n <= 0) {
		fprintf(stderr, "usage: bench-record [N > 0]\n");
		return 2;
	}
	SBT_MARKER_INIT;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) {
		const char *tag = (i & 1) ? "odd" : "even";
		SBT_MARKER_START(tag);
		SBT_MARKER_STOP(tag);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	SBT_MARKER_CLOSE;
	double s = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
	printf("bench-record: %ld samples in %.3f s: %.2f million samples/s "
	       "(%.1f ns per sample)\n", n, s, n / s / 1e6, s * 1e9 / n);
	return 0;
}
