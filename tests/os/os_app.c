/*
 * os_app.c - regions whose OS interruptions are known in advance.
 * Usage: os_app MODE N
 *   sleep     "sleep": 50 us nanosleep per call (>= 1 voluntary switch)
 *   pages     "touch": one fresh page per call (exactly 1 fault);
 *             "still": reads an already mapped page (no fault)
 *   constant  "constant": the same dependent adds every call
 *   threads   N short threads, one "t" region each; prints the
 *             process's open fds before and after
 *   fork      "parent" and, in a fork child, "child" regions
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <sbtmark.h>

/* already mapped when "still" touches it: no fault */
static volatile char still[1 << 12];

static unsigned long spin(unsigned long x, int n)
{
	for (int i = 0; i < n; i++) {
		x = x * 6364136223846793005ul + 1;
		__asm__ __volatile__("" : "+r"(x));
	}
	return x;
}

/* A store no sanitizer checks: under ASan a checked store first reads
 * the shadow memory, whose first read faults a page per 8 of ours. */
__attribute__((no_sanitize("address"), noinline))
static void touch(char *p)
{
	*(volatile char *)p = 1;
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void *short_thread(void *arg)
{
	SBT_MARKER_START("t");
	arg = (void *)spin((unsigned long)arg, 10);
	SBT_MARKER_STOP("t");
	return arg;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? atol(argv[2]) : 0;
	long pg = sysconf(_SC_PAGESIZE);
	unsigned long x = 1;

	if (n <= 0) {
		fprintf(stderr, "usage: os_app sleep|pages|constant|threads|"
			"fork N\n");
		return 2;
	}
	if (!strcmp(mode, "sleep")) {
		struct timespec ts = { 0, 50000 };
		for (long i = 0; i < n; i++) {
			SBT_MARKER_START("sleep");
			nanosleep(&ts, NULL);
			SBT_MARKER_STOP("sleep");
		}
	} else if (!strcmp(mode, "pages")) {
		/* Fresh anonymous pages: the first write to each faults. */
		char *p = mmap(NULL, (size_t)(n * pg), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 1;
		/* a huge page would take one fault for 512 touches */
		madvise(p, (size_t)(n * pg), MADV_NOHUGEPAGE);
		still[0] = 1;
		for (long i = 0; i < n; i++) {
			SBT_MARKER_START("touch");
			touch(p + i * pg);
			SBT_MARKER_STOP("touch");
			SBT_MARKER_START("still");
			still[i & 4095] = (char)i;
			SBT_MARKER_STOP("still");
		}
	} else if (!strcmp(mode, "constant")) {
		for (long i = 0; i < n; i++) {
			SBT_MARKER_START("constant");
			x = spin(x, 2000);
			SBT_MARKER_STOP("constant");
		}
	} else if (!strcmp(mode, "threads")) {
		int before;
		pthread_t th;
		/* the main thread's own events first, then the baseline */
		SBT_MARKER_START("main");
		SBT_MARKER_STOP("main");
		before = open_fds();
		for (long i = 0; i < n; i++) {
			if (pthread_create(&th, NULL, short_thread,
					   (void *)(size_t)i) != 0 ||
			    pthread_join(th, NULL) != 0)
				return 1;
		}
		printf("fds %d %d\n", before, open_fds());
	} else if (!strcmp(mode, "fork")) {
		struct timespec ts = { 0, 50000 };
		pid_t pid;
		SBT_MARKER_START("parent");
		nanosleep(&ts, NULL);
		SBT_MARKER_STOP("parent");
		pid = fork();
		if (pid == 0) {
			for (long i = 0; i < n; i++) {
				SBT_MARKER_START("child");
				nanosleep(&ts, NULL);
				SBT_MARKER_STOP("child");
			}
			exit(0);
		}
		waitpid(pid, NULL, 0);
	} else {
		return 2;
	}
	return (int)(x & 0);
}
