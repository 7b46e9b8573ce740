/*
 * os_driver.c - run sbt_filter_os on points read from a text file.
 *
 * The python cross-check (sklearn_check.py) writes data, runs this, and
 * compares our scores and keep flags with scikit-learn's.  Input: one
 * point per line, "x" or "x y" (with -2); '#' lines are skipped.  Output:
 * a "# cut kept dropped quantum quantum_y floor" line, then "score keep"
 * per point, in input order.
 *
 *   os_driver [-2] [-m default|paper] [-s seed] [-q quantum] [-Q quantum_y]
 *             [-f floor] FILE
 */
#include "filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int usage(void)
{
	fprintf(stderr, "usage: os_driver [-2] [-m default|paper] [-s seed] "
		"[-q quantum] [-Q quantum_y] [-f floor] FILE\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct sbt_os_opts o = { .method = SBT_OS_DEFAULT };
	int two = 0, c;
	while ((c = getopt(argc, argv, "2m:s:q:Q:f:")) != -1) {
		switch (c) {
		case '2': two = 1; break;
		case 'm':
			if (!strcmp(optarg, "paper")) o.method = SBT_OS_PAPER;
			else if (strcmp(optarg, "default")) return usage();
			break;
		case 's': o.seed = strtoull(optarg, NULL, 0); break;
		case 'q': o.quantum = atof(optarg); break;
		case 'Q': o.quantum_y = atof(optarg); break;
		case 'f': o.floor = atof(optarg); break;
		default: return usage();
		}
	}
	if (optind + 1 != argc)
		return usage();
	FILE *f = fopen(argv[optind], "r");
	if (!f) {
		perror(argv[optind]);
		return 1;
	}
	size_t n = 0, cap = 1024;
	double *x = malloc(cap * sizeof *x), *y = malloc(cap * sizeof *y);
	char line[256];
	while (x && y && fgets(line, sizeof line, f)) {
		char *e;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (n == cap) {
			cap *= 2;
			x = realloc(x, cap * sizeof *x);
			y = realloc(y, cap * sizeof *y);
			if (!x || !y)
				break;
		}
		x[n] = strtod(line, &e);
		y[n] = two ? strtod(e, &e) : 0;
		n++;
	}
	fclose(f);
	uint8_t *keep = malloc(n ? n : 1);
	float *score = malloc((n ? n : 1) * sizeof *score);
	struct sbt_os_result r;
	if (!x || !y || !keep || !score ||
	    sbt_filter_os(x, two ? y : NULL, n, &o, keep, score, &r) != 0) {
		fprintf(stderr, "os_driver: out of memory\n");
		return 1;
	}
	printf("# %.17g %zu %zu %.17g %.17g %.17g\n", r.cut, r.kept, r.dropped,
	       r.quantum, r.quantum_y, r.floor);
	for (size_t i = 0; i < n; i++)
		printf("%.9g %d\n", score[i], keep[i]);
	free(x); free(y); free(keep); free(score);
	return 0;
}
