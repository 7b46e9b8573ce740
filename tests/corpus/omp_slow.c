/*
 * omp_slow.c - an OpenMP program with nothing of sbtmark's in it and one
 * slow thread, for the corpus (tools/corpus.py records it under sbt-run).
 *
 *   omp_slow REGIONS
 *
 * REGIONS parallel regions of 2 threads; each thread does a fixed chain
 * of dependent multiply-adds (about 30 us), thread 1 20 % more: thread 1
 * is the slow one, thread 0 waits at each region's closing barrier.
 * Prints one JSON line with what was planted.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define OPS 40000ul
#define EXTRA_PCT 20ul

static unsigned long work(unsigned long n, unsigned long x)
{
	for (unsigned long i = 0; i < n; i++) {
		x = x * 6364136223846793005ul + 1442695040888963407ul;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

int main(int argc, char **argv)
{
	int regions = argc > 1 ? atoi(argv[1]) : 500;
	unsigned long sum = 0;
	int tasks = 0;

	for (int r = 0; r < regions; r++) {
#pragma omp parallel num_threads(2) reduction(+ : sum, tasks)
		{
			int t = omp_get_thread_num();
			sum += work(t == 1 ? OPS + OPS * EXTRA_PCT / 100 : OPS,
				    (unsigned long)r);
			tasks += 1;
		}
	}
	printf("{\"case\": \"omp-slow\", \"regions\": %d, \"threads\": 2, "
	       "\"tasks\": %d, \"slow_thread\": 1, \"slow_rel\": %.2f, "
	       "\"x\": %lu}\n", regions, tasks, EXTRA_PCT / 100.0, sum & 1);
	return 0;
}
