/*
 * itt_omp_app.c - an OpenMP app with nothing of ours in it.  LLVM's libomp
 * carries its own ITT calls: under sbt-run it loads libsbtmark.so as its
 * ITT collector (it aborted when a stub answered NULL).
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
	int regions = 20, hits = 0;

	for (int r = 0; r < regions; r++) {
#pragma omp parallel num_threads(4) reduction(+ : hits)
		hits += omp_get_num_threads() == 4;
	}
	printf("omp done 4 x %d\n", hits / 4);
	return 0;
}
