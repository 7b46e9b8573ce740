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
#include "tsc.h"
#include "sbtmark_hot.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

#define CHUNK_SHARE 256                 /* a chunk <= 1/256 of the cap  */

static struct {
	uint64_t bytes;                 /* the cap, 0: none; set once   */
	uint32_t mb;
	_Atomic uint32_t level;
	struct sbt_file_header *_Atomic hdr;
} cap;

/* Call-site ways given a START word at level 0: turned to their SKIP
 * words when it ends.  Under `lock`, which also orders a way's filling
 * against the turning (see sbt_cap_site). */
struct cap_way {
	struct sbt_csite *cs;
	const char *tag;
	uint32_t word;
	int w;
};

static struct {
	pthread_mutex_t lock;
	struct cap_way *v;
	size_t n, room;
} sites = { PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0 };

uint64_t sbt_cap_setup(void)
{
	/* 0: no cap (the default, and what a bad value gets) */
	long v = sbt_cfg(SBT_CFG_MAX_MB);

	cap.mb = (uint32_t)v;
	cap.bytes = (uint64_t)v << 20;
	return cap.bytes;
}

int sbt_cap_on(void) { return cap.bytes != 0; }

int sbt_cap_thinning(void)
{
	return atomic_load_explicit(&cap.level, memory_order_relaxed) > 0;
}

static uint32_t skip_word(uint32_t word)
{
	return SBT_EV_WORD(SBT_EV_SKIP, 0, SBT_EV_ID(word));
}

/* The level is read under the lock: a way filled with a START word is
 * either remembered before the turning takes the lock, or filled after
 * the level rose, with its SKIP word. */
void sbt_cap_site(struct sbt_csite *cs, int w, const char *tag,
		  uint32_t word, sbt_id region)
{
	pthread_mutex_lock(&sites.lock);
	if (sbt_cap_thinning()) {
		word = skip_word(word);
	} else {
		if (sites.n == sites.room) {
			size_t room = sites.room ? 2 * sites.room : 64;
			struct cap_way *v = realloc(sites.v, room * sizeof *v);
			if (v)
				sites.v = v, sites.room = room;
		}
		/* out of memory: the way is sampled from the start */
		if (sites.n < sites.room)
			sites.v[sites.n++] = (struct cap_way){ cs, tag, word, w };
		else
			word = skip_word(word);
	}
	cs->way[w].word = word;
	cs->way[w].region = region;
	__atomic_store_n(&cs->way[w].tag, tag, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&sites.lock);
}

/* Turn one remembered way to its SKIP word: the START and SKIP words of a
 * site differ in their top byte only, so one byte is stored, and an
 * inline marker reads the one word or the other.  The slot's object may
 * be unloaded since: the kernel copies, so that a slot gone is an error,
 * not a fault; what it holds must still be what was written. */
static void turn(const struct cap_way *v)
{
	struct sbt_csite *cs = v->cs;
	uint32_t word[2];       /* (the way's word and region, after tag) */
	const char *tag;
	uint8_t top = (uint8_t)(skip_word(v->word) >> 24);
	char *at = (char *)&cs->way[v->w].word +
		   (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? 3 : 0);
	struct iovec l[2] = { { &tag, sizeof tag }, { word, sizeof word } };
	struct iovec r[1] = { { &cs->way[v->w], sizeof tag + sizeof word } };
	struct iovec lb = { &top, 1 }, rb = { at, 1 };
	pid_t pid = getpid();

	if (process_vm_readv(pid, l, 2, r, 1, 0) < 0) {
		if (errno != ENOSYS && errno != EPERM)
			return;         /* gone */
		/* no such system call here: the object is assumed loaded */
		__atomic_store_n(&cs->way[v->w].word, skip_word(v->word),
				 __ATOMIC_RELAXED);
		return;
	}
	if (tag == v->tag && word[0] == v->word)
		(void)process_vm_writev(pid, &lb, 1, &rb, 1, 0);
}

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

int sbt_cap_used(uint64_t used)
{
	struct sbt_file_header *h = atomic_load(&cap.hdr);
	uint32_t k;
	int cpu, ended = 0;

	if (!cap.bytes || !h)
		return 0;
	k = atomic_load(&cap.level);
	/* level k ends at (k+1)/(k+2) of the cap */
	while (k < SBT_THIN_MAX && used * (k + 2) >= cap.bytes * (k + 1)) {
		if (!atomic_compare_exchange_weak(&cap.level, &k, k + 1))
			continue;       /* k is the level now: test again */
		struct sbt_meta_thin m = { sbt_clock_stop(&cpu), ++k, 0 };
		sbt_regions_meta(SBT_META_THIN, &m, sizeof m, NULL, 0);
		header_level(h, k);
		ended |= k == 1;
	}
	if (ended) {
		pthread_mutex_lock(&sites.lock);
		for (size_t i = 0; i < sites.n; i++)
			turn(&sites.v[i]);
		sites.n = 0;
		pthread_mutex_unlock(&sites.lock);
	}
	return ended;
}

void sbt_cap_fork_lock(void) { pthread_mutex_lock(&sites.lock); }

void sbt_cap_fork_unlock(void) { pthread_mutex_unlock(&sites.lock); }

size_t sbt_cap_chunk_max(size_t max)
{
	size_t most = (size_t)(cap.bytes / CHUNK_SHARE) & ~(size_t)4095;

	if (!cap.bytes)
		return max;
	if (most < 4096)
		most = 4096;
	return most < max ? most : max;
}
