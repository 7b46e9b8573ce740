/*
 * test_turbulence.c - a region's own step amid the host's turbulence,
 * end to end (log -> sbt_analyze).
 *
 * Two regions on one thread: "acc" steps +29 % at mid-run (300 -> 387 ns
 * at 50 ms), "ref" does the same work throughout (300 ns).  The host
 * slows both by 50-90 % in windows of 0.5-8 ms, a fifth of the run and
 * more, before and after the step.  ref moves only when acc does: it is
 * the witness that the windows are the machine's.  What must hold: acc's
 * step is found and dated where its new level begins, within 5 % of the
 * run; the long stretches at the new level between the windows are
 * acc's own, not left out as the machine's.
 */
#include "../common/gen.h"
#include "../common/harness.h"
#include "../common/logbuild.h"
#include "analyze.h"
#include "reader.h"

#include <math.h>

#define CALLS   20000
#define PERIOD  5000.0          /* ns between calls: a 100 ms run */
#define STEP_AT 50e6

/* The host's windows [t0, t1) ms and how much slower the VM ran. */
static const struct { double t0, t1, f; } win[] = {
	{ 2.0, 10.0, 1.54 }, { 12.0, 18.0, 1.85 }, { 28.0, 30.0, 1.80 },
	{ 34.0, 38.0, 1.54 }, { 52.5, 58.9, 1.75 }, { 73.5, 76.5, 1.60 },
	{ 81.3, 81.8, 1.80 }, { 83.3, 87.5, 1.60 }, { 88.3, 90.6, 1.80 },
};

static double slow_at(double t_ns)
{
	for (size_t i = 0; i < sizeof win / sizeof win[0]; i++)
		if (t_ns >= win[i].t0 * 1e6 && t_ns < win[i].t1 * 1e6)
			return win[i].f;
	return 1;
}

static void make_log(const char *path)
{
	struct synlog L;
	struct gen g = { 33 };

	syn_begin(&L, 1e9);
	L.h.tick_quantum = 10;
	syn_region(&L, 1, "acc");
	syn_region(&L, 2, "ref");
	for (long i = 0; i < CALLS; i++) {
		double t = PERIOD * (double)i, f = slow_at(t);
		double a = (t >= STEP_AT ? 387 : 300) * f + gen_exp(&g, 1.5);
		double r = 300 * f + gen_exp(&g, 1.5);
		uint64_t ta = (uint64_t)t, tr = (uint64_t)(t + 0.6 * PERIOD);
		syn_pair(&L, 0, 1, ta, ta + (uint64_t)gen_read(&g, a, 10), 0);
		syn_pair(&L, 0, 2, tr, tr + (uint64_t)gen_read(&g, r, 10), 0);
	}
	syn_write(&L, path);
}

static const struct sbt_group *group(const struct sbt_dataset *ds,
				     const struct sbt_result *r,
				     const char *name)
{
	for (size_t k = 0; k < r->ngroups; k++)
		if (!strcmp(ds->regions[r->g[k].region].name, name))
			return &r->g[k];
	return NULL;
}

int main(void)
{
	struct sbt_options o = { .by = SBT_BY_NONE, .filters = SBT_F_ALL,
		.seed = 1, .cost_ns = 0, .profile_t_min_ns = NAN,
		.profile_t_diff_ns = NAN, .jobs = 1 };
	struct sbt_dataset ds = { 0 };
	struct sbt_result r;
	char err[256] = "";

	make_log("turbulence.log");
	if (sbt_read_log("turbulence.log", &ds, err, sizeof err) != 0 ||
	    sbt_analyze(&ds, &o, &r) != 0) {
		CHECK(0, "analysis failed: %s", err);
		return h_done();
	}
	const struct sbt_group *acc = group(&ds, &r, "acc");
	CHECK(acc != NULL, "no region acc");
	if (acc) {
		const struct sbt_phases *p = &acc->phases;
		int found = 0;
		for (int k = 0; k < p->nsteps; k++) {
			const struct sbt_phase *s = &p->ph[p->step[k]];
			printf("acc: step at %.2f ms: %.0f -> %.0f ns\n",
			       s->t_begin_ns / 1e6, p->step_from_ns[k],
			       s->level_ns);
			found += fabs(p->step_from_ns[k] - 300) < 30 &&
				 fabs(s->level_ns - 387) < 39 &&
				 fabs(s->t_begin_ns - STEP_AT) <=
				 0.05 * CALLS * PERIOD;
		}
		CHECK(found == 1, "acc: no step 300 -> 387 ns within 5 ms of "
		      "50 ms (%d steps)", p->nsteps);
		/* a host window is no step of acc's */
		CHECK(p->nsteps == 1, "acc: %d steps, 1 planted", p->nsteps);
		/* the new level's stretches between the windows are acc's
		 * own: no more left out than the windows hold, give or
		 * take a detector's resolution at each edge */
		size_t in_win = 0;
		for (long i = 0; i < CALLS; i++)
			in_win += slow_at(PERIOD * (double)i) > 1;
		CHECK(acc->machine_n <= in_win + CALLS / 50, "acc: %zu samples "
		      "left out as the machine's, %zu in its windows",
		      acc->machine_n, in_win);
	}
	sbt_result_free(&r);
	sbt_ds_free(&ds);
	return h_done();
}
