/*
 * test_decomp.c - whose variation it is (analysis/score/decomp.c and the
 * alarms of verdict.c), on synthetic datasets with planted causes, each
 * alone: the OS's faults with varying counts and with one fixed count
 * (and a fixed count whose cost at the run's rate exceeds the call, and
 * calls that waited, which are not the OS's; a fault in 3 calls, and
 * preemptions a region makes its own, which tell no OS cost),
 * two threads 5 % apart that are each bimodal (and two that differ only
 * in their long mode), a processor slowdown with
 * enough probes inside and with too few (and one over a thread that made
 * few calls there, that moved or held), a machine change four regions
 * keep and a fifth comes back from, a barrier whose second thread
 * works 3 % longer (and one where either comes last), a stationary
 * spread nothing explains, a region of
 * two samples; and the bookkeeping of item 5: one OS class per sample in
 * every view, exclusive time never below zero; a step the speed probes
 * did not see, probes too noisy to use, a comparison whose probes did
 * not move, and a counted event that carries the time.  Asserts kinds and
 * numbers, never sentences.  No timing of this machine is read.
 */
#include "analyze.h"
#include "compare.h"
#include "counters.h"
#include "report.h"
#include "result.h"
#include "clause.h"
#include "say.h"
#include "../common/gen.h"
#include "../common/harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct gen G;

static struct sbt_source *begin(struct sbt_dataset *ds, double quantum)
{
	struct sbt_source *src;

	memset(ds, 0, sizeof *ds);
	if (!(src = sbt_ds_source(ds, "synthetic"))) {
		printf("out of memory\n");
		exit(2);
	}
	src->quantum_ns = quantum;
	src->tick_ns = 1;
	src->os_state = SBT_OS_ON;
	src->nthreads = 2;
	return src;
}

static uint32_t region(struct sbt_dataset *ds, const char *name, uint32_t api)
{
	long r = sbt_ds_region(ds, name, strlen(name), api);

	if (r < 0)
		exit(2);
	ds->regions[r].keep = 1;
	return (uint32_t)r;
}

static struct sbt_sample *sample(struct sbt_dataset *ds, uint32_t r,
				 uint32_t th, double t, double ns,
				 unsigned faults)
{
	struct sbt_sample *s = sbt_ds_push(ds);

	if (!s)
		exit(2);
	s->region = r;
	s->thread = th;
	s->t_ns = t;
	s->ns = ns;
	s->faults = (uint16_t)faults;
	s->cpu_start = s->cpu_stop = (uint16_t)th;
	ds->regions[r].total++;
	return s;
}

static struct sbt_options opts(enum sbt_by by)
{
	return (struct sbt_options){ .by = by, .filters = SBT_F_ALL,
				     .seed = 1, .cost_ns = 0,
				     .profile_t_min_ns = NAN,
				     .profile_t_diff_ns = NAN, .jobs = 1 };
}

static const struct sbt_group *group(const struct sbt_dataset *ds,
				     const struct sbt_result *r,
				     const char *name, uint32_t key)
{
	for (size_t i = 0; i < r->ngroups; i++)
		if (!strcmp(ds->regions[r->g[i].region].name, name) &&
		    (key == SBT_FIND_NOKEY || r->g[i].key == key))
			return &r->g[i];
	return NULL;
}

static const struct sbt_finding *find(const struct sbt_group *g, int kind)
{
	for (int k = 0; g && k < g->nfind; k++)
		if (g->find[k].kind == kind)
			return &g->find[k];
	return NULL;
}

static int analyze(struct sbt_dataset *ds, enum sbt_by by,
		   struct sbt_result *r)
{
	struct sbt_options o = opts(by);

	sbt_ds_sort_probes(ds);         /* as a reader leaves them */
	int rc = sbt_analyze(ds, &o, r);

	CHECK(rc == 0, "analyze failed");
	return rc;
}

static void show(const struct sbt_dataset *ds, const struct sbt_group *g)
{
	const struct sbt_decomp *d = &g->decomp;

	printf("%s/%u: n %zu median %.0f faults %.1f cost %.0f (%d) os %.0f; "
	       "shares os %.2f proc %.2f time %.2f groups %.2f modes %.2f "
	       "rest %.2f; %d findings (%d alarms)\n",
	       ds->regions[g->region].name, g->key, d->n, d->median_ns,
	       d->faults, d->fault_cost_ns, d->fault_cost_from, d->os_time_ns,
	       d->c[SBT_COMP_OS].var_share, d->c[SBT_COMP_PROC].var_share,
	       d->c[SBT_COMP_TIME].var_share, d->c[SBT_COMP_GROUPS].var_share,
	       d->c[SBT_COMP_MODES].var_share, d->c[SBT_COMP_REST].var_share,
	       g->nfind, g->nfindings);
	for (int k = 0; k < g->nfind; k++) {
		char text[SBT_SAY_FINDING_LEN] = "";
		struct sbt_strbuf t = { text, sizeof text, 0 };
		sbt_say_finding(&t, g, &g->find[k], SBT_SHORT, NULL);
		printf("    %-12s size %.4g rel %.3g var %.3g alarm %d: %s\n",
		       sbt_finding_kind_name(g->find[k].kind),
		       g->find[k].size_ns, g->find[k].rel,
		       g->find[k].var_share, g->find[k].alarm, text);
	}
}

/* Calls of 2 us + 11 us a fault, 0 to 40 faults each. */
static void varying_faults(struct sbt_dataset *ds, uint32_t r, size_t n,
			   double t0)
{
	for (size_t i = 0; i < n; i++) {
		unsigned f = (unsigned)(gen_unif(&G) * 41);
		sample(ds, r, 0, t0 + 500e3 * (double)i,
		       2000 + 11000.0 * f + 20 * gen_norm(&G), f);
	}
}

/* 1. The OS alone: its component takes the variance, its cost read
 * off the fit. */
static void test_faults_vary(void)
{
	struct sbt_dataset ds;
	struct sbt_result r;

	G.s = 11;
	begin(&ds, 1);
	varying_faults(&ds, region(&ds, "faults", 0), 4000, 0);
	if (analyze(&ds, SBT_BY_NONE, &r) != 0)
		return;
	const struct sbt_group *g = group(&ds, &r, "faults", SBT_FIND_NOKEY);
	CHECK(g != NULL, "no group");
	if (!g)
		return;
	show(&ds, g);
	const struct sbt_decomp *d = &g->decomp;
	CHECK(d->c[SBT_COMP_OS].resolved &&
	      d->c[SBT_COMP_OS].var_share >= 0.9, "OS share %.3f",
	      d->c[SBT_COMP_OS].var_share);
	CHECK(d->fault_cost_from == SBT_COST_REGION &&
	      fabs(d->fault_cost_ns - 11000) < 0.02 * 11000,
	      "cost %.0f ns a fault (from %d)", d->fault_cost_ns,
	      d->fault_cost_from);
	const struct sbt_finding *x = find(g, SBT_FIND_OS_SPREAD);
	CHECK(x && fabs(x->per_event_ns - 11000) < 220 && x->alarm &&
	      x->var_share >= 0.9, "OS spread finding");
	x = find(g, SBT_FIND_OS_TIME);
	CHECK(x && fabs(x->events - 20) < 1.5 &&
	      fabs(x->size_ns - 11000 * x->events) < 0.02 * x->size_ns,
	      "OS time %.0f ns a call", x ? x->size_ns : NAN);
	CHECK(!find(g, SBT_FIND_BROAD) && !find(g, SBT_FIND_MODES),
	      "the faults' spread given to no one else");
	sbt_result_free(&r);
	sbt_ds_free(&ds);
}

/* 2. Every call with the same 600 faults and a +-10 % spread of its
 * own: the OS's share of the time named from the run's cost (a region
 * whose counts vary tells it), the spread unexplained, not the faults'. */
static void test_faults_fixed(void)
{
	struct sbt_dataset ds;
	struct sbt_result r;

	G.s = 12;
	begin(&ds, 1);
	uint32_t a = region(&ds, "same600", 0);
	for (size_t i = 0; i < 2000; i++)
		sample(&ds, a, 0, 10e6 * (double)i,
		       (2000 + 600 * 11000.0) * (1 + 0.1 * gen_norm(&G)), 600);
	varying_faults(&ds, region(&ds, "calib", 0), 4000, 3e10);
	if (analyze(&ds, SBT_BY_NONE, &r) != 0)
		return;
	const struct sbt_group *g = group(&ds, &r, "same600", SBT_FIND_NOKEY);
	if (!g) {
		CHECK(0, "no group");
		return;
	}
	show(&ds, g);
	const struct sbt_decomp *d = &g->decomp;
	CHECK(d->fault_cost_from == SBT_COST_RUN &&
	      fabs(d->fault_cost_ns - 11000) < 220, "cost %.0f (from %d)",
	      d->fault_cost_ns, d->fault_cost_from);
	const struct sbt_finding *x = find(g, SBT_FIND_OS_TIME);
	CHECK(x && fabs(x->size_ns - 6.6e6) < 0.02 * 6.6e6 && x->events == 600,
	      "OS time %.4g ns a call", x ? x->size_ns : NAN);
	CHECK(!d->c[SBT_COMP_OS].resolved && !find(g, SBT_FIND_OS_SPREAD),
	      "the spread given to the faults");
	x = find(g, SBT_FIND_UNEXPLAINED);
	CHECK(x && !x->alarm && x->var_share > 0.9 &&
	      fabs(x->rel - 0.1) < 0.015, "unexplained +-%.3f",
	      x ? x->rel : NAN);
	sbt_result_free(&r);
	sbt_ds_free(&ds);
}

/* 2a. The same 600 faults every call and no region whose counts vary:
 * nothing to fit, so the cost the recorder measured at start (the
 * header's fault_ns, 11 us) prices them: 6.6 ms a call, named as
 * measured; without that measure (an older log), no OS time at all. */
static void test_faults_measured(void)
{
	for (int measured = 0; measured < 2; measured++) {
		struct sbt_dataset ds;
		struct sbt_result r;

		G.s = 13;
		begin(&ds, 1)->fault_ns = measured ? 11000 : 0;
		uint32_t a = region(&ds, "same600", 0);
		for (size_t i = 0; i < 2000; i++)
			sample(&ds, a, 0, 10e6 * (double)i, (2000 + 600 *
			       11000.0) * (1 + 0.1 * gen_norm(&G)), 600);
		if (analyze(&ds, SBT_BY_NONE, &r) != 0)
			return;
		const struct sbt_group *g = group(&ds, &r, "same600",
						  SBT_FIND_NOKEY);
		if (!g) {
			CHECK(0, "no group");
			return;
		}
		show(&ds, g);
		const struct sbt_decomp *d = &g->decomp;
		const struct sbt_finding *x = find(g, SBT_FIND_OS_TIME);
		if (measured)
			CHECK(d->fault_cost_from == SBT_COST_RECORDER &&
			      d->fault_cost_ns == 11000 && x &&
			      fabs(x->size_ns - 6.6e6) < 1,
			      "measured: OS time %.4g ns a call (cost from "
			      "%d)", x ? x->size_ns : NAN,
			      d->fault_cost_from);
		else
			CHECK(d->fault_cost_from == SBT_COST_NONE && !x,
			      "not measured: no cost (from %d), no OS time",
			      d->fault_cost_from);
		sbt_result_free(&r);
		sbt_ds_free(&ds);
	}
}

/* 2b. The run's fault cost (11 us, from a region whose counts vary)
 * applied to regions whose calls take less than their faults would:
 * 10 faults a call in calls of 20 us (110 us claimed, 550 %: the cost
 * does not fit them, nothing is claimed), and in calls of 105 us (110
 * us, 105 %: within the call's own spread, claimed as the whole call at
 * most).  The OS's time of a call is never more than the call. */
static void test_faults_bounded(void)
{
	struct sbt_dataset ds;
	struct sbt_result r;
	const double call[2] = { 20e3, 105e3 };
	const char *name[2] = { "short", "near" };

	G.s = 16;
	begin(&ds, 1);
	for (int c = 0; c < 2; c++) {
		uint32_t a = region(&ds, name[c], 0);
		for (size_t i = 0; i < 2000; i++)
			sample(&ds, a, 0, 1e9 * c + 400e3 * (double)i,
			       floor(call[c] * (1 + 0.01 * gen_norm(&G))), 10);
	}
	varying_faults(&ds, region(&ds, "calib", 0), 4000, 3e10);
	if (analyze(&ds, SBT_BY_NONE, &r) != 0)
		return;
	for (int c = 0; c < 2; c++) {
		const struct sbt_group *g = group(&ds, &r, name[c],
						  SBT_FIND_NOKEY);
		if (!g) {
			CHECK(0, "no group %s", name[c]);
			continue;
		}
		show(&ds, g);
		const struct sbt_decomp *d = &g->decomp;
		const struct sbt_finding *x = find(g, SBT_FIND_OS_TIME);
		CHECK(d->fault_cost_from == SBT_COST_RUN &&
		      fabs(d->fault_cost_ns - 11000) < 220,
		      "%s: the run's cost %.0f (from %d)", name[c],
		      d->fault_cost_ns, d->fault_cost_from);
		CHECK(!x || (x->size_ns <= d->mean_ns && x->time_share <= 1),
		      "%s: OS time %.4g ns of a %.4g ns call", name[c],
		      x ? x->size_ns : NAN, d->mean_ns);
		if (c == 0)
			CHECK(isnan(d->os_time_ns) && !x, "short: %.4g ns "
			      "claimed of a %.4g ns call", d->os_time_ns,
			      d->mean_ns);
		else
			CHECK(d->os_time_ns == d->mean_ns && x &&
			      fabs(x->time_share - 1) < 1e-9, "near: %.4g ns "
			      "claimed of a %.4g ns call", d->os_time_ns,
			      d->mean_ns);
	}
	sbt_result_free(&r);
	sbt_ds_free(&ds);
}

/* 2c. A few calls that switched out of their own accord (a wait, not
 * preempted: sbt_os_class WAITED) and took 40 us instead of 1 us: the
 * code's own wait, not the OS's time; no cost a switch is fitted. */
static void test_waits_not_os(void)
{
	struct sbt_dataset ds;
	struct sbt_result r;

	G.s = 19;
	begin(&ds, 1);
	uint32_t a = region(&ds, "waits", 0);
	for (size_t i = 0; i < 3000; i++) {
		int w = i % 500 == 7;
		struct sbt_sample *x = sample(&ds, a, 0, 50e3 * (double)i,
					      floor((w ? 40e3 : 1e3) +
						    5 * gen_norm(&G)), 0);
		x->switches = (uint16_t)w;
	}
	if (analyze(&ds, SBT_BY_NONE, &r) != 0)
		return;
	const struct sbt_group *g = group(&ds, &r, "waits", SBT_FIND_NOKEY);
	if (g)
		show(&ds, g);
	CHECK(g && g->os.waited == 6 && !find(g, SBT_FIND_OS_TIME) &&
	      !find(g, SBT_FIND_OS_SPREAD) &&
	      g->decomp.switch_cost_from == SBT_COST_NONE,
	      "waits given to the OS");
	sbt_result_free(&r);
	sbt_ds_free(&ds);
}

/* 2d. The OS's cost is fitted only where counts vary in enough calls:
 * 3 calls of 3000 with a fault that met a 5 ms stall of the host (5 ms
 * a fault, were it fitted) give no cost; and a region preempted in a
 * third of its calls, more often than the OS preempts (the report keeps
 * them as its own: preempted_own), gives its switches to no OS. */
static void test_os_support(void)
{
	struct sbt_dataset ds;
	struct sbt_result r;

	G.s = 20;
	begin(&ds, 1);
	uint32_t a = region(&ds, "stalled", 0), b = region(&ds, "own", 0);
	for (size_t i = 0; i < 3000; i++) {
		int f = i % 1000 == 3;
		sample(&ds, a, 0, 50e3 * (double)i, floor((f ? 5e6 : 1e3) +
		       5 * gen_norm(&G)), (unsigned)f);
	}
	for (size_t i = 0; i < 3000; i++) {
		int p = i % 3 == 1;
		struct sbt_sample *x = sample(&ds, b, 0, 2e9 + 50e3 *
					      (double)i, floor((p ? 40e3 :
					      1e3) + 5 * gen_norm(&G)), 0);
		x->switches = (uint16_t)p;
		if (p)
			x->flags |= SBT_SF_PREEMPTED;
	}
	if (analyze(&ds, SBT_BY_NONE, &r) != 0)
		return;
	const struct sbt_group *g = group(&ds, &r, "stalled", SBT_FIND_NOKEY);
	if (g)
		show(&ds, g);
	CHECK(g && g->decomp.fault_cost_from == SBT_COST_NONE &&
	      !find(g, SBT_FIND_OS_TIME) && !find(g, SBT_FIND_OS_SPREAD),
	      "3 faulting calls fitted %.4g ns a fault",
	      g ? g->decomp.fault_cost_ns : NAN);
	g = group(&ds, &r, "own", SBT_FIND_NOKEY);
	if (g)
		show(&ds, g);
	CHECK(g && g->os.preempted_own && !find(g, SBT_FIND_OS_TIME) &&
	      !find(g, SBT_FIND_OS_SPREAD) && g->decomp.switches == 0,
	      "its own preemptions given to the OS");
	sbt_result_free(&r);
	sbt_ds_free(&ds);
}

/* 3. Two threads 5 % apart, each bimodal 75/25: two modes and a group
 * offset, not four modes. */
static void test_threads_bimodal(void)
{
	struct sbt_dataset ds;
	struct sbt_result r, rt;

	G.s = 13;
	begin(&ds, 1);
	uint32_t a = region(&ds, "step", 0);
	for (size_t i = 0; i < 20000; i++) {
		uint32_t th = i % 2;
		double w = (gen_unif(&G) < 0.75 ? 400 : 560) *
			   (th ? 1.05 : 1) + 2 * gen_norm(&G);
		sample(&ds, a, th, 1000.0 * (double)i, floor(w), 0);
	}
	if (analyze(&ds, SBT_BY_NONE, &r) != 0)
		return;
	const struct sbt_group *g = group(&ds, &r, "step", SBT_FIND_NOKEY);
	if (!g) {
		CHECK(0, "no group");
		return;
	}
	show(&ds, g);
	const struct sbt_finding *m = find(g, SBT_FIND_MODES);
	const struct sbt_finding *k = find(g, SBT_FIND_GROUPS);
	CHECK(m && m->parts == 2 && m->alarm, "modes: %d", m ? m->parts : 0);
	CHECK(k && k->key == 1 && k->alarm && fabs(k->size_ns - 20) < 4,
	      "group component: thread %u, %.1f ns", k ? k->key : 99,
	      k ? k->size_ns : NAN);
	if (analyze(&ds, SBT_BY_THREAD, &rt) == 0) {
		const struct sbt_group *t0 = group(&ds, &rt, "step", 0);
		CHECK(t0 && t0->decomp.c[SBT_COMP_GROUPS].var_share ==
		      g->decomp.c[SBT_COMP_GROUPS].var_share &&
		      t0->decomp.nmodes == g->decomp.nmodes,
		      "the same decomposition --by thread");
		CHECK(t0 && t0->score.nmodes == 2, "thread 0: %d modes",
		      t0 ? t0->score.nmodes : 0);
		sbt_result_free(&rt);
	}
	sbt_result_free(&r);
	sbt_ds_free(&ds);
}

/* 3a. Two threads a steady 10 % apart (100 us and 110 us, +-2 %), with
 * three calls a hundred times longer that nothing recorded explains:
 * the spread's shares are a robust equivalent of the variance, so those
 * three calls cannot make the threads' offset "0 % of the spread".  The
 * threads take most of what is left; the wild calls are counted. */
static void test_groups_wild(void)
{
	struct sbt_dataset ds;
	struct sbt_result r;

	G.s = 17;
	begin(&ds, 1);
	uint32_t a = region(&ds, "solve", 0);
	for (size_t i = 0; i < 600; i++) {
		uint32_t th = i % 2;
		double w = (th ? 110e3 : 100e3) * (1 + 0.02 * gen_norm(&G));
		if (i == 101 || i == 302 || i == 503)
			w = 10e6;
		sample(&ds, a, th, 200e3 * (double)i, floor(w), 0);
	}
	if (analyze(&ds, SBT_BY_NONE, &r) != 0)
		return;
	const struct sbt_group *g = group(&ds, &r, "solve", SBT_FIND_NOKEY);
	if (!g) {
		CHECK(0, "no group");
		return;
	}
	show(&ds, g);
	const struct sbt_decomp *d = &g->decomp;
	const struct sbt_finding *k = find(g, SBT_FIND_GROUPS);
	CHECK(k && k->key == 1 && fabs(k->size_ns - 10e3) < 1e3 &&
	      k->var_share > 0.5,
	      "groups: thread %u, %.0f ns, %.3f of the spread",
	      k ? k->key : 99, k ? k->size_ns : NAN, k ? k->var_share : NAN);
	CHECK(d->wild == 3, "wild calls %zu", d->wild);
	sbt_result_free(&r);
	sbt_ds_free(&ds);
}

/* 3b. Two threads that differ only in their long mode (300 ns 75 %
 * alike, 1150 ns against 1200 ns 25 %): no one offset takes that out,
 * so the groups are weighed mode by mode: two modes, in the row too, and
 * the difference the second thread's, not a third mode. */
static void test_threads_per_mode(void)
{
	struct sbt_dataset ds;
	struct sbt_result r;

	G.s = 14;
	begin(&ds, 1);
	uint32_t a = region(&ds, "work", 0);
	for (size_t i = 0; i < 20000; i++) {
		uint32_t th = i % 2;
		double w = gen_unif(&G) < 0.75 ? 300 : th ? 1200 : 1150;
		sample(&ds, a, th, 2000.0 * (double)i,
		       floor(w + 2 * gen_norm(&G)), 0);
	}
	if (analyze(&ds, SBT_BY_NONE, &r) != 0)
		return;
	const struct sbt_group *g = group(&ds, &r, "work", SBT_FIND_NOKEY);
	if (!g) {
		CHECK(0, "no group");
		return;
	}
	show(&ds, g);
	const struct sbt_decomp *d = &g->decomp;
	const struct sbt_comp_est *c = &d->c[SBT_COMP_GROUPS];
	CHECK(d->nmodes == 2 && g->score.nmodes == 2 &&
	      fabs(g->score.modes[0].share - 0.75) < 0.02,
	      "modes: %d in the decomposition, %d in the row", d->nmodes,
	      g->score.nmodes);
	CHECK(c->resolved && c->key == 1 && c->var_share > 0 &&
	      fabs(c->time_ns - 0.5 * 0.25 * 50) < 3,
	      "groups: resolved %d thread %u, %.1f ns a call", c->resolved,
	      c->key, c->time_ns);
	CHECK(fabs(d->modes[1].center_ns - d->modes[0].center_ns - 850) < 5,
	      "the modes %.0f ns apart", d->modes[1].center_ns -
	      d->modes[0].center_ns);
	sbt_result_free(&r);
	sbt_ds_free(&ds);
}

/* 4. The processor 40 % slower over 20 % of the run, region and probes
 * alike: named with 30 probes inside; with 2 inside, not.  The last
 * 20 %: in the middle of a run 30 probes among 150 are below the rank
 * detector's |Z| >= 5 (phase.c; it needs some 60 there). */
static void processor_case(int inside, int *named, size_t *marked)
{
	struct sbt_dataset ds;
	struct sbt_result r;
	struct sbt_source *src;

	G.s = 14;
	src = begin(&ds, 1);
	src->speed_ops = 100;
	src->speed_cadence_us = 667;
	uint32_t a = region(&ds, "work", 0);
	double T = 100e6, w0 = 80e6, w1 = 100e6;
	for (size_t i = 0; i < 50000; i++) {
		double t = T * (double)i / 50000;
		double f = t >= w0 && t < w1 ? 1.4 : 1;
		sample(&ds, a, 0, t, floor(300 * f + 2 * gen_unif(&G)), 0);
	}
	for (int k = 0; k < inside; k++) {
		struct sbt_probe p = { .t_ns = w0 + (k + 0.5) * (w1 - w0) /
				       inside, .ns = floor(840 + 3 *
				       gen_unif(&G)), .cpu = 0 };
		if (sbt_ds_probe(&ds, &p) != 0)
			exit(2);
	}
	for (double t = 0; t < T; t += 667e3) {
		struct sbt_probe p = { .t_ns = t, .ns = floor(600 + 3 *
				       gen_unif(&G)), .cpu = 0 };
		if ((t < w0 || t >= w1) && sbt_ds_probe(&ds, &p) != 0)
			exit(2);
	}
	if (analyze(&ds, SBT_BY_NONE, &r) != 0)
		return;
	*named = (int)(r.speed.nsh + r.speed.ncsh);
	printf("speed: %zu timelines (res %.3f, levels %d), %zu unusable, "
	       "%zu disagree\n", r.speed.nth, r.speed.nth ?
	       r.speed.th[0].resolution_rel : NAN, r.speed.nth ?
	       r.speed.th[0].nlevels : 0, r.speed.unusable,
	       r.speed.ndisagree);
	*marked = 0;
	for (size_t i = 0; i < ds.n; i++)
		*marked += !!(r.mark[i] & SBT_MK_SPEED);
	if (r.speed.nsh)
		printf("shift: %zu probes %.1f..%.1f ms %+.2f moved %d\n",
		       r.speed.sh[0].probes, r.speed.sh[0].t0_ns / 1e6,
		       r.speed.sh[0].t1_ns / 1e6, r.speed.sh[0].rel,
		       r.speed.sh[0].regions_moved);
	if (inside >= 30 && r.speed.nsh == 1) {
		const struct sbt_speed_shift *h = &r.speed.sh[0];
		CHECK(h->probes >= 28 && h->regions_moved == 1 &&
		      fabs(h->t0_ns - w0) < 1.5e6 && fabs(h->t1_ns - w1) <
		      3e6 && fabs(h->rel - 0.4) < 0.05, "shift: %zu probes",
		      h->probes);
	}
	sbt_result_free(&r);
	sbt_ds_free(&ds);
}

static void test_processor(void)
{
	int named;
	size_t marked;

	processor_case(30, &named, &marked);
	CHECK(named == 1 && marked > 9500, "30 probes inside: %d shifts, %zu "
	      "samples", named, marked);
	processor_case(2, &named, &marked);
	CHECK(named == 0 && marked == 0, "2 probes inside: %d shifts, %zu "
	      "samples", named, marked);
}

/* 4b. The processor 40 % slower over the last 20 ms, where its thread
 * made few calls (6 of each of two regions): too few for any region to
 * be judged alone, or for a phase of its own that machine.c could see
 * shift with the other's.  Their calls ranked among their regions' own
 * around the window say whether they moved: moved, the shift is kept and
 * the coincidence is "cannot tell", not "disagree"; unmoved, the
 * probes disagree with the code and the shift is dropped. */
static void processor_sparse(int moved, struct sbt_result *r,
			     struct sbt_dataset *ds)
{
	struct sbt_source *src;

	G.s = 15;
	src = begin(ds, 1);
	src->speed_ops = 100;
	src->speed_cadence_us = 667;
	uint32_t a = region(ds, "a", 0), b = region(ds, "b", 0);
	double w0 = 80e6, w1 = 100e6;
	for (double t = 0; t < w0; t += 500e3) {
		uint32_t x = (uint64_t)(t / 500e3) % 2 ? b : a;
		sample(ds, x, 0, t, floor((x == a ? 300 : 500) +
					  2 * gen_unif(&G)), 0);
	}
	for (int k = 0; k < 12; k++) {
		uint32_t x = k % 2 ? b : a;
		double f = moved ? 1.4 : 1;
		sample(ds, x, 0, w0 + (k + 0.5) * (w1 - w0) / 12,
		       floor((x == a ? 300 : 500) * f + 2 * gen_unif(&G)), 0);
	}
	for (int k = 0; k < 30; k++) {
		struct sbt_probe p = { .t_ns = w0 + (k + 0.5) * (w1 - w0) / 30,
				       .ns = floor(840 + 3 * gen_unif(&G)),
				       .cpu = 0 };
		if (sbt_ds_probe(ds, &p) != 0)
			exit(2);
	}
	for (double t = 0; t < w0; t += 667e3) {
		struct sbt_probe p = { .t_ns = t, .ns = floor(600 + 3 *
				       gen_unif(&G)), .cpu = 0 };
		if (sbt_ds_probe(ds, &p) != 0)
			exit(2);
	}
	if (analyze(ds, SBT_BY_NONE, r) != 0)
		exit(2);
	printf("sparse (%s): %zu shifts, %zu disagree", moved ? "moved" :
	       "held", r->speed.nsh, r->speed.ndisagree);
	if (r->speed.nsh)
		printf("; moved %d, regions %d, witnesses %d, agree %d",
		       r->speed.sh[0].regions_moved, r->speed.sh[0].nregions,
		       r->speed.sh[0].witness_regions,
		       r->speed.sh[0].regions_agree);
	printf("\n");
}

static void test_processor_sparse(void)
{
	struct sbt_dataset ds;
	struct sbt_result r;

	processor_sparse(1, &r, &ds);
	const struct sbt_speed_shift *h = r.speed.nsh ? &r.speed.sh[0] : NULL;
	CHECK(r.speed.nsh == 1 && h->regions_moved == 1 &&
	      h->nregions == 2 && h->witness_regions == 0 &&
	      h->regions_agree == -1, "moved: the shift kept, its "
	      "coincidence not told");
	sbt_result_free(&r);
	sbt_ds_free(&ds);
	processor_sparse(0, &r, &ds);
	CHECK(r.speed.nsh == 0 && r.speed.ndisagree == 1,
	      "held: the shift dropped as the probes' disagreement");
	sbt_result_free(&r);
	sbt_ds_free(&ds);
}

/* 4b'. The processor 40 % slower over the last 20 ms by its probes,
 * where two regions made a phase's worth of calls each (60): the
 * coincidence witness could see a shift they shared.  a moves with the
 * probes (or, held, neither does); b holds.  The two witnesses disagree:
 * no shift is the processor's, no sample is left out for one, and the
 * run's probes are said once to disagree. */
static void processor_witnessed(int a_moved)
{
	struct sbt_dataset ds;
	struct sbt_result r;
	struct sbt_source *src;

	G.s = 19;
	src = begin(&ds, 1);
	src->speed_ops = 100;
	src->speed_cadence_us = 667;
	uint32_t a = region(&ds, "a", 0), b = region(&ds, "b", 0);
	double w0 = 80e6, w1 = 100e6;
	for (double t = 0; t < w1; t += 100e3) {
		int in = t >= w0;
		int k = (int)(t / 100e3);
		/* a three calls for b's one: a carries most samples */
		uint32_t x = k % 4 == 3 ? b : a;
		double f = in && x == a && a_moved ? 1.4 : 1;
		if (in && x == b)       /* b as often as a in the window */
			sample(&ds, b, 0, t + 50e3, floor(500 + 2 *
			       gen_unif(&G)), 0);
		sample(&ds, x, 0, t, floor((x == a ? 300 : 500) * f +
					   2 * gen_unif(&G)), 0);
	}
	for (double t = 0; t < w1; t += 667e3) {
		struct sbt_probe p = { .t_ns = t, .ns = floor((t >= w0 ? 840 :
				       600) + 3 * gen_unif(&G)), .cpu = 0 };
		if (sbt_ds_probe(&ds, &p) != 0)
			exit(2);
	}
	if (analyze(&ds, SBT_BY_NONE, &r) != 0)
		exit(2);
	size_t marked = 0;
	for (size_t i = 0; i < ds.n; i++)
		marked += !!(r.mark[i] & SBT_MK_SPEED);
	printf("witnessed (a %s): %zu shifts, %zu disagree, %zu marked",
	       a_moved ? "moved" : "held", r.speed.nsh, r.speed.ndisagree,
	       marked);
	if (r.speed.nsh)
		printf("; moved %d, witnesses %d, agree %d",
		       r.speed.sh[0].regions_moved,
		       r.speed.sh[0].witness_regions,
		       r.speed.sh[0].regions_agree);
	printf("\n");
	const struct sbt_group *gb = group(&ds, &r, "b", SBT_FIND_NOKEY);
	CHECK(r.speed.nsh + r.speed.ncsh == 0 && r.speed.ndisagree == 1 &&
	      marked == 0 && gb && gb->speed_n == 0 && !find(gb,
	      SBT_FIND_PROCESSOR), "a %s: the probes' shift kept (%zu) or "
	      "samples left out for it (%zu)", a_moved ? "moved" : "held",
	      r.speed.nsh + r.speed.ncsh, marked);
	/* said once for the run, never as a shift the witnesses dispute */
	struct sbt_report_opts ro = { .by = SBT_BY_NONE, .filters =
				      SBT_F_ALL, .cost_ns = -1, .verbose = 1 };
	char *t = NULL, *p;
	size_t tn = 0;
	FILE *f = open_memstream(&t, &tn);
	if (!f)
		exit(2);
	sbt_report(f, "text", &(struct sbt_report_in){ .ds = &ds, .res = &r,
						       .o = &ro });
	fclose(f);
	p = strstr(t, "probes disagree");
	CHECK(p && !strstr(p + 1, "probes disagree") &&
	      !strstr(t, "witnesses disagree") && !strstr(t, "ran 40 %"),
	      "a %s: the report says\n%.900s", a_moved ? "moved" : "held",
	      t);
	free(t);
	sbt_result_free(&r);
	sbt_ds_free(&ds);
}

static void test_processor_witnessed(void)
{
	processor_witnessed(1);
	processor_witnessed(0);
}

/* 4c. The machine 30 % faster from 50 ms on, for five regions of one
 * thread; one of them (e) goes back to its old level at 75 ms, on its
 * own.  The event's regions vote: four kept the change, one came back,
 * so the machine kept it, and the four name no step of their own. */
static void test_machine_vote(void)
{
	struct sbt_dataset ds;
	struct sbt_result r;
	const char *name[5] = { "a", "b", "c", "d", "e" };
	uint32_t reg[5];

	G.s = 17;
	begin(&ds, 1);
	for (int j = 0; j < 5; j++)
		reg[j] = region(&ds, name[j], 0);
	for (size_t i = 0; i < 5000; i++) {
		double t = 20e3 * (double)i;
		int j = (int)(i % 5);
		double f = t >= 50e6 && !(j == 4 && t >= 75e6) ? 0.7 : 1;
		sample(&ds, reg[j], 0, t, floor((300 + 40 * j) * f +
						 2 * gen_unif(&G)), 0);
	}
	if (analyze(&ds, SBT_BY_NONE, &r) != 0)
		return;
	CHECK(r.nev >= 1, "no machine event");
	for (int j = 0; j < 4; j++) {
		const struct sbt_group *g = group(&ds, &r, name[j],
						  SBT_FIND_NOKEY);
		CHECK(g && !find(g, SBT_FIND_STEP) && g->machine_changes >= 1,
		      "%s: a step of its own (%d machine changes)", name[j],
		      g ? g->machine_changes : -1);
	}
	sbt_result_free(&r);
	sbt_ds_free(&ds);
}

/* 5. A barrier after thread 1 works 3 % longer: thread 1 is the slow
 * one; thread 0 waits, and is never "slower" for it. */
static void test_barrier(void)
{
	struct sbt_dataset ds;
	struct sbt_result r;

	G.s = 15;
	begin(&ds, 1);
	uint32_t par = region(&ds, "omp parallel @ x.c:10", SBT_API_OPENMP);
	uint32_t bar = region(&ds, "omp barrier @ x.c:10", SBT_API_OPENMP);
	for (size_t i = 0; i < 3000; i++) {
		double t = 20000.0 * (double)i;
		double w0 = 10000 + 20 * gen_norm(&G);
		double w1 = 10300 + 20 * gen_norm(&G);
		double end = fmax(w0, w1);
		for (uint32_t th = 0; th < 2; th++) {
			double w = th ? w1 : w0;
			sample(&ds, par, th, t, floor(w), 0);
			sample(&ds, bar, th, t + w, floor(end - w + 30 +
			       5 * gen_unif(&G)), 0);
		}
	}
	if (analyze(&ds, SBT_BY_THREAD, &r) == 0) {
		const struct sbt_group *b0 = group(&ds, &r, "omp barrier @ "
						   "x.c:10", 0);
		const struct sbt_group *b1 = group(&ds, &r, "omp barrier @ "
						   "x.c:10", 1);
		const struct sbt_group *p1 = group(&ds, &r, "omp parallel @ "
						   "x.c:10", 1);
		if (b0)
			show(&ds, b0);
		if (p1)
			show(&ds, p1);
		CHECK(b0 && b1 && !b0->flagged && !b1->flagged &&
		      !find(b0, SBT_FIND_GROUP), "a waiter called slower");
		const struct sbt_finding *x = find(b0, SBT_FIND_WAIT);
		CHECK(x && x->key == 1 && fabs(x->size_ns - 300) < 30,
		      "barrier: slow thread %u, others wait %.0f",
		      x ? x->key : 99, x ? x->size_ns : NAN);
		x = find(p1, SBT_FIND_WAIT);
		CHECK(x && x->key == 1 && x->alarm && fabs(x->rel - 0.03) <
		      0.005, "parallel region: thread 1 named");
		sbt_result_free(&r);
	}
	if (analyze(&ds, SBT_BY_NONE, &r) == 0) {
		const struct sbt_group *b = group(&ds, &r, "omp barrier @ "
						  "x.c:10", SBT_FIND_NOKEY);
		const struct sbt_group *p = group(&ds, &r, "omp parallel @ "
						  "x.c:10", SBT_FIND_NOKEY);
		const struct sbt_finding *x = find(b, SBT_FIND_WAIT);
		CHECK(x && x->key == 1 && !find(b, SBT_FIND_GROUPS),
		      "barrier, one group: the least waiting thread named");
		/* the wait a share of the parallel region's ~10.15 us, not
		 * of the barrier's own ~180 ns */
		CHECK(x && fabs(x->rel - 300 / 10150.0) < 0.005 &&
		      fabs(x->time_share - x->rel) < 1e-9,
		      "barrier: the wait %.3g of what", x ? x->rel : NAN);
		x = find(p, SBT_FIND_GROUPS);
		CHECK(x && x->key == 1, "parallel, one group: thread 1 slower");
		sbt_result_free(&r);
	}
	sbt_ds_free(&ds);
}

/* 5b. A barrier where either thread comes last, at random: each
 * thread's waits are bimodal (30 ns or 330 ns), no thread is the slow
 * one.  The barrier's modes are the others' work, not its own: said, not
 * an alarm; the parallel region's modes (10.0 us or 10.3 us) are its
 * code's and alarm. */
static void test_barrier_modes(void)
{
	struct sbt_dataset ds;
	struct sbt_result r;

	G.s = 18;
	begin(&ds, 1);
	uint32_t par = region(&ds, "omp parallel @ y.c:20", SBT_API_OPENMP);
	uint32_t bar = region(&ds, "omp barrier @ y.c:20", SBT_API_OPENMP);
	for (size_t i = 0; i < 3000; i++) {
		double t = 20000.0 * (double)i;
		int last = gen_unif(&G) < 0.5;
		double w[2] = { 10000 + 300 * !last, 10000 + 300 * last };
		for (uint32_t th = 0; th < 2; th++) {
			double x = w[th] + 2 * gen_norm(&G);
			sample(&ds, par, th, t, floor(x), 0);
			sample(&ds, bar, th, t + x, floor(10300 - w[th] + 30 +
			       5 * gen_unif(&G)), 0);
		}
	}
	if (analyze(&ds, SBT_BY_NONE, &r) != 0)
		return;
	const struct sbt_group *b = group(&ds, &r, "omp barrier @ y.c:20",
					  SBT_FIND_NOKEY);
	const struct sbt_group *p = group(&ds, &r, "omp parallel @ y.c:20",
					  SBT_FIND_NOKEY);
	if (b)
		show(&ds, b);
	const struct sbt_finding *x = find(b, SBT_FIND_MODES);
	CHECK(b && x && !x->alarm && b->nfindings == 0,
	      "barrier: its waits' modes alarm (%d alarms)",
	      b ? b->nfindings : -1);
	x = find(p, SBT_FIND_MODES);
	CHECK(x && x->alarm, "parallel region: its modes not named");
	sbt_result_free(&r);
	sbt_ds_free(&ds);
}

/* 6. A stationary +-7 % spread with no evidence: described, unexplained,
 * not an alarm; 7. a region of two samples: too few, never broad. */
static void test_unexplained_and_few(void)
{
	struct sbt_dataset ds;
	struct sbt_result r;

	G.s = 16;
	begin(&ds, 1);
	uint32_t a = region(&ds, "noisy", 0), b = region(&ds, "two", 0);
	for (size_t i = 0; i < 5000; i++)
		sample(&ds, a, 0, 30000.0 * (double)i,
		       floor(10000 * (1 + 0.07 * gen_norm(&G))), 0);
	sample(&ds, b, 0, 2e8, 1000, 0);
	sample(&ds, b, 0, 2e8 + 5000, 1600, 0);
	if (analyze(&ds, SBT_BY_NONE, &r) != 0)
		return;
	const struct sbt_group *g = group(&ds, &r, "noisy", SBT_FIND_NOKEY);
	const struct sbt_group *t = group(&ds, &r, "two", SBT_FIND_NOKEY);
	if (g)
		show(&ds, g);
	if (t)
		show(&ds, t);
	const struct sbt_finding *x = find(g, SBT_FIND_UNEXPLAINED);
	CHECK(g && x && !x->alarm && fabs(x->rel - 0.07) < 0.01 &&
	      g->nfindings == 0 && g->score.variation == 0,
	      "+-7 %%: unexplained %.3f, %d alarms", x ? x->rel : NAN,
	      g ? g->nfindings : -1);
	CHECK(t && t->nfindings == 0 && !find(t, SBT_FIND_BROAD) &&
	      find(t, SBT_FIND_FEW), "two samples: %d alarms",
	      t ? t->nfindings : -1);
	sbt_result_free(&r);
	sbt_ds_free(&ds);
}

/* 8. One OS class per sample, the same in every view: thread 0
 * preempted in most of its calls, the region in under half of them:
 * left out in both views; a short region switched out more often than
 * the OS preempts: kept as its own in both.  9. Exclusive time never below zero: a
 * parent left out as the OS's around a long child still counts its
 * whole time, so its own time needs no clamp (a clamp came of counting
 * it at its median). */
static void test_os_class_and_excl(void)
{
	struct sbt_dataset ds;
	struct sbt_result r;
	size_t left[2] = { 0, 0 }, own[2] = { 0, 0 };

	G.s = 17;
	begin(&ds, 1);
	uint32_t a = region(&ds, "mixed", 0);
	for (size_t i = 0; i < 400; i++) {
		uint32_t th = i % 2;
		struct sbt_sample *s = sample(&ds, a, th, 30000.0 * (double)i,
					      10000 + (i % 7), 0);
		if (th == 0 && i % 10 < 6) {
			s->switches = 1;
			s->flags |= SBT_SF_PREEMPTED;
			s->ns += 3000;
		}
	}
	/* 1 us calls, 30 % of them switched out while runnable: more than
	 * the OS preempts, the region's own (yields), kept in every view */
	uint32_t y = region(&ds, "yields", 0);
	for (size_t i = 0; i < 400; i++) {
		struct sbt_sample *s = sample(&ds, y, i % 2, 2e7 + 3000.0 *
					      (double)i, 1000 + (i % 7), 0);
		if (i % 10 < 3) {
			s->switches = 1;
			s->flags |= SBT_SF_PREEMPTED;
		}
	}
	uint32_t o = region(&ds, "outer", 0), in = region(&ds, "inner", 0);
	for (size_t i = 0; i < 300; i++) {
		double t = 1e8 + 20000.0 * (double)i;
		if (i == 150) {
			struct sbt_sample *s = sample(&ds, in, 1, t + 10, 9000,
						      0);
			s = sample(&ds, o, 1, t, 9100, 0);
			s->switches = 1;
			s->flags |= SBT_SF_PREEMPTED;
		} else {
			sample(&ds, o, 1, t, 1000 + (i % 5), 0);
		}
	}
	for (int v = 0; v < 2; v++) {
		if (analyze(&ds, v ? SBT_BY_THREAD : SBT_BY_NONE, &r) != 0)
			return;
		for (size_t k = 0; k < r.ngroups; k++) {
			if (r.g[k].region == a) {
				left[v] += r.g[k].os.left_out;
				own[v] += (size_t)r.g[k].os.preempted_own;
			}
			if (r.g[k].region == y)
				CHECK(r.g[k].os.keep_pre == SBT_PRE_OWN &&
				      r.g[k].os.left_out == 0 &&
				      r.g[k].os.preempted_own, "yields, view "
				      "%d: rule %d, %zu left out", v,
				      r.g[k].os.keep_pre, r.g[k].os.left_out);
		}
		const struct sbt_group *g = group(&ds, &r, "outer",
						  SBT_FIND_NOKEY);
		CHECK(g && g->excl_ns >= 0 && g->excl_clamped == 0,
		      "outer's own time %.0f ns, %zu clamped",
		      g ? g->excl_ns : NAN, g ? g->excl_clamped : 0);
		sbt_result_free(&r);
	}
	CHECK(left[0] == 120 && left[1] == 120 && !own[0] && !own[1],
	      "left out %zu / %zu, kept as own %zu / %zu", left[0], left[1],
	      own[0], own[1]);
	sbt_ds_free(&ds);
}

/* 10. A step while the speed probes hold: said what they cannot see.
 * 11. Probes whose own spread is +-30 %: unusable, nothing claimed, not
 * even that they held. */
static void probes_case(double probe_sd, int step, struct sbt_dataset *ds,
			struct sbt_result *r)
{
	struct sbt_source *src;

	G.s = 18;
	src = begin(ds, 1);
	src->speed_ops = 100;
	src->speed_cadence_us = 333;
	uint32_t a = region(ds, "work", 0);
	for (size_t i = 0; i < 40000; i++) {
		double t = 100e6 * (double)i / 40000;
		double f = step && t >= 50e6 ? 1.2 : 1;
		sample(ds, a, 0, t, floor(1000 * f + 3 * gen_unif(&G)), 0);
	}
	for (double t = 0; t < 100e6; t += 333e3) {
		struct sbt_probe p = { .t_ns = t, .ns = floor(600 * (1 +
				       probe_sd * gen_norm(&G))), .cpu = 0 };
		if (sbt_ds_probe(ds, &p) != 0)
			exit(2);
	}
	if (analyze(ds, SBT_BY_NONE, r) != 0)
		exit(1);
}

static void test_probes(void)
{
	struct sbt_dataset ds;
	struct sbt_result r;

	probes_case(0.002, 1, &ds, &r);
	const struct sbt_group *g = group(&ds, &r, "work", SBT_FIND_NOKEY);
	CHECK(g && g->phases.nsteps == 1 && find(g, SBT_FIND_STEP) &&
	      find(g, SBT_FIND_PROBE_BLIND) && r.speed.nsh == 0,
	      "a step, the probes flat: %d steps, blind %d",
	      g ? g->phases.nsteps : -1, g ? g->probe_blind : -1);
	sbt_result_free(&r);
	sbt_ds_free(&ds);
	probes_case(0.3, 1, &ds, &r);
	g = group(&ds, &r, "work", SBT_FIND_NOKEY);
	CHECK(g && g->phases.nsteps == 1 && !g->probe_blind,
	      "unusable probes taken for a witness");
	CHECK(r.speed.unusable == 1 && r.speed.nsh == 0 &&
	      r.speed.unusable_cause == SBT_SPEED_NOISY &&
	      r.speed.unusable_rel > SBT_SPEED_USABLE,
	      "noisy probes: %zu unusable (%.2f)", r.speed.unusable,
	      r.speed.unusable_rel);
	sbt_result_free(&r);
	sbt_ds_free(&ds);
}

/* 12. Two runs of one region 10 % apart, their speed probes alike: the
 * comparison says what the probes cannot see; with the probes 10 %
 * apart too, it does not. */
static void cmp_side(struct sbt_dataset *ds, struct sbt_result *r,
		     double level, double probe, uint64_t seed)
{
	struct sbt_source *src;

	G.s = seed;
	src = begin(ds, 1);
	src->speed_ops = 100;
	src->speed_cadence_us = 333;
	uint32_t a = region(ds, "work", 0);
	for (size_t i = 0; i < 20000; i++)
		sample(ds, a, 0, 5000.0 * (double)i,
		       floor(level + 3 * gen_unif(&G)), 0);
	for (double t = 0; t < 100e6; t += 333e3) {
		struct sbt_probe p = { .t_ns = t, .ns = floor(probe + 3 *
				       gen_unif(&G)), .cpu = 0 };
		if (sbt_ds_probe(ds, &p) != 0)
			exit(2);
	}
	if (analyze(ds, SBT_BY_NONE, r) != 0)
		exit(1);
}

static void test_compare_blind(void)
{
	for (int moved = 0; moved < 2; moved++) {
		struct sbt_dataset db, dn;
		struct sbt_result rb, rn;
		struct sbt_options o = opts(SBT_BY_NONE);
		struct sbt_cmp_opts co = { .fail_pct = NAN };
		struct sbt_cmp c;

		cmp_side(&db, &rb, 1000, 600, 21);
		cmp_side(&dn, &rn, 1100, moved ? 660 : 600, 22);
		struct sbt_cmp_side b = { &db, &rb, &o, 1 };
		struct sbt_cmp_side n = { &dn, &rn, &o, 1 };
		if (sbt_compare(&b, &n, &co, &c) != 0) {
			CHECK(0, "compare failed");
			return;
		}
		CHECK(c.nrows == 1 && c.speed && c.rows[0].raw.change == 1 &&
		      c.rows[0].probe_blind == !moved, "probes %s: blind %d",
		      moved ? "moved" : "flat", c.nrows ?
		      c.rows[0].probe_blind : -1);
		sbt_compare_free(&c);
		sbt_result_free(&rb);
		sbt_result_free(&rn);
		sbt_ds_free(&db);
		sbt_ds_free(&dn);
	}
}

/* 13. Counted events join the evidence: calls of 500 ns + 40 ns a
 * cache miss; the cycles column, which is the time itself, is not taken
 * for a cause. */
static void test_counters(void)
{
	static const char names[2][SBT_CNT_NAME] = { "cycles",
						     "cache-misses" };
	struct sbt_dataset ds;
	struct sbt_result r;

	G.s = 19;
	begin(&ds, 1);
	uint32_t a = region(&ds, "misses", 0);
	for (size_t i = 0; i < 5000; i++) {
		unsigned m = (unsigned)(gen_unif(&G) * 51);
		sample(&ds, a, 0, 3000.0 * (double)i, floor(500 + 40.0 * m +
		       3 * gen_norm(&G)), 0);
	}
	if (sbt_cnt_prepare(&ds, names, 2, ds.n) != 0)
		exit(2);
	for (size_t i = 0; i < ds.n; i++) {
		ds.cnt->v[i * 2] = ds.s[i].ns * 2.6;
		ds.cnt->v[i * 2 + 1] = floor((ds.s[i].ns - 500) / 40 + 0.5);
	}
	if (analyze(&ds, SBT_BY_NONE, &r) != 0)
		return;
	const struct sbt_group *g = group(&ds, &r, "misses", SBT_FIND_NOKEY);
	if (g)
		show(&ds, g);
	const struct sbt_finding *x = find(g, SBT_FIND_COUNTER);
	CHECK(x && x->key == 1 && fabs(x->per_event_ns - 40) < 1 &&
	      x->var_share > 0.9 && fabs(x->events - 25) < 1.5 && x->alarm,
	      "cache misses: %.1f ns each, %.2f of the spread",
	      x ? x->per_event_ns : NAN, x ? x->var_share : NAN);
	CHECK(g && !isfinite(g->decomp.cnt_cost_ns[0]),
	      "the cycles taken for a cause");
	sbt_result_free(&r);
	sbt_ds_free(&ds);
}

int main(void)
{
	test_faults_vary();
	test_faults_fixed();
	test_faults_measured();
	test_faults_bounded();
	test_waits_not_os();
	test_os_support();
	test_threads_bimodal();
	test_groups_wild();
	test_threads_per_mode();
	test_processor();
	test_processor_sparse();
	test_processor_witnessed();
	test_machine_vote();
	test_barrier();
	test_barrier_modes();
	test_unexplained_and_few();
	test_os_class_and_excl();
	test_probes();
	test_compare_blind();
	test_counters();
	return h_done();
}
