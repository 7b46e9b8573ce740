/*
 * test_format.c - the log format read, with exact results.
 *
 *   - logs of the development versions before 5: refused by name;
 *   - a log of per-thread START/STOP events, written here:
 *     nesting, a crossed STOP, a probe, calibration, RESET, cycles, a
 *     region left open, two threads, a region seen at two call sites;
 *   - a log recorded now by the recorder (rapp sites): one region from
 *     three call sites, counted site by site.
 *
 * usage: test_format RAPP        (SBT_LIB from the environment)
 */
#include "../common/harness.h"
#include "../common/logbuild.h"
#include "reader.h"
#include "sbtlog.h"

#include <fcntl.h>

#define PAGE 4096u

static struct lb b;

/* A version-5 log with test defaults (1 tick = 1 ns: exact checks). */
static void header(uint32_t clocks)
{
	lb_free(&b);
	lb_begin(&b, 8 * PAGE, PAGE);
	struct sbt_file_header *h = lb_hdr(&b);
	h->clocks = clocks;
	h->flags = SBT_HF_CLOSED | SBT_HF_CPU_AUX;
	h->te_min_ticks = 20;
	h->pid = 77;
	h->counters[SBT_CNT_CROSSED] = 1;
}

static void region(struct sbt_chunk *c, uint32_t id, const char *name)
{
	lb_region(c, id, SBT_API_SBTMARK, 0x401000 + id, name);
}

static long region_index(const struct sbt_dataset *ds, const char *name)
{
	for (size_t i = 0; i < ds->nregions; i++)
		if (!strcmp(ds->regions[i].name, name))
			return (long)i;
	return -1;
}

/* Samples of `name` that are not probes, and how many carry `flag`. */
static long count(const struct sbt_dataset *ds, const char *name,
		  uint32_t flag, long *flagged)
{
	long r = region_index(ds, name), n = 0;

	*flagged = 0;
	for (size_t i = 0; i < ds->n; i++) {
		const struct sbt_sample *s = &ds->s[i];
		if ((long)s->region != r || (s->flags & SBT_SF_PROBE))
			continue;
		n++;
		*flagged += (s->flags & flag) != 0;
	}
	return n;
}

/* Every sample points at a site of its own region, and each site's count
 * is the number of samples pointing at it. */
static void sites_consistent(const struct sbt_dataset *ds, const char *what)
{
	uint64_t *seen = calloc(ds->nsites + 1, sizeof *seen);
	long bad = 0;

	for (size_t i = 0; i < ds->n; i++) {
		uint32_t st = ds->s[i].site;
		if (st == SBT_SITE_NONE)
			continue;
		if (st >= ds->nsites || ds->sites[st].region != ds->s[i].region)
			bad++;
		else
			seen[st]++;
	}
	for (size_t k = 0; k < ds->nsites; k++)
		bad += seen[k] != ds->sites[k].count;
	CHECK(bad == 0, "%s: %ld samples or sites disagree", what, bad);
	free(seen);
}

/* ---- older versions --------------------------------------------------- */

/* Development versions before 5 are refused by name, not read. */
static void t_old(void)
{
	struct sbt_dataset ds = { 0 };
	char err[256], want[128];

	for (uint32_t v = 1; v < SBT_LOG_VERSION_MIN; v++) {
		header(SBT_CLOCK_WALL);
		lb_hdr(&b)->version = v;
		region(lb_chunk(&b, SBT_CHUNK_META, 0), 1, "old");
		lb_pair(&b, 0, 0, 1, 2000, 2100, 0);
		CHECK(lb_save(&b, "old.log") == 0, "cannot write old.log");
		err[0] = 0;
		int rc = sbt_read_log("old.log", &ds, err, sizeof err);
		snprintf(want, sizeof want, "unsupported log format version %u "
			 "(this sbt-analyze reads versions %u to %u)", v,
			 SBT_LOG_VERSION_MIN, SBT_LOG_VERSION);
		CHECK(rc == -1 && !strcmp(err, want) && ds.n == 0,
		      "version %u: rc %d, '%s'", v, rc, err);
		sbt_ds_free(&ds);
	}
}

/* ---- events -------------------------------------------------------------- */

static uint32_t thr;

static void put(uint32_t kind, uint32_t flags, uint32_t id, uint64_t t,
		uint32_t cpu)
{
	lb_event(&b, thr, kind, flags, id, t, cpu);
}

static void t_events(void)
{
	struct sbt_dataset ds = { 0 };
	char err[256];
	long fl;

	header(SBT_CLOCK_WALL | SBT_CLOCK_CYCLES);
	struct sbt_chunk *m = lb_chunk(&b, SBT_CHUNK_META, 0);
	region(m, 1, "outer");
	region(m, 2, "inner");
	uint64_t f1[1] = { 0x401100 }, f2[2] = { 0x401200, 0x402000 },
		 f3[1] = { 0x401300 };
	lb_site(m, 1, 1, f1, 1);
	lb_site(m, 2, 2, f2, 2);
	lb_site(m, 3, 2, f3, 1);

	/* Thread 0: calibration; 4 x outer { inner@2 }, the first probed;
	 * inner@3 crossed with outer once; a RESET of outer; outer left
	 * open.  Cycles follow every START and STOP of the nested pairs. */
	thr = 0;
	uint64_t t = 2000;
	put(SBT_EV_START, SBT_RF_CALIB, SBT_SITE_CALIB, t, 0);
	put(SBT_EV_STOP, SBT_RF_CALIB, SBT_SITE_CALIB, t + 20, 0);
	put(SBT_EV_START, SBT_RF_PROBE, 1, t + 100, 0);
	put(SBT_EV_STOP, SBT_RF_PROBE, 1, t + 120, 0);
	for (int i = 0; i < 4; i++, t += 1000) {
		put(SBT_EV_START, 0, 1, t + 200, 1);
		put(SBT_EV_CYCLES, 0, 0, 5000, 0);
		put(SBT_EV_START, 0, 2, t + 300, 1);
		put(SBT_EV_CYCLES, 0, 0, 6000, 0);
		put(SBT_EV_STOP, 0, 2, t + 340, 1);
		put(SBT_EV_CYCLES, 0, 0, 6100, 0);
		put(SBT_EV_STOP, 0, 1, t + 500, i == 2 ? 3 : 1);
		put(SBT_EV_CYCLES, 0, 0, 5900, 0);
	}
	put(SBT_EV_START, 0, 1, t, 0);              /* outer { inner@3 ... */
	put(SBT_EV_START, 0, 3, t + 10, 0);
	put(SBT_EV_STOP, SBT_RF_CROSSED, 1, t + 50, 0);    /* outer first */
	put(SBT_EV_STOP, 0, 3, t + 70, 0);
	put(SBT_EV_RESET, 0, 1, t + 100, 0);
	put(SBT_EV_START, 0, 1, t + 200, 0);        /* open at the end */
	/* Thread 1, in a chunk of its own: two inner@3. */
	thr = 1;
	for (int i = 0; i < 2; i++)
		put(SBT_EV_START, 0, 3, 9000 + 100 * i, 0),
		put(SBT_EV_STOP, 0, 3, 9030 + 100 * i, 0);
	CHECK(lb_save(&b, "v5.log") == 0, "cannot write v5.log");

	int rc = sbt_read_log("v5.log", &ds, err, sizeof err);
	CHECK(rc == 0, "v5: rc %d %s (%s)", rc, err,
	      ds.nsources ? ds.sources[0].warning : "");
	CHECK(count(&ds, "outer", SBT_SF_CROSSED, &fl) == 5 && fl == 1,
	      "v5: outer %ld samples, %ld crossed", count(&ds, "outer",
	      SBT_SF_CROSSED, &fl), fl);
	CHECK(count(&ds, "outer", SBT_SF_BEFORE_RESET, &fl) == 5 && fl == 5,
	      "v5: %ld outer samples before the reset", fl);
	CHECK(count(&ds, "outer", SBT_SF_MIGRATED, &fl) == 5 && fl == 1,
	      "v5: %ld outer samples migrated", fl);
	CHECK(count(&ds, "inner", 0, &fl) == 7, "v5: inner %ld samples",
	      count(&ds, "inner", 0, &fl));
	long probes = 0, o = region_index(&ds, "outer");
	for (size_t i = 0; i < ds.n; i++) {
		const struct sbt_sample *s = &ds.s[i];
		probes += (s->flags & SBT_SF_PROBE) != 0;
		if ((long)s->region == o && !(s->flags & SBT_SF_PROBE) &&
		    s->t_ns == 1200)
			CHECK(s->ns == 300 && s->cycles == 900 && s->thread == 0,
			      "v5: first outer %g ns %g cycles", s->ns,
			      s->cycles);
		if (s->thread == 1)
			CHECK(s->ns == 30, "v5: thread 1 sample %g ns", s->ns);
	}
	CHECK(probes == 1, "v5: %ld probes", probes);
	CHECK(ds.sources[0].nthreads == 2, "v5: %u threads",
	      ds.sources[0].nthreads);
	/* three sites, inner at two of them; counts per site */
	long in = region_index(&ds, "inner");
	uint64_t at2 = 0, at3 = 0;
	for (size_t k = 0; k < ds.nsites; k++) {
		if ((long)ds.sites[k].region != in)
			continue;
		if (ds.sites[k].frames[0] == 0x401200)
			at2 = ds.sites[k].count;
		if (ds.sites[k].frames[0] == 0x401300)
			at3 = ds.sites[k].count;
	}
	CHECK(ds.nsites == 3 && at2 == 4 && at3 == 3, "v5: %zu sites, inner "
	      "%llu at site 2 and %llu at site 3", ds.nsites,
	      (unsigned long long)at2, (unsigned long long)at3);
	sites_consistent(&ds, "v5");
	sbt_ds_free(&ds);
}

/* ---- a log of the recorder --------------------------------------------- */

static void t_recorded(const char *lib, const char *rapp)
{
	struct sbt_dataset ds = { 0 };
	char err[256];
	char *env[] = { "SBT_OUTPUT=rec.log", "SBT_PROBE_PERIOD=0", NULL };
	char *argv[] = { (char *)rapp, "sites", "100", NULL };

	int st = h_run(lib, env, argv);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "rapp sites: %#x", st);
	int rc = sbt_read_log("rec.log", &ds, err, sizeof err);
	CHECK(rc == 0, "recorded: rc %d %s", rc, err);
	if (rc < 0)
		return;
	struct sbt_file_header h;
	int fd = open("rec.log", O_RDONLY);
	CHECK(fd >= 0 && read(fd, &h, sizeof h) == (ssize_t)sizeof h &&
	      h.version == SBT_LOG_VERSION, "recorded: not a version %u "
	      "log", SBT_LOG_VERSION);
	if (fd >= 0)
		close(fd);
	long r = region_index(&ds, "site"), fl;
	CHECK(count(&ds, "site", 0, &fl) == 600, "recorded: %ld samples",
	      count(&ds, "site", 0, &fl));
	uint64_t c[3] = { 0, 0, 0 };
	int n = 0;
	for (size_t k = 0; k < ds.nsites; k++)
		if ((long)ds.sites[k].region == r && n < 3)
			c[n++] = ds.sites[k].count;
	CHECK(n == 3 && c[0] + c[1] + c[2] == 600 && c[0] * c[1] * c[2] ==
	      100 * 200 * 300, "recorded: %d sites, counts %llu %llu %llu", n,
	      (unsigned long long)c[0], (unsigned long long)c[1],
	      (unsigned long long)c[2]);
	sites_consistent(&ds, "recorded");
	sbt_ds_free(&ds);
}

int main(int argc, char **argv)
{
	const char *lib = getenv("SBT_LIB");
	char *rapp, *libp;

	if (argc != 2 || !lib)
		return 99;
	rapp = realpath(argv[1], NULL);
	libp = realpath(lib, NULL);
	if (!rapp || !libp)
		return 99;
	const char *dir = h_tmpdir();
	t_old();
	t_events();
	t_recorded(libp, rapp);
	char cmd[64 + 32];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (!h_fail && (chdir("/") != 0 || system(cmd) != 0))
		fprintf(stderr, "cannot remove %s\n", dir);
	lb_free(&b);
	return h_done();
}
