/* many_names.c - 20,000 region names started from one call site, each
 * once (a name built per iteration). */
#include <sbtmark.h>
#include <stdio.h>

#define N 20000

static volatile int sink;
static char name[N][16];

int main(void)
{
	for (int i = 0; i < N; i++) {
		snprintf(name[i], sizeof name[i], "r%d", i);
		SBT_MARKER_START(name[i]);      /* SITE: many_names */
		sink++;
		SBT_MARKER_STOP(name[i]);
	}
	return 0;
}
