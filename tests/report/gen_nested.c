/*
 * gen_nested.c - a synthetic log (tests/common/logbuild.h) with nested
 * regions, several threads, one slower thread and lost OS events, for the
 * totals and HTML tests (totals_test.py, html_test.py).
 *
 * Clock 1 GHz (1 tick = 1 ns), quantum 10 ns, t_e,std 20 ns.  Each of
 * THREADS threads runs N iterations of
 *   outer (1000 ns of work, 1000 + 10 (i % 3 - 1) on thread 0)
 *     containing inner (400 ns of work, 400 + 10 ((i / 3) % 3 - 1))
 * every window including t_e,std (20 ns), so the analyzed times are
 * exactly those; thread THREADS-1 is SLOW % slower in both.  Thread 0's
 * OS record holds one page fault and a LOST run of 2738 events.
 *
 * usage: gen_nested FILE THREADS N SLOW_PERCENT [OUTER_NS [LABELS]]
 *   OUTER_NS: outer's work instead of 1000 ns (inner's: 0.4 of it)
 *   LABELS: "omp": each thread's META THREAD gives OpenMP number
 *           THREADS-1-index; "name": the name "solver-<A+index>";
 *           "none" (default): no META THREAD, as older logs;
 *           "machine": no META THREAD, and both regions of every thread
 *           run 30 % slower in the middle third of the run (the
 *           machine's shift: one event shared by both regions);
 *           "detour": as "none", and every 7th outer call of each
 *           thread holds a recorder detour of 600 ns before inner
 *           starts (a SPEED span event, taken out of outer's time):
 *           inner then ends past outer's end less the detour
 */
#include "../common/logbuild.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK (64u * 1024)

int main(int argc, char **argv)
{
	if (argc < 5 || argc > 7) {
		fprintf(stderr, "usage: gen_nested FILE THREADS N SLOW%% "
			"[OUTER_NS [omp|name|none|machine]]\n");
		return 2;
	}
	double base = argc >= 6 ? atof(argv[5]) : 1000;
	const char *labels = argc == 7 ? argv[6] : "none";
	uint32_t nth = (uint32_t)atoi(argv[2]);
	long n = atol(argv[3]);
	double slow = atof(argv[4]) / 100;

	/* 4 events an iteration; a chunk holds 4092 */
	size_t nev = (size_t)nth * (size_t)n * 5;
	struct lb b;
	lb_begin(&b, SBT_HEADER_SIZE + (nev / 4000 + nth + 4) * (size_t)CHUNK,
		 CHUNK);
	struct sbt_file_header *h = lb_hdr(&b);
	h->flags = SBT_HF_CLOSED | SBT_HF_CPU_AUX;
	h->tick_quantum = 10;
	strcpy(h->tick_source, "perf");
	strcpy(h->cycles_note, "no PMU");
	h->te_min_ticks = 20;
	h->te_p50_ticks = 20;
	h->te_p999_ticks = 30;
	h->te_samples = 1000;
	h->kernel_entry_ns = 100;
	h->pid = 4242;
	h->ppid = 1;
	h->start_unix_ns = 1700000000000000000ull;
	strcpy(h->host, "synth");
	strcpy(h->cpu_model, "synthetic");
	strcpy(h->exe, "/nonexistent/nested");
	h->counters[SBT_CNT_THREADS] = nth;
	h->os_events = SBT_OS_ON;
	h->os_pages = 16;

	struct sbt_chunk *m = lb_chunk(&b, SBT_CHUNK_META, 0);
	lb_module(m, 0x400000, 0x400000, 0x500000, "/nonexistent/nested");
	const char *names[] = { "outer", "inner" };
	for (uint32_t r = 1; r <= 2; r++) {
		uint64_t site = 0x401000 + r * 0x10;
		lb_region(m, r, SBT_API_SBTMARK, site, names[r - 1]);
		lb_site(m, r, r, &site, 1);
	}
	int machine = !strcmp(labels, "machine");
	int detour = !strcmp(labels, "detour");
	for (uint32_t th = 0; th < nth && strcmp(labels, "none") && !machine &&
	     !detour;
	     th++) {
		struct sbt_meta_thread mt = {
			.thread = th, .tid = 1000 + (int32_t)th, .omp_thread = -1,
			.t = 1000 };
		char name[16];
		if (!strcmp(labels, "omp"))
			mt.omp_thread = (int32_t)(nth - 1 - th), mt.omp_level = 1;
		snprintf(name, sizeof name, "solver-%c", 'A' + (int)(th % 26));
		lb_meta(m, SBT_META_THREAD, &mt, sizeof mt, name,
			(uint32_t)strlen(name));
	}
	uint64_t end = 0;
	for (uint32_t th = 0; th < nth; th++) {
		double f0 = th == nth - 1 && nth > 1 ? 1 + slow : 1;
		uint64_t t = 2000 + 5000 * th;
		uint64_t step = (uint64_t)(3 * base * (1 + slow) *
					   (machine ? 1.3 : 1));
		for (long i = 0; i < n; i++, t += step) {
			double f = f0 * (machine && 3 * i >= n &&
					 3 * i < 2 * n ? 1.3 : 1);
			uint64_t in = (uint64_t)(0.4 * base * f + 0.5) + 10 *
				      (uint64_t)((i / 3) % 3) - 10 + 20;
			uint64_t out = (uint64_t)(base * f + 0.5) + 10 *
				       (uint64_t)(i % 3) - 10 + 20;
			uint64_t d = detour && i % 7 == 3 ? 600 : 0;
			lb_event(&b, th, SBT_EV_START, 0, 1, t, th);
			if (d)
				lb_event(&b, th, SBT_EV_SPEED, SBT_SPEED_SPAN,
					 (uint32_t)d, t + 50, th);
			lb_event(&b, th, SBT_EV_START, 0, 2, t + 100 + d, th);
			lb_event(&b, th, SBT_EV_STOP, 0, 2, t + 100 + d + in,
				 th);
			lb_event(&b, th, SBT_EV_STOP, 0, 1, t + out + d, th);
		}
		if (t > end)
			end = t;
	}
	/* thread 0's OS record: a fault, then a ring overflow */
	struct {
		struct sbt_meta_os m;
		struct sbt_os_event e[2];
	} os = { { .thread = 0, .tid = 1000, .seq = 0, .n = 2, .until = end },
		 { { 2500, SBT_OS_FAULT, 0, 1 }, { 2600, SBT_OS_LOST, 0, 2738 } } };
	lb_meta(lb_chunk(&b, SBT_CHUNK_META, 0), SBT_META_OS, &os, sizeof os,
		NULL, 0);
	if (lb_save(&b, argv[1]) != 0) {
		perror(argv[1]);
		return 1;
	}
	lb_free(&b);
	return 0;
}
