/*
 * bench_interpose.c - cost to the app of an empty region through each
 * interposed API, next to our own markers and the bare serialized pair,
 * in one run on one cpu (rounds interleaved, medians reported).  Run
 * under the preload (meson benchmark 'interpose-overhead', or sbt-run);
 * with INTEL_LIBITTNOTIFY64 and NVTX_INJECTION64_PATH set to
 * libsbtmark.so for the ITT and NVTX rows.
 *
 *   bench_interpose [pairs-per-round [rounds [cpu]]]
 *
 * Rows: the bare pair; sbtmark's inline markers (SBT_MARKER_START/STOP,
 * the reference: "vs own"); its function entry points (what the
 * interposed APIs are built like); then LIKWID (C, Fortran), PAPI-HL,
 * ITT, NVTX, Caliper (its region macros' and its attribute API's entry
 * points, through the stand-in libcaliper the tests link) and a Kokkos
 * kernel (the tool interface's begin/end, as Kokkos calls them).  Every
 * row is a pair inside a function called through a pointer, as the table
 * below calls them.  The "shape" rows are the bare pair split into two
 * stub functions called the way the APIs call: directly (LIKWID C's shape
 * without its PLT), ITT's (a flags test, two 24-byte ids by value, a
 * function pointer), NVTX's (through an instance's table): what an API's
 * calling convention costs before any recording.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sbtmark.h>
#include <likwid.h>
#include <papi.h>
#include "cali_standin.h"
#include "itt_static.h"
#include "nvtx_instance.h"

void likwid_markerstartregion_(const char *tag, int len);
void likwid_markerstopregion_(const char *tag, int len);

/* Kokkos Tools' entry points: only the preload defines them. */
void kokkosp_begin_parallel_for(const char *name, uint32_t dev,
				uint64_t *kid) __attribute__((weak));
void kokkosp_end_parallel_for(uint64_t kid) __attribute__((weak));

static itt_domain *dom;
static cali_id_t cattr;
static itt_string_handle *task;
static const struct nvtx_api *nv;

static void bare(void)
{
	uint32_t aux;
	(void)sbt_read_start(&aux);
	(void)sbt_read_stop(&aux);
}
static void inl(void)   { SBT_MARKER_START("b_in"); SBT_MARKER_STOP("b_in"); }
static void own(void)   { sbt_marker_start("b_own"); sbt_marker_stop("b_own"); }
static void lkc(void)   { likwid_markerStartRegion("b_lk");
			  likwid_markerStopRegion("b_lk"); }
static void lkf(void)   { likwid_markerstartregion_("b_lkf   ", 8);
			  likwid_markerstopregion_("b_lkf   ", 8); }
static void papi(void)  { PAPI_hl_region_begin("b_papi");
			  PAPI_hl_region_end("b_papi"); }
static void itt(void)   { itt_task_begin(dom, itt_null, itt_null, task);
			  itt_task_end(dom); }
static void nvtx(void)  { nv->push_a("b_nvtx"); nv->pop(); }
static void calir(void) { CALI_MARK_BEGIN("b_cali"); CALI_MARK_END("b_cali"); }
static void calia(void) { cali_begin(cattr); cali_end(cattr); }
static void kokkos(void)
{
	uint64_t kid;
	kokkosp_begin_parallel_for("b_kokkos", 0, &kid);
	kokkosp_end_parallel_for(kid);
}

/* The shape rows' stubs: one clock read each, never inlined. */
static __attribute__((noinline)) int stub_start(const char *tag)
{
	uint32_t aux;
	(void)tag;
	(void)sbt_read_start(&aux);
	return 0;
}
static __attribute__((noinline)) int stub_stop(const char *tag)
{
	uint32_t aux;
	(void)tag;
	(void)sbt_read_stop(&aux);
	return 0;
}
static __attribute__((noinline)) void stub_ibegin(const itt_domain *d,
	itt_id id, itt_id parent, itt_string_handle *h)
{
	(void)d, (void)id, (void)parent, (void)h;
	(void)stub_start(NULL);
}
static __attribute__((noinline)) void stub_iend(const itt_domain *d)
{
	(void)d;
	(void)stub_stop(NULL);
}
static __attribute__((noinline)) int stub_pop(void) { return stub_stop(NULL); }

static void (*volatile s_ibegin)(const itt_domain *, itt_id, itt_id,
				 itt_string_handle *) = stub_ibegin;
static void (*volatile s_iend)(const itt_domain *) = stub_iend;
static struct { int (*push_a)(const char *); int (*pop)(void); }
	s_nvtx = { stub_start, stub_pop }, *volatile s_nv = &s_nvtx;

static void shape_call(void) { stub_start("s"); stub_stop("s"); }
static void shape_itt(void)
{
	void (*b)(const itt_domain *, itt_id, itt_id, itt_string_handle *);
	void (*e)(const itt_domain *);

	if (dom && dom->flags && (b = s_ibegin))
		b(dom, itt_null, itt_null, task);
	if (dom && dom->flags && (e = s_iend))
		e(dom);
}
static void shape_nvtx(void) { s_nv->push_a("s"); s_nv->pop(); }

static const struct { const char *name; void (*fn)(void); } rows[] = {
	{ "bare pair", bare }, { "sbtmark inline", inl },
	{ "sbtmark call", own }, { "likwid C", lkc }, { "likwid Fortran", lkf },
	{ "papi-hl", papi }, { "itt task", itt }, { "nvtx push/pop", nvtx },
	{ "caliper region", calir }, { "caliper attr", calia },
	{ "kokkos kernel", kokkos },
	{ "shape: call", shape_call }, { "shape: itt", shape_itt },
	{ "shape: nvtx", shape_nvtx },
};
#define NROWS (sizeof rows / sizeof rows[0])

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int pairs = argc > 1 ? atoi(argv[1]) : 20000;
	int rounds = argc > 2 ? atoi(argv[2]) : 15;
	int cpu = argc > 3 ? atoi(argv[3]) : -1;
	double *t = calloc((size_t)rounds * NROWS, sizeof *t);

	if (cpu >= 0) {
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof one, &one) != 0)
			fprintf(stderr, "bench_interpose: cannot pin to %d\n",
				cpu);
	}
	if (!sbt_marker_start || !kokkosp_begin_parallel_for || !t) {
		fprintf(stderr, "bench_interpose: run under the preload\n");
		return 1;
	}
	dom = itt_domain_create("bench");
	task = itt_string_handle_create("b_itt");
	nv = nvtx_lib_a();
	cattr = cali_create_attribute("b_cattr", CALI_TYPE_BOOL,
				      CALI_ATTR_DEFAULT);
	for (size_t r = 0; r < NROWS; r++)
		rows[r].fn();                    /* warm up: intern, caches */
	for (int k = 0; k < rounds; k++)
		for (size_t r = 0; r < NROWS; r++) {
			double t0 = now();
			for (int i = 0; i < pairs; i++)
				rows[r].fn();
			t[r * rounds + k] = (now() - t0) / pairs;
		}
	printf("%-16s %12s %10s %10s %10s\n", "api", "ns/pair p50",
	       "vs bare", "vs inline", "vs call");
	double m[NROWS];
	for (size_t r = 0; r < NROWS; r++) {
		qsort(t + r * rounds, (size_t)rounds, sizeof *t, cmp);
		m[r] = t[r * rounds + rounds / 2];
	}
	for (size_t r = 0; r < NROWS; r++)
		printf("%-16s %12.1f %9.2fx %9.2fx %9.2fx\n", rows[r].name,
		       m[r], m[r] / m[0], m[r] / m[1], m[r] / m[2]);
	free(t);
	return 0;
}
