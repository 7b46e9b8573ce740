/*
 * test_phase.c - phases over time (analysis/score/phase.c): a shift in the
 * middle of a run is found at the right time, stationary noise (skewed,
 * bimodal, quantized) gives none, shifts below t_diff are not reported,
 * an excursion and a warm-up are found and named, a step amid host
 * slowdowns is dated where its new level begins, tiny and huge N work.
 */
#include "phase.h"
#include "say.h"
#include "stats.h"
#include "../common/gen.h"
#include "../common/harness.h"

/* One generator per test binary, seeded by each case. */
static struct gen G;

#include <stdlib.h>
#include <string.h>

static double *alloc_n(size_t n)
{
	double *x = malloc((n ? n : 1) * sizeof *x);
	if (!x) {
		printf("out of memory\n");
		exit(2);
	}
	return x;
}

/* start times: one sample every dt ns, with some jitter, ordered */
static void times(double *t, size_t n, double dt)
{
	for (size_t i = 0; i < n; i++)
		t[i] = (double)i * dt + 0.5 * dt * gen_unif(&G);
}

static void show(const char *name, const struct sbt_phases *p)
{
	char line[256];
	sbt_phase_line(p, line, sizeof line);
	printf("%-22s %d phase(s):", name, p->nphases);
	for (int k = 0; k < p->nphases; k++)
		printf(" [%zu+%zu %.1f z=%.1f]", p->ph[k].first, p->ph[k].n,
		       p->ph[k].median_ns, p->z[k]);
	printf("\n  -> %s\n", line);
}

/* skewed timing noise: a floor and an exponential-ish tail */
static double noise(double scale)
{
	return scale * fabs(gen_norm(&G)) + (gen_unif(&G) < 0.02 ? 50 * gen_unif(&G)
					   : 0);
}

static void test_mid_shift(void)
{
	size_t n = 20000;
	double *t = alloc_n(n), *x = alloc_n(n);
	struct sbt_phases p;
	char line[256];

	G.s = 11;
	times(t, n, 120e3);                  /* 2.4 s run, middle at 1.2 s */
	for (size_t i = 0; i < n; i++)
		x[i] = gen_read(&G, (i < n / 2 ? 300 : 410) + noise(10), 1);
	CHECK(sbt_phase_detect(t, x, n, 5, &p) == 0, "rc");
	sbt_phase_classify(&p, n, 5);
	show("shift at 1.2 s", &p);
	CHECK(p.nphases == 2, "%d", p.nphases);
	if (p.nphases == 2) {
		CHECK(fabs((double)p.ph[1].first - (double)n / 2) <= 0.05 * (double)n,
		      "%zu", p.ph[1].first);
		CHECK(fabs(p.ph[1].t_begin_ns - 1.2e9) <= 0.05 * 1.2e9, "%g",
		      p.ph[1].t_begin_ns);
		CHECK(p.ph[0].n + p.ph[1].n == n, "sizes");
		CHECK(fabs(p.ph[0].median_ns - 308) < 4 &&
		      fabs(p.ph[1].median_ns - 418) < 4, "%g %g",
		      p.ph[0].median_ns, p.ph[1].median_ns);
	}
	sbt_phase_line(&p, line, sizeof line);
	CHECK(p.nsteps == 1 && p.warmup_n == 0 && p.ntransients == 0,
	      "%d", p.nsteps);
	CHECK(strcmp(line, "step at 1.20 s: 307 ns -> 418 ns (+35.8 %)") == 0,
	      "%s", line);
	free(t);
	free(x);
}

/* Stationary data of several shapes and seeds: never a phase. */
static void test_stationary(void)
{
	size_t n = 20000;
	double *t = alloc_n(n), *x = alloc_n(n);
	struct sbt_phases p;
	int false_alarms = 0;

	for (int seed = 0; seed < 30; seed++) {
		G.s = 100 + (uint64_t)seed;
		times(t, n, 1000);
		for (size_t i = 0; i < n; i++) {
			switch (seed % 3) {
			case 0:   /* wide, skewed */
				x[i] = gen_read(&G, 300 + noise(40), 1);
				break;
			case 1:   /* two modes, mixed at random */
				x[i] = gen_read(&G, (gen_unif(&G) < 0.4 ? 300 : 400)
						+ noise(3), 1);
				break;
			default:  /* quantized, one or two ticks */
				x[i] = gen_read(&G, 403 + 15 * gen_unif(&G), 10);
			}
		}
		CHECK(sbt_phase_detect(t, x, n, 3, &p) == 0, "rc");
		sbt_phase_classify(&p, n, 3);
		if (p.nphases != 1) {
			false_alarms++;
			show("stationary (!)", &p);
		}
	}
	CHECK(false_alarms == 0, "%d of 30", false_alarms);
	char line[64];
	sbt_phase_line(&p, line, sizeof line);
	CHECK(strcmp(line, "no shift over time") == 0, "%s", line);
	free(t);
	free(x);
}

/* A real but small shift, below t_diff: significant, not reported. */
static void test_below_tdiff(void)
{
	size_t n = 100000;
	double *t = alloc_n(n), *x = alloc_n(n);
	struct sbt_phases p;

	G.s = 12;
	times(t, n, 1000);
	for (size_t i = 0; i < n; i++)
		x[i] = (i < n / 3 ? 300 : 302) + gen_norm(&G);
	CHECK(sbt_phase_detect(t, x, n, 5, &p) == 0, "rc");
	CHECK(p.nphases == 1, "%d", p.nphases);
	CHECK(sbt_phase_detect(t, x, n, 1, &p) == 0, "rc");
	show("2 ns shift, t_diff 1", &p);
	CHECK(p.nphases == 2 && labs((long)p.ph[1].first - (long)n / 3) < 500,
	      "%d", p.nphases);
	free(t);
	free(x);
}

/* A warm-up at the start, a short excursion (2 % of the run) and a long
 * one (20 %): the first two are named as such, the long one is two steps. */
static void test_excursion_warmup(void)
{
	size_t n = 40000;
	double *t = alloc_n(n), *x = alloc_n(n);
	struct sbt_phases p;
	char line[256];

	G.s = 13;
	times(t, n, 1000);
	for (size_t i = 0; i < n; i++) {
		double base = i < 200 ? 1000 :          /* 0.5 % warm-up */
			      i >= 8000 && i < 8800 ? 420 :   /* 2 % */
			      i >= 16000 && i < 24000 ? 360 : 300;
		x[i] = gen_read(&G, base + noise(8), 10);
	}
	CHECK(sbt_phase_detect(t, x, n, 20, &p) == 0, "rc");
	sbt_phase_classify(&p, n, 20);
	show("warm-up + excursions", &p);
	CHECK(p.nphases == 6, "%d", p.nphases);
	if (p.nphases == 6) {
		CHECK(p.ph[0].kind == SBT_PH_WARMUP &&
		      labs((long)p.ph[1].first - 200) <= 40, "%zu",
		      p.ph[1].first);
		CHECK(p.ph[2].kind == SBT_PH_TRANSIENT &&
		      labs((long)p.ph[2].first - 8000) <= 100, "%zu",
		      p.ph[2].first);
		CHECK(labs((long)p.ph[4].first - 16000) <= 400, "%zu",
		      p.ph[4].first);
		CHECK(labs((long)p.ph[5].first - 24000) <= 400, "%zu",
		      p.ph[5].first);
		CHECK(p.ph[0].median_ns >= 1000 && p.ph[4].median_ns > 350 &&
		      p.ph[5].median_ns < 320, "medians");
	}
	CHECK(p.warmup_n >= 160 && p.warmup_n <= 240, "%zu", p.warmup_n);
	CHECK(p.ntransients == 1 && p.transient_n >= 700 &&
	      p.transient_n <= 900 && p.transient_max > 0.3, "%d %zu %g",
	      p.ntransients, p.transient_n, p.transient_max);
	CHECK(p.nsteps == 2, "%d", p.nsteps);
	sbt_phase_line(&p, line, sizeof line);
	CHECK(strstr(line, "step at 16.") == line && strstr(line, "warm-up") &&
	      strstr(line, "1 transient slowdown"), "%s", line);
	free(t);
	free(x);
}

/* A +29 % step at mid-run (t = 100 ms), then short host slowdowns at the
 * new level for a while, then steady: the new level begins at the step,
 * and the stretches between the slowdowns, at the new level, are part of
 * it, not transients.  The step is dated within 5 % of its true place;
 * the slowdowns alone are the transients. */
static void test_step_turbulence(void)
{
	size_t n = 40000, at = 20000;
	/* host slowdowns after the step: [first, end) at a level */
	static const struct { size_t lo, hi; double ns; } ex[] = {
		{ 20400, 20600, 620 }, { 21000, 21300, 520 },
		{ 21800, 22000, 700 }, { 22600, 22800, 560 },
	};
	size_t nex = sizeof ex / sizeof ex[0], ex_n = 0;
	double *t = alloc_n(n), *x = alloc_n(n);
	struct sbt_phases p;

	G.s = 15;
	times(t, n, 5e3);                    /* 200 ms run, step at 100 ms */
	for (size_t i = 0; i < n; i++) {
		double base = i < at ? 300 : 387;
		for (size_t e = 0; e < nex; e++)
			if (i >= ex[e].lo && i < ex[e].hi)
				base = ex[e].ns;
		x[i] = gen_read(&G, base + noise(8), 10);
	}
	for (size_t e = 0; e < nex; e++)
		ex_n += ex[e].hi - ex[e].lo;
	CHECK(sbt_phase_detect(t, x, n, 20, &p) == 0, "rc");
	sbt_phase_classify(&p, n, 20);
	show("step amid turbulence", &p);
	CHECK(p.nsteps == 1, "%d steps", p.nsteps);
	if (p.nsteps == 1) {
		const struct sbt_phase *s = &p.ph[p.step[0]];
		CHECK(fabs(s->t_begin_ns - 100e6) <= 0.05 * 100e6,
		      "step dated at %.2f ms, the new level began at 100 ms",
		      s->t_begin_ns / 1e6);
		CHECK(fabs(p.step_from_ns[0] - 308) < 10 &&
		      fabs(s->level_ns - 395) < 15, "%g -> %g",
		      p.step_from_ns[0], s->level_ns);
	}
	/* the slowdowns are the transients, the new level's pieces are not */
	CHECK(p.ntransients == (int)nex, "%d transients", p.ntransients);
	CHECK(p.transient_n >= ex_n - ex_n / 10 &&
	      p.transient_n <= ex_n + ex_n / 10, "%zu transient samples, %zu "
	      "in slowdowns", p.transient_n, ex_n);
	for (int k = 0; k < p.nphases; k++)
		if (p.ph[k].kind == SBT_PH_TRANSIENT)
			CHECK(p.ph[k].level_ns > 480, "phase %d at %g ns called "
			      "transient", k, p.ph[k].level_ns);
	free(t);
	free(x);
}

/* The same +29 % step, then host slowdowns every 1000 samples over the
 * run's last tenth: the pieces between them, after the new level's last
 * long phase, are that level's, not transients; only the slowdowns are.
 * (More pieces than SBT_PHASE_MAX phases hold merge: a slowdown every
 * 1500 samples through the whole second half dates the step 7.5 % late.) */
static void test_step_late_slowdowns(void)
{
	size_t n = 40000, at = 20000, from = 36000;
	double *t = alloc_n(n), *x = alloc_n(n);
	struct sbt_phases p;

	G.s = 16;
	times(t, n, 5e3);
	for (size_t i = 0; i < n; i++) {
		double base = i < at ? 300 : 387;
		if (i >= from && (i - from) % 1000 >= 800)
			base = 600;
		x[i] = gen_read(&G, base + noise(8), 10);
	}
	CHECK(sbt_phase_detect(t, x, n, 20, &p) == 0, "rc");
	sbt_phase_classify(&p, n, 20);
	show("step, late slowdowns", &p);
	CHECK(p.nsteps == 1, "%d steps", p.nsteps);
	if (p.nsteps == 1) {
		const struct sbt_phase *s = &p.ph[p.step[0]];
		CHECK(fabs(s->t_begin_ns - 100e6) <= 0.05 * 100e6,
		      "step dated at %.2f ms, the new level began at 100 ms",
		      s->t_begin_ns / 1e6);
		CHECK(fabs(s->level_ns / p.step_from_ns[0] - 1.29) < 0.03,
		      "%g -> %g", p.step_from_ns[0], s->level_ns);
	}
	CHECK(p.ntransients == 4 && p.transient_n >= 700 &&
	      p.transient_n <= 900, "%d transients, %zu samples",
	      p.ntransients, p.transient_n);
	for (int k = 0; k < p.nphases; k++)
		if (p.ph[k].kind == SBT_PH_TRANSIENT)
			CHECK(p.ph[k].level_ns > 480, "phase %d at %g ns called "
			      "transient", k, p.ph[k].level_ns);
	free(t);
	free(x);
}

static void test_edges(void)
{
	double t[3] = { 0, 1, 2 }, x[3] = { 5, 6, 7 };
	double bad[3] = { 0, 2, 1 };
	struct sbt_phases p;
	char line[64];

	CHECK(sbt_phase_detect(t, x, 0, 3, &p) == 0 && p.nphases == 0, "n=0");
	sbt_phase_line(&p, line, sizeof line);
	CHECK(strcmp(line, "no shift over time") == 0, "%s", line);
	CHECK(sbt_phase_detect(t, x, 1, 3, &p) == 0 && p.nphases == 1 &&
	      p.ph[0].median_ns == 5, "n=1");
	CHECK(sbt_phase_detect(t, x, 2, 3, &p) == 0 && p.nphases == 1 &&
	      p.ph[0].median_ns == 5.5 && p.ph[0].n == 2, "n=2");
	CHECK(sbt_phase_detect(bad, x, 3, 3, &p) == -2, "unordered");
	/* no t_diff: no judgement, one phase */
	CHECK(sbt_phase_detect(t, x, 3, NAN, &p) == 0 && p.nphases == 1,
	      "nan");
}

/* 10^7 samples with a shift at 70 %: runs, and finds it. */
static void test_huge(void)
{
	size_t n = 10000000;
	double *t = alloc_n(n), *x = alloc_n(n);
	struct sbt_phases p;

	G.s = 14;
	times(t, n, 100);
	for (size_t i = 0; i < n; i++)
		x[i] = gen_read(&G, (i < n / 10 * 7 ? 2000 : 2100) + noise(20), 0.4);
	CHECK(sbt_phase_detect(t, x, n, 30, &p) == 0, "rc");
	sbt_phase_classify(&p, n, 30);
	show("10^7 samples", &p);
	CHECK(p.nphases == 2 && labs((long)p.ph[1].first - (long)(n / 10 * 7))
	      < (long)n / 100, "%d", p.nphases);
	CHECK(p.nsteps == 1, "%d", p.nsteps);
	free(t);
	free(x);
}

/* A phase's level and median as the plain way finds them: on a copy,
 * by selection (sbt_quantile), the trimmed mean's sum in time order. */
static double ref_level(const double *x, size_t m, double *w)
{
	size_t g = (size_t)floor(0.1 * (double)m), le = 0, lt = 0;
	double a, b, sum = 0;

	memcpy(w, x, m * sizeof *w);
	a = sbt_quantile(w, m, m > 1 ? (double)g / (double)(m - 1) : 0);
	b = sbt_quantile(w, m, m > 1 ? (double)(m - 1 - g) /
			 (double)(m - 1) : 0);
	if (a == b)
		return a;
	for (size_t i = 0; i < m; i++) {
		le += x[i] <= a;
		lt += x[i] < b;
		if (x[i] > a && x[i] < b)
			sum += x[i];
	}
	sum += (double)(le - g) * a + (double)(m - g - lt) * b;
	return sum / (double)(m - 2 * g);
}

/* The levels and medians phase.c reads off each phase's values kept
 * sorted (split, merged when phases join) are the plain way's to the
 * bit: a drift in steps below t_diff (many cuts, merged), excursions,
 * ties of a quantized clock.  A run that split or merged wrong, or
 * lost its values, gives another level or median. */
static void test_levels_exact(void)
{
	size_t n = 60000;
	double *t = alloc_n(n), *x = alloc_n(n), *w = alloc_n(n);
	struct sbt_phases p;
	int bad = 0, phases = 0;

	for (int seed = 0; seed < 6; seed++) {
		G.s = 500 + (uint64_t)seed;
		times(t, n, 1e4);
		for (size_t i = 0; i < n; i++) {
			double base = 300 + 3 * (double)(i * 24 / n);
			if (i % 9000 > 8500)
				base += 60;     /* excursions */
			x[i] = gen_read(&G, base + noise(4), seed % 2 ? 1 : 10);
		}
		CHECK(sbt_phase_detect(t, x, n, 8, &p) == 0, "rc");
		phases += p.nphases;
		for (int k = 0; k < p.nphases; k++) {
			const struct sbt_phase *ph = &p.ph[k];
			double lv = ref_level(x + ph->first, ph->n, w);
			memcpy(w, x + ph->first, ph->n * sizeof *w);
			double md = sbt_quantile(w, ph->n, 0.5);
			if (lv != ph->level_ns || md != ph->median_ns) {
				if (!bad++)
					printf("phase %d of seed %d: level %.17g "
					       "median %.17g, plain %.17g %.17g\n",
					       k, seed, ph->level_ns,
					       ph->median_ns, lv, md);
			}
		}
	}
	printf("levels exact: %d phases\n", phases);
	CHECK(phases >= 12, "%d phases: too few to merge", phases);
	CHECK(bad == 0, "%d phases' level or median differ", bad);
	free(t), free(x), free(w);
}

int main(void)
{
	test_levels_exact();
	test_mid_shift();
	test_stationary();
	test_below_tdiff();
	test_excursion_warmup();
	test_step_turbulence();
	test_step_late_slowdowns();
	test_edges();
	test_huge();
	return h_done();
}
