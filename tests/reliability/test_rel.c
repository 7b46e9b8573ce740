/*
 * test_rel.c - nothing lost, nothing broken: the recorder under crashes,
 * fork/exec/spawn, many threads, back-pressure, misuse, hostile file
 * system states and bad environment values.
 *
 * Each subcommand is one meson test; it runs rapp (the marked test app)
 * with libsbtmark.so preloaded in a fresh directory and demands exact
 * sample counts and header counters from the logs it leaves.
 *
 * usage: test_rel TEST RAPP [RUNTIME]
 *   SBT_LIB and SBT_ANALYZE come from the env; RUNTIME (sanitizer builds:
 *   the ASan runtime) is preloaded before the recorder into programs that
 *   were not built with it (the shell test).
 * TEST: crash stream prepare fork forkthreads exec spawn shell threads short bp
 *       misuse names sigmark files ranks
 */
#include "../common/harness.h"
#include "reader.h"
#include "sbtlog.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

static const char *lib, *rapp, *analyze, *runtime;

/* ---- running the app ----------------------------------------------------- */

struct proc {
	pid_t pid;
	int status;
	char out[65536];        /* its stdout */
	char err[65536];        /* its stderr */
};

static void slurp(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	size_t k = f ? fread(buf, 1, n - 1, f) : 0;

	buf[k] = 0;
	if (f)
		fclose(f);
}

/* Start argv with the recorder preloaded (unless preload is NULL) and
 * env settings; stdout/stderr go to files in the working directory.
 * `prep` runs in the child right before exec. */
static pid_t start(const char *preload, char *const env[], char *const argv[],
		   void (*prep)(void))
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		struct rlimit no_core = { 0, 0 };
		setrlimit(RLIMIT_CORE, &no_core);
		if (preload)
			setenv("LD_PRELOAD", preload, 1);
		else
			unsetenv("LD_PRELOAD");
		for (int i = 0; env && env[i]; i++)
			putenv(env[i]);
		if (!freopen(".out", "w", stdout) ||
		    !freopen(".err", "w", stderr))
			_exit(126);
		if (prep)
			prep();
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* Wait for p->pid, at most `secs` seconds (then SIGKILL: a hang). */
static int finish(struct proc *p, int secs)
{
	for (int i = 0; i < secs * 100; i++) {
		pid_t r = waitpid(p->pid, &p->status, WNOHANG);
		if (r == p->pid)
			goto done;
		usleep(10000);
	}
	kill(p->pid, SIGKILL);
	waitpid(p->pid, &p->status, 0);
	slurp(".out", p->out, sizeof p->out);
	slurp(".err", p->err, sizeof p->err);
	return -1;
done:
	slurp(".out", p->out, sizeof p->out);
	slurp(".err", p->err, sizeof p->err);
	return 0;
}

static int run(struct proc *p, char *const env[], char *const argv[])
{
	p->pid = start(lib, env, argv, NULL);
	return finish(p, 120);
}

static int exited0(const struct proc *p)
{
	return WIFEXITED(p->status) && WEXITSTATUS(p->status) == 0;
}

/* A fresh subdirectory of the test's temporary directory. */
static void fresh(const char *name)
{
	static char top[PATH_MAX];

	if (!top[0] && !getcwd(top, sizeof top))
		exit(99);
	if (chdir(top) != 0 || (mkdir(name, 0777) != 0 && errno != EEXIST) ||
	    chdir(name) != 0) {
		perror(name);
		exit(99);
	}
}

static size_t nlogs(void)
{
	glob_t g;
	size_t n = 0;

	if (glob("*.log", 0, NULL, &g) == 0)
		n = g.gl_pathc;
	globfree(&g);
	return n;
}

static int exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

/* ---- reading logs ------------------------------------------------------------- */

struct log {
	struct sbt_dataset ds;
	int rc;
	char err[256];
};

static const struct sbt_source *src(const struct log *l)
{
	static const struct sbt_source none;
	return l->ds.nsources ? &l->ds.sources[0] : &none;
}

static int load(struct log *l, const char *path)
{
	memset(l, 0, sizeof *l);
	l->rc = sbt_read_log(path, &l->ds, l->err, sizeof l->err);
	return l->rc;
}

static void unload(struct log *l)
{
	sbt_ds_free(&l->ds);
}

/* Samples of region `name` (in-situ probes are not the app's samples). */
static long count(const struct log *l, const char *name)
{
	long n = 0;

	for (size_t i = 0; i < l->ds.n; i++) {
		const struct sbt_sample *s = &l->ds.s[i];
		if (!(s->flags & SBT_SF_PROBE) &&
		    !strcmp(l->ds.regions[s->region].name, name))
			n++;
	}
	return n;
}

static uint64_t counter(const struct log *l, enum sbt_counter c)
{
	return src(l)->counters[c];
}

/* Lines of `text` containing `what`. */
static int lines_with(const char *text, const char *what)
{
	int n = 0;

	for (const char *p = text; *p; ) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char *line = strndup(p, len);
		if (strstr(line, what))
			n++;
		free(line);
		p += len + (e != NULL);
	}
	return n;
}

/* Run sbt-analyze; returns its exit status, stderr in p->err. */
static int analyze_logs(struct proc *p, const char *a1, const char *a2,
			const char *a3)
{
	char *argv[] = { (char *)analyze, (char *)a1, (char *)a2, (char *)a3,
			 NULL };

	p->pid = start(NULL, NULL, argv, NULL);
	if (finish(p, 120) != 0 || !WIFEXITED(p->status))
		return -1;
	return WEXITSTATUS(p->status);
}

/* ---- 1. crash-safe ------------------------------------------------------------------- */

/* T threads and main complete K samples each, open one more, then the
 * process dies.  Every completed sample must be in the log. */
static void crash_one(const char *how, int sig)
{
	const int T = 3;
	const long K = 20000;
	char outenv[96], log[64], ks[16];
	struct proc p;

	fresh(how);
	snprintf(log, sizeof log, "crash-%s.log", how);
	snprintf(outenv, sizeof outenv, "SBT_OUTPUT=%s", log);
	snprintf(ks, sizeof ks, "%ld", K);
	/* Under ASan/TSan: the signal kills the app, as it would without. */
	char *env[] = { outenv, "ASAN_OPTIONS=detect_leaks=0:"
			"verify_asan_link_order=0:handle_segv=0:handle_abort=0",
			"TSAN_OPTIONS=handle_segv=0:handle_abort=0", NULL };
	char *argv[] = { (char *)rapp, "crash", (char *)how, "3", ks, NULL };

	p.pid = start(lib, env, argv, NULL);
	if (!strcmp(how, "kill")) {
		/* SIGKILL once the app says all K STOPs are done. */
		for (int i = 0; i < 6000; i++) {
			slurp(".out", p.out, sizeof p.out);
			if (strstr(p.out, "ready"))
				break;
			usleep(10000);
		}
		CHECK(strstr(p.out, "ready"), "kill: app never got ready");
		kill(p.pid, SIGKILL);
	}
	CHECK(finish(&p, 120) == 0, "%s: app hung", how);
	if (sig)
		CHECK(WIFSIGNALED(p.status) && WTERMSIG(p.status) == sig,
		      "%s: status %#x, want signal %d", how, p.status, sig);
	else
		CHECK(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 3,
		      "%s: status %#x, want exit 3", how, p.status);

	struct log l;
	load(&l, log);
	CHECK(l.rc == 1, "%s: reader returned %d (%s), want 1 (cut short)",
	      how, l.rc, l.err);
	CHECK(src(&l)->truncated, "%s: not reported as cut short", how);
	CHECK(count(&l, "work") == (T + 1) * K, "%s: %ld work samples, want "
	      "%ld", how, count(&l, "work"), (T + 1) * K);
	CHECK(count(&l, "inflight") == 0, "%s: in-flight samples recorded",
	      how);
	CHECK(counter(&l, SBT_CNT_THREADS) == (uint64_t)T + 1,
	      "%s: threads counter %llu", how,
	      (unsigned long long)counter(&l, SBT_CNT_THREADS));
	unload(&l);

	struct proc a;
	int rc = analyze_logs(&a, log, NULL, NULL);
	CHECK(rc == 1, "%s: sbt-analyze exited %d, want 1", how, rc);
	CHECK(lines_with(a.err, "cut short") == 1, "%s: sbt-analyze did not "
	      "say 'cut short' once: %s", how, a.err);
}

static void t_crash(void)
{
	crash_one("kill", SIGKILL);
	crash_one("segv", SIGSEGV);
	crash_one("abort", SIGABRT);
	crash_one("exit", 0);
}

/* SIGKILL at an arbitrary moment while 2 threads mark flat out: the log
 * holds every sample whose STOP returned, plus at most one per thread. */
static void t_stream(void)
{
	const int T = 2;
	volatile uint64_t *cnt;
	int fd;
	struct proc p;

	fresh("stream");
	fd = open("counts", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, 4096) != 0)
		exit(99);
	cnt = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	char *env[] = { "SBT_OUTPUT=stream.log", NULL };
	char *argv[] = { (char *)rapp, "stream", "2", "counts", NULL };
	p.pid = start(lib, env, argv, NULL);
	for (int i = 0; i < 3000; i++) {
		if (cnt[0] >= 300000 && cnt[8] >= 300000)
			break;
		usleep(10000);
	}
	kill(p.pid, SIGKILL);
	finish(&p, 60);
	uint64_t done = cnt[0] + cnt[8];
	CHECK(cnt[0] >= 300000 && cnt[8] >= 300000, "threads too slow: %llu "
	      "%llu", (unsigned long long)cnt[0], (unsigned long long)cnt[8]);

	struct log l;
	load(&l, "stream.log");
	long c = count(&l, "s");
	CHECK(l.rc == 1 && src(&l)->truncated, "stream: rc %d", l.rc);
	CHECK(c >= (long)done && c <= (long)done + T, "stream: %ld samples in"
	      " the log, %llu completed (allowed: up to %d more)", c,
	      (unsigned long long)done, T);
	printf("stream: %llu completed STOPs at SIGKILL, %ld in the log\n",
	       (unsigned long long)done, c);
	unload(&l);
	close(fd);
}

/* ---- readied pages (preload/services/prepare.h) ------------------------------------------ */

/* Pages of the log `path` that process pid has mapped beyond the log's
 * end (its header's end_offset) + `slack` bytes: only the preparer maps
 * pages ahead of the chunks taken (a chunk's taker faults in its own;
 * the page cache alone would not tell - the kernel's readahead fills it
 * ahead of any fault).  -1: cannot tell. */
static long mapped_beyond(pid_t pid, const char *path, uint64_t slack)
{
	struct sbt_file_header h;
	struct stat st;
	char maps[128], line[4096];
	unsigned long lo = 0, hi = 0, off, ino;
	long n = -1;
	int fd = open(path, O_RDONLY), pm;
	FILE *f;

	if (fd < 0 || fstat(fd, &st) != 0 ||
	    pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h)
		goto out;
	snprintf(maps, sizeof maps, "/proc/%d/maps", (int)pid);
	if (!(f = fopen(maps, "r")))
		goto out;
	/* by inode: the log was mapped under its temporary name */
	while (fgets(line, sizeof line, f)) {
		if (sscanf(line, "%lx-%lx %*s %lx %*s %lu", &lo, &hi, &off,
			   &ino) == 4 && ino == st.st_ino && off == 0)
			break;
		lo = hi = 0;
	}
	fclose(f);
	snprintf(maps, sizeof maps, "/proc/%d/pagemap", (int)pid);
	if (!hi || (pm = open(maps, O_RDONLY)) < 0)
		goto out;
	/* the file's pages only: the mapping reserves far more */
	uint64_t a = (h.end_offset + slack + 4095) & ~4095ull;
	uint64_t end = (uint64_t)st.st_size < hi - lo ?
		       (uint64_t)st.st_size : hi - lo;
	size_t np = a < end ? (size_t)((end - a) / 4096) : 0;
	uint64_t *e = malloc(np * 8 + 8);
	if (e && pread(pm, e, np * 8, (off_t)((lo + a) / 4096 * 8)) ==
	    (ssize_t)(np * 8)) {
		n = 0;
		for (size_t i = 0; i < np; i++)
			n += e[i] >> 63;        /* present */
	}
	free(e);
	close(pm);
out:
	if (fd >= 0)
		close(fd);
	return n;
}

/* The cpus the thread named `comm` of pid may run on, as a mask of the
 * first 64; 0 when there is no such thread. */
static uint64_t thread_cpus(pid_t pid, const char *comm)
{
	char path[128], buf[4096];
	uint64_t mask = 0;
	glob_t g;

	snprintf(path, sizeof path, "/proc/%d/task/*/comm", (int)pid);
	if (glob(path, 0, NULL, &g) != 0)
		return 0;
	for (size_t i = 0; i < g.gl_pathc && !mask; i++) {
		slurp(g.gl_pathv[i], buf, sizeof buf);
		if (strncmp(buf, comm, strlen(comm)) || buf[strlen(comm)] != '\n')
			continue;
		snprintf(path, sizeof path, "%.*sstatus",
			 (int)(strlen(g.gl_pathv[i]) - 4), g.gl_pathv[i]);
		slurp(path, buf, sizeof buf);
		const char *l = strstr(buf, "Cpus_allowed_list:");
		for (l = l ? l + 18 : ""; *l && *l != '\n';) {
			char *e;
			long a = strtol(l, &e, 10), b = a;
			if (e == l)
				break;
			if (*e == '-')
				b = strtol(e + 1, &e, 10);
			for (long c = a; c <= b && c < 64; c++)
				mask |= 1ull << c;
			l = *e == ',' ? e + 1 : e;
		}
		if (!mask)
			mask = ~0ull;   /* there, but its cpus unreadable */
	}
	globfree(&g);
	return mask;
}

static int pin_cpu = -1;

static void pin(void)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(pin_cpu, &one);
	if (sched_setaffinity(0, sizeof one, &one) != 0)
		_exit(125);
}

/* Two threads mark N samples each flat out (rapp stream), then wait,
 * under SBT_PREPARE=`mode`, pinned to cpu `cpu` (-1: not): the preparer
 * thread runs on `want` (a mask; 0: there is none), it has mapped pages
 * ahead of the chunks taken (with none, nothing is), and a SIGKILL then
 * leaves a log holding every sample.  The log stays under 40 MB (32 MB
 * of samples; the reserve caps what is readied ahead) and is removed. */
static void prepare_one(const char *mode, int cpu, uint64_t want)
{
	const int T = 2;
	const long N = 500000;
	volatile uint64_t *cnt;
	char env0[64], name[32], ns[16];
	long ahead = -1;
	uint64_t got = 0;
	struct proc p;
	int fd;

	snprintf(name, sizeof name, "prep-%s%d", mode, cpu);
	fresh(name);
	fd = open("counts", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, 4096) != 0)
		exit(99);
	cnt = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	snprintf(env0, sizeof env0, "SBT_PREPARE=%s", mode);
	snprintf(ns, sizeof ns, "%ld", N);
	char *env[] = { "SBT_OUTPUT=prep.log", "SBT_LOG_MAX_MB=40", env0,
			NULL };
	char *argv[] = { (char *)rapp, "stream", "2", "counts", ns, NULL };
	pin_cpu = cpu;
	p.pid = start(lib, env, argv, cpu >= 0 ? pin : NULL);
	/* Waits, not timings: each ends as soon as it is met (30 s at
	 * most).  The threads are done and wait, so what is mapped stays;
	 * the META chunks in flight lie within 4 MiB of the header's end. */
	for (int i = 0; i < 3000; i++) {
		got = thread_cpus(p.pid, "sbt-prepare");
		ahead = mapped_beyond(p.pid, "prep.log", 4u << 20);
		if (cnt[0] == (uint64_t)N && cnt[8] == (uint64_t)N &&
		    got == want && ahead >= 0 && (!want || ahead > 0))
			break;
		usleep(10000);
	}
	kill(p.pid, SIGKILL);
	finish(&p, 60);
	CHECK(cnt[0] == (uint64_t)N && cnt[8] == (uint64_t)N, "%s: threads "
	      "did not finish: %llu %llu", name, (unsigned long long)cnt[0],
	      (unsigned long long)cnt[8]);
	CHECK(got == want, "%s: preparer's cpus %#llx, want %#llx", name,
	      (unsigned long long)got, (unsigned long long)want);
	if (want)
		CHECK(ahead > 0, "%s: no page readied beyond the log's end "
		      "(%ld)", name, ahead);
	else
		CHECK(ahead == 0, "%s: %ld pages readied beyond the log's end "
		      "with no preparer", name, ahead);
	struct log l;
	load(&l, "prep.log");
	long c = count(&l, "s");
	CHECK(l.rc == 1 && src(&l)->truncated, "%s: rc %d", name, l.rc);
	CHECK(c == T * N, "%s: %ld samples in the log, want %ld", name, c,
	      T * N);
	unload(&l);
	close(fd);
	unlink("prep.log");             /* also when failed: 40 MB */
}

/* A fork child's log is readied by a preparer of its own (threads do
 * not cross fork): with SBT_PREPARE=`mode` both processes have one
 * (`want`) or neither, and both logs hold their samples. */
static void prepare_fork(const char *mode, int want)
{
	const long K = 1000;
	char env0[64], clog[64], line[64];
	struct proc p;
	pid_t cpid;

	fresh(mode[0] == 'o' ? "prepfork-off" : "prepfork");
	snprintf(env0, sizeof env0, "SBT_PREPARE=%s", mode);
	char *env[] = { "SBT_OUTPUT=f.log", env0, NULL };
	char *argv[] = { (char *)rapp, "forkprep", "1000", NULL };
	run(&p, env, argv);
	CHECK(exited0(&p), "forkprep %s: status %#x", mode, p.status);
	for (int i = 0; i < 2; i++) {
		snprintf(line, sizeof line, "%s preparer %d\n",
			 i ? "child" : "parent", want);
		CHECK(strstr(p.out, line), "forkprep %s: no '%.*s' in: %s",
		      mode, (int)strlen(line) - 1, line, p.out);
	}
	struct log l;
	load(&l, "f.log");
	CHECK(l.rc == 0 && count(&l, "pre") == K && count(&l, "child") == 0,
	      "forkprep %s: parent log rc %d pre %ld child %ld", mode, l.rc,
	      count(&l, "pre"), count(&l, "child"));
	unload(&l);
	/* the child's log is the numbered sibling (f.log is taken) */
	glob_t g;
	cpid = 0;
	if (glob("f.*.log", 0, NULL, &g) == 0 && g.gl_pathc == 1) {
		snprintf(clog, sizeof clog, "%s", g.gl_pathv[0]);
		cpid = 1;
	}
	globfree(&g);
	CHECK(cpid, "forkprep %s: no child log", mode);
	if (cpid) {
		load(&l, clog);
		CHECK(l.rc == 0 && count(&l, "child") == K &&
		      count(&l, "pre") == 0, "forkprep %s: child log rc %d "
		      "child %ld pre %ld", mode, l.rc, count(&l, "child"),
		      count(&l, "pre"));
		unload(&l);
	}
}

/* The first 64 cpus of a set, as a mask. */
static uint64_t mask_of(const cpu_set_t *set)
{
	uint64_t m = 0;

	for (int c = 0; c < 64; c++)
		if (CPU_ISSET(c, set))
			m |= 1ull << c;
	return m;
}

static void t_prepare(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t mine, all;
	cpu_set_t set, online;
	char list[16];

	/* ours, and every online cpu we may be given (a cpuset bounds
	 * what sched_setaffinity grants, the preparer's as ours) */
	if (sched_getaffinity(0, sizeof set, &set) != 0)
		exit(99);
	mine = mask_of(&set);
	CPU_ZERO(&online);
	for (long c = 0; c < n && c < CPU_SETSIZE; c++)
		CPU_SET((int)c, &online);
	if (sched_setaffinity(0, sizeof online, &online) != 0 ||
	    sched_getaffinity(0, sizeof online, &online) != 0 ||
	    sched_setaffinity(0, sizeof set, &set) != 0)
		exit(99);
	all = mask_of(&online);

	prepare_one("off", -1, 0);
	/* one cpu of ours: the preparer on all the others, or none */
	int last = 63 - __builtin_clzll(mine);
	prepare_one("auto", last, all & ~(1ull << last));
	/* several: where the process may run */
	if (__builtin_popcountll(mine) >= 2)
		prepare_one("auto", -1, mine);
	/* a list: there (our first cpu) */
	snprintf(list, sizeof list, "%d", __builtin_ctzll(mine));
	prepare_one(list, -1, mine & -mine);
	/* a fork child: a preparer of its own */
	prepare_fork(list, 1);
	prepare_fork("off", 0);
}

/* ---- 2. processes ------------------------------------------------------------------- */

/* Pids "child N" printed by the app. */
static int children(const char *out, pid_t *pids, int max)
{
	int n = 0;

	for (const char *p = out; (p = strstr(p, "child ")) && n < max; p++)
		pids[n++] = atoi(p + 6);
	return n;
}

static void fork_one(const char *pattern)
{
	const long K = 1000;
	char outenv[64], plog[64], clog[64];
	struct proc p;
	pid_t cpid = 0;

	fresh(strchr(pattern, '%') ? "fork-p" : "fork");
	snprintf(outenv, sizeof outenv, "SBT_OUTPUT=%s", pattern);
	char *env[] = { outenv, NULL };
	char *argv[] = { (char *)rapp, "fork", "1000", NULL };
	run(&p, env, argv);
	CHECK(exited0(&p), "fork %s: status %#x", pattern, p.status);
	children(p.out, &cpid, 1);
	if (strchr(pattern, '%')) {
		snprintf(plog, sizeof plog, "f-%d.log", (int)p.pid);
		snprintf(clog, sizeof clog, "f-%d.log", (int)cpid);
	} else {
		snprintf(plog, sizeof plog, "f.log");
		snprintf(clog, sizeof clog, "f.%d.log", (int)cpid);
	}
	CHECK(nlogs() == 2, "fork %s: %zu logs, want 2", pattern, nlogs());

	struct log l;
	load(&l, plog);
	CHECK(l.rc == 0, "fork %s: parent log %s: rc %d %s", pattern, plog,
	      l.rc, l.err);
	CHECK(src(&l)->pid == p.pid, "fork: parent log pid %d",
	      src(&l)->pid);
	CHECK(count(&l, "pre") == K && count(&l, "post") == K &&
	      count(&l, "span") == 1 && count(&l, "child") == 0,
	      "fork %s: parent log pre %ld post %ld span %ld child %ld",
	      pattern, count(&l, "pre"), count(&l, "post"),
	      count(&l, "span"), count(&l, "child"));
	unload(&l);
	load(&l, clog);
	CHECK(l.rc == 0, "fork %s: child log %s: rc %d %s", pattern, clog,
	      l.rc, l.err);
	CHECK(src(&l)->pid == cpid, "fork: child log pid %d, child %d",
	      src(&l)->pid, (int)cpid);
	CHECK(count(&l, "child") == K && count(&l, "span") == 1 &&
	      count(&l, "pre") == 0 && count(&l, "post") == 0,
	      "fork %s: child log child %ld span %ld pre %ld post %ld",
	      pattern, count(&l, "child"), count(&l, "span"),
	      count(&l, "pre"), count(&l, "post"));
	unload(&l);
}

static void t_fork(void)
{
	fork_one("f.log");
	fork_one("f-%p.log");
}

/* Forks while two other threads mark: no deadlock, and each child's log
 * holds only the child's own samples. */
static void t_forkthreads(void)
{
	struct proc p;
	glob_t g;

	fresh("forkthreads");
	/* the log capped: were a child to hang, the parent's two threads
	 * would mark on, 300 MB a second, until the timeout (seen: 50 GB
	 * and a full disk under ASan) */
	char *env[] = { "SBT_OUTPUT=ft-%p.log", "SBT_LOG_MAX_MB=64", NULL };
	char *argv[] = { (char *)rapp, "forkthreads", "8", NULL };
	p.pid = start(lib, env, argv, NULL);
	CHECK(finish(&p, 120) == 0, "forkthreads: hung (deadlock at fork?)");
	CHECK(exited0(&p), "forkthreads: status %#x", p.status);
	CHECK(nlogs() == 9, "forkthreads: %zu logs, want 9", nlogs());
	if (glob("ft-*.log", 0, NULL, &g) != 0)
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct log l;
		load(&l, g.gl_pathv[i]);
		CHECK(l.rc == 0, "%s: rc %d %s", g.gl_pathv[i], l.rc, l.err);
		if (src(&l)->pid == p.pid)
			CHECK(count(&l, "c") == 0 && count(&l, "bg") > 0,
			      "parent log: c %ld bg %ld", count(&l, "c"),
			      count(&l, "bg"));
		else
			CHECK(count(&l, "c") == 100 && count(&l, "bg") == 0,
			      "child log %s: c %ld bg %ld", g.gl_pathv[i],
			      count(&l, "c"), count(&l, "bg"));
		unload(&l);
	}
	globfree(&g);
}

/* exec: the new image (same pid) writes its own log; the old image's log
 * keeps its samples; no log fd survives the exec (close-on-exec). */
static void t_exec(void)
{
	struct proc p;
	char post[64];

	fresh("exec");
	char *env[] = { "SBT_OUTPUT=e.log", NULL };
	char *argv[] = { (char *)rapp, "exec", "1000", NULL };
	run(&p, env, argv);
	CHECK(exited0(&p), "exec: status %#x", p.status);
	CHECK(!strstr(p.out, "leak"), "exec: the recorder's fds survived "
	      "exec: %s", p.out);
	snprintf(post, sizeof post, "e.%d.log", (int)p.pid);
	CHECK(nlogs() == 2, "exec: %zu logs, want 2", nlogs());

	struct log l;
	load(&l, "e.log");
	CHECK(l.rc >= 0 && count(&l, "pre") == 1000 && count(&l, "post") == 0,
	      "exec: old image's log rc %d pre %ld post %ld", l.rc,
	      count(&l, "pre"), count(&l, "post"));
	if (l.rc == 1)
		printf("note: the log of an image replaced by exec reads as "
		       "'%s'\n", src(&l)->warning);
	unload(&l);
	load(&l, post);
	CHECK(l.rc == 0 && count(&l, "post") == 1000 && count(&l, "pre") == 0,
	      "exec: new image's log %s rc %d (%s) post %ld pre %ld", post,
	      l.rc, l.err, count(&l, "post"), count(&l, "pre"));
	unload(&l);
}

static void t_spawn(void)
{
	struct proc p;
	pid_t kid[2] = { 0, 0 };
	char name[64];

	fresh("spawn");
	char *env[] = { "SBT_OUTPUT=s-%p.log", NULL };
	char *argv[] = { (char *)rapp, "spawn", "500", NULL };
	run(&p, env, argv);
	CHECK(exited0(&p), "spawn: status %#x: %s", p.status, p.err);
	CHECK(children(p.out, kid, 2) == 2, "spawn: children: %s", p.out);
	CHECK(nlogs() == 3, "spawn: %zu logs, want 3", nlogs());

	struct log l;
	snprintf(name, sizeof name, "s-%d.log", (int)p.pid);
	load(&l, name);
	CHECK(l.rc == 0 && count(&l, "pre") == 500 && count(&l, "post") == 500
	      && count(&l, "child") == 0, "spawn: parent log rc %d pre %ld "
	      "post %ld child %ld", l.rc, count(&l, "pre"),
	      count(&l, "post"), count(&l, "child"));
	unload(&l);
	for (int i = 0; i < 2; i++) {
		snprintf(name, sizeof name, "s-%d.log", (int)kid[i]);
		load(&l, name);
		CHECK(l.rc == 0 && count(&l, "child") == 500 &&
		      count(&l, "pre") == 0, "spawn: %s child log %s rc %d "
		      "child %ld pre %ld", i ? "vfork" : "posix_spawn", name,
		      l.rc, count(&l, "child"), count(&l, "pre"));
		unload(&l);
	}
}

/* Tools run by a process with the preload inherited: same output, no
 * messages, no log (no marker, no log). */
static void t_shell(void)
{
	struct proc p;
	FILE *f;

	fresh("shell");
	f = fopen("in.txt", "w");
	fputs("hello\n", f);
	fclose(f);
	f = fopen("x.c", "w");
	fputs("int f(int x) { return x + 1; }\n", f);
	fclose(f);
	char *env[] = { "SBT_QUIET=0", NULL };
	char *argv[] = { "/bin/sh", "-c", "ls > ls.txt && cat in.txt && "
			 "cc -c -o x.o x.c && echo done", NULL };
	char both[2 * PATH_MAX + 2];
	snprintf(both, sizeof both, "%s%s%s", runtime ? runtime : "",
		 runtime ? ":" : "", lib);
	p.pid = start(both, env, argv, NULL);
	finish(&p, 120);
	CHECK(exited0(&p), "shell: status %#x: %s", p.status, p.err);
	CHECK(!strcmp(p.out, "hello\ndone\n"), "shell: stdout '%s'", p.out);
	CHECK(p.err[0] == 0, "shell: stderr '%s'", p.err);
	CHECK(nlogs() == 0, "shell: %zu logs written by unmarked tools",
	      nlogs());
	CHECK(exists("x.o"), "shell: the compiler did not work");
}

/* ---- 3. threads ----------------------------------------------------------------------- */

static void t_threads(void)
{
	struct proc p;

	fresh("threads");
	char *env[] = { "SBT_OUTPUT=t.log", NULL };
	char *argv[] = { (char *)rapp, "threads", "256", "1000", NULL };
	run(&p, env, argv);
	CHECK(exited0(&p), "threads: status %#x: %s", p.status, p.err);

	struct log l;
	load(&l, "t.log");
	CHECK(l.rc == 0, "threads: rc %d %s", l.rc, l.err);
	CHECK(count(&l, "t") == 256000, "threads: %ld samples, want 256000",
	      count(&l, "t"));
	CHECK(counter(&l, SBT_CNT_THREADS) == 257, "threads: counter %llu",
	      (unsigned long long)counter(&l, SBT_CNT_THREADS));
	CHECK(counter(&l, SBT_CNT_OPEN_AT_EXIT) == 256, "open at exit %llu",
	      (unsigned long long)counter(&l, SBT_CNT_OPEN_AT_EXIT));
	CHECK(src(&l)->nthreads == 257, "threads in log %u",
	      src(&l)->nthreads);
	CHECK(count(&l, "leftopen") == 0, "open regions recorded");
	unload(&l);
}

/* CLOSE while 4 threads mark, inline and through the entry points: no
 * marker writes into the finished log (its chunks do not change after
 * CLOSE returned), those after it are counted, and the log reads.  Under
 * TSan (this suite runs there) a marker racing CLOSE's shutting of its
 * fast path is a report: the accesses must be atomic. */
static void t_closerace(void)
{
	struct proc p;

	fresh("closerace");
	for (int run_i = 0; run_i < 5; run_i++) {
		char *env[] = { "SBT_OUTPUT=c.log", NULL };
		char *argv[] = { (char *)rapp, "closerace", "4", "c.log",
				 NULL };
		unlink("c.log");
		run(&p, env, argv);
		CHECK(exited0(&p), "closerace: status %#x: %s", p.status,
		      p.err);
		CHECK(strstr(p.out, "same") != NULL, "closerace %d: %s", run_i,
		      p.out);
		struct log l;
		load(&l, "c.log");
		CHECK(l.rc == 0, "closerace: rc %d %s", l.rc, l.err);
		CHECK(count(&l, "cr") > 0 && count(&l, "cr2") > 0,
		      "closerace: %ld, %ld samples before CLOSE",
		      count(&l, "cr"), count(&l, "cr2"));
		CHECK(counter(&l, SBT_CNT_AFTER_CLOSE) > 0,
		      "closerace: markers after CLOSE counted (%llu)",
		      (unsigned long long)counter(&l, SBT_CNT_AFTER_CLOSE));
		unload(&l);
	}
}

static void t_short(void)
{
	struct proc p;

	fresh("short");
	char *env[] = { "SBT_OUTPUT=short.log", NULL };
	char *argv[] = { (char *)rapp, "short", "10000", "100", "3", NULL };
	run(&p, env, argv);
	CHECK(exited0(&p), "short: status %#x: %s", p.status, p.err);

	struct log l;
	load(&l, "short.log");
	CHECK(l.rc == 0, "short: rc %d %s", l.rc, l.err);
	CHECK(count(&l, "short") == 30000, "short: %ld samples, want 30000",
	      count(&l, "short"));
	CHECK(counter(&l, SBT_CNT_THREADS) == 10001, "short: %llu threads",
	      (unsigned long long)counter(&l, SBT_CNT_THREADS));
	unload(&l);
}

/* ---- 4. back-pressure -------------------------------------------------------------------- */

static void t_bp(void)
{
	const long N = 200000, T = 2;
	struct proc p, a;
	struct stat st;

	fresh("bp");
	char *env[] = { "SBT_OUTPUT=bp.log", "SBT_LOG_MAX_MB=2",
			"SBT_PROBE_PERIOD=0", "SBT_QUIET=0", NULL };
	char *argv[] = { (char *)rapp, "bp", "2", "200000", NULL };
	run(&p, env, argv);
	CHECK(exited0(&p), "bp: status %#x: %s", p.status, p.err);
	CHECK(lines_with(p.err, "dropped") == 1, "bp: drop message not given"
	      " once: %s", p.err);

	struct log l;
	load(&l, "bp.log");
	long rec = count(&l, "bp");
	uint64_t drop = counter(&l, SBT_CNT_DROPPED);
	CHECK(l.rc == 0, "bp: rc %d %s", l.rc, l.err);
	CHECK(drop > 0, "bp: nothing dropped with a 2 MiB log");
	CHECK(rec + (long)drop == N * T, "bp: %ld recorded + %llu dropped != "
	      "%ld attempted", rec, (unsigned long long)drop, N * T);
	CHECK(stat("bp.log", &st) == 0 && st.st_size <= (2 << 20),
	      "bp: log is %lld bytes, limit 2 MiB", (long long)st.st_size);
	unload(&l);

	/* The report says so. */
	char want[64];
	snprintf(want, sizeof want, "dropped: %llu", (unsigned long long)drop);
	analyze_logs(&a, "--filter=none", "bp.log", NULL);
	slurp(".out", a.out, sizeof a.out);
	CHECK(strstr(a.out, want), "bp: report lacks '%s'", want);
}

/* ---- 6. misuse ----------------------------------------------------------------------------- */

static void t_misuse(void)
{
	struct proc p;

	fresh("misuse");
	char *env[] = { "SBT_OUTPUT=m.log", "SBT_QUIET=0", NULL };
	char *argv[] = { (char *)rapp, "misuse", NULL };
	run(&p, env, argv);
	CHECK(exited0(&p), "misuse: status %#x: %s", p.status, p.err);

	struct log l;
	load(&l, "m.log");
	CHECK(l.rc == 0, "misuse: rc %d %s", l.rc, l.err);
	static const struct { enum sbt_counter c; uint64_t n; const char *msg; }
	want[] = {
		{ SBT_CNT_STOP_WITHOUT_START, 9, "STOP of a region that is " },
		{ SBT_CNT_START_OPEN, 2, "START of a region that is already" },
		{ SBT_CNT_CROSSED, 3, "out of nesting order" },
		{ SBT_CNT_BAD_NAME, 6, "NULL, empty or over-long" },
		{ SBT_CNT_TOO_DEEP, 6, "nested deeper" },
		{ SBT_CNT_AFTER_CLOSE, 6, "after CLOSE" },
		{ SBT_CNT_TOO_MANY_REGIONS, 0, "distinct regions" },
		{ SBT_CNT_DROPPED, 0, "dropped" },
		{ SBT_CNT_SIGNAL, 0, "signal handler" },
		{ SBT_CNT_OPEN_AT_EXIT, 0, "thread exited" },
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		CHECK(counter(&l, want[i].c) == want[i].n, "misuse: counter %d"
		      " is %llu, want %llu", (int)want[i].c,
		      (unsigned long long)counter(&l, want[i].c),
		      (unsigned long long)want[i].n);
		int lines = lines_with(p.err, want[i].msg);
		CHECK(lines == (want[i].n ? 1 : 0), "misuse: message '%s' "
		      "printed %d times", want[i].msg, lines);
	}
	CHECK(count(&l, "good") == 600 && count(&l, "early") == 5 &&
	      count(&l, "dup") == 1 && count(&l, "x") == 3 &&
	      count(&l, "y") == 3 && count(&l, "late") == 0 &&
	      count(&l, "never") == 0, "misuse: good %ld early %ld dup %ld "
	      "x %ld y %ld late %ld never %ld", count(&l, "good"),
	      count(&l, "early"), count(&l, "dup"), count(&l, "x"),
	      count(&l, "y"), count(&l, "late"), count(&l, "never"));
	long crossed = 0;
	for (size_t i = 0; i < l.ds.n; i++)
		if (l.ds.s[i].flags & SBT_SF_CROSSED)
			crossed++;
	CHECK(crossed == 3, "misuse: %ld samples flagged crossed", crossed);
	for (int i = 0; i < 70; i++) {
		char name[16];
		snprintf(name, sizeof name, "d%d", i);
		CHECK(count(&l, name) == (i < 64), "misuse: %s has %ld samples",
		      name, count(&l, name));
	}
	unload(&l);
}

static void t_names(void)
{
	struct proc p;

	fresh("names");
	char *env[] = { "SBT_OUTPUT=n.log", NULL };
	char *argv[] = { (char *)rapp, "names", "100000", NULL };
	run(&p, env, argv);
	CHECK(exited0(&p), "names: status %#x: %s", p.status, p.err);

	struct log l;
	load(&l, "n.log");
	CHECK(l.rc == 0, "names: rc %d %s", l.rc, l.err);
	/* every n%06d region exactly once */
	char *seen = calloc(100000, 1);
	long bad = 0, total = 0;
	for (size_t i = 0; i < l.ds.n; i++) {
		const char *nm = l.ds.regions[l.ds.s[i].region].name;
		if (l.ds.s[i].flags & SBT_SF_PROBE || nm[0] != 'n')
			continue;
		long k = atol(nm + 1);
		total++;
		if (k < 0 || k >= 100000 || seen[k]++)
			bad++;
	}
	CHECK(total == 100000 && bad == 0, "names: %ld samples, %ld bad",
	      total, bad);
	CHECK(counter(&l, SBT_CNT_TOO_MANY_REGIONS) == 0 &&
	      counter(&l, SBT_CNT_BAD_NAME) == 0, "names: counters");
	free(seen);
	unload(&l);
}

/* A timer's handler marks while main marks: main's samples stay exact;
 * each handler run either recorded its sample or was refused (counted
 * twice, START and STOP, as re-entry). */
static void t_sigmark(void)
{
	struct proc p;
	const long N = 2000000;

	fresh("sigmark");
	char *env[] = { "SBT_OUTPUT=sig.log", NULL };
	char *argv[] = { (char *)rapp, "sigmark", "2000000", NULL };
	run(&p, env, argv);
	CHECK(exited0(&p), "sigmark: status %#x: %s", p.status, p.err);
	long handled = strstr(p.out, "handled ") ?
		       atol(strstr(p.out, "handled ") + 8) : -1;

	struct log l;
	load(&l, "sig.log");
	long sig = count(&l, "sig");
	uint64_t re = counter(&l, SBT_CNT_SIGNAL);
	CHECK(l.rc == 0, "sigmark: rc %d %s", l.rc, l.err);
	CHECK(count(&l, "main") == N, "sigmark: %ld main samples, want %ld",
	      count(&l, "main"), N);
	CHECK(handled > 0, "sigmark: the timer never fired");
	CHECK(re % 2 == 0 && sig + (long)(re / 2) == handled, "sigmark: %ld "
	      "handler runs, %ld recorded, %llu re-entries", handled, sig,
	      (unsigned long long)re);
	CHECK(counter(&l, SBT_CNT_STOP_WITHOUT_START) == 0 &&
	      counter(&l, SBT_CNT_START_OPEN) == 0 &&
	      counter(&l, SBT_CNT_CROSSED) == 0, "sigmark: misuse counted");
	printf("sigmark: %ld handler runs, %ld recorded, %llu refused "
	       "re-entries\n", handled, sig, (unsigned long long)re / 2);
	unload(&l);
}

/* ---- 7. ranks ---------------------------------------------------------------------------- */

/* Under each launcher's variables the log's name (%r) and its header
 * give the same rank. */
static void t_ranks(void)
{
	static const char *const vars[][2] = {
		{ "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE" },
		{ "PMI_RANK", "PMI_SIZE" }, { "PMIX_RANK", "PMIX_SIZE" },
		{ "SLURM_PROCID", "SLURM_NTASKS" },
		{ "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE" },
		{ "MPI_RANKID", "MPI_NRANKS" },
	};
	char *argv[] = { (char *)rapp, "plain", "10", NULL };
	struct proc p;

	fresh("ranks");
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		char rank[64], size[64], name[32];
		int r = 3 + (int)i;
		snprintf(rank, sizeof rank, "%s=%d", vars[i][0], r);
		snprintf(size, sizeof size, "%s=16", vars[i][1]);
		char *env[] = { rank, size, "SBT_OUTPUT=rank-%r.log", NULL };
		run(&p, env, argv);
		CHECK(exited0(&p), "%s: status %#x", vars[i][0], p.status);
		snprintf(name, sizeof name, "rank-%d.log", r);
		struct log l;
		load(&l, name);
		CHECK(l.rc == 0 && src(&l)->rank == r && count(&l, "p") == 10,
		      "%s=%d: %s rc %d (%s), header rank %d", vars[i][0], r,
		      name, l.rc, l.err, src(&l)->rank);
		unload(&l);
	}
	/* none set: rank 0 in the name, -1 (none) in the header */
	char *env[] = { "SBT_OUTPUT=rank-%r.log", NULL };
	run(&p, env, argv);
	struct log l;
	load(&l, "rank-0.log");
	CHECK(l.rc == 0 && src(&l)->rank == -1, "no launcher: rc %d rank %d",
	      l.rc, src(&l)->rank);
	unload(&l);
}

/* ---- 8. safe files and environment ------------------------------------------------------ */

static char plant_name[64];

static void plant(void)
{
	char tmp[128];
	snprintf(tmp, sizeof tmp, "%s.tmp.%d", plant_name, (int)getpid());
	if (symlink("victim", tmp) != 0)
		_exit(125);
}

static void umask027(void) { umask(027); }
static void umask077(void) { umask(077); }

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static int file_is(const char *path, const char *text)
{
	char buf[256];
	struct stat st;

	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	slurp(path, buf, sizeof buf);
	return !strcmp(buf, text);
}

static void t_files(void)
{
	struct proc p;
	struct log l;
	char name[64], link[64];
	struct stat st;

	fresh("files");
	char *argv[] = { (char *)rapp, "plain", "100", NULL };

	/* a symlink planted at the log's name: not followed */
	write_file("victim", "precious\n");
	symlink("victim", "sl.log");
	char *e1[] = { "SBT_OUTPUT=sl.log", NULL };
	run(&p, e1, argv);
	CHECK(exited0(&p), "symlink: status %#x", p.status);
	CHECK(file_is("victim", "precious\n"), "symlink: target changed");
	ssize_t n = readlink("sl.log", link, sizeof link - 1);
	CHECK(n == 6 && !memcmp(link, "victim", 6), "symlink replaced");
	snprintf(name, sizeof name, "sl.%d.log", (int)p.pid);
	load(&l, name);
	CHECK(l.rc == 0 && count(&l, "p") == 100, "symlink: %s rc %d p %ld",
	      name, l.rc, count(&l, "p"));
	unload(&l);

	/* a dangling symlink: its target must not be created */
	symlink("created-through-link", "dang.log");
	char *e2[] = { "SBT_OUTPUT=dang.log", NULL };
	run(&p, e2, argv);
	CHECK(exited0(&p), "dangling: status %#x", p.status);
	CHECK(!exists("created-through-link"), "dangling symlink followed");

	/* a symlink planted at the temporary name the recorder will use */
	snprintf(plant_name, sizeof plant_name, "tmp.log");
	char *e3[] = { "SBT_OUTPUT=tmp.log", NULL };
	p.pid = start(lib, e3, argv, plant);
	finish(&p, 60);
	CHECK(exited0(&p), "planted tmp: status %#x", p.status);
	CHECK(file_is("victim", "precious\n"), "planted tmp: target changed");

	/* a file the recorder did not write: kept */
	write_file("data.log", "keep me\n");
	char *e4[] = { "SBT_OUTPUT=data.log", "SBT_QUIET=0", NULL };
	run(&p, e4, argv);
	CHECK(file_is("data.log", "keep me\n"), "data.log clobbered");
	snprintf(name, sizeof name, "data.%d.log", (int)p.pid);
	load(&l, name);
	CHECK(l.rc == 0 && count(&l, "p") == 100, "taken: %s rc %d", name,
	      l.rc);
	unload(&l);
	CHECK(lines_with(p.err, name) == 1, "taken: no message naming %s: %s",
	      name, p.err);

	/* a previous run's log (its writer is gone): kept, never replaced;
	 * the rerun writes the numbered sibling and says so */
	char *e5[] = { "SBT_OUTPUT=rerun.log", "SBT_QUIET=0", NULL };
	run(&p, e5, argv);
	pid_t first = p.pid;
	run(&p, e5, argv);
	load(&l, "rerun.log");
	CHECK(l.rc == 0 && src(&l)->pid == first, "rerun: rerun.log of pid "
	      "%d, want the first run's %d", src(&l)->pid, (int)first);
	unload(&l);
	snprintf(name, sizeof name, "rerun.%d.log", (int)p.pid);
	load(&l, name);
	CHECK(l.rc == 0 && src(&l)->pid == p.pid, "rerun: %s rc %d", name,
	      l.rc);
	unload(&l);
	CHECK(lines_with(p.err, name) == 1 && lines_with(p.err, "exists") == 1,
	      "rerun: no message naming %s: %s", name, p.err);

	/* permissions from umask */
	char *e6[] = { "SBT_OUTPUT=u27.log", NULL };
	p.pid = start(lib, e6, argv, umask027);
	finish(&p, 60);
	CHECK(stat("u27.log", &st) == 0 && (st.st_mode & 0777) == 0640,
	      "umask 027: mode %o", st.st_mode & 0777);
	char *e7[] = { "SBT_OUTPUT=u77.log", NULL };
	p.pid = start(lib, e7, argv, umask077);
	finish(&p, 60);
	CHECK(stat("u77.log", &st) == 0 && (st.st_mode & 0777) == 0600,
	      "umask 077: mode %o", st.st_mode & 0777);

	/* SBT_DISABLE=1: inert, silent */
	fresh("files-disabled");
	char *e8[] = { "SBT_DISABLE=1", "SBT_QUIET=0", NULL };
	run(&p, e8, argv);
	CHECK(exited0(&p) && nlogs() == 0 && !p.err[0],
	      "SBT_DISABLE=1: status %#x, %zu logs, stderr '%s'", p.status,
	      nlogs(), p.err);

	/* bad values: one clear message each, defaults used */
	fresh("files-env");
	char *e9[] = { "SBT_PROBE_PERIOD=abc", "SBT_LOG_MAX_MB=-5",
		       "SBT_OUTPUT=env.log", "SBT_QUIET=0", NULL };
	run(&p, e9, argv);
	CHECK(exited0(&p), "bad env: status %#x", p.status);
	CHECK(lines_with(p.err, "SBT_PROBE_PERIOD='abc'") == 1 &&
	      lines_with(p.err, "SBT_LOG_MAX_MB='-5'") == 1,
	      "bad env: messages: %s", p.err);
	load(&l, "env.log");
	CHECK(l.rc == 0 && count(&l, "p") == 100 &&
	      src(&l)->probe_period == 64, "bad env: rc %d p %ld period %u",
	      l.rc, count(&l, "p"), src(&l)->probe_period);
	unload(&l);
}

/* ------------------------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
	static const struct { const char *name; void (*fn)(void); } tests[] = {
		{ "crash", t_crash }, { "stream", t_stream },
		{ "prepare", t_prepare },
		{ "fork", t_fork }, { "forkthreads", t_forkthreads },
		{ "exec", t_exec }, { "spawn", t_spawn },
		{ "shell", t_shell }, { "threads", t_threads },
		{ "closerace", t_closerace },
		{ "short", t_short }, { "bp", t_bp },
		{ "misuse", t_misuse }, { "names", t_names },
		{ "sigmark", t_sigmark }, { "files", t_files },
		{ "ranks", t_ranks },
	};

	lib = getenv("SBT_LIB");
	analyze = getenv("SBT_ANALYZE");
	if (argc == 4 && argv[3][0])
		runtime = argv[3];
	if (argc < 3 || argc > 4 || !lib || !analyze) {
		fprintf(stderr, "usage: SBT_LIB=.. SBT_ANALYZE=.. test_rel "
			"TEST RAPP\n");
		return 99;
	}
	rapp = realpath(argv[2], NULL);
	lib = realpath(lib, NULL);
	analyze = realpath(analyze, NULL);
	if (!rapp || !lib || !analyze)
		return 99;
	const char *dir = h_tmpdir();
	for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
		if (!strcmp(argv[1], tests[i].name)) {
			char cmd[PATH_MAX + 16];
			tests[i].fn();
			/* Keep the logs of a failed run for a look. */
			snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
			if (chdir("/") != 0 || (!h_fail && system(cmd) != 0))
				fprintf(stderr, "cannot remove %s\n", dir);
			else if (h_fail)
				fprintf(stderr, "logs kept in %s\n", dir);
			return h_done();
		}
	fprintf(stderr, "test_rel: no test '%s'\n", argv[1]);
	return 99;
}
