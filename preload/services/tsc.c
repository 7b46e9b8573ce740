/*
 * tsc.c - which clock read and which cpu source each thread gets.
 *
 * TSC_AUX is only as true as the kernel keeps it: a guest whose kernel
 * believes RDTSCP absent never writes it, and rdtscp then returns the
 * host's value (its cpu, which changes as the host moves the vCPU).  So
 * each thread compares it once with the kernel's getcpu() (the syscall:
 * the vDSO's may read TSC_AUX itself, through rdpid); where they disagree
 * its cpus come from the rseq area glibc registers (cpu_id, kept by the
 * kernel at every return to user space), or are unknown without one.
 *
 * SBT_TEST_CLOCK forces the other paths on machines that do not need
 * them, for tests only: aux-wrong (the check sees a TSC_AUX off by 123),
 * no-rdtscp (CPUID's bit taken as clear), no-rseq (no rseq area).
 */
#if defined(__x86_64__)
#include "tsc.h"
#include "sbtmark_hot.h"
#include "config.h"

#include <cpuid.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#if __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#define HAVE_RSEQ 1
#endif

__thread uint32_t sbt_tsc_way;

/* Set once, by the first caller (a benign race: all compute the same). */
static _Atomic uint32_t forced;        /* FORCE_* bits | FORCE_READ     */
static struct sbt_file_header *_Atomic hdr;
static _Atomic uint32_t seen;          /* enum sbt_cpu_from bits so far */

enum { FORCE_AUX_WRONG = 1, FORCE_NO_RDTSCP = 2, FORCE_NO_RSEQ = 4,
       FORCE_READ = 1u << 31 };

static uint32_t force(void)
{
	uint32_t f = atomic_load(&forced);
	const char *s;

	if (f & FORCE_READ)
		return f;
	f = FORCE_READ;
	if ((s = sbt_cfg_text(SBT_CFG_TEST_CLOCK))) {
		f |= strstr(s, "aux-wrong") ? FORCE_AUX_WRONG : 0;
		f |= strstr(s, "no-rdtscp") ? FORCE_NO_RDTSCP : 0;
		f |= strstr(s, "no-rseq") ? FORCE_NO_RSEQ : 0;
	}
	atomic_store(&forced, f);
	return f;
}

/* CPUID leaf 0x80000001, EDX bit 27; asked once (cpuid is a VM exit
 * under a hypervisor: microseconds). */
static int has_rdtscp(void)
{
	static _Atomic int known;      /* 0: not asked, 1: no, 2: yes     */
	unsigned a, b, c, d;
	int k = atomic_load(&known);

	if (!k) {
		k = !(force() & FORCE_NO_RDTSCP) &&
		    __get_cpuid(0x80000001, &a, &b, &c, &d) && (d >> 27 & 1)
		    ? 2 : 1;
		atomic_store(&known, k);
	}
	return k == 2;
}

#ifdef HAVE_RSEQ
static volatile struct rseq *rseq_area(void)
{
	return (volatile struct rseq *)((char *)__builtin_thread_pointer() +
					__rseq_offset);
}
#endif

/* The calling thread has a registered rseq area with a cpu in it. */
static int has_rseq(void)
{
#ifdef HAVE_RSEQ
	if (force() & FORCE_NO_RSEQ)
		return 0;
	return __rseq_size > 0 && (int32_t)rseq_area()->cpu_id >= 0;
#else
	return 0;
#endif
}

uint32_t sbt_tsc_cpu(uint32_t w)
{
#ifdef HAVE_RSEQ
	if ((w & SBT_TSC_CPU) == SBT_TSC_RSEQ) {
		int32_t c = (int32_t)rseq_area()->cpu_id;
		return c >= 0 ? (uint32_t)c : SBT_AUX_UNKNOWN;
	}
#else
	(void)w;
#endif
	return SBT_AUX_UNKNOWN;
}

/* What a thread without a cpu source reads as its cpu word. */
static const uint32_t cpu_unknown = SBT_AUX_UNKNOWN;

void sbt_tsc_hot(struct sbt_hot *h, uint32_t w)
{
	const volatile uint32_t *cpu = &cpu_unknown;

	if ((w & SBT_TSC_CPU) == SBT_TSC_AUX) {
		h->clock = 0;
		return;
	}
#ifdef HAVE_RSEQ
	if ((w & SBT_TSC_CPU) == SBT_TSC_RSEQ)
		cpu = &rseq_area()->cpu_id;
#endif
	h->clock = (uintptr_t)cpu;     /* the way is fenced: sbt_tsc_thread */
}

/* TSC_AUX equals what Linux writes there (node << 12 | cpu) between two
 * getcpu() that agree; a thread moved meanwhile tries again. */
static int aux_true(void)
{
	for (int k = 0; k < 8; k++) {
		unsigned c0, n0, c1, n1;
		uint32_t aux;

		if (syscall(SYS_getcpu, &c0, &n0, NULL) != 0)
			return 0;
		(void)sbt_tscp_stop(&aux);
		if (syscall(SYS_getcpu, &c1, &n1, NULL) != 0)
			return 0;
		if (c0 != c1 || n0 != n1)
			continue;
		if (force() & FORCE_AUX_WRONG)
			aux += 123;
		return aux == (n0 << 12 | c0);
	}
	return 0;
}

static uint32_t from_bit(uint32_t w)
{
	switch (w & SBT_TSC_CPU) {
	case SBT_TSC_AUX:  return SBT_CPU_FROM_AUX;
	case SBT_TSC_RSEQ: return SBT_CPU_FROM_RSEQ;
	default:           return SBT_CPU_FROM_NONE;
	}
}

/* Has a checked thread found TSC_AUX not its cpu?  Such threads read
 * lfence; rdtsc (sbt_tsc_thread), and the header's clock_read says so. */
static int fenced_seen(void)
{
	return (atomic_load(&seen) & ~(uint32_t)SBT_CPU_FROM_AUX) != 0;
}

uint32_t sbt_tsc_unchecked(void)
{
	return SBT_TSC_NOCPU | (has_rdtscp() && !fenced_seen() ?
				0 : SBT_TSC_FENCED);
}

uint32_t sbt_tsc_thread(void)
{
	uint32_t w;
	struct sbt_file_header *h;

	/* Where TSC_AUX is not the cpu, rdtscp's one gain over lfence;
	 * rdtsc is gone: one read for all such threads, and one test in the
	 * inline markers (sbtmark_hot.h's clock). */
	if (has_rdtscp() && aux_true())
		w = SBT_TSC_AUX;
	else
		w = SBT_TSC_FENCED | (has_rseq() ? SBT_TSC_RSEQ : SBT_TSC_NOCPU);
	sbt_tsc_way = w;
	atomic_fetch_or(&seen, from_bit(w));
	if ((h = atomic_load(&hdr))) {
		__atomic_fetch_or(&h->cpu_from, from_bit(w), __ATOMIC_RELAXED);
		if (w & SBT_TSC_FENCED)
			__atomic_store_n(&h->clock_read, SBT_READ_RDTSC,
					 __ATOMIC_RELAXED);
	}
	return w;
}

void sbt_tsc_header(struct sbt_file_header *h)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	if (!h) {                      /* fork child: the log is gone       */
		atomic_store(&hdr, NULL);
		return;
	}
	h->clock_read = has_rdtscp() && !fenced_seen()
		? SBT_READ_RDTSCP : SBT_READ_RDTSC;
	h->ncpus = n > 0 ? (uint32_t)n : 0;
	h->cpu_from = atomic_load(&seen);
	atomic_store(&hdr, h);
	/* a thread checked between the loads and the store */
	__atomic_fetch_or(&h->cpu_from, atomic_load(&seen), __ATOMIC_RELAXED);
	if (fenced_seen())
		__atomic_store_n(&h->clock_read, SBT_READ_RDTSC,
				 __ATOMIC_RELAXED);
}
#else
/* Armv8: cntvct_el0 has no cpu beside it; nothing to choose. */
typedef int sbt_tsc_none;
#endif
