/*
 * acc_app.c - a region with a known, planted variation, for the verdict
 * accuracy matrix (tools/accuracy.py).
 *
 *   acc_app MODE BASE_NS GAP_NS SHARE N [SEED]
 *   acc_app --timer
 *
 * MODE two:   each call does BASE_NS of work, or with probability SHARE
 *             BASE_NS + GAP_NS (a second mode);
 *      step:  the first SHARE*N calls do BASE_NS, the rest BASE_NS + GAP_NS;
 *      const: every call does BASE_NS (GAP_NS and SHARE ignored).
 * A MODE ending in "-alone" (step-alone, const-alone) has no "ref":
 * the region alone in its thread, where only the speed probes can tell
 * the processor's changes from the region's.
 * The region is "acc"; each call is followed by one of "ref", the same
 * BASE_NS of work every time: what the machine does to both (a core
 * clock change, a co-runner on the host) shows in both at once, which
 * is how the analyzer tells the machine's shifts from the code's.
 * Work is a chain of dependent adds whose speed is
 * measured at startup (the core clock is not fixed on every machine), so
 * the gap is planted in ns, not in adds.  Prints one JSON line with what
 * was planted, and the timer's step: the larger of the clock's quantum
 * and the p5..p95 spread of 20000 bare serialized pairs, measured here
 * with the inline clock reads of sbtmark.h - independent of the
 * recorder and of the analyzer's own estimates.
 */
#include <sbtmark.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "work.h"

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ns per chain step: the fastest of many 50 us runs, after a warm-up
 * long enough for the core clock to settle.  Short runs because a busy
 * process may share the cpu: a run it preempts only loses the minimum. */
static double ns_per_step(uint64_t *x)
{
	double best = 1e9;
	double end = now_ns() + 100e6;

	long n = use_line ? LINE_MAX : 100000;

	while (now_ns() < end)
		*x = work(*x, n);
	for (int k = 0; k < 400; k++) {
		double t0 = now_ns();
		*x = work(*x, n);
		double r = (now_ns() - t0) / (double)n;
		if (r < best)
			best = r;
	}
	return best;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The bare pair's p5..p95 spread and the clock's step, both in ns. */
static void timer_step(double *spread_ns, double *quantum_ns)
{
	enum { N = 20000 };
	static uint64_t d[N];
	uint64_t g = 0;
	int cpu;
	double n0 = now_ns();
	uint64_t c0 = sbt_clock_stop(&cpu);

	for (int i = 0; i < N; i++) {
		uint64_t a = sbt_clock_start(&cpu);
		uint64_t b = sbt_clock_stop(&cpu);
		d[i] = b - a;
		for (uint64_t x = d[i], y = g; ; ) {   /* g = gcd(g, d[i]) */
			if (!y) { g = x; break; }
			uint64_t t = x % y; x = y; y = t;
		}
	}
	while (now_ns() < n0 + 20e6)
		;
	double tick = (now_ns() - n0) / (double)(sbt_clock_stop(&cpu) - c0);
	qsort(d, N, sizeof *d, cmp_u64);
	*spread_ns = (double)(d[N - 1 - N / 20] - d[N / 20]) * tick;
	*quantum_ns = (double)g * tick;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--timer")) {
		double spread, quantum;
		timer_step(&spread, &quantum);
		printf("{\"bare_spread_ns\": %.3f, \"quantum_ns\": %.3f}\n",
		       spread, quantum);
		return 0;
	}
	if (argc < 6) {
		fprintf(stderr, "usage: acc_app two|step|const BASE_NS GAP_NS "
			"SHARE N [SEED]\n");
		return 2;
	}
	char mode[16];
	snprintf(mode, sizeof mode, "%s", argv[1]);
	char *dash = strstr(mode, "-alone");
	int alone = dash && !dash[6];
	if (alone)
		*dash = 0;
	double base = atof(argv[2]), gap = atof(argv[3]);
	double share = atof(argv[4]);
	long n = atol(argv[5]);
	uint64_t rng = argc > 6 ? strtoull(argv[6], 0, 10) : 1;
	uint64_t x = rng;
	int two = !strcmp(mode, "two"), step = !strcmp(mode, "step");

	if (!two && !step && strcmp(mode, "const")) {
		fprintf(stderr, "acc_app: unknown mode '%s'\n", mode);
		return 2;
	}
	const char *w = getenv("ACC_WORK");
	use_line = w && !strcmp(w, "line");
	double nsps = ns_per_step(&x), spread, quantum;
	timer_step(&spread, &quantum);
	long k0 = (long)(base / nsps + 0.5);
	long k1 = (long)((base + gap) / nsps + 0.5);
	long at = (long)(share * (double)n);

	rng = rng * 0x9e3779b97f4a7c15ull | 1;
	SBT_MARKER_INIT;
	for (long i = 0; i < n; i++) {
		long k = k0;
		if (two) {
			rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
			if ((double)(rng >> 11) * 0x1p-53 < share)
				k = k1;
		} else if (step && i >= at) {
			k = k1;
		}
		SBT_MARKER_START("acc");
		x = work(x, k);
		SBT_MARKER_STOP("acc");
		if (alone)
			continue;
		SBT_MARKER_START("ref");
		x = work(x, k0);
		SBT_MARKER_STOP("ref");
	}
	SBT_MARKER_CLOSE;
	printf("{\"mode\": \"%s%s\", \"ns_per_step\": %.4f, \"steps\": [%ld, %ld],"
	       " \"gap_ns\": %.3f, \"share\": %g, \"n\": %ld, "
	       "\"bare_spread_ns\": %.3f, \"quantum_ns\": %.3f, \"x\": %lu}\n",
	       mode, alone ? "-alone" : "", nsps, k0, k1, (double)(k1 - k0) * nsps, share, n,
	       spread, quantum, (unsigned long)(x & 1));
	return 0;
}
