/*
 * bench_record.c - the sustained recording rate of one thread, next to
 * the rate of the bare serialized pair, and a big log for the analyzer
 * benchmark.
 *
 *   LD_PRELOAD=libsbtmark.so SBT_OUTPUT=big.log bench-record [N [BLOCKS]]
 *
 * Marks N (default 10^7) empty regions back to back, alternating between
 * two names, in BLOCKS (default 20) blocks; between the blocks of marked
 * pairs it runs as many bare pairs (lfence;rdtscp;lfence ... rdtscp;lfence
 * inline, the ceiling: each marker pair holds two such reads), so that
 * both rates come from the same minutes on the same cpu.  Prints the
 * median block rate of each and their ratio.  Without the preload the
 * markers cost a predictable branch each and the log is not written.
 */
#include "bench.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000L;
	int blocks = argc > 2 ? atoi(argv[2]) : 20;
	volatile uint64_t sink = 0;
	uint32_t aux;

	if (n > 0 && n < blocks)
		blocks = (int)n;
	if (n <= 0 || blocks < 1 || blocks > 1000) {
		fprintf(stderr, "usage: bench-record [N > 0 [BLOCKS 1..1000]]\n");
		return 2;
	}
	double *marked = calloc((size_t)blocks, sizeof *marked);
	double *bare = calloc((size_t)blocks, sizeof *bare);
	long per = n / blocks;
	if (!marked || !bare)
		return 1;
	SBT_MARKER_INIT;
	double total = 0;
	for (int b = 0; b < blocks; b++) {
		double a = now();
		for (long i = 0; i < per; i++) {
			uint64_t t0 = sbt_read_start(&aux);
			sink += sbt_read_stop(&aux) - t0;
		}
		double m = now();
		for (long i = 0; i < per; i++) {
			const char *tag = (i & 1) ? "odd" : "even";
			SBT_MARKER_START(tag);
			SBT_MARKER_STOP(tag);
		}
		double e = now();
		bare[b] = (double)per / (m - a);
		marked[b] = (double)per / (e - m);
		total += e - m;
	}
	SBT_MARKER_CLOSE;
	double rb = bench_q(bare, (size_t)blocks, 0.5);
	double rm = bench_q(marked, (size_t)blocks, 0.5);
	printf("bench-record: %ld samples in %.3f s\n", per * blocks, total);
	printf("  marked pairs  %6.2f million/s (%.1f ns per sample), median "
	       "of %d blocks\n", rm / 1e6, 1e9 / rm, blocks);
	printf("  bare pairs    %6.2f million/s (%.1f ns per pair)\n",
	       rb / 1e6, 1e9 / rb);
	printf("  ratio         %6.2f (target >= 0.80)\n", rm / rb);
	free(marked);
	free(bare);
	return 0;
}
