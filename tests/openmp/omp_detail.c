/*
 * omp_detail.c - worksharing loops, single and explicit tasks in one
 * parallel region of 4 threads (SBT_OMP_DETAIL; clang + libomp).
 *
 *   omp_detail LOOPS TASKS
 *
 * LOOPS dynamic loops (each thread's part: one "omp loop" sample each),
 * then one single construct creating TASKS tasks (one "omp single"
 * sample, TASKS "omp task" samples).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

int main(int argc, char **argv)
{
	int loops = argc > 1 ? atoi(argv[1]) : 50;
	int tasks = argc > 2 ? atoi(argv[2]) : 100;

#pragma omp parallel num_threads(4)
	{
		for (int r = 0; r < loops; r++) {
#pragma omp for schedule(dynamic, 8)
			for (int i = 0; i < 256; i++)
				sink += (unsigned long)i;
		}
#pragma omp single
		for (int k = 0; k < tasks; k++) {
#pragma omp task
			sink += (unsigned long)k;
		}
	}
	printf("omp_detail: %d loops, %d tasks\n", loops, tasks);
	return 0;
}
