/*
 * bench_overhead.c - what an empty marker pair costs, side by side with
 * the bare inline serialized pair, in one run on one pinned cpu.
 *
 *   bench-overhead [--lib PATH] [--cpu N] [--rounds R] [--pairs B]
 *
 * Methods (interleaved round by round, so drift hits all alike):
 *   bare      lfence;rdtscp;lfence ... rdtscp;lfence inline
 *   sbtmark   SBT_MARKER_START/STOP: the inline markers of sbtmark.h
 *   call      sbt_marker_start/stop, the function entry points (what a
 *             binary built with -DSBT_MARKER_CALL calls)
 *   likwid    likwid_markerStartRegion/StopRegion interposed by the same
 *             library (when it exports them)
 *   sparse    SBT_MARKER_START/STOP of a region sampled one call in
 *             2^20 (SBT_SAMPLE): nearly every pair is a skipped call,
 *             which reads no clock (no in-window figures)
 *   lksparse  the same through likwid (interposed), whose STOP reads the
 *             clock before it knows the call was skipped
 *   off       SBT_MARKER_START/STOP compiled in, no recorder loaded
 *             (measured before the program re-executes itself with the
 *             recorder preloaded)
 *   noprobe   SBT_MARKER_START/STOP with the speed probes off
 *             (SBT_SPEED_US=0; measured in an execution of its own, before
 *             the last one, whose "sbtmark" row has them at the cadence
 *             the environment says, 100 us by default)
 *   maxmb     the same under SBT_MAX_MB=16384, far below its first step
 *             (every call recorded), in an execution of its own
 *   events    the same on a thread that counts SBT_EVENTS (page-faults,
 *             context-switches: the recorder's general path, two read()
 *             calls a marker), in an execution of its own
 *   loop      the empty loop, subtracted from the "cost to the app"
 *
 * Two figures per method:
 *   cost to the app   wall time per pair, whole loop / pairs - loop, p50
 *                     over rounds (what instrumenting costs the program)
 *   in-window         the duration the method itself reports for an empty
 *                     region (min / p50 / p99.9): its resolution floor
 */
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "bench.h"

typedef int (*mark_fn)(const char *);
typedef int (*last_fn)(uint64_t *, uint64_t *);

enum { BARE, SBT, CALL, LIKWID, SPARSE, LKSPARSE, OFF, NOPROBE, MAXMB,
       EVENTS, LOOP, NM };
static const char *names[NM] = { "bare", "sbtmark", "call", "likwid",
				 "sparse", "lksparse", "off", "noprobe",
				 "maxmb", "events", "loop" };

/* The rows measured in an execution of their own, one after the other
 * before the last: the sbtmark row's loop under one setting, its cost
 * handed on in the environment as SBT_BENCH_<row>_NS. */
static const struct { int row; const char *var, *val, *env; } stages[] = {
	{ NOPROBE, "SBT_SPEED_US", "0", "SBT_BENCH_NOPROBE_NS" },
	{ MAXMB, "SBT_MAX_MB", "16384", "SBT_BENCH_MAXMB_NS" },
	{ EVENTS, "SBT_EVENTS", "page-faults,context-switches",
	  "SBT_BENCH_EVENTS_NS" },
};
#define NSTAGES (int)(sizeof stages / sizeof stages[0])

static mark_fn m_start, m_stop, l_start, l_stop;
static last_fn m_last;

static double tick_ns;

/* One round of `pairs` empty pairs; returns ticks for the whole loop and
 * stores each pair's in-window ticks in win[] when win != NULL. */
static uint64_t round_of(int m, int pairs, double *win)
{
	int cpu;
	uint64_t a, b, t0, t1, c;

	a = sbt_clock_start(&cpu);
	switch (m) {
	case BARE:
		for (int i = 0; i < pairs; i++) {
			t0 = sbt_clock_start(&cpu);
			t1 = sbt_clock_stop(&cpu);
			if (win)
				win[i] = (double)(t1 - t0);
		}
		break;
	case SBT:
		for (int i = 0; i < pairs; i++) {
			SBT_MARKER_START("bench");
			SBT_MARKER_STOP("bench");
			if (win && m_last(&t0, &c) == 0)
				win[i] = (double)t0;
		}
		break;
	case CALL:
		for (int i = 0; i < pairs; i++) {
			m_start("bench-call");
			m_stop("bench-call");
			if (win && m_last(&t0, &c) == 0)
				win[i] = (double)t0;
		}
		break;
	case LIKWID:
		for (int i = 0; i < pairs; i++) {
			l_start("bench-likwid");
			l_stop("bench-likwid");
			if (win && m_last(&t0, &c) == 0)
				win[i] = (double)t0;
		}
		break;
	case SPARSE:
		for (int i = 0; i < pairs; i++) {
			SBT_MARKER_START("bench-sparse");
			SBT_MARKER_STOP("bench-sparse");
		}
		break;
	case LKSPARSE:
		for (int i = 0; i < pairs; i++) {
			l_start("bench-lksparse");
			l_stop("bench-lksparse");
		}
		break;
	case OFF:
	case NOPROBE:
	case MAXMB:
	case EVENTS:
		for (int i = 0; i < pairs; i++) {
			SBT_MARKER_START("bench");
			SBT_MARKER_STOP("bench");
			__asm__ __volatile__("" ::: "memory");
		}
		break;
	case LOOP:
		for (int i = 0; i < pairs; i++)
			__asm__ __volatile__("" ::: "memory");
		break;
	}
	b = sbt_clock_stop(&cpu);
	return b - a;
}

int main(int argc, char **argv)
{
	struct bench_opts o = { -1, 200, 2000, NULL };
	char path[4096], out[64];

	if (bench_args(argc, argv, "bench-overhead", 1, &o) != 0)
		return 2;
	const char *lib = o.lib;
	int rounds = o.rounds, pairs = o.pairs;
	if (!lib) {
		ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
		path[n > 0 ? n : 0] = 0;
		char *s = strrchr(path, '/');
		strcpy(s ? s + 1 : path, "../preload/libsbtmark.so");
		lib = path;
	}
	int cpu = bench_pin(o.cpu);

	/* "off" needs a process without the recorder: measure it first,
	 * then run again with the recorder preloaded. */
	tick_ns = bench_tick_ns();
	if (!sbt_marker_start_at) {
		double off[64], loop[64];
		char val[64], pre[8192];
		const char *old = getenv("LD_PRELOAD");
		if (access(lib, R_OK) != 0) {
			fprintf(stderr, "bench-overhead: %s: %s\n", lib,
				strerror(errno));
			return 1;
		}
		round_of(OFF, pairs, NULL);
		for (int r = 0; r < 64; r++) {
			off[r] = (double)round_of(OFF, pairs, NULL) / pairs;
			loop[r] = (double)round_of(LOOP, pairs, NULL) / pairs;
		}
		snprintf(val, sizeof val, "%.4f", (bench_q(off, 64, 0.5) -
			 bench_q(loop, 64, 0.5)) * tick_ns);
		setenv("SBT_BENCH_OFF_NS", val, 1);
		snprintf(pre, sizeof pre, "%s%s%s", lib, old && *old ? ":" : "",
			 old && *old ? old : "");
		setenv("LD_PRELOAD", pre, 1);
		snprintf(out, sizeof out, "/tmp/sbt-bench-%d.log", (int)getpid());
		setenv("SBT_OUTPUT", out, 1);
		setenv("SBT_PROBE_PERIOD", "0", 0);
		setenv("SBT_SAMPLE", "bench-sparse:1048576,"
		       "bench-lksparse:1048576", 0);
		setenv("SBT_BENCH_STAGE", "0", 1);
		fflush(NULL);
		execv("/proc/self/exe", argv);
		fprintf(stderr, "bench-overhead: re-exec: %s\n", strerror(errno));
		return 1;
	}
	/* The stages' executions: the sbtmark row under one setting each,
	 * then the last one under the user's environment.  Each stage's
	 * setting is made for the execution after the one that saw its
	 * number: the recorder reads its configuration before main. */
	const char *stv = getenv("SBT_BENCH_STAGE");
	if (stv) {
		int st = atoi(stv);
		char val[64], name[80], keep[4096];
		if (st > 0) {           /* measure stage st - 1, set now */
			double c[64], loop[64];
			round_of(stages[st - 1].row, pairs, NULL);
			for (int r = 0; r < 64; r++) {
				c[r] = (double)round_of(stages[st - 1].row,
							pairs, NULL) / pairs;
				loop[r] = (double)round_of(LOOP, pairs, NULL) /
					  pairs;
			}
			snprintf(val, sizeof val, "%.4f", (bench_q(c, 64, 0.5) -
				 bench_q(loop, 64, 0.5)) * tick_ns);
			setenv(stages[st - 1].env, val, 1);
			/* the user's own value back */
			snprintf(name, sizeof name, "SBT_BENCH_WAS_%d", st - 1);
			const char *was = getenv(name);
			if (was && *was)
				setenv(stages[st - 1].var, was + 1, 1);
			else
				unsetenv(stages[st - 1].var);
			unsetenv(name);
		}
		if (st < NSTAGES) {     /* the next stage's setting */
			const char *was = getenv(stages[st].var);
			snprintf(name, sizeof name, "SBT_BENCH_WAS_%d", st);
			snprintf(keep, sizeof keep, "=%s", was ? was : "");
			setenv(name, was ? keep : "", 1);
			setenv(stages[st].var, stages[st].val, 1);
			snprintf(val, sizeof val, "%d", st + 1);
			setenv("SBT_BENCH_STAGE", val, 1);
		} else {
			unsetenv("SBT_BENCH_STAGE");
		}
		typedef const char *(*path_fn)(void);
		path_fn lp0 = (path_fn)dlsym(RTLD_DEFAULT,
					     "sbt_marker_log_path");
		if (lp0 && lp0())
			unlink(lp0());
		fflush(NULL);
		execv("/proc/self/exe", argv);
		fprintf(stderr, "bench-overhead: re-exec: %s\n", strerror(errno));
		return 1;
	}
	unsetenv("LD_PRELOAD");
	void *h = RTLD_DEFAULT;
	m_start = (mark_fn)dlsym(h, "sbt_marker_start");
	m_stop = (mark_fn)dlsym(h, "sbt_marker_stop");
	m_last = (last_fn)dlsym(h, "sbt_marker_last");
	l_start = (mark_fn)dlsym(h, "likwid_markerStartRegion");
	l_stop = (mark_fn)dlsym(h, "likwid_markerStopRegion");
	if (!m_start || !m_stop || !m_last) {
		fprintf(stderr, "bench-overhead: %s lacks the marker API\n",
			lib);
		return 1;
	}
	int have_likwid = l_start && l_stop;
	const char *offs = getenv("SBT_BENCH_OFF_NS");

	/* rows of their own executions, and of likwid */
#define ELSEWHERE(m) ((m) == OFF || (m) == NOPROBE || (m) == MAXMB || \
		      (m) == EVENTS)
#define SKIPPED(m) (ELSEWHERE(m) || \
		    (!have_likwid && ((m) == LIKWID || (m) == LKSPARSE)))

	double *cost[NM], *win[NM];
	size_t nwin = (size_t)rounds * (size_t)pairs;
	for (int m = 0; m < NM; m++) {
		cost[m] = calloc((size_t)rounds, sizeof(double));
		win[m] = calloc(nwin, sizeof(double));
		if (!cost[m] || !win[m])
			return 1;
	}
	/* warm-up, then interleaved rounds: cost rounds, then window rounds */
	for (int m = 0; m < NM; m++)
		if (!SKIPPED(m))
			round_of(m, pairs, NULL);
	for (int r = 0; r < rounds; r++)
		for (int m = 0; m < NM; m++) {
			if (SKIPPED(m))
				continue;
			cost[m][r] = (double)round_of(m, pairs, NULL) / pairs;
			if (m != LOOP && m != SPARSE && m != LKSPARSE)
				round_of(m, pairs, win[m] + (size_t)r * pairs);
		}

	double loop = bench_q(cost[LOOP], (size_t)rounds, 0.5);
	double c50[NM], wmin[NM], w50[NM], w999[NM];
	printf("bench-overhead: cpu %d, %d rounds x %d empty pairs, "
	       "tick %.4f ns\n", cpu, rounds, pairs, tick_ns);
	printf("%-8s %16s %12s %12s %12s %14s\n", "method",
	       "cost/pair p50", "window min", "window p50", "window p99.9",
	       "p99.9 - min");
	for (int m = 0; m < NM; m++) {
		if (m == LOOP || (!ELSEWHERE(m) && SKIPPED(m)))
			continue;
		c50[m] = (bench_q(cost[m], (size_t)rounds, 0.5) - loop) * tick_ns;
		if (m == SPARSE || m == LKSPARSE) {
			printf("%-8s %13.2f ns %12s %12s %12s %14s\n", names[m],
			       c50[m], "-", "-", "-", "-");
			continue;
		}
		if (ELSEWHERE(m)) {
			const char *v = offs;
			for (int k = 0; k < NSTAGES; k++)
				if (stages[k].row == m)
					v = getenv(stages[k].env);
			c50[m] = v ? atof(v) : 0;
			printf("%-8s %13.2f ns %12s %12s %12s %14s\n", names[m],
			       c50[m], "-", "-", "-", "-");
			continue;
		}
		wmin[m] = bench_q(win[m], nwin, 0) * tick_ns;
		w50[m] = bench_q(win[m], nwin, 0.5) * tick_ns;
		w999[m] = bench_q(win[m], nwin, 0.999) * tick_ns;
		printf("%-8s %13.2f ns %9.1f ns %9.1f ns %9.1f ns %11.1f ns\n",
		       names[m], c50[m], wmin[m], w50[m], w999[m],
		       w999[m] - wmin[m]);
	}
	printf("\nratios to bare: cost %.2fx (target <= 1.25x), window min "
	       "%.2fx (target 1.0x), p99.9-min %.2fx (target <= 1.0x)\n",
	       c50[SBT] / c50[BARE], wmin[SBT] / wmin[BARE],
	       (w999[SBT] - wmin[SBT]) / (w999[BARE] - wmin[BARE] > 0 ?
					  w999[BARE] - wmin[BARE] : 1));
	printf("function entry points vs inline: cost %.2fx\n",
	       c50[CALL] / c50[SBT]);
	printf("skipped call (sparse recording) vs bare: cost %.2fx "
	       "(target <= 0.20x)\n", c50[SPARSE] / c50[BARE]);
	if (have_likwid) {
		printf("likwid (interposed) vs sbtmark cost: %.2fx "
		       "(target <= 1.05x)\n", c50[LIKWID] / c50[SBT]);
		printf("skipped call, likwid vs sbtmark: %.2fx\n",
		       c50[LKSPARSE] / c50[SPARSE]);
	}
	printf("SBT_MAX_MB below its first step vs none: %.2fx\n",
	       c50[MAXMB] / c50[NOPROBE]);
	printf("a thread counting SBT_EVENTS vs none: %.2fx\n",
	       c50[EVENTS] / c50[NOPROBE]);
	printf("compiled-in marker without the recorder: %.2f ns per pair\n",
	       c50[OFF]);
	{
		const char *sp = getenv("SBT_SPEED_US");
		printf("speed probes (SBT_SPEED_US=%s) vs none: %+.2f ns per "
		       "pair, %.3fx (target <= +1 ns)\n", sp ? sp : "100",
		       c50[SBT] - c50[NOPROBE], c50[SBT] / c50[NOPROBE]);
	}
	typedef const char *(*path_fn)(void);
	path_fn lp = (path_fn)dlsym(RTLD_DEFAULT, "sbt_marker_log_path");
	if (lp && lp())
		unlink(lp());
	return 0;
}
