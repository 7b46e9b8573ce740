/*
 * speed_app.c - regions for the speed-probe tests (tests/speed).
 * Usage: speed_app MODE N
 *   lone      "lone": N calls of a constant region, alone in its thread
 *             (argument 3: its work, 200 by default)
 *   nested    N calls of "outer", constant work around 4 calls of "inner"
 *   attr      20,000 "constant" calls, N "touch" calls each writing one
 *             fresh page, 200 "sleep" calls of 50 us each
 *   faults    N calls of "touch", each writing one fresh page, back to
 *             back (a burst of N faults), then 100 calls of "after"
 *   inside    one "burst" region touching N fresh pages (no marker call
 *             to drain at), then 1000 calls of "after"
 *   omp       4 threads, each N calls of "work" (OpenMP-like fan-out)
 * A first "warm" pair opens the log (and calibrates) before the clock
 * starts; then prints the calling thread's CPU time over the rest, in ns
 * (the probes' cadence runs while the thread marks).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <sbtmark.h>

static unsigned long spin(unsigned long x, int n)
{
	for (int i = 0; i < n; i++) {
		x = x * 6364136223846793005ul + 1;
		__asm__ __volatile__("" : "+r"(x));
	}
	return x;
}

/* A store no sanitizer checks (see tests/os/os_app.c). */
__attribute__((no_sanitize("address"), noinline))
static void touch(char *p)
{
	*(volatile char *)p = 1;
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static char *fresh_pages(long n)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)(n * pg), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		exit(1);
	madvise(p, (size_t)(n * pg), MADV_NOHUGEPAGE);
	return p;
}

static long g_n;

static void *omp_worker(void *arg)
{
	unsigned long x = (unsigned long)arg;
	for (long i = 0; i < g_n; i++) {
		SBT_MARKER_START("work");
		x = spin(x, 300);
		SBT_MARKER_STOP("work");
	}
	return (void *)x;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? atol(argv[2]) : 0;
	long pg = sysconf(_SC_PAGESIZE);
	unsigned long x = 1;
	double t0;

	if (n <= 0) {
		fprintf(stderr, "usage: speed_app lone|nested|attr|faults|inside|omp"
			" N\n");
		return 2;
	}
	SBT_MARKER_START("warm");
	SBT_MARKER_STOP("warm");
	t0 = now_ns();
	if (!strcmp(mode, "lone")) {
		int work = argc > 3 ? atoi(argv[3]) : 200;
		for (long i = 0; i < n; i++) {
			SBT_MARKER_START("lone");
			x = spin(x, work);
			SBT_MARKER_STOP("lone");
		}
	} else if (!strcmp(mode, "nested")) {
		for (long i = 0; i < n; i++) {
			SBT_MARKER_START("outer");
			x = spin(x, 100);
			for (int k = 0; k < 4; k++) {
				SBT_MARKER_START("inner");
				x = spin(x, 100);
				SBT_MARKER_STOP("inner");
			}
			SBT_MARKER_STOP("outer");
		}
	} else if (!strcmp(mode, "attr")) {
		struct timespec ts = { 0, 50000 };
		char *p = fresh_pages(n);
		for (long i = 0; i < 20000; i++) {
			SBT_MARKER_START("constant");
			x = spin(x, 200);
			SBT_MARKER_STOP("constant");
		}
		for (long i = 0; i < n; i++) {
			SBT_MARKER_START("touch");
			touch(p + i * pg);
			SBT_MARKER_STOP("touch");
		}
		for (long i = 0; i < 200; i++) {
			SBT_MARKER_START("sleep");
			nanosleep(&ts, NULL);
			SBT_MARKER_STOP("sleep");
		}
	} else if (!strcmp(mode, "faults")) {
		char *p = fresh_pages(n);
		for (long i = 0; i < n; i++) {
			SBT_MARKER_START("touch");
			touch(p + i * pg);
			SBT_MARKER_STOP("touch");
		}
		for (long i = 0; i < 100; i++) {
			SBT_MARKER_START("after");
			x = spin(x, 200);
			SBT_MARKER_STOP("after");
		}
	} else if (!strcmp(mode, "inside")) {
		char *p = fresh_pages(n);
		SBT_MARKER_START("burst");
		for (long i = 0; i < n; i++)
			touch(p + i * pg);
		SBT_MARKER_STOP("burst");
		for (long i = 0; i < 1000; i++) {
			SBT_MARKER_START("after");
			x = spin(x, 200);
			SBT_MARKER_STOP("after");
		}
	} else if (!strcmp(mode, "omp")) {
		pthread_t th[4];
		g_n = n;
		for (long i = 0; i < 4; i++)
			if (pthread_create(&th[i], NULL, omp_worker,
					   (void *)(i + 1)) != 0)
				return 1;
		for (int i = 0; i < 4; i++)
			pthread_join(th[i], NULL);
	} else {
		return 2;
	}
	printf("%.0f\n", now_ns() - t0);
	return (int)(x & 0);
}
