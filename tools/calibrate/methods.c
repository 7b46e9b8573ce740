/*
 * methods.c - timing methods (see methods.h).
 *
 * Each sample function is noinline and keeps its window to: clock read,
 * indirect call into the chain, clock read.  Anything else (conversion,
 * bookkeeping, sbt_marker_last) happens after the second read.
 */
#include "methods.h"
#include "sbtmark.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef SBT_HAVE_PAPI
#include <papi.h>
#endif

const char *const sbt_method_name[SBT_NMETHODS] = {
	"sbtmark", "bare", "clock_gettime", "papi", "likwid" };

/* Results go here so the chain call cannot be optimized away. */
static volatile uint64_t sink;

#define NOINLINE __attribute__((noinline))

/* ---- bare -------------------------------------------------------------- */

static NOINLINE double bare_sample(struct sbt_method *m, sbt_chain_fn f)
{
	int c0, c1;
	uint64_t t0 = sbt_clock_start(&c0);
	uint64_t r = f(0, 1);
	uint64_t t1 = sbt_clock_stop(&c1);

	sink = r;
	return (double)(t1 - t0) * m->unit_ns;
}

static NOINLINE double bare_empty(struct sbt_method *m)
{
	int c0, c1;
	uint64_t t0 = sbt_clock_start(&c0);
	uint64_t t1 = sbt_clock_stop(&c1);

	return (double)(t1 - t0) * m->unit_ns;
}

/* ---- clock_gettime ------------------------------------------------------ */

static inline int64_t ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static NOINLINE double cgt_sample(struct sbt_method *m, sbt_chain_fn f)
{
	struct timespec a, b;

	(void)m;
	clock_gettime(CLOCK_MONOTONIC, &a);
	sink = f(0, 1);
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(ts_ns(&b) - ts_ns(&a));
}

static NOINLINE double cgt_empty(struct sbt_method *m)
{
	struct timespec a, b;

	(void)m;
	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(ts_ns(&b) - ts_ns(&a));
}

static int64_t cgt_now(void)
{
	struct timespec a;

	clock_gettime(CLOCK_MONOTONIC, &a);
	return ts_ns(&a);
}

/* ---- papi --------------------------------------------------------------- */

#ifdef SBT_HAVE_PAPI
static NOINLINE double papi_sample(struct sbt_method *m, sbt_chain_fn f)
{
	(void)m;
	long long a = PAPI_get_real_nsec();
	sink = f(0, 1);
	long long b = PAPI_get_real_nsec();
	return (double)(b - a);
}

static NOINLINE double papi_empty(struct sbt_method *m)
{
	(void)m;
	long long a = PAPI_get_real_nsec();
	long long b = PAPI_get_real_nsec();
	return (double)(b - a);
}

static int64_t papi_now(void) { return PAPI_get_real_nsec(); }
#endif

/* ---- sbtmark (the recorder, dlopen'd) ----------------------------------- */

static const char tag[] = "sbt-calibrate";
static int (*rec_start)(const char *);
static int (*rec_stop)(const char *);
static int (*rec_last)(uint64_t *, uint64_t *);
static void *rec_handle;
static char logdir[PATH_MAX];

static NOINLINE double rec_sample(struct sbt_method *m, sbt_chain_fn f)
{
	uint64_t ticks, cycles;

	rec_start(tag);
	sink = f(0, 1);
	rec_stop(tag);
	if (rec_last(&ticks, &cycles) != 0)
		return NAN;
	return (double)ticks * m->unit_ns;
}

static NOINLINE double rec_empty(struct sbt_method *m)
{
	uint64_t ticks, cycles;

	rec_start(tag);
	rec_stop(tag);
	if (rec_last(&ticks, &cycles) != 0)
		return NAN;
	return (double)ticks * m->unit_ns;
}

/* Candidates: --lib; next to a build tree's executable; installed. */
static int find_recorder(const struct sbt_method_env *env, char *out,
			 size_t len, char *why, size_t wlen)
{
	char exe[PATH_MAX], path[PATH_MAX + 64];
	const char *rel[] = { "../preload/libsbtmark.so",
			      "../../preload/libsbtmark.so" };

	if (env->lib) {
		if (!realpath(env->lib, out)) {
			snprintf(why, wlen, "--lib %.200s: %s", env->lib,
				 strerror(errno));
			return -1;
		}
		return 0;
	}
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		for (size_t i = 0; i < 2; i++) {
			snprintf(path, sizeof path, "%s/%s", exe, rel[i]);
			if (access(path, R_OK) == 0 && realpath(path, out))
				return 0;
		}
	}
#ifdef SBT_LIBDIR
	snprintf(path, sizeof path, "%s/libsbtmark.so", SBT_LIBDIR);
	if (access(path, R_OK) == 0 && (size_t)snprintf(out, len, "%s",
							 path) < len)
		return 0;
#endif
	snprintf(why, wlen, "libsbtmark.so not found next to sbt-calibrate "
		 "or in the install libdir; give --lib PATH");
	return -1;
}

/*
 * The recorder uses initial-exec TLS, so dlopen() of it usually fails
 * ("cannot allocate memory in static TLS block").  It is made to be
 * preloaded: re-execute ourselves with it in LD_PRELOAD, once, and put
 * LD_PRELOAD back afterwards so children (likwid-perfctr) do not get it.
 */
int sbt_method_preload(const struct sbt_method_env *env, char **argv,
		       char *why, size_t wlen)
{
	char lib[PATH_MAX], pre[2 * PATH_MAX + 2], pattern[PATH_MAX + 16];
	const char *old = getenv("LD_PRELOAD");

	if (dlsym(RTLD_DEFAULT, "sbt_marker_last")) {
		const char *o = getenv("SBT_CAL_OLD_PRELOAD");
		const char *d = getenv("SBT_CAL_LOGDIR");
		if (o && *o)
			setenv("LD_PRELOAD", o, 1);
		else
			unsetenv("LD_PRELOAD");
		if (d)
			snprintf(logdir, sizeof logdir, "%s", d);
		unsetenv("SBT_CAL_OLD_PRELOAD");
		unsetenv("SBT_CAL_LOGDIR");
		unsetenv("SBT_CAL_REEXEC");
		return 0;
	}
	if (getenv("SBT_CAL_REEXEC")) {
		snprintf(why, wlen, "preloading libsbtmark.so did not load it");
		return -1;
	}
	if (find_recorder(env, lib, sizeof lib, why, wlen))
		return -1;
	/* The recorder logs every sample; keep that log out of the way. */
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(logdir, sizeof logdir, "%.3000s/sbt-calibrate.XXXXXX", tmp);
	if (!mkdtemp(logdir)) {
		snprintf(why, wlen, "mkdtemp %.200s: %s", logdir,
			 strerror(errno));
		logdir[0] = '\0';
		return -1;
	}
	snprintf(pattern, sizeof pattern, "%s/calib.%%p.log", logdir);
	snprintf(pre, sizeof pre, "%s%s%s", lib, old && *old ? ":" : "",
		 old && *old ? old : "");
	setenv("SBT_OUTPUT", pattern, 1);
	setenv("SBT_CAL_LOGDIR", logdir, 1);
	setenv("SBT_CAL_OLD_PRELOAD", old ? old : "", 1);
	setenv("SBT_CAL_REEXEC", "1", 1);
	setenv("LD_PRELOAD", pre, 1);
	fflush(NULL);
	execv("/proc/self/exe", argv);
	snprintf(why, wlen, "re-exec with LD_PRELOAD: %s", strerror(errno));
	rmdir(logdir);
	logdir[0] = '\0';
	return -1;
}

static int sbtmark_init(struct sbt_method *m,
			const struct sbt_method_env *env)
{
	(void)env;
	*(void **)&rec_start = dlsym(RTLD_DEFAULT, "sbt_marker_start");
	*(void **)&rec_stop = dlsym(RTLD_DEFAULT, "sbt_marker_stop");
	*(void **)&rec_last = dlsym(RTLD_DEFAULT, "sbt_marker_last");
	rec_handle = RTLD_DEFAULT;
	if (!rec_start || !rec_stop || !rec_last) {
		if (!m->why[0])
			snprintf(m->why, sizeof m->why, "libsbtmark.so is not "
				 "loaded or lacks sbt_marker_last (an older "
				 "build?)");
		return -1;
	}
	/* The first marker opens the log; a refusal shows up here. */
	if (isnan(rec_empty(m))) {
		snprintf(m->why, sizeof m->why, "the recorder records no "
			 "samples (is SBT_OUTPUT writable? see its message)");
		return -1;
	}
	return 0;
}

const char *sbt_method_logdir(void) { return logdir; }

/* ---- likwid --------------------------------------------------------------- */

static int (*lk_start)(const char *);
static int (*lk_stop)(const char *);
static void (*lk_get)(const char *, int *, double *, double *, int *);
static double lk_prev;

static NOINLINE double lk_sample(struct sbt_method *m, sbt_chain_fn f)
{
	double ev[64], t;
	int nev = 64, count;

	(void)m;
	lk_start(tag);
	sink = f(0, 1);
	lk_stop(tag);
	/* LIKWID keeps a running total per region: difference it. */
	lk_get(tag, &nev, ev, &t, &count);
	double d = (t - lk_prev) * 1e9;
	lk_prev = t;
	return d;
}

static NOINLINE double lk_empty(struct sbt_method *m)
{
	double ev[64], t;
	int nev = 64, count;

	(void)m;
	lk_start(tag);
	lk_stop(tag);
	lk_get(tag, &nev, ev, &t, &count);
	double d = (t - lk_prev) * 1e9;
	lk_prev = t;
	return d;
}

/* First ERROR line of likwid-perfctr, which says why it cannot run. */
static void perfctr_problem(char *out, size_t len)
{
	char line[256];
	FILE *p = popen("likwid-perfctr -e 2>&1 </dev/null", "r");

	out[0] = '\0';
	if (!p)
		return;
	while (fgets(line, sizeof line, p)) {
		char *e = strstr(line, "] ");
		if (strstr(line, "ERROR") && !out[0]) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(out, len, "%.120s", e ? e + 2 : line);
		}
	}
	pclose(p);
}

static int likwid_init(struct sbt_method *m)
{
	void *h = dlopen("liblikwid.so.5", RTLD_NOW | RTLD_LOCAL);
	char problem[160];

	if (!h)
		h = dlopen("liblikwid.so", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(m->why, sizeof m->why, "liblikwid not installed");
		return -1;
	}
	if (!getenv("LIKWID_MODE") || !getenv("LIKWID_EVENTS")) {
		perfctr_problem(problem, sizeof problem);
		if (problem[0])
			snprintf(m->why, sizeof m->why, "LIKWID markers only "
				 "measure under likwid-perfctr -m, and "
				 "likwid-perfctr cannot run here: \"%s\"",
				 problem);
		else
			snprintf(m->why, sizeof m->why, "LIKWID markers only "
				 "measure under likwid-perfctr -m: run "
				 "likwid-perfctr -C 0 -g CLOCK -m "
				 "sbt-calibrate --method likwid ...");
		return -1;
	}
	void (*init)(void) = (void (*)(void))dlsym(h, "likwid_markerInit");
	void (*tinit)(void) = (void (*)(void))dlsym(h,
					"likwid_markerThreadInit");
	*(void **)&lk_start = dlsym(h, "likwid_markerStartRegion");
	*(void **)&lk_stop = dlsym(h, "likwid_markerStopRegion");
	*(void **)&lk_get = dlsym(h, "likwid_markerGetRegion");
	if (!init || !tinit || !lk_start || !lk_stop || !lk_get) {
		snprintf(m->why, sizeof m->why, "liblikwid lacks the marker "
			 "API");
		return -1;
	}
	init();
	tinit();
	if (lk_start(tag) != 0) {
		snprintf(m->why, sizeof m->why, "likwid_markerStartRegion "
			 "fails (LIKWID not measuring)");
		return -1;
	}
	lk_stop(tag);
	lk_empty(m);
	return 0;
}

/* ---- common ---------------------------------------------------------------- */

/* Smallest non-zero step between back-to-back reads of a ns clock. */
static double ns_quantum(int64_t (*now)(void))
{
	int64_t prev = now(), min = INT64_MAX;

	for (int i = 0; i < 20000; i++) {
		int64_t cur = now();
		if (cur > prev && cur - prev < min)
			min = cur - prev;
		prev = cur;
	}
	return min == INT64_MAX ? 0 : (double)min;
}

double sbt_method_te_std(struct sbt_method *m, unsigned n)
{
	double min = INFINITY;

	for (unsigned i = 0; i < n; i++) {
		double d = m->empty(m);
		if (d < min)
			min = d;
	}
	return min;
}

void sbt_method_init(struct sbt_method *m, enum sbt_method_id id,
		     const struct sbt_method_env *env)
{
	double tick_ns = 1e9 / (double)env->tick_hz;
	int ok = -1;

	memset(m, 0, sizeof *m);
	m->id = id;
	m->name = sbt_method_name[id];
	m->unit_ns = tick_ns;
	m->quantum_ns = env->tick_quantum * tick_ns;
	switch (id) {
	case SBT_M_BARE:
		m->sample = bare_sample;
		m->empty = bare_empty;
		ok = 0;
		break;
	case SBT_M_CGT:
		m->sample = cgt_sample;
		m->empty = cgt_empty;
		m->unit_ns = 1;
		m->quantum_ns = ns_quantum(cgt_now);
		ok = 0;
		break;
	case SBT_M_PAPI:
#ifdef SBT_HAVE_PAPI
		if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
			snprintf(m->why, sizeof m->why,
				 "PAPI_library_init failed");
			break;
		}
		m->sample = papi_sample;
		m->empty = papi_empty;
		m->unit_ns = 1;
		m->quantum_ns = ns_quantum(papi_now);
		ok = 0;
#else
		snprintf(m->why, sizeof m->why,
			 "built without PAPI (install libpapi-dev, rebuild)");
#endif
		break;
	case SBT_M_SBTMARK:
		m->sample = rec_sample;
		m->empty = rec_empty;
		ok = sbtmark_init(m, env);
		break;
	case SBT_M_LIKWID:
		m->sample = lk_sample;
		m->empty = lk_empty;
		ok = likwid_init(m);
		break;
	default:
		break;
	}
	m->available = ok == 0;
	if (m->available)
		m->te_std_ns = sbt_method_te_std(m, 20000);
}

void sbt_method_fini(struct sbt_method *m)
{
	DIR *d;
	struct dirent *de;
	char path[PATH_MAX + 256];

	if (m->id != SBT_M_SBTMARK || !logdir[0])
		return;
	if (rec_handle) {
		int (*cl)(void);
		*(void **)&cl = dlsym(rec_handle, "sbt_marker_close");
		if (cl)
			cl();
	}
	/* The log holds only our calibration samples: remove it. */
	if ((d = opendir(logdir))) {
		while ((de = readdir(d)))
			if (de->d_name[0] != '.') {
				snprintf(path, sizeof path, "%s/%s", logdir,
					 de->d_name);
				unlink(path);
			}
		closedir(d);
	}
	rmdir(logdir);
	logdir[0] = '\0';
}
