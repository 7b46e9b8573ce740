/*
 * test_pure.c - the analysis only reads its dataset (analyze.h).
 *
 * One synthetic log (1 GHz clock, 10 ns quantum) that gives the analysis
 * something to say of many samples: two threads on cpus 0 and 1 alternate
 * regions a and b, a call a microsecond for 60 ms; a speed probe every
 * 100 calls (so calls after a probe, SBT_MK_AFTER_PROBE); thread 0's
 * processor 40 % slow over [30, 40) ms, its probes too (SBT_MK_SPEED);
 * region a 30 % slow for its first 3 ms (a warm-up); every 997th call 20
 * us long (left out: SBT_MK_DROPPED); region b +15 % from 45 ms on.
 *
 * Read in segments on two threads, then analyzed per region (with the
 * forest's scores kept), by thread, by cpu, by call site, and per region
 * again, each on two threads.  After each, the dataset's bytes - its
 * samples, probes, detours, regions, sites and sources - are those read;
 * the marks the analysis made are there (each kind above, in its result);
 * and the last analysis says what the first said (marks, kept counts,
 * medians, findings): no analysis depends on what ran before it.
 */
#include "../common/gen.h"
#include "../common/harness.h"
#include "../common/logbuild.h"
#include "analyze.h"
#include "bysite.h"
#include "callsites.h"
#include "reader.h"

#include <math.h>

#define CALLS 60000                  /* a thread's, one a microsecond   */

static void pure_log(const char *path)
{
	struct synlog L;
	struct gen g = { 7 };

	syn_begin(&L, 1e9);
	L.h.tick_quantum = 10;
	syn_region(&L, 1, "a");
	syn_region(&L, 2, "b");
	syn_speed_meta(&L, 200, 100);
	for (uint32_t th = 0; th < 2; th++)
		for (uint64_t i = 0; i < CALLS; i++) {
			double t = 1000.0 * (double)i;
			uint32_t site = 1 + (uint32_t)(i % 2);
			double slow = th == 0 && t >= 30e6 && t < 40e6 ? 1.4 : 1;
			double d = 300 * slow + gen_exp(&g, 2);
			if (site == 1 && t < 3e6)
				d *= 1.3;
			if (site == 2 && t >= 45e6)
				d *= 1.15;
			if (i % 997 == 500)
				d = 20000;
			uint64_t len = (uint64_t)gen_read(&g, d, 10);
			syn_pair(&L, th, site, (uint64_t)t, (uint64_t)t + len,
				 th);
			if (i % 100 == 0)
				syn_speed(&L, th, (uint64_t)t + 600 + len / 2,
					  (uint64_t)gen_read(&g, 60 * slow +
					  gen_exp(&g, 1), 10), th, 0);
		}
	syn_write(&L, path);
}

/* FNV-1a over n bytes, on from h. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* Everything the analysis may read of ds, as bytes. */
static uint64_t digest(const struct sbt_dataset *ds)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = fnv(h, ds->s, ds->n * sizeof *ds->s);
	h = fnv(h, ds->probes, ds->nprobes * sizeof *ds->probes);
	h = fnv(h, ds->detours, ds->ndetours * sizeof *ds->detours);
	h = fnv(h, ds->regions, ds->nregions * sizeof *ds->regions);
	h = fnv(h, ds->sites, ds->nsites * sizeof *ds->sites);
	h = fnv(h, ds->sources, ds->nsources * sizeof *ds->sources);
	for (size_t i = 0; i < ds->nregions; i++)
		h = fnv(h, ds->regions[i].name, strlen(ds->regions[i].name));
	return fnv(h, &ds->n, sizeof ds->n);
}

static struct sbt_options opts(enum sbt_by by)
{
	return (struct sbt_options){ .by = by, .filters = SBT_F_ALL,
		.seed = 1, .cost_ns = 0, .profile_t_min_ns = NAN,
		.profile_t_diff_ns = NAN, .jobs = 2 };
}

/* Samples (not probes) of ds that res marked with any of `bits`. */
static size_t marked(const struct sbt_dataset *ds,
		     const struct sbt_result *res, unsigned bits)
{
	size_t m = 0;

	for (size_t i = 0; i < ds->n; i++)
		m += (res->mark[i] & bits) && !(ds->s[i].flags & SBT_SF_PROBE);
	return m;
}

/* a and b (both per region) say the same of every sample and group. */
static int same(const struct sbt_dataset *ds, const struct sbt_result *a,
		const struct sbt_result *b)
{
	if (a->ngroups != b->ngroups || a->nmark != b->nmark ||
	    memcmp(a->mark, b->mark, ds->n) != 0)
		return 0;
	for (size_t k = 0; k < a->ngroups; k++) {
		const struct sbt_group *x = &a->g[k], *y = &b->g[k];
		if (x->region != y->region || x->kept != y->kept ||
		    x->st.median != y->st.median || x->nfind != y->nfind)
			return 0;
		for (int f = 0; f < x->nfind; f++)
			if (x->find[f].kind != y->find[f].kind)
				return 0;
	}
	return 1;
}

int main(void)
{
	struct sbt_dataset ds = { 0 };
	struct sbt_callsites cs = { 0 };
	struct sbt_result first, r;
	char err[256] = "";

	h_tmpdir();
	pure_log("pure.log");
	if (sbt_read_log_jobs("pure.log", &ds, 2, 1u << 20, err,
			      sizeof err) != 0) {
		CHECK(0, "reading pure.log: %s", err);
		return h_done();
	}
	CHECK(ds.n == 2 * CALLS && ds.nprobes == 2 * CALLS / 100,
	      "read %zu samples, %zu probes", ds.n, ds.nprobes);
	CHECK(sbt_callsites_build(&ds, 0, 2, &cs) == 0, "call sites");
	const uint64_t read = digest(&ds);

	struct sbt_options o = opts(SBT_BY_NONE);
	o.scores = 1;
	if (sbt_analyze(&ds, &o, &first) != 0) {
		CHECK(0, "analysis per region failed");
		return h_done();
	}
	CHECK(digest(&ds) == read, "per region: the dataset changed");
	size_t drop = marked(&ds, &first, SBT_MK_DROPPED),
	       speed = marked(&ds, &first, SBT_MK_SPEED),
	       after = marked(&ds, &first, SBT_MK_AFTER_PROBE),
	       trans = marked(&ds, &first, SBT_MK_TRANSIENT);
	size_t scored = 0;
	for (size_t i = 0; i < ds.n; i++)
		scored += first.score[i] != 0;
	printf("marks: %zu dropped, %zu processor's, %zu after a probe, "
	       "%zu transient; %zu scored\n", drop, speed, after, trans,
	       scored);
	/* the analysis had something to say of the samples, so a dataset
	 * it wrote into would show */
	CHECK(drop >= 2 * CALLS / 997 && speed >= 9000 && after > 4000 &&
	      scored > CALLS, "marks: %zu dropped, %zu processor's, %zu "
	      "after a probe, %zu scored", drop, speed, after, scored);

	static const enum sbt_by by[] = { SBT_BY_THREAD, SBT_BY_CPU };
	for (size_t i = 0; i < sizeof by / sizeof *by; i++) {
		o = opts(by[i]);
		int rc = sbt_analyze(&ds, &o, &r);
		CHECK(rc == 0 && r.ngroups == 4, "by %d: %d, %zu groups",
		      by[i], rc, r.ngroups);
		CHECK(digest(&ds) == read, "by %d: the dataset changed", by[i]);
		if (rc == 0)
			sbt_result_free(&r);
	}
	o = opts(SBT_BY_NONE);
	int rc = sbt_analyze_by_site(&ds, &o, &cs, &r);
	CHECK(rc == 0 && r.ngroups == 2, "by site: %d, %zu groups", rc,
	      r.ngroups);
	CHECK(digest(&ds) == read, "by site: the dataset changed");
	if (rc == 0)
		sbt_result_free(&r);

	o = opts(SBT_BY_NONE);
	o.scores = 1;
	if (sbt_analyze(&ds, &o, &r) == 0) {
		CHECK(digest(&ds) == read, "again: the dataset changed");
		CHECK(same(&ds, &first, &r), "per region again: not what the "
		      "first analysis said");
		CHECK(!memcmp(first.score, r.score, ds.n * sizeof *r.score),
		      "per region again: other scores");
		sbt_result_free(&r);
	} else {
		CHECK(0, "analysis per region again failed");
	}
	sbt_result_free(&first);
	sbt_callsites_free(&cs);
	sbt_ds_free(&ds);
	return h_done();
}
