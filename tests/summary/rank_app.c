/*
 * rank_app.c - an MPI app with one slow rank, for merging summaries:
 * every rank runs K "solve" regions (rank 2 does 10x the work in each)
 * and K "halo" regions of equal work.  Usage: rank_app K
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sbtmark.h>

static volatile unsigned long sink = 1;

static void work(int n)
{
	unsigned long x = sink;

	for (int j = 0; j < n; j++)
		x = x * 6364136223846793005ul + 1;
	sink = x;
}

int main(int argc, char **argv)
{
	int rank, size;
	long k = argc > 1 ? atol(argv[1]) : 20000;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (long i = 0; i < k; i++) {
		SBT_MARKER_START("solve");
		work(rank == 2 ? 2000 : 200);
		SBT_MARKER_STOP("solve");
		SBT_MARKER_START("halo");
		work(100);
		SBT_MARKER_STOP("halo");
	}
	MPI_Finalize();
	if (rank == 0)
		printf("rank_app: %d ranks ok\n", size);
	return 0;
}
