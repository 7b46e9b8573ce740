/*
 * omp_lines.c - OpenMP constructs whose source lines and barriers the
 * test knows (omp_test.py lines): the parallel pragmas in main come
 * after a statement of their own (GCC's line table gives the call of
 * GOMP_parallel that statement's line), and the barriers inside a region
 * are of every kind GCC emits a runtime call for.
 *
 *   omp_lines REPS
 *
 * REPS times: region A (4 threads) with a static loop, an explicit
 * barrier, a dynamic loop, a single and sections, each closed by a
 * barrier; region B, whose explicit barrier is its last statement (GCC
 * -O2 jumps to GOMP_barrier: a tail call); and region C twice, from two
 * calls of one inlined function (one outlined body, two call sites).
 * Prints one line, the same with or without the recorder.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 256

static double a[N], b[N];
static volatile unsigned long sink;

/* Inlined at both calls: GCC outlined the region before inlining, so
 * one outlined function, two calls of GOMP_parallel. */
static inline __attribute__((always_inline)) void scale(double f)
{
#pragma omp parallel for num_threads(4)
	for (int i = 0; i < N; i++)
		b[i] = a[i] * f;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 20;
	unsigned long singles = 0, sections = 0;
	double s = 0;

	for (int r = 0; r < reps; r++) {
		sink += (unsigned long)r;
#pragma omp parallel num_threads(4)
		{
#pragma omp for
			for (int i = 0; i < N; i++)
				a[i] = i + r;
#pragma omp barrier
#pragma omp for schedule(dynamic, 16)
			for (int i = 0; i < N; i++)
				b[i] = a[N - 1 - i];
#pragma omp single
			singles++;
#pragma omp sections
			{
#pragma omp section
				sections++;
#pragma omp section
				sections++;
			}
			sink += (unsigned long)omp_get_thread_num();
		}
		sink += 2;
#pragma omp parallel num_threads(4)
		{
			sink += 1;
#pragma omp barrier
		}
		scale(2.0);
		s += b[1];
		scale(0.5);
		s += b[2];
	}
	printf("omp_lines: %d reps, %lu singles, %lu sections (%g)\n", reps,
	       singles, sections, s);
	return 0;
}
