/*
 * mixed.c - our own markers and LIKWID's in one process (built with
 * -DSBT_MARKER -DLIKWID_PERFMON, linked with liblikwid).
 *
 * Expected log, one thread: "outer" (sbtmark) 5 with "inner" (likwid)
 * 5 nested in it; "same" twice, once per API (a region is (api, name)),
 * 3 samples each; no misuse counted.
 */
#include <sbtmark.h>
#include <likwid-marker.h>

static volatile double sink;

int main(void)
{
	SBT_MARKER_INIT;
	LIKWID_MARKER_INIT;
	for (int i = 0; i < 5; i++) {
		SBT_MARKER_START("outer");
		LIKWID_MARKER_START("inner");
		sink += i;
		LIKWID_MARKER_STOP("inner");
		SBT_MARKER_STOP("outer");
	}
	for (int i = 0; i < 3; i++) {
		LIKWID_MARKER_START("same");
		SBT_MARKER_START("same");
		sink += i;
		SBT_MARKER_STOP("same");
		LIKWID_MARKER_STOP("same");
	}
	LIKWID_MARKER_CLOSE;           /* finishes the whole log */
	return 0;
}
