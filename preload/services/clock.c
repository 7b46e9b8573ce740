/*
 * clock.c - wall-clock frequency and resolution, cycle-counter discovery.
 *
 * Frequency, best source first:
 *   x86-64  the kernel's own TSC->ns conversion from a perf_event mmap page
 *           (cap_user_time: time_mult / time_shift are exactly what the
 *           kernel uses), else tsc_freq_khz in sysfs, else a calibration
 *           against CLOCK_MONOTONIC_RAW: a first estimate over ~3 ms at
 *           setup (to about 1e-4: it paces the recorder's own chores), and
 *           the rate over the whole run from that setup's anchor when the
 *           log is finished (sbt_clock_refined: ~1e-6 after 100 ms).  A
 *           KVM guest has neither of the first two, so every process paid
 *           the calibration at its start: 30 ms when it spun 3 x 10 ms.
 *   Armv8   cntfrq_el0, set by firmware for exactly this purpose.
 *
 * The cycle counter needs a PMU and a kernel that lets user space read it
 * (x86: perf mmap page with cap_user_rdpmc; Armv8: the same, which the
 * kernel grants only with perf_user_access=1).  When either is missing we
 * say why and record wall clock only.
 */
#include "clock.h"
#include "tsc.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int perf_open(uint32_t type, uint64_t config, uint64_t config1)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = type;
	a.config = config;
	a.config1 = config1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

#if defined(__x86_64__)
/* Map the event's first page; NULL on failure.  Closes fd either way. */
static struct perf_event_mmap_page *perf_page(int fd)
{
	void *p;
	long pg = sysconf(_SC_PAGESIZE);

	p = mmap(NULL, (size_t)pg, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

static double now_raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static uint64_t hz_from_perf(void)
{
	struct perf_event_mmap_page *pc;
	uint64_t hz = 0;
	int fd = perf_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, 0);

	if (fd < 0 || !(pc = perf_page(fd)))
		return 0;
	/* ns = (ticks * time_mult) >> time_shift, so hz = 1e9 * 2^shift / mult */
	if (pc->cap_user_time && pc->time_mult)
		hz = (uint64_t)(1e9 * (double)(1ull << pc->time_shift) /
				pc->time_mult + 0.5);
	munmap(pc, (size_t)sysconf(_SC_PAGESIZE));
	return hz;
}

static uint64_t hz_from_sysfs(void)
{
	unsigned long khz = 0;
	FILE *f = fopen("/sys/devices/system/cpu/cpu0/tsc_freq_khz", "re");

	if (f) {
		if (fscanf(f, "%lu", &khz) != 1)
			khz = 0;
		fclose(f);
	}
	return (uint64_t)khz * 1000;
}

/* Ticks against CLOCK_MONOTONIC_RAW over ~1 ms, best of three: the
 * shortest bracketing of each endpoint gives the least error.  The first
 * window's start is ci's anchor for sbt_clock_refined. */
static uint64_t hz_calibrate(struct sbt_clockinfo *ci)
{
	double best = 0;
	int cpu;

	for (int k = 0; k < 3; k++) {
		double n0 = now_raw_ns();
		uint64_t t0 = sbt_clock_stop(&cpu);
		double n1, spin = n0 + 1e6;
		uint64_t t1;

		if (k == 0)
			ci->anchor_ticks = t0, ci->anchor_ns = n0;
		while (now_raw_ns() < spin)
			;
		t1 = sbt_clock_stop(&cpu);
		n1 = now_raw_ns();
		double hz = (double)(t1 - t0) * 1e9 / (n1 - n0);
		if (k == 0 || hz > best)
			best = hz;
	}
	return (uint64_t)(best + 0.5);
}
#endif

uint64_t sbt_clock_refined(const struct sbt_clockinfo *ci)
{
#if defined(__x86_64__)
	int cpu;

	if (ci->anchor_ns > 0) {
		double n1 = now_raw_ns();
		uint64_t t1 = sbt_clock_stop(&cpu);
		double span = n1 - ci->anchor_ns;
		if (span >= 100e6 && t1 > ci->anchor_ticks)
			return (uint64_t)((double)(t1 - ci->anchor_ticks) *
					  1e9 / span + 0.5);
	}
#endif
	return ci->tick_hz;
}

/* The clock's step: the largest g that divides (nearly) every difference
 * between two reads.  Not the smallest difference seen: two serialized
 * reads cannot be closer than their own latency (~20 ns), which on a
 * clock that advances in 2-tick steps is ~50 ticks, not the resolution.
 * Reads are spaced by a varying spin so the differences cover many
 * residues.  A clock that steps unevenly (41/42/43 ticks under some
 * hypervisors' TSC scaling) still has a coarse step: for g >= 8 a
 * difference within one tick of a multiple counts.  99 % of the
 * differences must agree, so a rare odd read (an SMI, a migration to a
 * cpu whose TSC is offset) does not decide. */
#define QUANTUM_READS 8192
static uint32_t measure_quantum(void)
{
	static uint64_t d[QUANTUM_READS];
	uint64_t min = UINT64_MAX, prev, cur;
	size_t n = 0;
	int cpu;

	prev = sbt_clock_stop(&cpu);
	for (int i = 0; i < QUANTUM_READS; i++) {
		for (volatile int k = 0; k < i % 13; k++)
			;
		cur = sbt_clock_stop(&cpu);
		if (cur > prev && cur - prev < (1u << 20)) {
			d[n++] = cur - prev;
			if (cur - prev < min)
				min = cur - prev;
		}
		prev = cur;
	}
	if (n < 100)
		return 0;
	for (uint64_t g = min; g >= 2; g--) {
		size_t exact = 0, near = 0;
		for (size_t i = 0; i < n; i++) {
			uint64_t r = d[i] % g;
			exact += r == 0;
			near += r <= 1 || r == g - 1;
		}
		if (exact * 100 >= n * 99 || (g >= 8 && near * 100 >= n * 99))
			return (uint32_t)g;
	}
	return 1;
}

void sbt_clock_setup(struct sbt_clockinfo *ci, int want_cycles,
		     int calibrate)
{
	memset(ci, 0, sizeof *ci);
#if defined(__x86_64__)
	if (!calibrate && (ci->tick_hz = hz_from_perf()))
		strcpy(ci->source, "perf");
	else if (!calibrate && (ci->tick_hz = hz_from_sysfs()))
		strcpy(ci->source, "sysfs");
	else {
		ci->tick_hz = hz_calibrate(ci);
		strcpy(ci->source, "calibrated");
	}
#else
	(void)calibrate;
	ci->tick_hz = sbt_clock_hz();
	strcpy(ci->source, "cntfrq");
#endif
	ci->quantum = measure_quantum();

	if (!want_cycles) {
		strcpy(ci->cycles_note, "disabled by SBT_CYCLES=0");
		return;
	}
	int idx = sbt_cycles_open();
	if (idx >= 0) {
		ci->cycles = 1;
		snprintf(ci->cycles_note, sizeof ci->cycles_note,
			 "user-space counter %d", idx);
	} else if (idx == -2) {
		strcpy(ci->cycles_note,
		       "PMU present but user-space reads not allowed");
	} else {
		snprintf(ci->cycles_note, sizeof ci->cycles_note,
			 "no usable PMU (perf_event_open: %s)",
			 strerror(-idx - 100));
	}
}

/* Returns the rdpmc counter index, -2 when the kernel denies user reads,
 * or -(100 + errno) when no cycle event can be opened. */
int sbt_cycles_open(void)
{
	struct perf_event_mmap_page *pc;
	int fd, idx = -2;
	/* Armv8 needs config1 bit 1 to ask for user access. */
#if defined(__aarch64__)
	fd = perf_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0x3);
#else
	fd = perf_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0);
#endif
	if (fd < 0)
		return -(100 + errno);
	long pg = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, (size_t)pg, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		close(fd);
		return -(100 + errno);
	}
	pc = p;
	/* The fd stays open for the thread's life: the event must stay
	 * scheduled for its counter to count. */
	if (pc->cap_user_rdpmc && pc->index)
		idx = (int)pc->index - 1;
#if defined(__aarch64__)
	/* pmccntr_el0 is the only counter we read directly on Armv8. */
	if (idx != 31)
		idx = -2;
#endif
	if (idx < 0) {
		munmap(p, (size_t)pg);
		close(fd);
	}
	return idx;
}

/* The first "model name" (x86) or "CPU part" (Armv8) line. */
void sbt_cpu_model(char *out, size_t n)
{
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		char *c = strchr(line, ':');
		if (c && (!strncmp(line, "model name", 10) ||
			  !strncmp(line, "CPU part", 8))) {
			c += 1 + (c[1] == ' ');
			c[strcspn(c, "\n")] = 0;
			snprintf(out, n, "%s", c);
			break;
		}
	}
	fclose(f);
}
