/*
 * test_join.c - waits at a libgomp team's closing barrier that another
 * thread ended (format version 6: JOIN, RELEASE), read from logs written
 * here with exact times (1 tick = 1 ns):
 *   - each worker's wait ends at its master's release: release - arrival
 *     exactly, the master's own wait as recorded, counts exact;
 *   - the same whatever the segments (a JOIN whose START, a STOP whose
 *     JOIN is in the chunk before; read by 1 and 4 threads, in segments
 *     of one chunk);
 *   - an instance number that repeats (a master past 2^24 teams): the
 *     first release at or after the wait's start;
 *   - a release not in the log: the wait keeps its own end, said once;
 *   - a JOIN in a version-5 log: damage, said.
 */
#include "../common/harness.h"
#include "../common/logbuild.h"
#include "reader.h"
#include "sbtlog.h"

#define PAGE 4096u
#define N    300                     /* team instances                  */
#define REP  100                     /* instance numbers repeat so      */

static struct lb b;

enum { PAR = 1, BAR = 2 };

static uint64_t base(int k) { return 100000 + (uint64_t)k * 100000; }
static uint64_t release_t(int k) { return base(k) + 5000 + (uint64_t)k; }

/* A worker's instance k: share from `from` to `arrive`, then its
 * arrival: START, JOIN naming master 0's instance, STOP 50 ticks on
 * (worker 2: at the START's tick, as the recorder writes a wait that
 * took its share's clock read). */
static void worker(uint32_t th, int k, uint64_t from, uint64_t arrive,
		   uint32_t master)
{
	lb_pair(&b, th, 0, PAR, base(k) + from, base(k) + arrive, 0);
	lb_event(&b, th, SBT_EV_START, 0, BAR, base(k) + arrive, 0);
	lb_event(&b, th, SBT_EV_JOIN, 0, BAR,
		 SBT_JOIN_T(master, (uint32_t)(k % REP) + 1), 0);
	lb_event(&b, th, SBT_EV_STOP, 0, BAR,
		 base(k) + arrive + (th == 2 ? 0 : 50), 0);
}

static void write_log(const char *path, uint32_t version, int lost)
{
	lb_free(&b);
	lb_begin(&b, 256 * PAGE, PAGE);
	lb_hdr(&b)->version = version;
	struct sbt_chunk *m = lb_chunk(&b, SBT_CHUNK_META, 0);
	lb_region(m, PAR, SBT_API_OPENMP, 0x401000, "omp parallel @ a+0x10");
	lb_region(m, BAR, SBT_API_OPENMP, 0x401000, "omp barrier @ a+0x10");
	uint64_t ra = 0x401000;
	lb_site(m, PAR, PAR, &ra, 1);
	lb_site(m, BAR, BAR, &ra, 1);
	/* worker 1 before its master in the file, worker 2 after */
	for (int k = 0; k < N; k++)
		worker(1, k, 10, 2000, 0);
	for (int k = 0; k < N; k++) {
		lb_pair(&b, 0, 0, PAR, base(k), base(k) + 1000, 0);
		lb_pair(&b, 0, 0, BAR, base(k) + 1000, release_t(k), 0);
		lb_event(&b, 0, SBT_EV_RELEASE, 0, (uint32_t)(k % REP) + 1,
			 release_t(k), 0);
	}
	for (int k = 0; k < N; k++)
		worker(2, k, 20, 4900, 0);
	if (lost)                       /* master 9 wrote nothing */
		worker(3, 0, 30, 3000, 9);
	CHECK(lb_save(&b, path) == 0, "cannot write %s", path);
}

/* Wait samples of thread th, in time order (the reader keeps a thread's
 * stream order). */
static int waits(const struct sbt_dataset *ds, uint32_t th, double *out)
{
	int n = 0;

	for (size_t i = 0; i < ds->n; i++) {
		const struct sbt_sample *s = &ds->s[i];
		if (s->thread == th && !strcmp(ds->regions[s->region].name,
					       "omp barrier @ a+0x10") &&
		    n < N)
			out[n++] = s->ns;
		if (s->flags & SBT_SF_JOINED)
			CHECK(0, "sample %zu still joined", i);
	}
	return n;
}

static void check_read(const char *path, int jobs, size_t seg)
{
	struct sbt_dataset ds = { 0 };
	char err[256] = "";
	double w[N];
	long bad = 0;

	CHECK(sbt_read_log_jobs(path, &ds, jobs, seg, err, sizeof err) == 0,
	      "read %s: %s", path, err);
	CHECK(!ds.sources[0].warning[0], "jobs %d seg %zu: warning '%s'",
	      jobs, seg, ds.sources[0].warning);
	CHECK(waits(&ds, 1, w) == N, "jobs %d: worker 1 has %d waits", jobs,
	      waits(&ds, 1, w));
	for (int k = 0; k < N; k++)
		bad += w[k] != (double)(release_t(k) - base(k) - 2000);
	CHECK(waits(&ds, 2, w) == N, "worker 2's waits");
	for (int k = 0; k < N; k++)
		bad += w[k] != (double)(release_t(k) - base(k) - 4900);
	CHECK(waits(&ds, 0, w) == N, "the master's waits");
	for (int k = 0; k < N; k++)
		bad += w[k] != (double)(release_t(k) - base(k) - 1000);
	CHECK(bad == 0, "jobs %d seg %zu: %ld waits not release - arrival",
	      jobs, seg, bad);
	sbt_ds_free(&ds);
}

int main(void)
{
	struct sbt_dataset ds = { 0 };
	char err[256] = "";
	double w[N];

	h_tmpdir();
	write_log("join.log", SBT_LOG_VERSION, 0);
	check_read("join.log", 1, 0);
	check_read("join.log", 1, 1);           /* a chunk a segment */
	check_read("join.log", 4, 1);

	write_log("lost.log", SBT_LOG_VERSION, 1);
	CHECK(sbt_read_log("lost.log", &ds, err, sizeof err) == 1, "%s", err);
	CHECK(waits(&ds, 3, w) == 1 && w[0] == 50.0,
	      "no release: its own end kept (%g)", w[0]);
	CHECK(strstr(ds.sources[0].warning, "release is not in the log"),
	      "no release: warning '%s'", ds.sources[0].warning);
	sbt_ds_free(&ds);

	write_log("v5.log", 5, 0);
	memset(&ds, 0, sizeof ds);
	CHECK(sbt_read_log("v5.log", &ds, err, sizeof err) == 1, "%s", err);
	CHECK(strstr(ds.sources[0].warning, "JOIN event in a version 5 log"),
	      "version 5: warning '%s'", ds.sources[0].warning);
	sbt_ds_free(&ds);
	lb_free(&b);
	return h_done();
}
