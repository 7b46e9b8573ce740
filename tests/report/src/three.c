/* three.c - one region name started from three call sites, 100, 200 and
 * 300 times. */
#include <sbtmark.h>

static volatile int sink;

__attribute__((noinline)) static void one(void)
{
	SBT_MARKER_START("shared");             /* SITE: shared/one */
	sink++;
	SBT_MARKER_STOP("shared");
}

__attribute__((noinline)) static void two(void)
{
	SBT_MARKER_START("shared");             /* SITE: shared/two */
	sink++;
	SBT_MARKER_STOP("shared");
}

__attribute__((noinline)) static void three(void)
{
	SBT_MARKER_START("shared");             /* SITE: shared/three */
	sink++;
	SBT_MARKER_STOP("shared");
}

int main(void)
{
	for (int i = 0; i < 100; i++)
		one();
	for (int i = 0; i < 200; i++)
		two();
	for (int i = 0; i < 300; i++)
		three();
	return 0;
}
