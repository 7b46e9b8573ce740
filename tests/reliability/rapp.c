/*
 * rapp.c - the reliability suite's marked test app: one binary, one mode
 * per property.  Every mode marks a known number of regions, so the driver
 * (test_rel.c) can demand exact counts from the log.
 *
 *   rapp crash kill|segv|abort|exit T K   T threads x K "work"; then each
 *                                         thread and main open "inflight",
 *                                         main prints "ready" and dies
 *   rapp stream T FILE [N]                T threads mark "s" forever (N
 *                                         times, then wait); after each
 *                                         STOP, count it in FILE (a shared
 *                                         uint64_t per thread)
 *   rapp forkprep K                       K "pre"; fork; child: K "child";
 *                                         each prints "parent|child
 *                                         preparer 0|1": whether a thread
 *                                         named sbt-prepare is its own
 *   rapp fork K                           K "pre", "span" open across fork;
 *                                         child: K "child"; parent: K "post"
 *   rapp forkthreads N                    2 threads mark "bg" while main
 *                                         forks N children (100 "c" each)
 *   rapp exec K                           K "pre", then exec "execd K"
 *   rapp execd K                          K "post"; prints leaked log fds
 *   rapp spawn K                          K "pre"; posix_spawn and vfork
 *                                         "child K"; K "post"
 *   rapp child K                          K "child"
 *   rapp threads T K                      T concurrent threads x K "t",
 *                                         each exits with "leftopen" open
 *   rapp short N B K                      N threads (B at a time) x K
 *   rapp bp T N                           T threads x N "bp" (back-pressure)
 *   rapp rate N                           N empty pairs, prints pairs/s
 *   rapp misuse                           every kind of misuse, counted
 *   rapp names N                          N distinct names, one pair each
 *   rapp sigmark N                        N "main" pairs under a 50 us timer
 *                                         whose handler marks "sig"
 *   rapp fdlist                           prints fds that look like logs
 *   rapp plain K                          K "p" pairs, nothing else
 *   rapp pause MS                         a "p" pair, MS ms asleep, another
 *   rapp nested N                         one thread: N x outer { inner }
 *                                         inside "run", open throughout
 *   rapp closerace T LOG                  T threads mark "cr" (inline and
 *                                         through the entry points) while
 *                                         main calls CLOSE; prints "same"
 *                                         when LOG's chunks do not change
 *                                         after CLOSE returned
 *   rapp sites K                          region "site" from three call
 *                                         sites: K, 2K, 3K pairs (inline,
 *                                         inline, function entry points)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <sbtmark.h>

extern char **environ;

static const char *self;

static void pairs(const char *name, long k)
{
	for (long i = 0; i < k; i++) {
		SBT_MARKER_START(name);
		SBT_MARKER_STOP(name);
	}
}

/* ---- crash -------------------------------------------------------------- */

static pthread_barrier_t bar;
static long crash_k;

static void *crash_thread(void *arg)
{
	(void)arg;
	pairs("work", crash_k);
	SBT_MARKER_START("inflight");
	pthread_barrier_wait(&bar);
	for (;;)
		pause();
	return NULL;
}

static int crash(const char *how, int nt, long k)
{
	pthread_t t;

	crash_k = k;
	pthread_barrier_init(&bar, NULL, (unsigned)nt + 1);
	for (int i = 0; i < nt; i++)
		pthread_create(&t, NULL, crash_thread, NULL);
	pairs("work", k);
	SBT_MARKER_START("inflight");
	pthread_barrier_wait(&bar);
	printf("ready\n");
	fflush(stdout);
	if (!strcmp(how, "segv")) {
		int *volatile bad = (int *)(uintptr_t)8;
		*bad = 1;               /* a real fault, not raise() */
	}
	else if (!strcmp(how, "abort"))
		abort();
	else if (!strcmp(how, "exit"))
		_exit(3);
	for (;;)                /* "kill": the driver sends SIGKILL */
		pause();
}

/* ---- stream: counts in a shared file, for SIGKILL at a random moment --- */

static volatile uint64_t *stream_count;
static long stream_n = -1;             /* samples a thread, -1: forever */

static void *stream_thread(void *arg)
{
	volatile uint64_t *c = &stream_count[(long)arg * 8];

	for (long i = 0; i != stream_n; i++) {
		SBT_MARKER_START("s");
		SBT_MARKER_STOP("s");
		/* After STOP returned: the log holds at least *c samples. */
		*c = *c + 1;
	}
	return NULL;
}

static int stream(int nt, const char *file, long n)
{
	int fd = open(file, O_RDWR);
	pthread_t t;

	if (fd < 0)
		return 2;
	stream_count = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
			    fd, 0);
	if (stream_count == MAP_FAILED)
		return 2;
	stream_n = n;
	for (long i = 0; i < nt; i++)
		pthread_create(&t, NULL, stream_thread, (void *)i);
	for (;;)
		pause();
}

/* ---- processes ------------------------------------------------------------ */

/* Whether this process has a thread named sbt-prepare (the recorder
 * names it as it makes it, at the log's opening). */
static int own_preparer(void)
{
	char path[300], comm[32];
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int found = 0;

	while (d && !found && (e = readdir(d))) {
		snprintf(path, sizeof path, "/proc/self/task/%s/comm",
			 e->d_name);
		FILE *f = fopen(path, "r");
		found = f && fgets(comm, sizeof comm, f) &&
			!strcmp(comm, "sbt-prepare\n");
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

static int forkprep(long k)
{
	pid_t pid;
	int st;

	pairs("pre", k);
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		pairs("child", k);
		printf("child preparer %d\n", own_preparer());
		return 0;
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0)
		return 3;
	printf("parent preparer %d\n", own_preparer());
	return 0;
}

static int do_fork(long k)
{
	pid_t pid;
	int st;

	pairs("pre", k);
	SBT_MARKER_START("span");
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		SBT_MARKER_STOP("span");
		pairs("child", k);
		exit(0);
	}
	printf("child %d\n", (int)pid);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0)
		return 3;
	SBT_MARKER_STOP("span");
	pairs("post", k);
	return 0;
}

static _Atomic int bg_stop;

static void *bg_thread(void *arg)
{
	(void)arg;
	while (!bg_stop)
		pairs("bg", 100);
	return NULL;
}

/* fork while other threads are inside markers: no deadlock in the child,
 * and the child's log holds the child's samples only. */
static int forkthreads(int n)
{
	pthread_t t[2];
	int st, bad = 0;

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, bg_thread, NULL);
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			pairs("c", 100);
			exit(0);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid ||
		    !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			bad++;
	}
	bg_stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return bad ? 3 : 0;
}

/* Print every open fd that looks like the recorder's. */
static int fdlist(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char p[64], target[4096];

	if (!d)
		return 2;
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);
		if (e->d_name[0] == '.' || fd == dirfd(d))
			continue;
		snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
		ssize_t n = readlink(p, target, sizeof target - 1);
		target[n > 0 ? n : 0] = 0;
		if (strstr(target, ".log") || strstr(target, ".tmp.") ||
		    strstr(target, "perf_event"))
			printf("leak %d %s\n", fd, target);
	}
	closedir(d);
	return 0;
}

static int do_exec(const char *k)
{
	pairs("pre", atol(k));
	execl(self, self, "execd", k, (char *)NULL);
	return 4;
}

/* The fds are listed before this image marks (and opens its own log). */
static int execd(long k)
{
	int rc = fdlist();

	pairs("post", k);
	return rc;
}

static int spawn(const char *k)
{
	char *argv[] = { (char *)self, "child", (char *)k, NULL };
	pid_t pid;
	int st;

	pairs("pre", atol(k));
	if (posix_spawn(&pid, self, NULL, NULL, argv, environ) != 0)
		return 3;
	printf("child %d\n", (int)pid);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0)
		return 3;
	pid = vfork();
	if (pid == 0) {
		execv(self, argv);
		_exit(127);
	}
	printf("child %d\n", (int)pid);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0)
		return 3;
	pairs("post", atol(k));
	return 0;
}

/* ---- one thread, nested --------------------------------------------------- */

/* N rounds of outer { inner } inside "run", open all along: its STOP
 * closes the log's first START, every speed probe is a detour of it. */
static int nested(long n)
{
	SBT_MARKER_START("run");
	for (long i = 0; i < n; i++) {
		SBT_MARKER_START("outer");
		SBT_MARKER_START("inner");
		SBT_MARKER_STOP("inner");
		SBT_MARKER_STOP("outer");
	}
	SBT_MARKER_STOP("run");
	return 0;
}

/* ---- threads --------------------------------------------------------------- */

static long thr_k;

static void *thr(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&bar);     /* all T alive at once */
	pairs("t", thr_k);
	SBT_MARKER_START("leftopen");   /* exits with a region open */
	return NULL;
}

static int threads(int nt, long k)
{
	pthread_t *t = calloc((size_t)nt, sizeof *t);

	thr_k = k;
	pthread_barrier_init(&bar, NULL, (unsigned)nt);
	SBT_MARKER_INIT;
	for (int i = 0; i < nt; i++)
		if (pthread_create(&t[i], NULL, thr, NULL) != 0)
			return 3;
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	SBT_MARKER_CLOSE;               /* after every thread exited */
	free(t);
	return 0;
}

static long short_k;

static void *short_thr(void *arg)
{
	(void)arg;
	pairs("short", short_k);
	return NULL;
}

static int short_threads(int n, int batch, long k)
{
	pthread_t t[256];

	short_k = k;
	if (batch > 256)
		return 2;
	SBT_MARKER_INIT;
	for (int done = 0; done < n; done += batch) {
		int m = n - done < batch ? n - done : batch;
		for (int i = 0; i < m; i++)
			if (pthread_create(&t[i], NULL, short_thr, NULL) != 0)
				return 3;
		for (int i = 0; i < m; i++)
			pthread_join(t[i], NULL);
	}
	SBT_MARKER_CLOSE;
	return 0;
}

/* ---- back-pressure and rate ------------------------------------------------ */

static long bp_n;

static void *bp_thr(void *arg)
{
	(void)arg;
	pairs("bp", bp_n);
	return NULL;
}

static int bp(int nt, long n)
{
	pthread_t t[64];

	bp_n = n;
	if (nt > 64)
		return 2;
	for (int i = 0; i < nt; i++)
		pthread_create(&t[i], NULL, bp_thr, NULL);
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static int rate(long n)
{
	struct timespec a, b;

	SBT_MARKER_INIT;
	pairs("warm", 100000);
	clock_gettime(CLOCK_MONOTONIC, &a);
	pairs("rate", n);
	clock_gettime(CLOCK_MONOTONIC, &b);
	double s = (double)(b.tv_sec - a.tv_sec) +
		   (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
	printf("rate: %ld samples in %.3f s = %.1f million samples/s "
	       "(%.1f ns per START+STOP)\n", n, s, (double)n / s / 1e6,
	       s * 1e9 / (double)n);
	SBT_MARKER_CLOSE;
	return 0;
}

/* ---- misuse ------------------------------------------------------------------ */

/* Expected counters are in test_rel.c (misuse_check); keep them in step. */
static int misuse(void)
{
	char name[16];
	char *huge = malloc((1u << 20) + 1);

	if (!huge)
		return 2;
	memset(huge, 'h', 1u << 20);
	huge[1u << 20] = 0;

	SBT_MARKER_STOP("never");               /* before anything at all */
	pairs("early", 5);                      /* before INIT            */
	SBT_MARKER_INIT;
	pairs("good", 100);
	SBT_MARKER_STOP("never");
	SBT_MARKER_STOP("never");               /* STOP w/o START: 3      */
	pairs("good", 100);
	SBT_MARKER_START("dup");
	SBT_MARKER_START("dup");
	SBT_MARKER_START("dup");                /* START of open: 2       */
	SBT_MARKER_STOP("dup");                 /* dup: 1 sample          */
	pairs("good", 100);
	for (int i = 0; i < 3; i++) {           /* crossed: 3             */
		SBT_MARKER_START("x");
		SBT_MARKER_START("y");
		SBT_MARKER_STOP("x");
		SBT_MARKER_STOP("y");
	}
	pairs("good", 100);
	SBT_MARKER_START(NULL);                 /* bad names: 6           */
	SBT_MARKER_STOP(NULL);
	SBT_MARKER_START("");
	SBT_MARKER_STOP("");
	SBT_MARKER_START(huge);
	SBT_MARKER_STOP(huge);
	pairs("good", 100);
	for (int i = 0; i < 70; i++) {          /* too deep: 6            */
		snprintf(name, sizeof name, "d%d", i);
		SBT_MARKER_START(name);
	}
	for (int i = 69; i >= 0; i--) {         /* + 6 STOP w/o START     */
		snprintf(name, sizeof name, "d%d", i);
		SBT_MARKER_STOP(name);
	}
	pairs("good", 100);
	SBT_MARKER_CLOSE;
	pairs("late", 3);                       /* after CLOSE: 6         */
	free(huge);
	return 0;
}

static int names(long n)
{
	char name[32];

	for (long i = 0; i < n; i++) {
		snprintf(name, sizeof name, "n%06ld", i);
		SBT_MARKER_START(name);
		SBT_MARKER_STOP(name);
	}
	return 0;
}

/* ---- markers from a signal handler ------------------------------------------ */

static volatile sig_atomic_t handled;

static void on_alarm(int sig)
{
	(void)sig;
	handled++;
	SBT_MARKER_START("sig");
	SBT_MARKER_STOP("sig");
}

static int sigmark(long n)
{
	struct sigaction sa = { .sa_handler = on_alarm,
				.sa_flags = SA_RESTART };
	struct itimerval it = { { 0, 50 }, { 0, 50 } };

	sigemptyset(&sa.sa_mask);
	SBT_MARKER_INIT;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	pairs("main", n);
	memset(&it, 0, sizeof it);
	setitimer(ITIMER_REAL, &it, NULL);
	printf("handled %ld\n", (long)handled);
	SBT_MARKER_CLOSE;
	return 0;
}

/* ---- call sites ------------------------------------------------------------ */

static int sites(long k)
{
	for (long i = 0; i < k; i++) {
		SBT_MARKER_START("site");
		SBT_MARKER_STOP("site");
	}
	for (long i = 0; i < 2 * k; i++) {
		SBT_MARKER_START("site");
		SBT_MARKER_STOP("site");
	}
	for (long i = 0; i < 3 * k && sbt_marker_start; i++) {
		sbt_marker_start("site");
		sbt_marker_stop("site");
	}
	return 0;
}

/* ---- CLOSE while threads mark -------------------------------------------- */

static atomic_int cr_stop;
static atomic_int cr_marked;    /* threads past their first round */

static void *cr_thr(void *arg)
{
	int first = 1;

	(void)arg;
	pthread_barrier_wait(&bar);
	while (!atomic_load_explicit(&cr_stop, memory_order_relaxed)) {
		SBT_MARKER_START("cr");
		SBT_MARKER_STOP("cr");
		if (sbt_marker_start) {
			sbt_marker_start("cr2");
			sbt_marker_stop("cr2");
		}
		if (first)
			atomic_fetch_add(&cr_marked, 1), first = 0;
	}
	return NULL;
}

/* The log's bytes past its header (whose counters stay live). */
static char *cr_snap(const char *log, size_t *n)
{
	FILE *f = fopen(log, "rb");
	char *b = NULL;
	long len;

	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 4096 ||
	    fseek(f, 4096, SEEK_SET) || !(b = malloc((size_t)len - 4096)) ||
	    fread(b, 1, (size_t)len - 4096, f) != (size_t)len - 4096) {
		free(b);
		b = NULL;
	}
	*n = b ? (size_t)len - 4096 : 0;
	if (f)
		fclose(f);
	return b;
}

/* a and b alike, but for a START event's clock value and TSC_AUX: a
 * START stores them after its clock read, past the gate CLOSE waits on,
 * so a thread stalled there can write them after CLOSE returned.  That
 * START is the thread's last event and has no STOP (its fast path is
 * shut): the reader drops it. */
static int cr_same(const char *a, const char *b, size_t n)
{
	for (size_t r = 0; r + 16 <= n; r += 16) {      /* events: 16-aligned */
		uint32_t wa, wb;
		if (!memcmp(a + r, b + r, 16))
			continue;
		memcpy(&wa, a + r + 8, 4), memcpy(&wb, b + r + 8, 4);
		if (wa != wb || wa >> 28 != 1)        /* SBT_EV_START */
			return 0;
	}
	return n % 16 == 0 || !memcmp(a + n - n % 16, b + n - n % 16, n % 16);
}

static int closerace(int nt, const char *log)
{
	pthread_t *t = calloc((size_t)nt, sizeof *t);
	struct timespec ms20 = { 0, 20000000 }, ms1 = { 0, 1000000 };
	size_t na, nb;
	char *a, *b;

	pthread_barrier_init(&bar, NULL, (unsigned)nt + 1);
	SBT_MARKER_INIT;
	for (int i = 0; i < nt; i++)
		if (pthread_create(&t[i], NULL, cr_thr, NULL) != 0)
			return 3;
	pthread_barrier_wait(&bar);
	/* CLOSE lands while every thread marks, however slow the machine
	 * (the log's opening, a loaded host): each has a round done first */
	while (atomic_load(&cr_marked) < nt)
		nanosleep(&ms1, NULL);
	nanosleep(&ms20, NULL);
	SBT_MARKER_CLOSE;
	a = cr_snap(log, &na);
	nanosleep(&ms20, NULL);         /* they go on marking, refused */
	b = cr_snap(log, &nb);
	atomic_store(&cr_stop, 1);
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	if (!a || !b)
		printf("unreadable\n");
	else if (na != nb || !cr_same(a, b, na))
		printf("changed after CLOSE\n");
	else
		printf("same\n");
	free(a), free(b), free(t);
	return 0;
}

/* ---------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
#define ARG(i) (argc > (i) ? atol(argv[i]) : 0)

	self = argv[0];
	if (!strcmp(m, "crash") && argc == 5)
		return crash(argv[2], (int)ARG(3), ARG(4));
	if (!strcmp(m, "stream") && (argc == 4 || argc == 5))
		return stream((int)ARG(2), argv[3], argc == 5 ? ARG(4) : -1);
	if (!strcmp(m, "fork"))
		return do_fork(ARG(2));
	if (!strcmp(m, "forkprep"))
		return forkprep(ARG(2));
	if (!strcmp(m, "forkthreads"))
		return forkthreads((int)ARG(2));
	if (!strcmp(m, "exec") && argc == 3)
		return do_exec(argv[2]);
	if (!strcmp(m, "execd"))
		return execd(ARG(2));
	if (!strcmp(m, "spawn") && argc == 3)
		return spawn(argv[2]);
	if (!strcmp(m, "child")) {
		pairs("child", ARG(2));
		return 0;
	}
	if (!strcmp(m, "threads"))
		return threads((int)ARG(2), ARG(3));
	if (!strcmp(m, "short"))
		return short_threads((int)ARG(2), (int)ARG(3), ARG(4));
	if (!strcmp(m, "bp"))
		return bp((int)ARG(2), ARG(3));
	if (!strcmp(m, "rate"))
		return rate(ARG(2));
	if (!strcmp(m, "misuse"))
		return misuse();
	if (!strcmp(m, "names"))
		return names(ARG(2));
	if (!strcmp(m, "sigmark"))
		return sigmark(ARG(2));
	if (!strcmp(m, "fdlist"))
		return fdlist();
	if (!strcmp(m, "sites"))
		return sites(ARG(2));
	if (!strcmp(m, "closerace") && argc == 4)
		return closerace((int)ARG(2), argv[3]);
	if (!strcmp(m, "nested"))
		return nested(ARG(2));
	if (!strcmp(m, "plain")) {
		pairs("p", ARG(2));
		return 0;
	}
	if (!strcmp(m, "pause")) {
		long ms = ARG(2);
		struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };
		pairs("p", 1);
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
		pairs("p", 1);
		return 0;
	}
	fprintf(stderr, "rapp: unknown mode '%s'\n", m);
	return 2;
}
