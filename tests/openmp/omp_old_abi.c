/*
 * omp_old_abi.c - a parallel region the way GCC before 4.9 compiled it:
 * GOMP_parallel_start, the body called by the encountering thread
 * itself, GOMP_parallel_end.  Not recorded; said once (openmp_unrecorded).
 * One marker of ours, so that there is a log.
 */
#include <omp.h>
#include <stdio.h>
#include <sbtmark.h>

extern void GOMP_parallel_start(void (*fn)(void *), void *data,
				unsigned n);
extern void GOMP_parallel_end(void);

static int hits;

static void body(void *p)
{
	(void)p;
#pragma omp atomic
	hits++;
}

int main(void)
{
	SBT_MARKER_START("outside");
	SBT_MARKER_STOP("outside");
	GOMP_parallel_start(body, NULL, 2);
	body(NULL);
	GOMP_parallel_end();
	printf("omp_old_abi: %d\n", hits);
	return 0;
}
