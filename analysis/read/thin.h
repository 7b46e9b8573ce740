/*
 * thin.h - hold at most a budget of samples: regions beyond their share
 * keep a random subset, and counts stay exact.
 *
 * The analyzer keeps every sample in memory (about 150 bytes each, all
 * passes included).  To stay within a memory budget for any log, each
 * region keeps its samples with one probability p_r, chosen by water-
 * filling: regions smaller than the fair share keep all, the large ones
 * share the rest equally.  A sample left out is treated as a call sparse
 * recording did not record: its count goes to the last kept sample of its
 * site on its thread (sample.skipped), so calls and total-time estimates
 * stay exact / unbiased, and a thread's first sample of a site is always
 * kept.  Probes are thinned like samples, without counts.
 *
 * Whether a sample is kept depends only on a hash of what identifies it
 * (its process, thread, region and start time) compared with p_r.  So the
 * same samples are kept whether they come from a log or from a summary of
 * it, and thinning at p then at p' <= p keeps exactly what thinning at p'
 * alone does: summaries can be thinned again when merged.
 */
#ifndef SBT_THIN_H
#define SBT_THIN_H

#include <stddef.h>
#include <stdint.h>

#include "dataset.h"

/* Default budget of sbt-analyze: about 0.6 GB at its peak, and 5 M
 * samples/s on one core for any log (the held samples' analysis is most
 * of the time: about 0.4 us each). */
#define SBT_MAX_SAMPLES_DEFAULT 4000000u

/* A sample's identity, hashed: its source, thread, region and start. */
uint64_t sbt_thin_key(const struct sbt_source *src, uint32_t thread,
		      const struct sbt_region *r, double t_ns);

/* The same in two steps, for a reader that hashes millions of samples
 * of few regions: the (source, region) part once, then per sample.
 * sbt_thin_key_at(sbt_thin_key_base(src, r), thread, t) equals
 * sbt_thin_key(src, thread, r, t). */
uint64_t sbt_thin_key_base(const struct sbt_source *src,
			   const char *name, uint32_t api);

static inline uint64_t sbt_thin_mix(uint64_t x)   /* splitmix64's finalizer */
{
	x ^= x >> 30, x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27, x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static inline uint64_t sbt_thin_key_at(uint64_t base, uint32_t thread,
				       double t_ns)
{
	uint64_t t;

	__builtin_memcpy(&t, &t_ns, sizeof t);
	return sbt_thin_mix(sbt_thin_mix(base ^ thread) ^ t);
}

/* Keep the sample whose key is `key` at probability p? */
static inline int sbt_thin_keep(uint64_t key, double p)
{
	return p >= 1 || (double)(key >> 11) * 0x1p-53 < p;
}

/* The integer form of sbt_thin_keep's test at share p: keep(key, p) is
 * (key >> 11) < sbt_thin_bound(p), since (key >> 11) * 2^-53 is exact
 * and an integer is below p * 2^53 exactly when it is below its ceiling.
 * A reader that tests millions of keys at one share saves the
 * conversions on each. */
static inline uint64_t sbt_thin_bound(double p)
{
	if (p >= 1)
		return (uint64_t)1 << 53;
	if (!(p > 0))           /* 0, negative or NaN: none kept */
		return 0;
	double s = p * 0x1p53;
	uint64_t b = (uint64_t)s;

	return (double)b < s ? b + 1 : b;
}

/* Lower regions' `keep` (1 when new, or a summary's share) from their
 * `total`s so that the kept samples sum to about `budget` (0: no
 * limit).  Returns the number expected to be kept. */
uint64_t sbt_thin_plan(struct sbt_dataset *ds, uint64_t budget);

/* The recorder's own thinning (SBT_MAX_MB, level K at the end): of a
 * sample of src starting at t_ns, recorded at level k, the share to
 * hold, 2^-(K-k), so that every call is held with probability 2^-K
 * over the whole run, like a reservoir.  1 for a log never thinned. */
double sbt_thin_level_share(const struct sbt_source *src, double t_ns);

/* Is a sample of region g of src, on `thread`, starting at t_ns, held?
 * The region's share times the recorder's own (above), against the hash:
 * the one rule a log's reader and a summary's both apply. */
int sbt_thin_held(const struct sbt_source *src, const struct sbt_region *g,
		  uint32_t thread, double t_ns);

/* Fold a left-out sample into `into`, the last kept one of its site on its
 * thread: one more call not recorded, plus its own. */
static inline void sbt_thin_fold(struct sbt_sample *into, uint32_t skipped)
{
	uint64_t v = (uint64_t)into->skipped + 1 + skipped;
	into->skipped = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

#endif
