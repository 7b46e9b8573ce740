/*
 * bench_omp.c - the cost of an OpenMP parallel region of 2 threads,
 * built by tools/bench_omp.py with clang (libomp) and gcc (libgomp) and
 * run with and without the recorder.
 *
 *   bench_omp OPS REGIONS [THREADS]
 *                              ns per region of THREADS (2) threads: the
 *                              median over batches of 100 regions, each
 *                              thread's body OPS dependent multiply-adds
 *                              (0: empty)
 *   bench_omp calibrate NS     OPS for a body of about NS ns (serial,
 *                              no parallel region)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned long work(unsigned long n, unsigned long x)
{
	for (unsigned long i = 0; i < n; i++) {
		x = x * 6364136223846793005ul + 1442695040888963407ul;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	unsigned long sink = 0;

	if (argc == 3 && argv[1][0] == 'c') {
		double ns = atof(argv[2]), best = 1e300;
		unsigned long n = 1000000;
		for (int k = 0; k < 21; k++) {
			double t0 = now_ns();
			sink += work(n, (unsigned long)k);
			double t = now_ns() - t0;
			best = t < best ? t : best;
		}
		printf("%lu\n", (unsigned long)(n * ns / best) + (sink & 0));
		return 0;
	}
	if (argc != 3 && argc != 4)
		return 2;
	int nt = argc == 4 ? atoi(argv[3]) : 2;
	unsigned long ops = strtoul(argv[1], NULL, 10);
	int regions = atoi(argv[2]), nb = regions / 100;
	double *b = malloc(sizeof *b * (size_t)(nb > 0 ? nb : 1));

	for (int i = 0; i < 200; i++) {          /* warm the team up */
#pragma omp parallel num_threads(nt) reduction(+ : sink)
		sink += work(ops, (unsigned long)i);
	}
	for (int k = 0; k < nb; k++) {
		double t0 = now_ns();
		for (int i = 0; i < 100; i++) {
#pragma omp parallel num_threads(nt) reduction(+ : sink)
			sink += work(ops, (unsigned long)i);
		}
		b[k] = (now_ns() - t0) / 100;
	}
	qsort(b, (size_t)nb, sizeof *b, cmp);
	printf("%.1f %lu\n", b[nb / 2], sink & 1);
	free(b);
	return 0;
}
