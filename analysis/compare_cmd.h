/*
 * compare_cmd.h - the --compare command of sbt-analyze (main.c parses the
 * options, this runs it).
 */
#ifndef SBT_COMPARE_CMD_H
#define SBT_COMPARE_CMD_H

#include "compare.h"
#include "inputs.h"
#include "report.h"

/* sbt-analyze [options] --compare BASE... -- NEW...: argv[at] is
 * "--compare"; symbols 0: OpenMP regions as module+offset (--no-symbols).
 * The exit status: the worse of the sides' reading (0, 1
 * damaged input, 2 bad usage or unreadable), else SBT_EXIT_SLOWER when
 * the gate tripped, else 0. */
int sbt_compare_cmd(int argc, char **argv, int at,
		    const struct sbt_options *o,
		    const struct sbt_report_opts *ro, const char *html,
		    enum sbt_input input, unsigned long long budget,
		    int symbols, const struct sbt_cmp_opts *co);

#endif
