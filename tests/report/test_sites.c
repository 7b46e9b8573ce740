/*
 * test_sites.c - several call sites per region, as the reports count and
 * group them (the recorder of log version 1 gives one per region; the
 * dataset allows any number).
 *
 * One source, two regions: "r" started from three sites 100, 200 and 300
 * times (the third site 40 % slower), plus 7 probes; "q" from one site,
 * with 5 samples that have no site at all.  Checks sbt_group_sites()
 * counts (exact, most first, probes and siteless samples left out),
 * sbt_analyze_by_site() groups (one per region and site, keyed by site),
 * and the JSON report's callsites counts.
 */
#include "bysite.h"
#include "report.h"
#include "../common/harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void push(struct sbt_dataset *ds, uint32_t region, uint32_t site,
		 double ns, uint32_t flags, double t)
{
	struct sbt_sample *s = sbt_ds_push(ds);
	s->region = region, s->site = site, s->ns = ns, s->flags = flags;
	s->t_ns = t;
	if (site != SBT_SITE_NONE)
		ds->sites[site].count++;
}

int main(void)
{
	struct sbt_dataset ds = { 0 };
	struct sbt_source *src = sbt_ds_source(&ds, "synthetic");
	long r = sbt_ds_region(&ds, "r", 1, 0), q = sbt_ds_region(&ds, "q", 1, 0);
	uint64_t fr[3][2] = { { 0x1010, 0x2000 }, { 0x1020, 0x2000 },
			      { 0x1030, 0x2000 } }, fq = 0x1040;
	int n[3] = { 100, 200, 300 };
	double t = 0;

	if (!src || r < 0 || q < 0)
		return 99;
	src->tick_ns = 1, src->quantum_ns = 1, src->te_ns = 0;
	for (int k = 0; k < 3; k++)
		if (sbt_ds_site(&ds, 0, fr[k], 2) != k)
			return 99;
	if (sbt_ds_site(&ds, 0, &fq, 1) != 3)
		return 99;
	for (int k = 0; k < 3; k++) {
		ds.sites[k].region = (uint32_t)r;
		for (int i = 0; i < n[k]; i++)
			push(&ds, (uint32_t)r, (uint32_t)k, (k == 2 ? 140 : 100)
			     + i % 3, 0, t += 10);
	}
	for (int i = 0; i < 7; i++)
		push(&ds, (uint32_t)r, 0, 5, SBT_SF_PROBE, t += 10);
	ds.sites[3].region = (uint32_t)q;
	for (int i = 0; i < 50; i++)
		push(&ds, (uint32_t)q, 3, 70, 0, t += 10);
	for (int i = 0; i < 5; i++)
		push(&ds, (uint32_t)q, SBT_SITE_NONE, 70, 0, t += 10);

	struct sbt_callsites cs;
	struct sbt_options o = { .filters = SBT_F_NONE, .seed = 1,
				 .cost_ns = -1, .profile_t_min_ns = NAN,
				 .profile_t_diff_ns = NAN };
	struct sbt_result res;
	struct sbt_sitecount *sc;
	CHECK(sbt_callsites_build(&ds, 0, 1, &cs) == 0, "build");
	CHECK(cs.n == 4, "sites %zu", cs.n);
	CHECK(sbt_analyze(&ds, &o, &res) == 0 && res.ngroups == 2, "analyze");
	/* groups sorted by name: q, r */
	long m = sbt_group_sites(&ds, &res, &res.g[1], &cs, &sc);
	CHECK(m == 3, "r: %ld sites", m);
	for (long i = 0; i < m && m == 3; i++)
		CHECK(sc[i].site == (uint32_t)(2 - i) &&
		      sc[i].count == (uint64_t)n[2 - i],
		      "r site %ld: %u x %llu", i, sc[i].site,
		      (unsigned long long)sc[i].count);
	free(sc);
	m = sbt_group_sites(&ds, &res, &res.g[0], &cs, &sc);
	CHECK(m == 1 && sc[0].site == 3 && sc[0].count == 50,
	      "q: %ld sites, first %u x %llu", m, m ? sc[0].site : 0,
	      m ? (unsigned long long)sc[0].count : 0);
	free(sc);

	/* JSON: the same counts, per region */
	struct sbt_report_opts ro = { .cost_ns = -1, .cs = &cs };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	sbt_report(f, "json", &(struct sbt_report_in){ .ds = &ds, .res = &res,
						       .o = &ro });
	fclose(f);
	const char *rr = strstr(buf, "\"name\": \"r\"");
	CHECK(rr && strstr(rr, "\"count\": 300, \"stack\"") &&
	      strstr(rr, "\"count\": 200, \"stack\"") &&
	      strstr(rr, "\"count\": 100, \"stack\""), "JSON:\n%s", buf);
	free(buf);
	sbt_result_free(&res);

	/* --by site: (q, site 3), (q, no site), (r, 0), (r, 1), (r, 2) */
	CHECK(sbt_analyze_by_site(&ds, &o, &cs, &res) == 0, "by site");
	CHECK(res.ngroups == 5, "%zu groups", res.ngroups);
	static const struct { uint32_t key; size_t count; } want[5] = {
		{ 3, 50 }, { UINT32_MAX, 5 }, { 0, 100 }, { 1, 200 },
		{ 2, 300 } };
	for (size_t i = 0; i < res.ngroups && res.ngroups == 5; i++)
		CHECK(res.g[i].key == want[i].key &&
		      res.g[i].count == want[i].count,
		      "group %zu: key %u count %zu", i, res.g[i].key,
		      res.g[i].count);
	for (size_t i = 0; i < ds.n; i++)
		CHECK(ds.s[i].thread == 0, "thread numbers not restored");
	/* the slow site stands out, and the verdict names no thread: its
	 * groups are call sites, no finding is a thread's */
	CHECK(res.ngroups == 5 && res.g[4].st.median > 135, "site 2 median");
	for (size_t i = 0; i < res.ngroups; i++) {
		CHECK(res.g[i].said.by == SBT_BY_SITE, "group %zu: by %d", i,
		      res.g[i].said.by);
		for (int k = 0; k < res.g[i].nfind; k++)
			CHECK(res.g[i].find[k].kind != SBT_FIND_GROUPS &&
			      res.g[i].find[k].kind != SBT_FIND_WAIT,
			      "group %zu: a thread's finding (%s)", i,
			      sbt_finding_kind_name(res.g[i].find[k].kind));
	}
	sbt_result_free(&res);
	sbt_callsites_free(&cs);
	sbt_ds_free(&ds);
	return h_done();
}
