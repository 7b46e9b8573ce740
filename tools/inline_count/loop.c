/* loop.c - a loop of empty inline marker pairs, the code counted. */
#define SBT_MARKER
#include "sbtmark.h"

__attribute__((noinline)) void loop(long n)
{
	for (long i = 0; i < n; i++) {
		SBT_MARKER_START("x");
		SBT_MARKER_STOP("x");
	}
}
