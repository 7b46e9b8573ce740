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

#include <stddef.h>

/* ~1000 cycles of dependent adds.  Not the ~200 first planned: on a 10 ns
 * clock a 60 ns probe reads +-1 quantum, 7 % apart, and a level of 30
 * such probes resolved only ~8 %, while this VM's host was seen shifting
 * its speed by 3-5 %; at ~300 ns the same 30 probes resolve ~1 %. */
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
