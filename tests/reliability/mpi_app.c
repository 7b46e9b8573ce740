/*
 * mpi_app.c - a marked MPI app for the per-rank logs test: every rank
 * runs K "compute" regions (longer on higher ranks) and one "exchange"
 * region around a barrier.  Usage: mpi_app K
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sbtmark.h>

int main(int argc, char **argv)
{
	int rank, size;
	long k = argc > 1 ? atol(argv[1]) : 1000;
	volatile unsigned long x = 1;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	SBT_MARKER_INIT;
	for (long i = 0; i < k; i++) {
		SBT_MARKER_START("compute");
		for (int j = 0; j < 50 * (rank + 1); j++)
			x = x * 6364136223846793005ul + 1;
		SBT_MARKER_STOP("compute");
	}
	SBT_MARKER_START("exchange");
	MPI_Barrier(MPI_COMM_WORLD);
	SBT_MARKER_STOP("exchange");
	SBT_MARKER_CLOSE;
	MPI_Finalize();
	if (rank == 0)
		printf("mpi_app: %d ranks ok\n", size);
	return 0;
}
