/*
 * stream.c - a memory-streaming co-runner: copies 256 MB back and forth
 * until killed.  The load that sets this VM's host slowdowns off; for
 * running the real-run tests under it by hand:
 *   taskset -c 1 build/tests/speed/stream & ... ; kill $!
 */
#include <stdlib.h>
#include <string.h>

int main(void)
{
	size_t n = 128u << 20;
	char *a = malloc(n), *b = malloc(n);

	if (!a || !b)
		return 1;
	memset(a, 1, n);
	memset(b, 2, n);
	for (;;) {
		memcpy(b, a, n);
		memcpy(a, b, n);
		__asm__ __volatile__("" ::: "memory");
	}
}
