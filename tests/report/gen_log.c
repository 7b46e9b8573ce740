/*
 * gen_log.c - a small synthetic sbtmark log with known contents, for the
 * golden JSON/CSV test.
 *
 * Clock 1 GHz (1 tick = 1 ns), quantum 10 ns, t_e,std 20 ns.  Two
 * threads; per thread and iteration i (600 on thread 0, 300 on thread 1):
 *   alpha  100 ns, every 4th 300 ns               (site 0x401234 < 0x402000)
 *   beta   500 ns, 600 ns from the middle on      (site 0x401300)
 *   gamma  50 ns                                  (site 0x401400, the
 *                                                  region's first site)
 * plus an in-situ probe of alpha (20 ns) every 16th iteration.  Every
 * duration includes the 20 ns t_e,std.  The module map names a file that
 * does not exist, so call sites come out as module+offset.
 *
 * usage: gen_log FILE
 */
#include "../common/logbuild.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK (64u * 1024)

static struct lb b;

/* A START at `start` and its STOP `ticks` later, cpu = the thread. */
static void put(uint32_t thread, uint64_t start, uint64_t ticks, uint32_t site,
		uint32_t flags)
{
	lb_pair(&b, thread, flags, site, start, start + ticks, thread);
}

static void thread(uint32_t t, int n)
{
	uint64_t now = 1000000;

	for (int i = 0; i < n; i++, now += 10000) {
		if (i % 16 == 0)
			put(t, now, 20, 1, SBT_RF_PROBE);
		put(t, now + 100, i % 4 == 3 ? 320 : 120, 1, 0);
		put(t, now + 1000, i < n / 2 ? 520 : 620, 2, 0);
		put(t, now + 2000, 70, 3, 0);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_log FILE\n");
		return 2;
	}
	lb_begin(&b, 64 * CHUNK, CHUNK);
	struct sbt_file_header *h = lb_hdr(&b);
	h->flags = SBT_HF_CPU_AUX | SBT_HF_CLOSED;
	h->tick_quantum = 10;
	strcpy(h->tick_source, "perf");
	h->te_min_ticks = 20, h->te_p50_ticks = 20, h->te_p999_ticks = 40;
	h->te_samples = 1000;
	h->kernel_entry_ns = 200;
	h->pid = 4242, h->ppid = 1;
	h->start_ticks = 1000000;
	h->probe_period = 16;
	strcpy(h->host, "synthhost");
	strcpy(h->cpu_model, "synthetic cpu");
	strcpy(h->exe, "/nonexistent/synthetic-app");
	h->counters[SBT_CNT_STOP_WITHOUT_START] = 2;
	h->counters[SBT_CNT_THREADS] = 2;

	struct sbt_chunk *c = lb_chunk(&b, SBT_CHUNK_META, 0);
	uint64_t fa[2] = { 0x401234, 0x402000 }, fb[1] = { 0x401300 },
		 fc[1] = { 0x401400 };
	lb_module(c, 0x400000, 0x400000, 0x500000,
		  "/nonexistent/synthetic-app");
	lb_region(c, 1, SBT_API_SBTMARK, fa[0], "alpha");
	lb_region(c, 2, SBT_API_SBTMARK, fb[0], "beta");
	lb_region(c, 3, SBT_API_SBTMARK, fc[0], "gamma");
	lb_site(c, 1, 1, fa, 2);
	lb_site(c, 2, 2, fb, 1);
	lb_site(c, 3, 3, fc, 1);
	thread(0, 600);
	thread(1, 300);
	if (lb_save(&b, argv[1]) != 0) {
		perror(argv[1]);
		return 1;
	}
	lb_free(&b);
	return 0;
}
