/*
 * region_app.c - regions whose behaviour is known in advance, for the
 * tests that run a real program under the recorder: the kernel's record
 * (tests/os, counters, summary, trace) and the speed probes
 * (tests/speed).
 *
 * Usage: region_app MODE N [WORK]
 * The kernel's record:
 *   sleep     "sleep": 50 us nanosleep per call (>= 1 voluntary switch)
 *   pages     "touch": one fresh page per call (exactly 1 fault);
 *             "still": reads an already mapped page (no fault)
 *   constant  "constant": the same dependent adds every call
 *   threads   N short threads, one "t" region each; prints the
 *             process's open fds before and after
 *   fork      "parent" and, in a fork child, "child" regions
 *   own       one "own" pair, then prints "own PRESENT TOTAL": pages of
 *             the recorder's file mappings in the page table, of all
 * Timed (a first "warm" pair opens the log and calibrates before the
 * clock starts; then prints the calling thread's CPU time over the rest,
 * in ns: the probes' cadence runs while the thread marks):
 *   lone      "lone": N calls of a constant region, alone in its thread
 *             (WORK: its work, 200 by default)
 *   nested    N calls of "outer", constant work around 4 calls of "inner"
 *   attr      20,000 "constant" calls, N "touch" calls each writing one
 *             fresh page, 200 "sleep" calls of 50 us each
 *   faults    N calls of "touch", each writing one fresh page, back to
 *             back (a burst of N faults), then 100 calls of "after"
 *   inside    one "burst" region touching N fresh pages (no marker call
 *             to drain at), then 1000 calls of "after"
 *   omp       4 threads, each N calls of "work" (OpenMP-like fan-out)
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
static long pg;

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

/* n fresh anonymous pages: the first write to each faults (no huge
 * page, which would take one fault for 512 touches). */
static char *fresh_pages(long n)
{
	char *p = mmap(NULL, (size_t)(n * pg), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		exit(1);
	madvise(p, (size_t)(n * pg), MADV_NOHUGEPAGE);
	return p;
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
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

/* n calls of "sleep", 50 us each. */
static void sleeps(long n)
{
	struct timespec ts = { 0, 50000 };

	for (long i = 0; i < n; i++) {
		SBT_MARKER_START("sleep");
		nanosleep(&ts, NULL);
		SBT_MARKER_STOP("sleep");
	}
}

/* n calls of "touch", each writing one of the fresh pages p. */
static void touches(char *p, long n)
{
	for (long i = 0; i < n; i++) {
		SBT_MARKER_START("touch");
		touch(p + i * pg);
		SBT_MARKER_STOP("touch");
	}
}

/* n calls of "constant", the same `work` dependent adds each. */
static unsigned long constants(long n, int work)
{
	unsigned long x = 1;

	for (long i = 0; i < n; i++) {
		SBT_MARKER_START("constant");
		x = spin(x, work);
		SBT_MARKER_STOP("constant");
	}
	return x;
}

/* ---- the kernel's record ------------------------------------------------ */

static int sleep_mode(long n, int work)
{
	(void)work;
	sleeps(n);
	return 0;
}

static int pages_mode(long n, int work)
{
	char *p = fresh_pages(n);

	(void)work;
	still[0] = 1;
	for (long i = 0; i < n; i++) {
		SBT_MARKER_START("touch");
		touch(p + i * pg);
		SBT_MARKER_STOP("touch");
		SBT_MARKER_START("still");
		still[i & 4095] = (char)i;
		SBT_MARKER_STOP("still");
	}
	return 0;
}

static int constant_mode(long n, int work)
{
	(void)work;
	return (int)(constants(n, 2000) & 0);
}

static int threads_mode(long n, int work)
{
	int before;
	pthread_t th;

	(void)work;
	/* the main thread's own events first, then the baseline */
	SBT_MARKER_START("main");
	SBT_MARKER_STOP("main");
	before = open_fds();
	for (long i = 0; i < n; i++)
		if (pthread_create(&th, NULL, short_thread,
				   (void *)(size_t)i) != 0 ||
		    pthread_join(th, NULL) != 0)
			return 1;
	printf("fds %d %d\n", before, open_fds());
	return 0;
}

static int fork_mode(long n, int work)
{
	struct timespec ts = { 0, 50000 };
	pid_t pid;

	(void)work;
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
	return 0;
}

/* ---- timed: the speed probes' tests -------------------------------------- */

static int lone_mode(long n, int work)
{
	unsigned long x = 1;

	for (long i = 0; i < n; i++) {
		SBT_MARKER_START("lone");
		x = spin(x, work);
		SBT_MARKER_STOP("lone");
	}
	return (int)(x & 0);
}

static int nested_mode(long n, int work)
{
	unsigned long x = 1;

	(void)work;
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
	return (int)(x & 0);
}

static int attr_mode(long n, int work)
{
	char *p = fresh_pages(n);
	unsigned long x = constants(20000, 200);

	(void)work;
	touches(p, n);
	sleeps(200);
	return (int)(x & 0);
}

/* n calls of "after", 200 adds each. */
static unsigned long after(long n, unsigned long x)
{
	for (long i = 0; i < n; i++) {
		SBT_MARKER_START("after");
		x = spin(x, 200);
		SBT_MARKER_STOP("after");
	}
	return x;
}

static int faults_mode(long n, int work)
{
	(void)work;
	touches(fresh_pages(n), n);
	return (int)(after(100, 1) & 0);
}

static int inside_mode(long n, int work)
{
	char *p = fresh_pages(n);

	(void)work;
	SBT_MARKER_START("burst");
	for (long i = 0; i < n; i++)
		touch(p + i * pg);
	SBT_MARKER_STOP("burst");
	return (int)(after(1000, 1) & 0);
}

static int omp_mode(long n, int work)
{
	pthread_t th[4];

	(void)work;
	g_n = n;
	for (long i = 0; i < 4; i++)
		if (pthread_create(&th[i], NULL, omp_worker,
				   (void *)(i + 1)) != 0)
			return 1;
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	return 0;
}

/* After one pair (the log opened): how many pages of the recorder's
 * file-backed mappings (/proc/self/maps lines naming libsbtmark) are in
 * the page table (/proc/self/pagemap bit 63), of how many. */
static int own_mode(long n, int work)
{
	char line[4096];
	unsigned long present = 0, total = 0;
	FILE *maps = fopen("/proc/self/maps", "r");
	FILE *pm = fopen("/proc/self/pagemap", "rb");

	(void)n, (void)work;
	SBT_MARKER_START("own");
	SBT_MARKER_STOP("own");
	if (!maps || !pm)
		return 1;
	while (fgets(line, sizeof line, maps)) {
		unsigned long a, b;
		if (!strstr(line, "libsbtmark") ||
		    sscanf(line, "%lx-%lx", &a, &b) != 2)
			continue;
		for (unsigned long p = a; p < b; p += (unsigned long)pg) {
			unsigned long long e = 0;
			if (fseek(pm, (long)(p / (unsigned long)pg * 8),
				  SEEK_SET) != 0 ||
			    fread(&e, sizeof e, 1, pm) != 1)
				return 1;
			present += e >> 63;
			total++;
		}
	}
	fclose(maps), fclose(pm);
	printf("own %lu %lu\n", present, total);
	return 0;
}

static const struct mode {
	const char *name;
	int (*run)(long n, int work);
	int timed;                     /* warm pair first, CPU time after */
} modes[] = {
	{ "sleep", sleep_mode, 0 },     { "pages", pages_mode, 0 },
	{ "constant", constant_mode, 0 }, { "threads", threads_mode, 0 },
	{ "fork", fork_mode, 0 },       { "own", own_mode, 0 },
	{ "lone", lone_mode, 1 },       { "nested", nested_mode, 1 },
	{ "attr", attr_mode, 1 },       { "faults", faults_mode, 1 },
	{ "inside", inside_mode, 1 },   { "omp", omp_mode, 1 },
};

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? atol(argv[2]) : 0;
	int work = argc > 3 ? atoi(argv[3]) : 200, rc;
	const struct mode *m = NULL;
	double t0;

	pg = sysconf(_SC_PAGESIZE);
	for (size_t i = 0; i < sizeof modes / sizeof *modes && !m; i++)
		if (!strcmp(name, modes[i].name))
			m = &modes[i];
	if (n <= 0 || !m) {
		fputs("usage: region_app MODE N [WORK], MODE one of", stderr);
		for (size_t i = 0; i < sizeof modes / sizeof *modes; i++)
			fprintf(stderr, " %s", modes[i].name);
		fputc('\n', stderr);
		return 2;
	}
	if (!m->timed)
		return m->run(n, work);
	SBT_MARKER_START("warm");
	SBT_MARKER_STOP("warm");
	t0 = now_ns();
	rc = m->run(n, work);
	printf("%.0f\n", now_ns() - t0);
	return rc;
}
