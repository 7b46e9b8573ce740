/*
 * omp_app.c - an OpenMP app with nothing of ours in it, built by the
 * tests with clang (libomp: OMPT) and with gcc (libgomp: its entry points
 * interposed).
 *
 *   omp_app REGIONS EXTRA_PCT [OPS]
 *
 * REGIONS parallel regions of 4 threads; each thread's share is OPS
 * dependent multiply-adds (default 40000, about 30-60 us here), thread 3's
 * EXTRA_PCT percent more.  Prints one line, the same with or without the
 * recorder.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

/* A register-only chain the compiler cannot shorten (the empty asm
 * hides x from it: no unrolled, reassociated steps). */
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
	int regions = argc > 1 ? atoi(argv[1]) : 200;
	long pct = argc > 2 ? atol(argv[2]) : 0;
	unsigned long ops = argc > 3 ? strtoul(argv[3], NULL, 10) : 40000;
	unsigned long sum = 0;
	int threads = 0;

	for (int r = 0; r < regions; r++) {
#pragma omp parallel num_threads(4) reduction(+ : sum, threads)
		{
			int t = omp_get_thread_num();
			sum += work(t == 3 ? ops + ops * (unsigned long)pct / 100
					   : ops, (unsigned long)r);
			threads += 1;
		}
	}
	printf("omp_app: %d regions, %d implicit tasks (%lx)\n", regions,
	       threads, sum & 0xf);
	return 0;
}
