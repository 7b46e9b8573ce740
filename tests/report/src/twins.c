/* twins.c - one region started from two call sites on one source line
 * (two functions a macro defines there), 100 and 200 times: rows by site
 * that would read the same file:line. */
#include <sbtmark.h>

static volatile int sink;

#define SITE(f)                                                           \
	__attribute__((noinline)) static void f(void)                     \
	{                                                                 \
		SBT_MARKER_START("twin");                                 \
		sink++;                                                   \
		SBT_MARKER_STOP("twin");                                  \
	}

SITE(one) SITE(two)                            /* SITE: twin */

int main(void)
{
	for (int i = 0; i < 100; i++)
		one();
	for (int i = 0; i < 200; i++)
		two();
	return 0;
}
