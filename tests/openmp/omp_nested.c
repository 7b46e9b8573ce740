/*
 * omp_nested.c - nested parallel regions: 10 outer regions of 2 threads,
 * each thread opening an inner region of 2.  The loop is short enough
 * for clang -O2 to unroll it: one pragma, ten code addresses, which the
 * analyzer must report as one region.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
	int n = 0;

	omp_set_max_active_levels(2);
	for (int r = 0; r < 10; r++) {
#pragma omp parallel num_threads(2) reduction(+ : n)
		{
#pragma omp parallel num_threads(2) reduction(+ : n)
			n += omp_get_level();
		}
	}
	printf("omp_nested: %d\n", n);
	return 0;
}
