/*
 * omp_marked.c - an OpenMP app with one of our markers in its parallel
 * region, so that a log is written even when the runtime's regions are
 * not recorded (OMP_TOOL=disabled: openmp_unrecorded).
 */
#include <omp.h>
#include <stdio.h>
#include <sbtmark.h>

int main(void)
{
	int n = 0;

	for (int r = 0; r < 5; r++) {
#pragma omp parallel num_threads(2) reduction(+ : n)
		{
			SBT_MARKER_START("inside");
			n += 1;
			SBT_MARKER_STOP("inside");
		}
	}
	printf("omp_marked: %d\n", n);
	return 0;
}
