/*
 * likwid_omp.c - a legal LIKWID pattern: each thread's region started in
 * one OpenMP parallel region and stopped in the next (LIKWID's regions
 * are per thread, not per construct).  The recorder's own OpenMP regions
 * cross it; no misuse may be counted for that.  Linked with the LIKWID
 * stand-in (likwid_standin.c).  With OMP_NUM_THREADS=2: "x" 320 times on
 * each thread.
 */
#include <stdio.h>

void likwid_markerInit(void);
void likwid_markerThreadInit(void);
void likwid_markerClose(void);
int likwid_markerStartRegion(const char *);
int likwid_markerStopRegion(const char *);

#define ROUNDS 320

static volatile double sink;

int main(void)
{
	likwid_markerInit();
#pragma omp parallel
	likwid_markerThreadInit();
	for (int r = 0; r < ROUNDS; r++) {
#pragma omp parallel
		likwid_markerStartRegion("x");
		for (int k = 0; k < 100; k++)
			sink += k;
#pragma omp parallel
		likwid_markerStopRegion("x");
	}
	likwid_markerClose();
	puts("done");
	return 0;
}
