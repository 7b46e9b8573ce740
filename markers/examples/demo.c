/*
 * demo.c - the bundled example: two threads, nested regions, and one
 * region with a known, real variation.
 *
 *   cc -O2 -DSBT_MARKER -I markers markers/examples/demo.c -o demo -lpthread
 *   sbt-run -- ./demo && sbt-analyze region.log
 *
 * Regions (per thread, ITER iterations each):
 *   step      outer region around compute + bimodal
 *   compute   a fixed dependent-arithmetic chain (constant work)
 *   bimodal   the same chain, but every 4th time 4x as long: two true
 *             modes with shares 75 % / 25 %
 *   empty     nothing at all: what the timer itself costs
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sbtmark.h>

#define ITER 20000

/* n dependent multiply-adds the compiler cannot remove or vectorize. */
static unsigned long chain(unsigned long x, int n)
{
	for (int i = 0; i < n; i++) {
		x = x * 6364136223846793005ul + 1442695040888963407ul;
		__asm__ __volatile__("" : "+r"(x));
	}
	return x;
}

static void *worker(void *arg)
{
	unsigned long x = (unsigned long)(size_t)arg;

	SBT_MARKER_THREADINIT;
	for (int i = 0; i < ITER; i++) {
		SBT_MARKER_START("step");

		SBT_MARKER_START("compute");
		x = chain(x, 200);
		SBT_MARKER_STOP("compute");

		SBT_MARKER_START("bimodal");
		x = chain(x, i % 4 == 3 ? 200 : 50);
		SBT_MARKER_STOP("bimodal");

		SBT_MARKER_STOP("step");

		SBT_MARKER_START("empty");
		SBT_MARKER_STOP("empty");
	}
	return (void *)x;
}

int main(void)
{
	pthread_t t[2];

	SBT_MARKER_INIT;
	for (long i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(i + 1)) != 0) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	SBT_MARKER_CLOSE;
	printf("demo: 2 threads x %d iterations done\n", ITER);
	return 0;
}
