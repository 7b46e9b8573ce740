/*
 * test_format.c - both log format versions read, with exact results.
 *
 *   - a version-1 log (one record per sample), written here byte by byte:
 *     samples, flags, cycles, RESET, one call site per region;
 *   - a version-2 log (per-thread START/STOP events), written here:
 *     nesting, a crossed STOP, a probe, calibration, RESET, cycles, a
 *     region left open, two threads, a region seen at two call sites;
 *   - a log recorded now by the recorder (rapp sites): one region from
 *     three call sites, counted site by site.
 *
 * usage: test_format RAPP        (SBT_LIB from the environment)
 */
#include "../common/harness.h"
#include "reader.h"
#include "sbtlog.h"

#include <fcntl.h>

#define PAGE 4096u
#define TICK_HZ 1000000000ull          /* 1 tick = 1 ns: exact checks */

static unsigned char buf[8 * PAGE];
static size_t len;

static void header(uint32_t version, uint32_t clocks)
{
	struct sbt_file_header h;

	memset(&h, 0, sizeof h);
	memcpy(h.magic, SBT_LOG_MAGIC, 8);
	h.version = version;
	h.header_size = SBT_HEADER_SIZE;
	h.arch = SBT_ARCH_X86_64;
	h.clocks = clocks;
	h.flags = SBT_HF_CLOSED | SBT_HF_CPU_AUX;
	h.record_size = version == 1 ? sizeof(struct sbt_record)
				     : sizeof(struct sbt_event);
	h.tick_hz = TICK_HZ;
	h.tick_quantum = 1;
	h.te_min_ticks = 20;
	h.pid = 77, h.rank = -1;
	h.start_ticks = 1000;
	h.counters[SBT_CNT_CROSSED] = 1;
	memset(buf, 0, sizeof buf);
	memcpy(buf, &h, sizeof h);
	len = SBT_HEADER_SIZE;
}

static struct sbt_chunk *chunk(uint32_t type, uint32_t thread)
{
	struct sbt_chunk *c = (struct sbt_chunk *)(buf + len);

	c->magic = SBT_CHUNK_MAGIC;
	c->type = type;
	c->size = PAGE;
	c->thread = thread;
	len += PAGE;
	return c;
}

static void meta(struct sbt_chunk *c, uint16_t type, const void *a,
		 uint32_t alen, const void *b, uint32_t blen)
{
	struct sbt_meta *m = (void *)((char *)(c + 1) + c->used);

	m->type = type;
	m->len = alen + blen;
	memcpy(m + 1, a, alen);
	memcpy((char *)(m + 1) + alen, b, blen);
	c->used += (sizeof *m + alen + blen + 7) & ~7u;
}

static void region(struct sbt_chunk *c, uint32_t id, const char *name)
{
	struct sbt_meta_region r = { .id = id, .api = SBT_API_SBTMARK,
				     .site = 0x401000 + id };
	meta(c, SBT_META_REGION, &r, sizeof r, name, (uint32_t)strlen(name));
}

static int save(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int ok = fd >= 0 && write(fd, buf, len) == (ssize_t)len;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
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

/* ---- version 1 ------------------------------------------------------------ */

static void t_v1(void)
{
	struct sbt_dataset ds = { 0 };
	char err[256];
	long fl;

	header(1, SBT_CLOCK_WALL | SBT_CLOCK_CYCLES);
	struct sbt_chunk *m = chunk(SBT_CHUNK_META, 0);
	region(m, 1, "alpha");
	region(m, 2, "beta");
	uint64_t frames[2] = { 0x401001, 0x402000 };
	struct sbt_meta_site ms = { 1, 2 };
	meta(m, SBT_META_SITE, &ms, sizeof ms, frames, sizeof frames);

	struct sbt_chunk *c = chunk(SBT_CHUNK_SAMPLES, 0);
	struct sbt_record *r = (void *)(c + 1);
	/* alpha: 10 samples of 100 + i ns, the 4th a probe, the 6th crossed;
	 * beta: 5, then a RESET, then 3 more; one calibration record. */
	for (uint32_t i = 0; i < 10; i++, r++) {
		uint32_t f = i == 3 ? SBT_RF_PROBE : i == 5 ? SBT_RF_CROSSED : 0;
		*r = (struct sbt_record){ 2000 + 1000 * i, 100 + i, 300 + i,
					  1 | f << SBT_REC_ID_BITS, 1,
					  i == 7 ? 2 : 1 };
	}
	for (uint32_t i = 0; i < 9; i++, r++) {
		uint32_t f = i == 5 ? SBT_RF_RESET : 0;
		*r = (struct sbt_record){ 20000 + 1000 * i, f ? 0 : 50, 0,
					  2 | f << SBT_REC_ID_BITS, 0, 0 };
	}
	*r++ = (struct sbt_record){ 1500, 20, 0,
		SBT_REGION_CALIB | SBT_RF_CALIB << SBT_REC_ID_BITS, 0, 0 };
	c->used = (uint64_t)((char *)r - (char *)(c + 1));
	CHECK(save("v1.log") == 0, "cannot write v1.log");

	int rc = sbt_read_log("v1.log", &ds, err, sizeof err);
	CHECK(rc == 0, "v1: rc %d %s", rc, err);
	CHECK(count(&ds, "alpha", SBT_SF_CROSSED, &fl) == 9 && fl == 1,
	      "v1: alpha %ld samples, %ld crossed", count(&ds, "alpha",
	      SBT_SF_CROSSED, &fl), fl);
	CHECK(count(&ds, "alpha", SBT_SF_MIGRATED, &fl) == 9 && fl == 1,
	      "v1: %ld migrated", fl);
	CHECK(count(&ds, "beta", SBT_SF_BEFORE_RESET, &fl) == 8 && fl == 5,
	      "v1: beta %ld samples, %ld before the reset", count(&ds, "beta",
	      SBT_SF_BEFORE_RESET, &fl), fl);
	long a = region_index(&ds, "alpha");
	for (size_t i = 0; i < ds.n; i++)
		if ((long)ds.s[i].region == a && ds.s[i].cycles == 0)
			CHECK(0, "v1: an alpha sample without cycles");
	CHECK(ds.n && ds.s[0].ns == 100 && ds.s[0].t_ns == 1000 &&
	      ds.s[0].cycles == 300, "v1: first sample %g ns at %g, %g cycles",
	      ds.n ? ds.s[0].ns : -1, ds.n ? ds.s[0].t_ns : -1,
	      ds.n ? ds.s[0].cycles : -1);
	/* version 1: one site per region, only alpha's is described */
	CHECK(ds.nsites == 1 && ds.sites[0].count == 10 &&
	      ds.sites[0].depth == 2 && ds.sites[0].frames[0] == 0x401001,
	      "v1: %zu sites, first count %llu", ds.nsites,
	      ds.nsites ? (unsigned long long)ds.sites[0].count : 0);
	CHECK(ds.sources[0].counters[SBT_CNT_CROSSED] == 1, "v1: counters");
	sites_consistent(&ds, "v1");
	sbt_ds_free(&ds);
}

/* ---- version 2 ------------------------------------------------------------ */

static struct sbt_event *ev;

static void put(uint32_t kind, uint32_t flags, uint32_t id, uint64_t t,
		uint32_t cpu)
{
	*ev++ = (struct sbt_event){ t, SBT_EV_WORD(kind, flags, id), cpu };
}

static void t_v2(void)
{
	struct sbt_dataset ds = { 0 };
	char err[256];
	long fl;

	header(2, SBT_CLOCK_WALL | SBT_CLOCK_CYCLES);
	struct sbt_chunk *m = chunk(SBT_CHUNK_META, 0);
	region(m, 1, "outer");
	region(m, 2, "inner");
	uint64_t f1[1] = { 0x401100 }, f2[2] = { 0x401200, 0x402000 },
		 f3[1] = { 0x401300 };
	struct sbt_meta_site2 s1 = { 1, 1, 1, 0 }, s2 = { 2, 2, 2, 0 },
			      s3 = { 3, 2, 1, 0 };
	meta(m, SBT_META_SITE2, &s1, sizeof s1, f1, sizeof f1);
	meta(m, SBT_META_SITE2, &s2, sizeof s2, f2, sizeof f2);
	meta(m, SBT_META_SITE2, &s3, sizeof s3, f3, sizeof f3);

	/* Thread 0: calibration; 4 x outer { inner@2 }, the first probed;
	 * inner@3 crossed with outer once; a RESET of outer; outer left
	 * open.  Cycles follow every START and STOP of the nested pairs. */
	struct sbt_chunk *c = chunk(SBT_CHUNK_EVENTS, 0);
	ev = (void *)(c + 1);
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
	c = chunk(SBT_CHUNK_EVENTS, 1);
	ev = (void *)(c + 1);
	for (int i = 0; i < 2; i++)
		put(SBT_EV_START, 0, 3, 9000 + 100 * i, 0),
		put(SBT_EV_STOP, 0, 3, 9030 + 100 * i, 0);
	CHECK(save("v2.log") == 0, "cannot write v2.log");

	int rc = sbt_read_log("v2.log", &ds, err, sizeof err);
	CHECK(rc == 0, "v2: rc %d %s (%s)", rc, err,
	      ds.nsources ? ds.sources[0].warning : "");
	CHECK(count(&ds, "outer", SBT_SF_CROSSED, &fl) == 5 && fl == 1,
	      "v2: outer %ld samples, %ld crossed", count(&ds, "outer",
	      SBT_SF_CROSSED, &fl), fl);
	CHECK(count(&ds, "outer", SBT_SF_BEFORE_RESET, &fl) == 5 && fl == 5,
	      "v2: %ld outer samples before the reset", fl);
	CHECK(count(&ds, "outer", SBT_SF_MIGRATED, &fl) == 5 && fl == 1,
	      "v2: %ld outer samples migrated", fl);
	CHECK(count(&ds, "inner", 0, &fl) == 7, "v2: inner %ld samples",
	      count(&ds, "inner", 0, &fl));
	long probes = 0, o = region_index(&ds, "outer");
	for (size_t i = 0; i < ds.n; i++) {
		const struct sbt_sample *s = &ds.s[i];
		probes += (s->flags & SBT_SF_PROBE) != 0;
		if ((long)s->region == o && !(s->flags & SBT_SF_PROBE) &&
		    s->t_ns == 1200)
			CHECK(s->ns == 300 && s->cycles == 900 && s->thread == 0,
			      "v2: first outer %g ns %g cycles", s->ns,
			      s->cycles);
		if (s->thread == 1)
			CHECK(s->ns == 30, "v2: thread 1 sample %g ns", s->ns);
	}
	CHECK(probes == 1, "v2: %ld probes", probes);
	CHECK(ds.sources[0].nthreads == 2, "v2: %u threads",
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
	CHECK(ds.nsites == 3 && at2 == 4 && at3 == 3, "v2: %zu sites, inner "
	      "%llu at site 2 and %llu at site 3", ds.nsites,
	      (unsigned long long)at2, (unsigned long long)at3);
	sites_consistent(&ds, "v2");
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
	t_v1();
	t_v2();
	t_recorded(libp, rapp);
	char cmd[64 + 32];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (!h_fail && (chdir("/") != 0 || system(cmd) != 0))
		fprintf(stderr, "cannot remove %s\n", dir);
	return h_done();
}
