/* pie.c - a PIE with one region started from a known line. */
#include <sbtmark.h>

#ifndef SBT_SAME_SIZE_CHANGE
#define SBT_SAME_SIZE_CHANGE 2
#endif

static volatile int sink;

__attribute__((noinline)) static void work(int i)
{
	SBT_MARKER_START("pie_region");         /* SITE: pie_region */
	sink += SBT_SAME_SIZE_CHANGE * i;       /* another build, same size */
	SBT_MARKER_STOP("pie_region");
}

int main(void)
{
	for (int i = 0; i < 500; i++)
		work(i);
	return 0;
}
