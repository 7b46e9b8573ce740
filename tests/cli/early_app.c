/*
 * early_app.c - what the recorder left in the program's first region.
 *
 *   early_app LOG
 *
 * Prints "log N faults M": N 1 when LOG already existed as main began,
 * M the page faults (minor and major) taken inside the program's first,
 * empty region - the recorder's one-off work (its page-fault
 * measurement alone touches 32 fresh pages) when the log opens there.
 */
#define SBT_MARKER
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include "sbtmark.h"

static long faults(void)
{
	struct rusage u;

	getrusage(RUSAGE_THREAD, &u);
	return u.ru_minflt + u.ru_majflt;
}

int main(int argc, char **argv)
{
	static const char name[] = "first";
	struct stat st;
	int had = argc > 1 && stat(argv[1], &st) == 0;
	/* the name's page is the app's: read before, not by the marker */
	char c = *(volatile const char *)name;
	long f0 = faults();

	(void)c;
	SBT_MARKER_START(name);
	SBT_MARKER_STOP(name);
	long f1 = faults();
	printf("log %d faults %ld\n", had, f1 - f0);
	return 0;
}
