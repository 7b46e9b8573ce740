/*
 * summary_cmd.h - the --summary command of sbt-analyze (main.c parses the
 * options, this runs it).
 */
#ifndef SBT_SUMMARY_CMD_H
#define SBT_SUMMARY_CMD_H

#include "inputs.h"

/* Write the summary of each of paths[0..n) to out: a file (one log) or
 * a directory (LOG.sbts for each), `jobs` at once (0: one per core; one
 * under a launcher unless given).  The exit status: 0, 1 an input was
 * damaged or cut short, 2 bad usage or unreadable. */
int sbt_summary_cmd(int n, char **paths, const char *out,
		    enum sbt_input input, unsigned long long budget, int jobs);

#endif
