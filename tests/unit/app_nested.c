/*
 * app_nested.c - a marked test app: T threads x N iterations of
 *   outer { inner { work } }   empty { }   heavy { more work }
 * (inner 200 dependent multiply-adds, heavy 2000: far above a clock step)
 * plus ITERS empty "main" regions on the main thread first.
 * Usage: app_nested THREADS ITERS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sbtmark.h>

static int iters;

static unsigned long spin(unsigned long x, int n)
{
	for (int i = 0; i < n; i++) {
		x = x * 6364136223846793005ul + 1;
		__asm__ __volatile__("" : "+r"(x));
	}
	return x;
}

static void *run(void *arg)
{
	unsigned long x = (unsigned long)(size_t)arg;

	for (int i = 0; i < iters; i++) {
		SBT_MARKER_START("outer");
		SBT_MARKER_START("inner");
		x = spin(x, 200);
		SBT_MARKER_STOP("inner");
		SBT_MARKER_STOP("outer");
		SBT_MARKER_START("empty");
		SBT_MARKER_STOP("empty");
		SBT_MARKER_START("heavy");
		x = spin(x, 2000);
		SBT_MARKER_STOP("heavy");
	}
	return (void *)x;
}

int main(int argc, char **argv)
{
	int nt = argc > 1 ? atoi(argv[1]) : 2;
	pthread_t t[64];

	iters = argc > 2 ? atoi(argv[2]) : 1000;
	if (nt < 1 || nt > 64)
		return 2;
	SBT_MARKER_INIT;
	/* main marks too: it calibrated the recorder at INIT, and must
	 * still get in-situ probes afterwards */
	for (int i = 0; i < iters; i++) {
		SBT_MARKER_START("main");
		SBT_MARKER_STOP("main");
	}
	for (long i = 0; i < nt; i++)
		pthread_create(&t[i], NULL, run, (void *)(i + 1));
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	SBT_MARKER_CLOSE;
	puts("app_nested: ok");
	return 0;
}
