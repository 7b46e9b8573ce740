/*
 * launchers.h - where a process launched as one rank of many finds its
 * rank and the number of ranks: the launchers' environment variables.
 *
 * Shared by the recorder (the header's rank, %r in SBT_OUTPUT) and the
 * analyzer (--summary's share of the logs under mpirun/srun), so that both
 * agree on who is rank what.  In order of preference: the first launcher
 * whose rank variable is set wins, its size variable beside it.
 *
 * X(rank variable, size variable, launcher)
 */
#ifndef SBT_LAUNCHERS_H
#define SBT_LAUNCHERS_H

#define SBT_LAUNCHERS(X)                                                     \
	X("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "Open MPI")        \
	X("PMIX_RANK",            "PMIX_SIZE",            "PMIx")            \
	X("PMI_RANK",             "PMI_SIZE",             "MPICH (PMI)")     \
	X("SLURM_PROCID",         "SLURM_NTASKS",         "Slurm")           \
	X("MV2_COMM_WORLD_RANK",  "MV2_COMM_WORLD_SIZE",  "MVAPICH2")        \
	X("MPI_RANKID",           "MPI_NRANKS",           "HP/Platform MPI")

#endif
