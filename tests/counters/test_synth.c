/*
 * test_synth.c - the analyzer's side of SBT_EVENTS on a synthetic log
 * whose every reading is known: deltas, scaling of a multiplexed group
 * (and not of the exact software group), avg / p90 / max, IPC, the
 * running share, a failed reading, the empty pair and nesting.
 *
 * Region "work" (site 1), N samples: sample i (from 1) counts
 * instructions 1000 i and cycles 500 i raw while its group ran half the
 * time enabled, so 2000 i and 1000 i scaled; page-faults (exact group)
 * 1 each.  One more sample's START reading failed (enabled 0): no counts.
 * Region "inner" (site 2) nests inside every "work": instructions 10.
 */
#include "../common/harness.h"
#include "../common/logbuild.h"
#include "analyze.h"
#include "report_counters.h"
#include "reader.h"
#include "sbtlog.h"

#include <math.h>

#define CHUNK (64u * 1024)
#define N     10

static struct lb b;

static void region(struct sbt_chunk *c, uint32_t id, const char *name)
{
	uint64_t site = 0x401000 + id;

	lb_region(c, id, SBT_API_SBTMARK, site, name);
	lb_site(c, id, id, &site, 1);
}

static void counter(struct sbt_chunk *c, const char *name, uint32_t index,
		    int32_t err, uint32_t flags)
{
	struct sbt_meta_counter m = { .index = index, .err = err,
				      .flags = flags };

	lb_meta(c, SBT_META_COUNTER, &m, sizeof m, name,
		(uint32_t)strlen(name));
}

static void put(uint32_t kind, uint32_t id, uint64_t t)
{
	lb_event(&b, 0, kind, 0, id, t, 0);
}

/* A reading: enabled, running, instructions, cycles, page-faults. */
static void reading(uint64_t on, uint64_t run, uint64_t ins, uint64_t cyc,
		    uint64_t pf)
{
	put(SBT_EV_COUNT, SBT_COUNT_ENABLED, on);
	put(SBT_EV_COUNT, SBT_COUNT_RUNNING, run);
	put(SBT_EV_COUNT, 0, ins);
	put(SBT_EV_COUNT, 1, cyc);
	put(SBT_EV_COUNT, 2, pf);
}

static void write_log(const char *path)
{
	uint64_t t = 1000000, on = 5000, run = 3000, ins = 7, cyc = 9, pf = 4;

	lb_begin(&b, SBT_HEADER_SIZE + 4 * CHUNK, CHUNK);
	lb_hdr(&b)->start_ticks = t;
	struct sbt_chunk *m = lb_chunk(&b, SBT_CHUNK_META, 0);
	region(m, 1, "work");
	region(m, 2, "inner");
	counter(m, "instructions", 0, 0, SBT_COUNTER_SCALED);
	counter(m, "cycles", 1, 0, SBT_COUNTER_SCALED);
	counter(m, "page-faults", 2, 0, 0);
	counter(m, "branch-misses", SBT_COUNTER_NONE, 2, 0);
	counter(m, "bogus", SBT_COUNTER_NONE, -1, 0);

	/* an empty calibration pair: instructions 30 */
	put(SBT_EV_START, SBT_SITE_CALIB, t += 100);
	reading(on, run, ins, cyc, pf);
	put(SBT_EV_STOP, SBT_SITE_CALIB, t += 20);
	reading(on += 10, run += 10, ins += 30, cyc += 30, pf);
	for (uint64_t i = 1; i <= N + 1; i++) {
		put(SBT_EV_START, 1, t += 1000);
		/* the last one's START read failed: all zeros */
		if (i == N + 1)
			reading(0, 0, 0, 0, 0);
		else
			reading(on, run, ins, cyc, pf);
		/* work { inner }: inner's own reading in between */
		put(SBT_EV_START, 2, t += 10);
		reading(on += 20, run += 10, ins += 500, cyc += 250, pf);
		put(SBT_EV_STOP, 2, t += 10);
		reading(on += 20, run += 10, ins += 5, cyc += 5, pf);
		put(SBT_EV_STOP, 1, t += 1000);
		reading(on += 60, run += 30, ins += 1000 * i - 505,
			cyc += 500 * i - 255, pf += 1);
	}
	if (lb_save(&b, path) != 0)
		exit(99);
	lb_free(&b);
}

static const struct sbt_group *group(const struct sbt_dataset *ds,
				     const struct sbt_result *r,
				     const char *name)
{
	for (size_t i = 0; i < r->ngroups; i++)
		if (!strcmp(ds->regions[r->g[i].region].name, name))
			return &r->g[i];
	return NULL;
}

static int col(const struct sbt_dataset *ds, const char *name)
{
	for (uint32_t k = 0; ds->cnt && k < ds->cnt->ncol; k++)
		if (!strcmp(ds->cnt->name[k], name))
			return (int)k;
	return -1;
}

int main(void)
{
	struct sbt_options o = { .filters = SBT_F_NONE, .seed = 1,
				 .cost_ns = 0, .profile_t_min_ns = NAN,
				 .profile_t_diff_ns = NAN, .jobs = 1 };
	struct sbt_dataset ds = { 0 };
	struct sbt_cnt_group cg;
	struct sbt_result r;
	char err[256];
	int ki, kc, kp;

	h_tmpdir();
	write_log("counts.log");
	int rc = sbt_read_log("counts.log", &ds, err, sizeof err);
	CHECK(rc == 0, "reading counts.log: rc %d %s", rc, err);
	if (rc < 0)
		return h_done();
	ki = col(&ds, "instructions");
	kc = col(&ds, "cycles");
	kp = col(&ds, "page-faults");
	CHECK(ki >= 0 && kc >= 0 && kp >= 0 && ds.cnt->ncol == 3,
	      "columns %d %d %d", ki, kc, kp);
	if (ki < 0 || kc < 0 || kp < 0)
		return h_done();
	const struct sbt_cnt_src *s = &ds.cnt->src[0];
	CHECK(strstr(s->off, "branch-misses (perf_event_open: No such file "
		     "or directory)") && strstr(s->off, "bogus (unknown name)"),
	      "unavailable: %s", s->off);
	CHECK(s->empty[0] == 30 * 1.0 && s->empty[2] == 0,
	      "empty pair %g %g", s->empty[0], s->empty[2]);

	rc = sbt_analyze(&ds, &o, &r);
	CHECK(rc == 0, "analyze");
	if (rc != 0)
		return h_done();
	const struct sbt_group *g = group(&ds, &r, "work");
	CHECK(g && g->count == N + 1, "work: %zu samples", g ? g->count : 0);
	if (g && sbt_cnt_group(&ds, &r, g, &cg) == 0) {
		/* scaled by enabled / running = 2 */
		CHECK(cg.c[ki].n == N, "instructions n %zu", cg.c[ki].n);
		CHECK(cg.c[ki].avg == 2000 * 5.5, "avg %g", cg.c[ki].avg);
		CHECK(cg.c[ki].p90 == 2000 * 9, "p90 %g", cg.c[ki].p90);
		CHECK(cg.c[ki].max == 2000 * N, "max %g", cg.c[ki].max);
		CHECK(cg.c[kc].avg == 1000 * 5.5, "cycles avg %g",
		      cg.c[kc].avg);
		/* exact group: not scaled */
		CHECK(cg.c[kp].avg == 1 && cg.c[kp].max == 1,
		      "page-faults avg %g max %g", cg.c[kp].avg, cg.c[kp].max);
		CHECK(cg.ipc == 2, "IPC %g", cg.ipc);
		CHECK(cg.running == 0.5, "running %g", cg.running);
	}
	g = group(&ds, &r, "inner");
	if (g && sbt_cnt_group(&ds, &r, g, &cg) == 0) {
		CHECK(cg.c[ki].n == N + 1 && cg.c[ki].avg == 10,
		      "inner instructions n %zu avg %g", cg.c[ki].n,
		      cg.c[ki].avg);
		CHECK(cg.c[kp].max == 0, "inner page-faults %g", cg.c[kp].max);
	} else {
		CHECK(0, "no inner group");
	}
	sbt_result_free(&r);
	sbt_ds_free(&ds);
	return h_done();
}
