/*
 * capsite.c - one inline call site under SBT_MAX_MB, its slot in sight.
 *
 *   capsite PAIRS
 *
 * Runs PAIRS empty pairs of region "site" through sbtmark.h's inline
 * START with a call-site slot of its own (what SBT_MARKER_START keeps
 * hidden), then prints the kind of the slot's word: 1 (START) while the
 * cap's level 0 lasts - the fast path records the call - or 5 (SKIP)
 * once the site is sampled.
 */
#define SBT_MARKER
#include <stdio.h>
#include <stdlib.h>
#include "sbtmark.h"

static struct sbt_csite cs;

int main(int argc, char **argv)
{
	long pairs = argc > 1 ? atol(argv[1]) : 1000;

	SBT_MARKER_INIT;
	for (long i = 0; i < pairs; i++) {
		sbt__start("site", &cs);
		SBT_MARKER_STOP("site");
	}
	printf("%u\n", __atomic_load_n(&cs.way[0].word, __ATOMIC_RELAXED) >> 28);
	SBT_MARKER_CLOSE;
	return 0;
}
