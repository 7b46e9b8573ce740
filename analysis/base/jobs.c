/*
 * jobs.c - see jobs.h.
 */
#include "jobs.h"

#include <unistd.h>

int sbt_jobs(int jobs)
{
	if (jobs <= 0) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		jobs = cores > 0 ? (int)(cores < SBT_JOBS_MAX ? cores :
					 SBT_JOBS_MAX) : 1;
	}
	return jobs < SBT_JOBS_MAX ? jobs : SBT_JOBS_MAX;
}
