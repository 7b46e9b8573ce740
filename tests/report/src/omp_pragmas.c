/* omp_pragmas.c - four OpenMP parallel loops, three in main and one in
 * another function, built without -g (callsites_test.py omp_nog): no
 * line table, so each region is named by its function and offset. */
#include <stdio.h>

#define N 4096
static double a[N], b[N], c[N];

__attribute__((noinline)) static void triad(double s)
{
#pragma omp parallel for
	for (int i = 0; i < N; i++)
		a[i] = b[i] + s * c[i];
}

int main(void)
{
	for (int k = 0; k < 10; k++) {
#pragma omp parallel for
		for (int i = 0; i < N; i++)
			c[i] = a[i];
#pragma omp parallel for
		for (int i = 0; i < N; i++)
			b[i] = 3 * c[i];
#pragma omp parallel for
		for (int i = 0; i < N; i++)
			c[i] = a[i] + b[i];
		triad(3);
	}
	printf("%g\n", a[1]);
	return 0;
}
