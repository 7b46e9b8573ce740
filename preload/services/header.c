/*
 * header.c - fill a log's header; calibrate t_e,std.
 */
#include "header.h"
#include "cap.h"
#include "counters.h"
#include "diag.h"
#include "tsc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define CALIB_PAIRS   1000
#define KERNEL_TRIES  200
#define FAULT_PAGES   32               /* fresh pages touched at start  */

void sbt_header_fill(struct sbt_file_header *h,
		     const struct sbt_clockinfo *clk, uint32_t probe_period,
		     int forked)
{
	struct utsname u;
	struct timespec ts;
	int cpu;

	h->version = SBT_LOG_VERSION;
	h->header_size = SBT_HEADER_SIZE;
#if defined(__x86_64__)
	h->arch = SBT_ARCH_X86_64;
	h->flags = SBT_HF_CPU_AUX;
	sbt_tsc_header(h);
#else
	h->arch = SBT_ARCH_AARCH64;
	h->clock_read = SBT_READ_CNTVCT;
#endif
	if (forked)
		h->flags |= SBT_HF_FORKED;
	h->record_size = sizeof(struct sbt_event);
	h->clocks = SBT_CLOCK_WALL | (clk->cycles ? SBT_CLOCK_CYCLES : 0);
	h->tick_hz = clk->tick_hz;
	h->tick_quantum = clk->quantum;
	snprintf(h->tick_source, sizeof h->tick_source, "%s", clk->source);
	snprintf(h->cycles_note, sizeof h->cycles_note, "%s",
		 clk->cycles_note);
	h->pid = getpid();
	h->ppid = getppid();
	sbt_env_rank(&h->rank, &h->nranks);
	clock_gettime(CLOCK_REALTIME, &ts);
	h->start_unix_ns = (uint64_t)ts.tv_sec * 1000000000u +
			   (uint64_t)ts.tv_nsec;
	h->start_ticks = sbt_clock_stop(&cpu);
	h->probe_period = probe_period;
	if (uname(&u) == 0)
		snprintf(h->host, sizeof h->host, "%.63s", u.nodename);
	sbt_cpu_model(h->cpu_model, sizeof h->cpu_model);
	sbt_self_exe(h->exe, sizeof h->exe);
}

void sbt_header_clock_final(struct sbt_file_header *h,
			    const struct sbt_clockinfo *clk)
{
	uint64_t hz = sbt_clock_refined(clk);

	if (hz != h->tick_hz && strcmp(h->tick_source, "calibrated") == 0) {
		h->tick_hz = hz;
		snprintf(h->tick_source, sizeof h->tick_source, "run");
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* What a page fault costs: the first touch of FAULT_PAGES fresh
 * anonymous pages (a minor fault and a zeroed page, as the app's own
 * first touches), each timed alone; their mean without the fastest and
 * slowest eighth (an interrupt in one touch is not the fault's).  Huge
 * pages refused: one fault would stand for 512 pages.  Run as the log
 * opens, before the first window's reads: its faults are no region's.
 * 0 when no memory or no clock rate. */
static uint32_t fault_cost_ns(uint64_t tick_hz)
{
	uint64_t d[FAULT_PAGES];
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = FAULT_PAGES * pg;
	volatile char *m;
	int cpu;

	if (!tick_hz || (long)pg <= 0)
		return 0;
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE |
		 MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 0;
#ifdef MADV_NOHUGEPAGE
	(void)madvise((void *)m, len, MADV_NOHUGEPAGE);
#endif
	for (int i = 0; i < FAULT_PAGES; i++) {
		uint64_t a = sbt_clock_start(&cpu);
		m[(size_t)i * pg] = 1;
		d[i] = sbt_clock_stop(&cpu) - a;
	}
	munmap((void *)m, len);
	qsort(d, FAULT_PAGES, sizeof d[0], cmp_u64);
	uint64_t sum = 0;
	for (int i = FAULT_PAGES / 8; i < FAULT_PAGES - FAULT_PAGES / 8; i++)
		sum += d[i];
	double ns = (double)sum / (FAULT_PAGES - 2 * (FAULT_PAGES / 8)) *
		    1e9 / (double)tick_hz;
	return ns < 1 ? 1 : ns > 4e9 ? 0 : (uint32_t)ns;
}

void sbt_header_calibrate(struct sbt_file_header *h, sbt_pair_fn pair,
			  void *arg)
{
	static uint64_t d[CALIB_PAIRS];
	uint64_t cmin = UINT64_MAX, c;
	int cpu, n = 0;

	while (n < CALIB_PAIRS && pair(arg, &d[n], &c) == 0) {
		if (c && c < cmin)
			cmin = c;
		n++;
	}
	if (n) {
		qsort(d, (size_t)n, sizeof d[0], cmp_u64);
		h->te_min_ticks = d[0];
		h->te_p50_ticks = d[n / 2];
		h->te_p999_ticks = d[(n * 999) / 1000];
		h->te_min_cycles = cmin == UINT64_MAX ? 0 : cmin;
		h->te_samples = (uint32_t)n;
	}
	/* The cheapest way the OS can intrude on a sample is one kernel
	 * entry and exit: the smallest jump that can be OS noise. */
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < KERNEL_TRIES; i++) {
		uint64_t a = sbt_clock_start(&cpu);
		syscall(SYS_getppid);
		uint64_t b = sbt_clock_stop(&cpu);
		if (b - a < best)
			best = b - a;
	}
	if (h->tick_hz)
		h->kernel_entry_ns = (uint32_t)((double)best * 1e9 /
						(double)h->tick_hz);
	h->fault_ns = fault_cost_ns(h->tick_hz);
}
