/*
 * probe.c - the speed probe: its workload, its cadence (SBT_SPEED_US) and
 * the log's record of both.  When a thread runs it is tick.c's.
 *
 * The probe (paper §4's fixed workload, used as a witness): SPEED_OPS
 * (1000) dependent one-cycle integer adds on one register, straight-line code,
 * no memory operand, timed between sbt_read_start and sbt_read_stop.  A
 * slower reading means the core itself ran fewer cycles per tick: a lower
 * clock, the host taking the vCPU, an SMT sibling's contention.  It does
 * not see memory bandwidth (no load is in it), by design: a memory-bound
 * region that shifts while the probe holds is the code's or the memory's,
 * and machine.c's coincidence test still speaks for that.
 */
#include "probe.h"
#include "config.h"
#include "regions.h"
#include "tsc.h"

#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* ~1000 cycles of dependent adds: on a 10 ns clock a 60 ns probe reads
 * +-1 quantum, 7 % apart, and a level of 30 such probes resolves only
 * ~8 %, while a host shifts a guest's speed by 3-5 %; at ~300 ns the
 * same 30 probes resolve ~1 %. */
#define SPEED_OPS     1000u

static struct {
	uint32_t cadence_us;           /* SBT_SPEED_US, 0: no probes    */
} S;

void sbt_speed_setup(void)
{
	S.cadence_us = (uint32_t)sbt_cfg(SBT_CFG_SPEED_US);
}

/* Ticks come every cadence; with probes off, at the default cadence
 * still, for the kernel-event ring. */
uint64_t sbt_speed_period(uint64_t hz)
{
	uint32_t us = S.cadence_us ? S.cadence_us : SBT_SPEED_US_DEFAULT;

	return hz ? hz * us / 1000000u : 0;
}

int sbt_speed_on(void) { return S.cadence_us != 0; }

void sbt_speed_meta(void)
{
	struct sbt_meta_speed m = { .ops = SPEED_OPS,
				    .cadence_us = S.cadence_us };

	if (S.cadence_us)
		sbt_regions_meta(SBT_META_SPEED, &m, sizeof m, NULL, 0);
}

#define SBT_STR_(x) #x
#define SBT_STR(x)  SBT_STR_(x)

/* The workload: one register, SPEED_OPS dependent adds, nothing else. */
static inline __attribute__((always_inline)) uint64_t chain(uint64_t x)
{
#if defined(__x86_64__)
	__asm__ __volatile__(".rept " SBT_STR(SPEED_OPS) "\n\t"
			     "addq $1, %0\n\t.endr" : "+r"(x));
#elif defined(__aarch64__)
	__asm__ __volatile__(".rept " SBT_STR(SPEED_OPS) "\n\t"
			     "add %0, %0, #1\n\t.endr" : "+r"(x));
#else
	for (unsigned i = 0; i < SPEED_OPS; i++)
		__asm__ __volatile__("" : "+r"(x));
#endif
	return x;
}

uint64_t sbt_speed_probe(uint64_t *t0, uint32_t *aux)
{
	uint32_t aux1;
	uint64_t a = sbt_read_start(aux);
	uint64_t x = chain(a);
	uint64_t b = sbt_read_stop(&aux1);

	__asm__ __volatile__("" :: "r"(x));
	*t0 = a;
	return b - a;
}

/* ---- the memory-latency probe (struct sbt_meta_memlat) ------------------ */

/* Short, so that a probe stays cheap: on a KVM guest (nested page walks)
 * a load that left the caches took ~280 ns; 4 loads took 1.4 us a probe
 * (median), 8 took 2.4 us, with the same relative spread (~+-25 %: most
 * of it is each probe's, not each load's), so 4 resolve as well at 60 %
 * of the cost.  A level is 30 probes or more, as the speed probe's. */
#define MEM_LOADS     4u
#define MEM_L2_TIMES  2u               /* the buffer, in L2 sizes       */
#define MEM_L2_GUESS  (1ul << 20)      /* L2 when neither source says    */
#define MEM_MAX       (64ul << 20)

static struct {
	pthread_once_t once;
	void **buf;                    /* one cycle of line-sized nodes   */
	size_t bytes, lines;
} M = { .once = PTHREAD_ONCE_INIT };

/* The calling thread's place in the cycle and its run not yet written. */
static __thread struct {
	void **at;
	uint32_t n;
	uint32_t skip;                 /* speed probes since its last one */
	struct sbt_memlat p[SBT_MEMLAT_RUN];
} R __attribute__((tls_model("initial-exec")));

/* A small text file's first bytes, NUL-ended; their count, <= 0: none. */
static ssize_t read_small(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -1;
	r = read(fd, buf, n - 1);
	close(fd);
	buf[r > 0 ? r : 0] = 0;
	return r;
}

/* The L2's size in bytes from sysfs (the first cache of level 2 cpu 0
 * has), 0 when it says nothing. */
static size_t l2_sysfs(void)
{
	char path[80], buf[32];

	for (int i = 0; i < 8; i++) {
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/"
			 "cache/index%d/level", i);
		if (read_small(path, buf, sizeof buf) <= 0 ||
		    atoi(buf) != 2)
			continue;
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/"
			 "cache/index%d/size", i);
		if (read_small(path, buf, sizeof buf) <= 0)
			return 0;
		char *end;
		unsigned long v = strtoul(buf, &end, 10);
		return *end == 'K' ? v << 10 : *end == 'M' ? v << 20 : v;
	}
	return 0;
}

static size_t l2_size(void)
{
	long v = sysconf(_SC_LEVEL2_CACHE_SIZE);
	size_t s = v > 0 ? (size_t)v : l2_sysfs();

	return s ? s : MEM_L2_GUESS;
}

/* The buffer and its cycle: Sattolo's shuffle of the lines makes one
 * cycle through all of them, in an order no prefetcher follows. */
static void mem_build(void)
{
	size_t bytes = MEM_L2_TIMES * l2_size();
	uint64_t x = 0x9e3779b97f4a7c15ull;

	if (bytes > MEM_MAX)
		bytes = MEM_MAX;
	size_t lines = bytes / 64, *ord;
	void *b = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b == MAP_FAILED || lines < 2)
		return;
	ord = mmap(NULL, lines * sizeof *ord, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ord == MAP_FAILED) {
		munmap(b, bytes);
		return;
	}
	for (size_t i = 0; i < lines; i++)
		ord[i] = i;
	for (size_t i = lines - 1; i > 0; i--) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t j = (size_t)(x % i), k = ord[i];
		ord[i] = ord[j], ord[j] = k;
	}
	for (size_t i = 0; i < lines; i++)
		*(void **)((char *)b + ord[i] * 64) =
			(char *)b + ord[(i + 1) % lines] * 64;
	munmap(ord, lines * sizeof *ord);
	/* Just written, the lines are in the caches: the first probes
	 * would read a level far below the run's (seen: -44 % for the
	 * first 40).  Out to memory, where later probes find them. */
#if defined(__x86_64__)
	for (size_t i = 0; i < lines; i++)
		__asm__ __volatile__("clflush %0" ::
				     "m"(*((char *)b + i * 64)));
	__asm__ __volatile__("mfence" ::: "memory");
#endif
	M.bytes = bytes, M.lines = lines;
	__atomic_store_n(&M.buf, (void **)b, __ATOMIC_RELEASE);
}

void sbt_memlat_setup(void)
{
	if (S.cadence_us)
		pthread_once(&M.once, mem_build);
}

/* Write the calling thread's run into the log. */
void sbt_memlat_flush(uint32_t thread)
{
	struct sbt_meta_memlat m = { .thread = thread, .n = R.n,
				     .loads = MEM_LOADS, .bytes = M.bytes };

	if (R.n)
		sbt_regions_meta(SBT_META_MEMLAT, &m, sizeof m, R.p,
				 R.n * (uint32_t)sizeof R.p[0]);
	R.n = 0;
}

void sbt_memlat_probe(uint32_t thread)
{
	uint32_t aux, aux1;

	/* One every SBT_MEMLAT_EVERY speed probes: a chase reaches memory
	 * at each load (~1.4 us a probe on a KVM guest, its page walks
	 * included), fourteen times a speed probe's cost. */
	if (R.skip++ % SBT_MEMLAT_EVERY)
		return;
	pthread_once(&M.once, mem_build);
	if (!M.buf)
		return;
	if (!R.at)        /* threads start apart in the cycle */
		R.at = (void **)((char *)M.buf + (thread * 4099ul % M.lines) *
				 64);
	void **p = R.at;
	uint64_t a = sbt_read_start(&aux);
	for (unsigned i = 0; i < MEM_LOADS; i++) {
		p = (void **)*p;
		__asm__ __volatile__("" : "+r"(p));
	}
	uint64_t b = sbt_read_stop(&aux1);
	R.at = p;
	R.p[R.n++] = (struct sbt_memlat){ a, (uint32_t)(b - a < UINT32_MAX ?
					  b - a : UINT32_MAX), aux };
	if (R.n == SBT_MEMLAT_RUN)
		sbt_memlat_flush(thread);
}
