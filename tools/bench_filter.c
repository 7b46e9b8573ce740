/*
 * bench_filter.c - time sbt_filter_os (fit + score + beta search).
 *
 *   bench_filter gen N FILE      write N synthetic (ns, cycles) samples:
 *                                raw float64 pairs, skewed jitter + 1 %
 *                                spikes of +1..+20 us
 *   bench_filter run [-2] FILE R time R runs on FILE's ns (or ns, cycles);
 *                                prints one "seconds" line per run
 *
 * tools/bench_filter.py runs this and scikit-learn side by side.  Not a
 * test: no timing is asserted anywhere.
 */
#include "filter.h"
#include "../tests/common/gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int gen(size_t n, const char *path)
{
	struct gen g = { 20261122 };
	double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
	FILE *f = fopen(path, "wb");
	if (!x || !y || !f) {
		perror(path);
		return 1;
	}
	gen_spiky(&g, x, NULL, n, 100, 5, 0.01, 1000, 20000);
	gen_cycles(&g, x, y, n, 3.8);
	for (size_t i = 0; i < n; i++) {
		double p[2] = { x[i], y[i] };
		if (fwrite(p, sizeof p, 1, f) != 1) {
			perror(path);
			return 1;
		}
	}
	free(x); free(y);
	return fclose(f) != 0;
}

static int run(const char *path, int two, int reps)
{
	FILE *f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) != 0) {
		perror(path);
		return 1;
	}
	size_t n = (size_t)ftell(f) / 16;
	rewind(f);
	double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
	uint8_t *keep = malloc(n);
	float *score = malloc(n * sizeof *score);
	if (!x || !y || !keep || !score)
		return 1;
	for (size_t i = 0; i < n; i++) {
		double p[2];
		if (fread(p, sizeof p, 1, f) != 1) {
			perror(path);
			return 1;
		}
		x[i] = p[0], y[i] = p[1];
	}
	fclose(f);
	struct sbt_os_opts o = { .method = SBT_OS_DEFAULT, .seed = 1 };
	for (int r = 0; r < reps; r++) {
		struct sbt_os_result res;
		double t0 = now();
		if (sbt_filter_os(x, two ? y : NULL, n, &o, keep, score, &res))
			return 1;
		double t1 = now();
		printf("seconds %.6f n %zu dims %d dropped %zu cut %.2f\n",
		       t1 - t0, n, two + 1, res.dropped, res.cut);
		fflush(stdout);
	}
	free(x); free(y); free(keep); free(score);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "gen"))
		return gen(strtoull(argv[2], NULL, 0), argv[3]);
	if (argc >= 4 && !strcmp(argv[1], "run")) {
		int two = !strcmp(argv[2], "-2");
		if (argc == 4 + two)
			return run(argv[2 + two], two, atoi(argv[3 + two]));
	}
	fprintf(stderr, "usage: bench_filter gen N FILE\n"
		"       bench_filter run [-2] FILE REPS\n");
	return 2;
}
