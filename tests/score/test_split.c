/*
 * test_split.c - the analysis's passes cut into blocks and spread over
 * threads say what one pass over every sample says.
 *
 * One synthetic log of many groups and many blocks (analysis/base/jobs.h:
 * a block is 2^16 samples): 40 regions on 5 threads, 90,000 calls each,
 * the regions brought in one after another through the log (so their
 * first samples lie in different blocks), a speed probe every 100 calls,
 * every 501st call long (cut by the filters); read whole.  And one with
 * every region from the start and a call of the next region inside every
 * tenth, read whole (each thread's nesting walk, side by side at -j 2)
 * and live under a sample budget (hold.c's compactions).  Each analyzed per region and by thread on one thread
 * and on two.  Each result is checked against
 * a plain walk over the samples done here:
 *   - grouping: each group holds its samples, all and only them, in log
 *     order (grouping.c's blocks of first appearances and counting sort);
 *   - its samples left out and why (left_n, left[]) as its marks say;
 *   - its threads' time (thread_ns): the spans of its threads, each once,
 *     summed in the order its samples name them (totals.c); with calls
 *     inside its calls, its own time below its total;
 *   - the calls after each probe: a sample is marked when its start is
 *     among the SBT_AFTER_PROBE_CALLS earliest of its probe's (the last
 *     of its thread before it) calls (afterprobe.c's per-thread lists);
 * and the analyses at -j 1 and -j 2 agree mark for mark and figure for
 * figure.  The live read holds what a read planned from counts holds,
 * sample for sample (hold.c's verdicts made in blocks).  A third log
 * has calls of a site whose region has no name and of a site it never
 * declared, from a third of the way in: the reader's blocks stop there
 * and the rest is mapped in turn (reader.c), each region made where its
 * first sample comes, every sample under one, the sites counted.
 */
#include "../common/gen.h"
#include "../common/harness.h"
#include "../common/logbuild.h"
#include "afterprobe.h"
#include "analyze.h"
#include "reader.h"
#include "thin.h"

#include <math.h>

#define REGIONS 40
#define THREADS 5
/* A thread's calls, one a microsecond; a third under a sanitizer, whose
 * tenfold cost buys nothing more here: still several blocks of 2^16. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CALLS   30000
#define SANITIZED 1
#else
#define CALLS   90000
#define SANITIZED 0
#endif

#define LOST 41                     /* a site whose region has no name */
#define BAD  42                     /* a site the log never declared    */

/* Calls of thread th at call i that the damaged log gives to LOST, BAD. */
static uint32_t damaged_site(uint32_t th, uint64_t i)
{
	if (i >= CALLS / 3 && i % 1000 == th * 10)
		return i % 2000 < 1000 ? LOST : BAD;
	return 0;
}

static void split_log(const char *path, int spread, int damaged, int nest)
{
	struct synlog L;
	struct gen g = { 11 };
	char name[16];

	/* nested: a clock whose ticks are no whole number of ns, so that
	 * sums of times depend on their order */
	syn_begin(&L, nest ? 2.596e9 : 1e9);
	L.h.tick_quantum = 10;
	for (uint32_t r = 1; r <= REGIONS; r++) {
		snprintf(name, sizeof name, "r%02u", REGIONS + 1 - r);
		syn_region(&L, r, name);
	}
	if (damaged) {
		uint64_t ra = 0x402000;
		lb_site(L.meta, LOST, LOST, &ra, 1);
	}
	syn_speed_meta(&L, 200, 100);
	for (uint32_t th = 0; th < THREADS; th++)
		for (uint64_t i = 0; i < CALLS; i++) {
			double t = 1000.0 * (double)i;
			/* the regions so far: one more each CALLS / REGIONS */
			uint64_t known = spread ? 1 + i * REGIONS / CALLS :
					 REGIONS;
			uint32_t site = 1 + (uint32_t)((i * 7 + th * 3) % known);
			if (damaged && damaged_site(th, i))
				site = damaged_site(th, i);
			double d = 200 + 10 * site + gen_exp(&g, 3);
			if (i % 501 == 250)
				d = 30000;
			uint64_t len = (uint64_t)gen_read(&g, d, 10);
			if (nest && i % 10 == 5) {
				/* a call of the next region inside it */
				uint32_t kid = site % REGIONS + 1;
				uint64_t k0 = (uint64_t)t + 100;
				uint64_t k1 = k0 + (uint64_t)gen_read(&g,
							200 + gen_exp(&g, 3), 10);
				syn_start(&L, th, site, (uint64_t)t, th);
				syn_pair(&L, th, kid, k0, k1, th);
				syn_stop(&L, th, site, k1 + len, th);
			} else {
				syn_pair(&L, th, site, (uint64_t)t,
					 (uint64_t)t + len, th);
			}
			if (i % 100 == 0)
				syn_speed(&L, th, (uint64_t)t + 400 + len / 2,
					  60, th, 0);
		}
	syn_write(&L, path);
}

static struct sbt_options opts(enum sbt_by by, int jobs)
{
	return (struct sbt_options){ .by = by, .filters = SBT_F_ALL,
		.seed = 1, .cost_ns = 0, .profile_t_min_ns = NAN,
		.profile_t_diff_ns = NAN, .jobs = jobs };
}

static int counted(const struct sbt_sample *s)
{
	return !(s->flags & (SBT_SF_PROBE | SBT_SF_CALIB | SBT_SF_RESET |
			     SBT_SF_BEFORE_RESET));
}

/* Is sample s of group g (its region, and its thread when by thread)? */
static int of_group(const struct sbt_sample *s, const struct sbt_group *g,
		    enum sbt_by by)
{
	return s->region == g->region && !(s->flags & SBT_SF_BEFORE_RESET) &&
	       (by != SBT_BY_THREAD || (s->thread == g->key &&
					s->source == g->source));
}

/* Each group's samples, all and only its own, in log order. */
static void check_groups(const struct sbt_dataset *ds,
			 const struct sbt_result *r, enum sbt_by by,
			 const char *what)
{
	size_t sum = 0;

	for (size_t k = 0; k < r->ngroups; k++) {
		const struct sbt_group *g = &r->g[k];
		size_t n = 0, bad = 0;
		for (size_t i = 0; i < ds->n; i++)
			n += of_group(&ds->s[i], g, by);
		for (size_t j = g->first; j < g->first + g->n; j++)
			bad += !of_group(&ds->s[r->order[j]], g, by) ||
			       (j > g->first && r->order[j] <= r->order[j - 1]);
		CHECK(n == g->n && !bad, "%s: group %zu holds %zu of its %zu "
		      "samples, %zu out of place", what, k, g->n, n, bad);
		sum += g->n;
	}
	CHECK(sum == r->norder && sum == ds->n, "%s: %zu samples grouped of "
	      "%zu", what, sum, ds->n);
}

/* Left out and why: each sample under its first reason. */
static void check_left(const struct sbt_dataset *ds,
		       const struct sbt_result *r, const char *what)
{
	/* SBT_LEFT_OS: the processor's, machine's or a transient's marks
	 * on a sample whose thread, or another of its process, the kernel
	 * shows preempted in it */
	static const uint8_t flag[SBT_LEFT__N] = {
		SBT_MK_DROPPED, SBT_MK_SPEED | SBT_MK_MACHINE |
		SBT_MK_TRANSIENT, SBT_MK_SPEED, SBT_MK_MACHINE,
		SBT_MK_AFTER_PROBE, SBT_MK_TRANSIENT };
	size_t cut = 0;

	for (size_t k = 0; k < r->ngroups; k++) {
		const struct sbt_group *g = &r->g[k];
		size_t n = 0, by[SBT_LEFT__N] = { 0 };
		for (size_t j = g->first; j < g->first + g->n; j++) {
			uint32_t i = r->order[j];
			if (!counted(&ds->s[i]))
				continue;
			n++;
			for (int w = 0; w < SBT_LEFT__N; w++)
				if ((r->mark[i] & flag[w]) &&
				    (w != SBT_LEFT_OS || (ds->s[i].flags &
					(SBT_SF_PREEMPTED |
					 SBT_SF_TEAM_PREEMPTED)))) {
					by[w]++;
					break;
				}
		}
		CHECK(n == g->left_n && !memcmp(by, g->left, sizeof by),
		      "%s: group %zu: %zu of %zu left out by its marks, %zu "
		      "of %zu said", what, k, by[0], n, g->left[0], g->left_n);
		cut += by[SBT_LEFT_CUT];
	}
	CHECK(cut >= ds->n / 501 / 2, "%s: only %zu cut: the log's long "
	      "calls not left out", what, cut);
}

/* Threads' time: every thread's span, once per group, in the order the
 * group's samples name its threads. */
static void check_spans(const struct sbt_dataset *ds,
			const struct sbt_result *r, const char *what)
{
	double t0[THREADS], t1[THREADS];

	for (int t = 0; t < THREADS; t++)
		t0[t] = INFINITY, t1[t] = -INFINITY;
	for (size_t i = 0; i < ds->n; i++) {
		const struct sbt_sample *s = &ds->s[i];
		if (!counted(s) || s->thread >= THREADS)
			continue;
		t0[s->thread] = fmin(t0[s->thread], s->t_ns);
		t1[s->thread] = fmax(t1[s->thread], s->t_ns + s->ns);
	}
	for (size_t k = 0; k < r->ngroups; k++) {
		const struct sbt_group *g = &r->g[k];
		int seen[THREADS] = { 0 };
		double span = 0;
		for (size_t j = g->first; j < g->first + g->n; j++) {
			const struct sbt_sample *s = &ds->s[r->order[j]];
			if (!counted(s) || s->thread >= THREADS ||
			    seen[s->thread])
				continue;
			seen[s->thread] = 1;
			span += t1[s->thread] - t0[s->thread];
		}
		CHECK(span == g->thread_ns, "%s: group %zu: threads' time %.17g, "
		      "said %.17g", what, k, span, g->thread_ns);
	}
}

/* The calls after each probe, in one walk: each call offered to the
 * last probe of its thread before it, which keeps the K earliest starts
 * offered; a call is marked when its start is at most the K-th (the log
 * has no detours: the probes are all). */
static void check_after(const struct sbt_dataset *ds,
			const struct sbt_result *r, const char *what)
{
	enum { K = SBT_AFTER_PROBE_CALLS };
	size_t np = ds->nprobes, wrong = 0, marked = 0;
	double *first = malloc((np ? np : 1) * K * sizeof *first);
	long *of = malloc((ds->n ? ds->n : 1) * sizeof *of);

	if (!first || !of) {
		free(first), free(of);
		CHECK(0, "out of memory");
		return;
	}
	for (size_t i = 0; i < np * K; i++)
		first[i] = INFINITY;
	for (size_t i = 0; i < ds->n; i++) {
		const struct sbt_sample *s = &ds->s[i];
		struct sbt_probe key = { .t_ns = s->t_ns, .thread = s->thread,
					 .source = s->source };
		size_t lo = 0, hi = np;
		while (lo < hi) {       /* the first probe not before s */
			size_t m = lo + (hi - lo) / 2;
			if (sbt_probe_cmp(&ds->probes[m], &key) < 0)
				lo = m + 1;
			else
				hi = m;
		}
		of[i] = -1;
		if ((s->flags & (SBT_SF_PROBE | SBT_SF_CALIB | SBT_SF_RESET)) ||
		    !lo || ds->probes[lo - 1].thread != s->thread ||
		    ds->probes[lo - 1].source != s->source)
			continue;
		double *f = first + (lo - 1) * K, t = s->t_ns;
		of[i] = (long)lo - 1;
		for (int k = 0; k < K; k++)
			if (t < f[k]) {
				double x = f[k];
				f[k] = t, t = x;
			}
	}
	for (size_t i = 0; i < ds->n; i++) {
		int want = of[i] >= 0 &&
			   ds->s[i].t_ns <= first[(size_t)of[i] * K + K - 1];
		int got = !!(r->mark[i] & SBT_MK_AFTER_PROBE);
		wrong += want != got;
		marked += got;
	}
	free(first), free(of);
	CHECK(!wrong && marked >= (size_t)THREADS * (CALLS / 100) * K / 2,
	      "%s: %zu calls after a probe marked wrong (%zu marked)", what,
	      wrong, marked);
}

/* a and b say the same of every sample and group. */
static int same(const struct sbt_dataset *ds, const struct sbt_result *a,
		const struct sbt_result *b)
{
	if (a->ngroups != b->ngroups || memcmp(a->mark, b->mark, ds->n) ||
	    memcmp(a->order, b->order, a->norder * sizeof *a->order))
		return 0;
	for (size_t k = 0; k < a->ngroups; k++) {
		const struct sbt_group *x = &a->g[k], *y = &b->g[k];
		if (x->region != y->region || x->key != y->key ||
		    x->first != y->first || x->n != y->n ||
		    x->kept != y->kept || x->st.median != y->st.median ||
		    x->total_ns != y->total_ns || x->excl_ns != y->excl_ns ||
		    x->thread_ns != y->thread_ns || x->left_n != y->left_n ||
		    memcmp(x->left, y->left, sizeof x->left))
			return 0;
	}
	return 1;
}

/* Field by field: a struct's padding holds what it will. */
static int same_sample(const struct sbt_sample *a, const struct sbt_sample *b)
{
	return !memcmp(&a->ns, &b->ns, sizeof a->ns) &&
	       !memcmp(&a->cycles, &b->cycles, sizeof a->cycles) &&
	       !memcmp(&a->t_ns, &b->t_ns, sizeof a->t_ns) &&
	       a->region == b->region && a->thread == b->thread &&
	       a->source == b->source && a->cpu_start == b->cpu_start &&
	       a->cpu_stop == b->cpu_stop && a->flags == b->flags &&
	       a->site == b->site && a->switches == b->switches &&
	       a->faults == b->faults && a->skipped == b->skipped &&
	       !memcmp(&a->detour_ns, &b->detour_ns, sizeof a->detour_ns);
}

/* Each analysis by region and, with by_thread, by thread, at -j 1 and 2.
 * Under a sanitizer one dataset is analyzed by thread: the scoring's
 * tenfold cost there (most of this test's) buys no other code path. */
static void analyses(const struct sbt_dataset *ds, const char *read,
		     int nests, int by_thread)
{
	static const enum sbt_by by[] = { SBT_BY_NONE, SBT_BY_THREAD };
	char what[64];

	for (size_t b = 0; b < (by_thread ? 2u : 1u); b++) {
		struct sbt_result r[2];
		int ok[2];
		for (int j = 0; j < 2; j++) {
			struct sbt_options o = opts(by[b], j + 1);
			snprintf(what, sizeof what, "%s, by %s, -j %d", read,
				 by[b] == SBT_BY_NONE ? "region" : "thread",
				 j + 1);
			ok[j] = sbt_analyze(ds, &o, &r[j]) == 0;
			CHECK(ok[j], "%s: the analysis failed", what);
			if (!ok[j])
				continue;
			CHECK(r[j].ngroups >= (by[b] == SBT_BY_NONE ? REGIONS :
					       REGIONS * THREADS),
			      "%s: %zu groups", what, r[j].ngroups);
			check_groups(ds, &r[j], by[b], what);
			check_left(ds, &r[j], what);
			check_spans(ds, &r[j], what);
			check_after(ds, &r[j], what);
			size_t nested = 0;
			for (size_t k = 0; k < r[j].ngroups; k++)
				nested += r[j].g[k].nested &&
					  r[j].g[k].excl_ns < r[j].g[k].total_ns;
			CHECK(!nests || nested == r[j].ngroups, "%s: %zu of %zu "
			      "groups found with calls inside", what, nested,
			      r[j].ngroups);
		}
		if (ok[0] && ok[1])
			CHECK(same(ds, &r[0], &r[1]), "%s, by %s: -j 1 and -j 2 "
			      "differ", read, by[b] == SBT_BY_NONE ? "region" :
			      "thread");
		for (int j = 0; j < 2; j++)
			if (ok[j])
				sbt_result_free(&r[j]);
	}
}

/* Samples whose site or region the log does not name: each region made
 * where its first sample comes (reader.c's walk after the blocks), every
 * sample under one, the sites' counts those of their samples. */
static void damaged(void)
{
	struct sbt_dataset ds = { 0 };
	char err[256] = "";
	size_t want = 0, lost = 0, named = 0, other = 0, sites = 0;
	long made[2] = { -1, -1 };          /* regions, in sample order */
	int rc = sbt_read_log_jobs("damaged.log", &ds, 2, 1u << 20, err,
				   sizeof err);

	CHECK(rc >= 0, "reading damaged.log: %s", err);
	if (rc < 0)
		return;
	for (uint32_t th = 0; th < THREADS; th++)
		for (uint64_t i = 0; i < CALLS; i++)
			want += damaged_site(th, i) != 0,
			lost += damaged_site(th, i) == LOST;
	for (size_t i = 0; i < ds.n; i++) {
		const char *name = ds.regions[ds.s[i].region].name;
		if (name[0] == 'r') {
			named++;
			continue;
		}
		other++;
		if (made[0] < 0)
			made[0] = ds.s[i].region;
		else if (made[1] < 0 && ds.s[i].region != made[0])
			made[1] = ds.s[i].region;
	}
	for (size_t k = 0; k < ds.nsites; k++)
		sites += ds.sites[k].count;
	printf("damaged: %zu regions, %zu samples named, %zu not (%zu "
	       "made), sites count %zu\n", ds.nregions, named, other, want,
	       sites);
	CHECK(ds.n == (size_t)THREADS * CALLS && other == want &&
	      ds.nregions == REGIONS + 2 && made[0] == REGIONS &&
	      made[1] == REGIONS + 1, "damaged: %zu samples, %zu of %zu "
	      "under regions made for them, in the order they came (%ld, "
	      "%ld)", ds.n, other, want, made[0], made[1]);
	CHECK(sites == named + lost, "damaged: the sites count %zu samples "
	      "of %zu", sites, named + lost);
	analyses(&ds, "damaged", 0, !SANITIZED);
	sbt_ds_free(&ds);
}

int main(void)
{
	struct sbt_dataset whole = { 0 }, live = { 0 }, planned = { 0 };
	char err[256] = "";
	const uint64_t budget = (uint64_t)THREADS * CALLS * 2 / 9;

	h_tmpdir();
	split_log("split.log", 1, 0, 0);
	split_log("even.log", 0, 0, 1);
	split_log("damaged.log", 1, 1, 0);
	CHECK(sbt_read_log_jobs("split.log", &whole, 2, 1u << 20, err,
				sizeof err) == 0, "reading split.log: %s", err);
	CHECK(whole.n == (size_t)THREADS * CALLS && whole.nregions == REGIONS,
	      "read %zu samples of %zu regions", whole.n, whole.nregions);
	if (whole.n != (size_t)THREADS * CALLS)
		return h_done();
	analyses(&whole, "whole", 0, 1);
	sbt_ds_free(&whole);
	memset(&whole, 0, sizeof whole);
	/* nested calls: the threads' walks side by side (totals.c) */
	CHECK(sbt_read_log_jobs("even.log", &whole, 2, 1u << 20, err,
				sizeof err) == 0, "reading even.log: %s", err);
	CHECK(whole.n == (size_t)THREADS * (CALLS + CALLS / 10),
	      "even.log: %zu samples", whole.n);
	analyses(&whole, "nested", 1, !SANITIZED);

	/* under a budget: live, compacted as it reads (1 MB segments: many
	 * merges, each compaction's blocks over the samples so far); a log
	 * alike throughout, where the live read's guesses hold (a region
	 * rarer later than early reads the log again, counted first) */
	live.hold_budget = budget;
	CHECK(sbt_read_log_jobs("even.log", &live, 2, 1u << 20, err,
				sizeof err) == 0, "reading live: %s", err);
	CHECK(sbt_count_log_jobs("even.log", &planned, 2, 1u << 20, err,
				 sizeof err) == 0, "counting: %s", err);
	(void)sbt_thin_plan(&planned, budget);
	CHECK(sbt_read_log_jobs("even.log", &planned, 2, 1u << 20, err,
				sizeof err) == 0, "reading planned: %s", err);
	size_t differ = live.n == planned.n ? 0 : 1;
	for (size_t i = 0; !differ && i < live.n; i++)
		differ = !same_sample(&live.s[i], &planned.s[i]);
	CHECK(!differ && live.n < whole.n / 2,
	      "live: %zu samples held, planned from counts %zu (%s)", live.n,
	      planned.n, live.n == planned.n ? "not the same ones" : "");
	analyses(&live, "live", 0, !SANITIZED);
	damaged();
	sbt_ds_free(&whole);
	sbt_ds_free(&live);
	sbt_ds_free(&planned);
	return h_done();
}
