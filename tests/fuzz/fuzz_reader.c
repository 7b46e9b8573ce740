/*
 * fuzz_reader.c - libFuzzer target for the log reader (analysis/read/reader.c,
 * segment.c, hold.c, logread.c).
 *
 * sbt_read_log takes a path, so each input is put in a memfd and read
 * back through /proc/self/fd/N: no temporary files, no change to the
 * reader.  Besides "no crash, no hang, no leak, bounded memory" (the
 * sanitizers and libFuzzer's limits), the reader's promises are checked:
 * a return of -1, 0 or 1; a one-line reason when it gives up; never more
 * samples than the input can hold.  And that reading in segments changes
 * nothing: each input is read again with every chunk a segment of its own
 * (the most boundaries a merge can meet; by 2 or 3 threads for 1 input in
 * 8), and, 1 input in 4, counted and read under a small sample budget
 * both ways (thinning's credits and provisional samples across
 * boundaries), and counted as it is read under that budget (live
 * thinning, read/hold.c: compacted between segments) by 1 and by
 * `jobs` threads; any difference aborts.  About 5 times the work of one
 * reading per input.
 *
 * Build (meson does this when clang has libFuzzer):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
 *     -Iformat -Ianalysis/base -Ianalysis/read tests/fuzz/fuzz_reader.c \
 *     analysis/read/{reader,segment,logread,hold,thin,osevents,threads}.c \
 *     analysis/base/{dataset,counters,jobs}.c -lpthread -o fuzz-reader
 */
#include "reader.h"
#include "thin.h"
#include "sbtlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SAME(x, y) (memcmp(&(x), &(y), sizeof(x)) == 0)

/* Two readings of one input equal in everything the reports use. */
static void same(const struct sbt_dataset *a, int ra, const char *ea,
		 const struct sbt_dataset *b, int rb, const char *eb)
{
	if (getenv("DBG")) fprintf(stderr, "ra %d rb %d\n", ra, rb);
	if (ra != rb || strcmp(ea, eb) || a->n != b->n ||
	    a->nregions != b->nregions || a->nprobes != b->nprobes ||
	    a->nsources != b->nsources || a->nsites != b->nsites)
		abort();
	for (size_t i = 0; i < a->n; i++) {
		const struct sbt_sample *x = &a->s[i], *y = &b->s[i];
		if (!SAME(x->ns, y->ns) || !SAME(x->cycles, y->cycles) ||
		    !SAME(x->t_ns, y->t_ns) || x->region != y->region ||
		    x->thread != y->thread || x->cpu_start != y->cpu_start ||
		    x->cpu_stop != y->cpu_stop || x->flags != y->flags ||
		    x->site != y->site || x->skipped != y->skipped ||
		    !SAME(x->detour_ns, y->detour_ns))
			abort();
	}
	for (size_t r = 0; r < a->nregions; r++)
		if (strcmp(a->regions[r].name, b->regions[r].name) ||
		    a->regions[r].total != b->regions[r].total)
			abort();
	for (size_t i = 0; i < a->nprobes; i++)
		if (memcmp(&a->probes[i], &b->probes[i],
			   offsetof(struct sbt_probe, cpu) + 2))
			abort();
	for (size_t i = 0; i < a->nsites; i++)
		if (a->sites[i].count != b->sites[i].count ||
		    a->sites[i].region != b->sites[i].region)
			abort();
	for (size_t i = 0; i < a->nsources; i++)
		if (strcmp(a->sources[i].warning, b->sources[i].warning) ||
		    a->sources[i].nthreads != b->sources[i].nthreads)
			abort();
}

/* ds seeded with plan's regions and shares, as sbt-analyze's workers are. */
static void seed(struct sbt_dataset *ds, const struct sbt_dataset *plan)
{
	for (size_t r = 0; r < plan->nregions; r++) {
		const struct sbt_region *p = &plan->regions[r];
		long i = sbt_ds_region(ds, p->name, strlen(p->name), p->api);
		if (i < 0)
			abort();
		ds->regions[i].keep = p->keep;
		ds->regions[i].total = p->total;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct sbt_dataset ds = { 0 }, d2 = { 0 }, p1 = { 0 }, p2 = { 0 };
	char err[256] = "", e2[256] = "";
	/* the merge does not depend on threads: 1 input in 8 has them
	 * (thread starts cost more than reading a small input); replay.c
	 * asks for every check on every input (SBT_FUZZ_FULL) */
	static int full = -1;
	if (full < 0)
		full = getenv("SBT_FUZZ_FULL") != NULL;
	int rc, jobs = full || size % 8 == 3 ? 2 + (int)(size / 8 & 1) : 1;

	if (fd < 0) {
		fd = memfd_create("sbt-fuzz", MFD_CLOEXEC);
		if (fd < 0)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 ||
	    (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	rc = sbt_read_log(path, &ds, err, sizeof err);
	if (rc < -1 || rc > 1)
		abort();
	if (rc == -1 && (!err[0] || strchr(err, '\n')))
		abort();
	if (rc >= 0 && ds.nsources != 1)
		abort();
	if (ds.n * 2 * sizeof(struct sbt_event) > size)
		abort();
	/* the same in segments of one chunk each, read by `jobs` threads */
	same(&ds, rc, err, &d2, sbt_read_log_jobs(path, &d2, jobs, 1, e2,
						   sizeof e2), e2);
	sbt_ds_free(&d2);
	if (full) {                     /* the same again, one thread */
		memset(&d2, 0, sizeof d2);
		same(&ds, rc, err, &d2, sbt_read_log_jobs(path, &d2, 1, 1, e2,
							   sizeof e2), e2);
		sbt_ds_free(&d2);
	}
	memset(&d2, 0, sizeof d2);
	if (rc < 0 || ds.n < 4 || (size % 4 != 1 && !full)) {  /* 1 in 4 */
		sbt_ds_free(&ds);
		return 0;
	}
	/* counted both ways, then held under a budget of a third */
	if (sbt_count_log_jobs(path, &p1, 1, 0, err, sizeof err) != 0 ||
	    sbt_count_log_jobs(path, &p2, jobs, 1, e2, sizeof e2) != 0)
		abort();
	same(&p1, 0, "", &p2, 0, "");
	uint64_t budget = ds.n / 3;
	sbt_thin_plan(&p1, budget);
	sbt_ds_free(&ds);
	memset(&ds, 0, sizeof ds);
	seed(&ds, &p1);
	seed(&d2, &p1);
	rc = sbt_read_log(path, &ds, err, sizeof err);
	same(&ds, rc, err, &d2, sbt_read_log_jobs(path, &d2, jobs, 1, e2,
						   sizeof e2), e2);
	sbt_ds_free(&d2);
	/* live: the same budget, counted while read (no plan before) */
	for (int j = 1; j <= jobs; j += jobs > 1 ? jobs - 1 : 1) {
		memset(&d2, 0, sizeof d2);
		d2.hold_budget = budget;
		same(&ds, rc, err, &d2, sbt_read_log_jobs(path, &d2, j, 1, e2,
							   sizeof e2), e2);
		for (size_t r = 0; r < ds.nregions; r++)
			if (!SAME(ds.regions[r].keep, d2.regions[r].keep))
				abort();
		sbt_ds_free(&d2);
	}
	sbt_ds_free(&ds);
	sbt_ds_free(&p1);
	sbt_ds_free(&p2);
	return 0;
}
