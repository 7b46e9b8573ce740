/* dl_lib.c - a region inside a library the app dlopen()s and dlclose()s. */
#include <sbtmark.h>

static volatile int sink;

void dl_work(int i)
{
	SBT_MARKER_START("in_lib");             /* SITE: in_lib */
	sink += i;
	SBT_MARKER_STOP("in_lib");
}
