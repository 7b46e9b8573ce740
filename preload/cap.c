/*
 * cap.c - SBT_MAX_MB: the thinning level and when it rises.
 *
 * Why the steps are (k+1)/(k+2) of the cap.  At level k a region records
 * one call in N * 2^k, so a byte of log covers 2^k times the calls it did
 * at level 0.  If level k may use B_k bytes, it covers c * B_k * 2^k
 * calls, and the analyzer, equalizing to the final level K, holds about
 * c * B_K + c * B_(K-1) / 2 + ... samples: what the last levels wrote.
 * Halving the room left at each step (B_k = cap / 2^(k+1)) gives every
 * level the same number of calls, so K grows linearly with the run and
 * the samples held shrink like 2^-K: nothing is left of a long run.  With
 * B_k = cap / ((k+1)(k+2)), whose sum is the cap, K grows like log2 of
 * the run and the samples held like cap / K^2: a reservoir whose size
 * shrinks slowly instead of one that empties.
 *
 * The level only rises, by compare-and-swap, so each level is announced
 * once (one THIN entry) whichever thread crosses its step.
 */
#include "config.h"
#include "cap.h"
#include "regions.h"
#include "sbtmark.h"

#include <stdatomic.h>
#include <stdlib.h>

#define CHUNK_SHARE 256                 /* a chunk <= 1/256 of the cap  */

static struct {
	uint64_t bytes;                 /* the cap, 0: none; set once   */
	uint32_t mb;
	_Atomic uint32_t level;
	struct sbt_file_header *_Atomic hdr;
} cap;

uint64_t sbt_cap_setup(void)
{
	/* 0: no cap (the default, and what a bad value gets) */
	long v = sbt_cfg(SBT_CFG_MAX_MB);

	cap.mb = (uint32_t)v;
	cap.bytes = (uint64_t)v << 20;
	return cap.bytes;
}

int sbt_cap_on(void) { return cap.bytes != 0; }

uint32_t sbt_cap_level(void)
{
	return atomic_load_explicit(&cap.level, memory_order_relaxed);
}

void sbt_cap_attach(struct sbt_file_header *h)
{
	atomic_store(&cap.level, 0);
	if (h) {
		h->max_mb = cap.mb;
		h->thin_level = 0;
	}
	atomic_store(&cap.hdr, h);
}

/* The header's live level: the highest announced (threads may announce
 * in either order). */
static void header_level(struct sbt_file_header *h, uint32_t k)
{
	_Atomic uint32_t *p = (_Atomic uint32_t *)&h->thin_level;
	uint32_t was = atomic_load(p);

	while (was < k && !atomic_compare_exchange_weak(p, &was, k))
		;
}

void sbt_cap_used(uint64_t used)
{
	struct sbt_file_header *h = atomic_load(&cap.hdr);
	uint32_t k;
	int cpu;

	if (!cap.bytes || !h)
		return;
	k = atomic_load(&cap.level);
	/* level k ends at (k+1)/(k+2) of the cap */
	while (k < SBT_THIN_MAX && used * (k + 2) >= cap.bytes * (k + 1)) {
		if (!atomic_compare_exchange_weak(&cap.level, &k, k + 1))
			continue;       /* k is the level now: test again */
		struct sbt_meta_thin m = { sbt_clock_stop(&cpu), ++k, 0 };
		sbt_regions_meta(SBT_META_THIN, &m, sizeof m, NULL, 0);
		header_level(h, k);
	}
}

size_t sbt_cap_chunk_max(size_t max)
{
	size_t most = (size_t)(cap.bytes / CHUNK_SHARE) & ~(size_t)4095;

	if (!cap.bytes)
		return max;
	if (most < 4096)
		most = 4096;
	return most < max ? most : max;
}
