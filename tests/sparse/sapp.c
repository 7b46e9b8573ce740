/*
 * sapp.c - a sampled-recording workload.
 *
 *   sapp MODE N [KILLFILE]
 *
 * Modes:
 *   hot      N calls of region "hot" (an empty region), and N / 100 calls
 *            of region "cold" around every 100th
 *   bimodal  N calls of "bimodal": call i with i % 4 == 3 does 4x the work
 *            (sampled every 4th call, it would show one mode only)
 *   nest     "outer" around "inner" (N times), both named in SBT_SAMPLE
 *            or not, with misuse: a STOP without START each 1000th call
 *   threads  4 threads, N calls of "hot" each
 *   kill     "hot" calls forever, with a little work in each; after
 *            each STOP the number of calls completed goes into the
 *            8-byte file KILLFILE (a shared mapping, so it survives
 *            SIGKILL); prints "running" after N calls
 */
#include <sbtmark.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile uint64_t sink;

/* n dependent multiply-adds in registers: time proportional to n, with
 * no memory traffic to add modes of its own. */
static void work(unsigned n)
{
	uint64_t x = sink;

	for (unsigned i = 0; i < n; i++) {
		x = x * 3 + 1;
		__asm__ __volatile__("" : "+r"(x));
	}
	sink = x;
}

static void *hot_thread(void *arg)
{
	long n = *(const long *)arg;

	for (long i = 0; i < n; i++) {
		SBT_MARKER_START("hot");
		SBT_MARKER_STOP("hot");
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: sapp hot|bimodal|nest|kill N\n");
		return 2;
	}
	long n = atol(argv[2]);

	SBT_MARKER_INIT;
	if (!strcmp(argv[1], "hot")) {
		for (long i = 0; i < n; i++) {
			if (i % 100 == 0)
				SBT_MARKER_START("cold");
			SBT_MARKER_START("hot");
			SBT_MARKER_STOP("hot");
			if (i % 100 == 0)
				SBT_MARKER_STOP("cold");
		}
	} else if (!strcmp(argv[1], "threads")) {
		pthread_t th[4];
		for (int k = 0; k < 4; k++)
			if (pthread_create(&th[k], NULL, hot_thread, &n) != 0)
				return 1;
		for (int k = 0; k < 4; k++)
			pthread_join(th[k], NULL);
	} else if (!strcmp(argv[1], "bimodal")) {
		for (long i = 0; i < n; i++) {
			SBT_MARKER_START("bimodal");
			work(i % 4 == 3 ? 1200 : 300);
			SBT_MARKER_STOP("bimodal");
		}
	} else if (!strcmp(argv[1], "nest")) {
		for (long i = 0; i < n; i++) {
			SBT_MARKER_START("outer");
			SBT_MARKER_START("inner");
			work(10);
			SBT_MARKER_STOP("inner");
			if (i % 1000 == 0)
				SBT_MARKER_STOP("nowhere");
			SBT_MARKER_STOP("outer");
		}
	} else if (!strcmp(argv[1], "kill")) {
		int fd = argc > 3 ? open(argv[3], O_RDWR | O_CREAT, 0600) : -1;
		volatile uint64_t *done;
		if (fd < 0 || ftruncate(fd, 4096) != 0 ||
		    (done = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				 MAP_SHARED, fd, 0)) == MAP_FAILED) {
			perror("sapp: KILLFILE");
			return 1;
		}
		for (long i = 0; ; i++) {
			SBT_MARKER_START("hot");
			work(20);
			SBT_MARKER_STOP("hot");
			*done = (uint64_t)i + 1;
			if (i == n) {
				printf("running\n");
				fflush(stdout);
			}
		}
	}
	SBT_MARKER_CLOSE;
	return 0;
}
