/*
 * fast_sleep.c - sleep(s) that sleeps s milliseconds.
 *
 * LIKWID's shipped examples sleep 2 s per region (20 s for the C one).
 * Linked into the example binaries, this definition takes precedence over
 * libc's (also for libgfortran's SLEEP), so the examples run unchanged in
 * a few tens of milliseconds.  Region counts do not depend on it.
 */
#include <time.h>
#include <unistd.h>

unsigned int sleep(unsigned int seconds)
{
	struct timespec ts = { 0, (long)seconds * 1000000L };
	nanosleep(&ts, NULL);
	return 0;
}
