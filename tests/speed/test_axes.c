/*
 * test_axes.c - the memory-latency axis (analysis/score/axes.c) on
 * synthetic logs: one region `lone`, 100,000 calls 1 us apart, a speed
 * probe and a memory-latency probe (META MEMLAT runs) every 100th call.
 *
 *   memshift  the region's time and memory latency both 40 % up over
 *             [40, 60) ms, the speed probes steady: no processor shift,
 *             one memory shift with that window, the region's samples
 *             there left out (no finding of its own), and the report
 *             says "the machine's: memory latency +40 %" with it
 *   lonestep  the region steps +10 % at 75 ms, both axes steady: no
 *             probe saw it: unexplained (PROBE_BLIND, SBT_FX_NO_PROBE)
 *   control   the same step without memory probes: the speed probes'
 *             words as before (PROBE_BLIND without the flag), and no
 *             memory line in the report
 *   turns     the region's level 5 % up every fourth run of 2000 calls,
 *             no probe moving: levels over time, unexplained, no finding
 *             of the code's
 *   modes     every 4th call 4/3 the work: the code's two modes
 *   modeturns both: the code's two modes stay its only modes
 *   damaged   MEMLAT entries that claim more probes than they hold, or
 *             hold less than their head: left out, the log read
 */
#include "../common/gen.h"
#include "../common/harness.h"
#include "../common/logbuild.h"
#include "analyze.h"
#include "reader.h"
#include "report.h"
#include "say.h"

#include <math.h>

struct plan {
	double slow, t0, t1;          /* region and memory slower, window */
	double step_at, step;         /* the region's own step             */
	int mem;                      /* write memory probes               */
	double turns;                 /* levels taking turns: +turns every
					 fourth run of `run` calls         */
	int run;
	int every;                    /* every Nth call 4/3 the work (the
					 code's modes, interleaved)       */
};

static void axes_log(const char *path, const struct plan *p, uint64_t seed)
{
	struct synlog L;
	struct gen g = { seed };
	struct sbt_memlat run[SBT_MEMLAT_RUN];
	struct sbt_meta_memlat mh = { .thread = 0, .loads = 8,
				      .bytes = 2u << 20 };
	uint32_t n = 0;

	syn_begin(&L, 1e9);
	L.h.tick_quantum = 10;
	syn_region(&L, 1, "lone");
	syn_speed_meta(&L, 200, 100);
	for (uint64_t i = 0; i < 100000; i++) {
		double t = 1000.0 * (double)i;
		double f = t >= p->t0 && t < p->t1 ? p->slow : 1;
		double d = 300 * (t >= p->step_at ? 1 + p->step : 1) * f +
			   gen_exp(&g, 2);
		if (p->run && (i / (uint64_t)p->run) % 4 == 3)
			d *= 1 + p->turns;
		if (p->every && i % (uint64_t)p->every == 0)
			d *= 4.0 / 3;
		syn_pair(&L, 0, 1, (uint64_t)t,
			 (uint64_t)t + (uint64_t)gen_read(&g, d, 10), 0);
		if (i % 100)
			continue;
		syn_speed(&L, 0, (uint64_t)t + 600, (uint64_t)gen_read(
			  &g, 60 + gen_exp(&g, 1), 10), 0, 0);
		if (!p->mem)
			continue;
		/* a chase's spread: ~10 % either way */
		double m = 2000 * f * (1 + 0.1 * gen_norm(&g));
		run[n++] = (struct sbt_memlat){ L.h.start_ticks +
			(uint64_t)t + 700, (uint32_t)gen_read(&g, m, 10), 0 };
		if (n == SBT_MEMLAT_RUN || i + 100 >= 100000) {
			mh.n = n;
			lb_meta(L.meta, SBT_META_MEMLAT, &mh, sizeof mh, run,
				n * (uint32_t)sizeof run[0]);
			n = 0;
		}
	}
	syn_write(&L, path);
}

static int run(const char *path, struct sbt_dataset *ds,
	       struct sbt_result *r)
{
	struct sbt_options o = { .by = SBT_BY_NONE, .filters = SBT_F_ALL,
		.seed = 1, .cost_ns = 0, .profile_t_min_ns = NAN,
		.profile_t_diff_ns = NAN, .jobs = 1 };
	char err[256] = "";

	memset(ds, 0, sizeof *ds);
	if (sbt_read_log_jobs(path, ds, 1, 0, err, sizeof err) != 0 ||
	    sbt_analyze(ds, &o, r) != 0) {
		CHECK(0, "%s: analysis failed %s", path, err);
		sbt_ds_free(ds);
		return -1;
	}
	return 0;
}

static char *text(const struct sbt_dataset *ds, const struct sbt_result *r,
		  int verbose)
{
	struct sbt_report_opts ro = { .by = SBT_BY_NONE, .filters = SBT_F_ALL,
				      .cost_ns = -1, .verbose = verbose };
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	if (!f)
		exit(99);
	sbt_report(f, "text", &(struct sbt_report_in){ .ds = ds, .res = r,
						       .o = &ro });
	fclose(f);
	return s;
}

static const char *verdict(const struct sbt_group *g)
{
	static char v[SBT_SAY_VERDICT_LEN];
	struct sbt_strbuf o = { v, sizeof v, 0 };

	v[0] = 0;
	sbt_say_verdict(&o, g);
	return v;
}

static const struct sbt_finding *kind_of(const struct sbt_group *g, int kind)
{
	for (int k = 0; k < g->nfind; k++)
		if (g->find[k].kind == kind)
			return &g->find[k];
	return NULL;
}

static const struct sbt_finding *blind(const struct sbt_group *g)
{
	return kind_of(g, SBT_FIND_PROBE_BLIND);
}

static void memshift(void)
{
	struct plan p = { 1.4, 40e6, 60e6, INFINITY, 0, 1, 0, 0, 0 };
	struct sbt_dataset ds;
	struct sbt_result r;

	axes_log("memshift.log", &p, 21);
	if (run("memshift.log", &ds, &r) != 0)
		return;
	CHECK(ds.nmprobes == 1000, "memshift: %zu memory probes read",
	      ds.nmprobes);
	CHECK(r.speed.nsh == 0, "memshift: %zu processor shifts",
	      r.speed.nsh);
	CHECK(r.mem.nsh == 1, "memshift: %zu memory shifts, want 1",
	      r.mem.nsh);
	if (r.mem.nsh == 1) {
		const struct sbt_speed_shift *h = &r.mem.sh[0];
		CHECK(fabs(h->rel - 0.4) < 0.05, "memshift: %+.3f", h->rel);
		CHECK(fabs(h->t0_ns - 40e6) < 0.2e6 &&
		      fabs(h->t1_ns - 60e6) < 0.2e6,
		      "memshift: window %.3f..%.3f ms", h->t0_ns / 1e6,
		      h->t1_ns / 1e6);
		CHECK(h->samples > 19500 && h->samples < 20500,
		      "memshift: %zu samples in it", h->samples);
	}
	CHECK(r.ngroups == 1 && r.g[0].nfindings == 0,
	      "memshift: the region's own findings: %s",
	      r.ngroups ? verdict(&r.g[0]) : "");
	char *t = text(&ds, &r, 1);
	CHECK(strstr(t, "memory: the machine's: memory latency +4") &&
	      strstr(t, " to 60.0 ms (") &&
	      strstr(t, "region lone moved with it"),
	      "memshift: -v says\n%.600s", t);
	free(t);
	t = text(&ds, &r, 0);
	CHECK(strstr(t, "the machine's: memory latency +4") != NULL,
	      "memshift: the report says\n%.900s", t);
	free(t);
	sbt_result_free(&r);
	sbt_ds_free(&ds);
}

static void lonestep(int mem)
{
	struct plan p = { 1, 0, 0, 75e6, 0.10, mem, 0, 0, 0 };
	const char *name = mem ? "lonestep" : "control";
	struct sbt_dataset ds;
	struct sbt_result r;

	axes_log(mem ? "lonestep.log" : "control.log", &p, 22);
	if (run(mem ? "lonestep.log" : "control.log", &ds, &r) != 0)
		return;
	CHECK(r.speed.nsh == 0 && r.mem.nsh == 0, "%s: shifts %zu, %zu",
	      name, r.speed.nsh, r.mem.nsh);
	CHECK(r.ngroups == 1 && r.g[0].phases.nsteps == 1,
	      "%s: the step found: %s", name,
	      r.ngroups ? verdict(&r.g[0]) : "");
	if (r.ngroups == 1 && mem) {
		/* no probe saw it, and nothing beside it: its levels over
		 * time, unexplained, not the code's step */
		const struct sbt_finding *x = kind_of(&r.g[0],
						      SBT_FIND_LEVELS);
		CHECK(x && (x->flags & SBT_FX_STEPS) && x->minor &&
		      r.g[0].nfindings == 0 && !blind(&r.g[0]) &&
		      r.g[0].cls == SBT_CL_UNEXPLAINED,
		      "%s: said as unexplained levels: %s", name,
		      verdict(&r.g[0]));
	} else if (r.ngroups == 1) {
		const struct sbt_finding *x = blind(&r.g[0]);
		CHECK(x != NULL, "%s: no probe moved: %s", name,
		      verdict(&r.g[0]));
		CHECK(x && !(x->flags & SBT_FX_NO_PROBE),
		      "%s: said as unexplained by every probe", name);
		CHECK(r.g[0].cls == SBT_CL_STEP, "%s: class %d", name,
		      r.g[0].cls);
	}
	char *t = text(&ds, &r, 1);
	if (mem)
		CHECK(strstr(t, "its level moved 1 time, 300 ns to 331 ns, "
			     "while no probe did") &&
		      strstr(t, "memory: no shift of its latency"),
		      "%s: -v says\n%.900s", name, t);
	else
		CHECK(!strstr(t, "memory:") && !strstr(t, "no probe did"),
		      "%s: -v says\n%.900s", name, t);
	free(t);
	sbt_result_free(&r);
	sbt_ds_free(&ds);
}

/* Levels that take turns in runs of calls, no probe moving: levels over
 * time, unexplained, no finding of the code's (with or without the
 * code's interleaved modes beside them); the code's modes alone stay
 * its modes. */
static void turns(const char *name, double turns, int runlen, int every)
{
	struct plan p = { 1, 0, 0, INFINITY, 0, 1, turns, runlen, every };
	char path[64];
	struct sbt_dataset ds;
	struct sbt_result r;

	snprintf(path, sizeof path, "%s.log", name);
	axes_log(path, &p, 23);
	if (run(path, &ds, &r) != 0)
		return;
	CHECK(r.ngroups == 1, "%s: %zu groups", name, r.ngroups);
	if (r.ngroups == 1) {
		const struct sbt_group *g = &r.g[0];
		const struct sbt_finding *m = kind_of(g, SBT_FIND_MODES);
		const struct sbt_finding *l = kind_of(g, SBT_FIND_LEVELS);
		if (every) {
			/* the code's two modes, 300 and 400 ns */
			CHECK(m && m->alarm && g->score.nmodes == 2 &&
			      fabs(g->score.modes[0].center_ns - 300) < 15 &&
			      fabs(g->score.modes[1].center_ns - 400) < 20,
			      "%s: the code's modes: %s", name, verdict(g));
			/* where levels take turns beside them (here the
			 * excursions detector's transients), no mode of
			 * theirs joins the code's */
		} else {
			CHECK(!m && l && g->nfindings == 0 &&
			      g->cls == SBT_CL_UNEXPLAINED,
			      "%s: the levels are no finding of the code's: "
			      "%s", name, verdict(g));
		}
		if (l)
			CHECK(!(l->flags & (SBT_FX_BY_SPEED | SBT_FX_BY_MEMORY |
					    SBT_FX_BY_OS)) && l->minor,
			      "%s: no probe moved, flags %#x", name, l->flags);
	}
	sbt_result_free(&r);
	sbt_ds_free(&ds);
}

static void damaged(void)
{
	struct synlog L;
	struct sbt_meta_memlat mh = { .thread = 0, .n = 1000, .loads = 4,
				      .bytes = 2u << 20 };
	struct sbt_memlat one = { 1000100, 1400, 0 };
	struct sbt_dataset ds;
	struct sbt_result r;

	syn_begin(&L, 1e9);
	L.h.tick_quantum = 10;
	syn_region(&L, 1, "lone");
	lb_meta(L.meta, SBT_META_MEMLAT, &mh, sizeof mh, &one, sizeof one);
	lb_meta(L.meta, SBT_META_MEMLAT, &mh, 8, NULL, 0);
	for (uint64_t i = 0; i < 1000; i++)
		syn_pair(&L, 0, 1, 1000 * i, 1000 * i + 300 + 10 * (i % 3), 0);
	syn_write(&L, "damaged.log");
	struct sbt_options o = { .by = SBT_BY_NONE, .filters = SBT_F_ALL,
		.seed = 1, .cost_ns = 0, .profile_t_min_ns = NAN,
		.profile_t_diff_ns = NAN, .jobs = 1 };
	char err[256] = "";
	memset(&ds, 0, sizeof ds);
	/* read with a warning (1): damage noted, the rest read */
	int rc = sbt_read_log_jobs("damaged.log", &ds, 1, 0, err, sizeof err);
	if (rc < 0 || sbt_analyze(&ds, &o, &r) != 0) {
		CHECK(0, "damaged: read %d %s", rc, err);
		sbt_ds_free(&ds);
		return;
	}
	CHECK(ds.nmprobes == 0 && ds.n == 1000 && !r.mem_mark,
	      "damaged: %zu memory probes, %zu samples", ds.nmprobes, ds.n);
	sbt_result_free(&r);
	sbt_ds_free(&ds);
}

int main(void)
{
	h_tmpdir();
	memshift();
	lonestep(1);
	lonestep(0);
	turns("turns", 0.05, 2000, 0);
	turns("modes", 0, 0, 4);
	turns("modeturns", 0.05, 2000, 4);
	damaged();
	return h_done();
}
