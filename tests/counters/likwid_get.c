/*
 * likwid_get.c - LIKWID_MARKER_GET under SBT_EVENTS: a LIKWID region
 * touching one fresh page per call, then likwid_markerGetRegion.
 * Usage: likwid_get N   prints "count NEV EV0 EV1 ..." of region "touch".
 */
#include <likwid.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* A store no sanitizer checks (see tests/os/os_app.c). */
__attribute__((no_sanitize("address"), noinline))
static void touch(char *p)
{
	*(volatile char *)p = 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0, pg = sysconf(_SC_PAGESIZE);
	double ev[8] = { 0 }, t = -1;
	int nev = 8, count = -1;
	char *p;

	if (n <= 0)
		return 2;
	p = mmap(NULL, (size_t)(n * pg), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	madvise(p, (size_t)(n * pg), MADV_NOHUGEPAGE);
	likwid_markerInit();
	for (long i = 0; i < n; i++) {
		likwid_markerStartRegion("touch");
		touch(p + i * pg);
		likwid_markerStopRegion("touch");
	}
	likwid_markerGetRegion("touch", &nev, ev, &t, &count);
	printf("%d %d", count, nev);
	for (int i = 0; i < nev && i < 8; i++)
		printf(" %.0f", ev[i]);
	printf("\n");
	likwid_markerClose();
	return 0;
}
