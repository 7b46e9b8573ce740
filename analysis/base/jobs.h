/*
 * jobs.h - how many threads the analyzer's pools use (-j).
 */
#ifndef SBT_JOBS_H
#define SBT_JOBS_H

/* How many threads `jobs` asks for: itself, or one per online core when
 * 0 or less; 1 to SBT_JOBS_MAX. */
#define SBT_JOBS_MAX 64
int sbt_jobs(int jobs);

#endif
