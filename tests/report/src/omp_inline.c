/* omp_inline.c - markers inlined from sbtmark.h inside an OpenMP loop and
 * inside a static inline helper. */
#include <sbtmark.h>
#include <stdio.h>

static volatile double sink;

static inline void helper(int i)
{
	SBT_MARKER_START("in_helper");          /* SITE: in_helper */
	sink += i * 0.5;
	SBT_MARKER_STOP("in_helper");
}

int main(void)
{
#pragma omp parallel for
	for (int i = 0; i < 400; i++) {
		SBT_MARKER_START("in_omp");     /* SITE: in_omp */
		sink += i;
		SBT_MARKER_STOP("in_omp");
	}
	for (int i = 0; i < 300; i++)
		helper(i);
	return 0;
}
