/*
 * readback.c - what a thread's own log says back to the program: its
 * totals of a region since the last RESET (LIKWID's GetRegion, Caliper's
 * and Kokkos' queries) and its last pair (sbt-calibrate).  Read from the
 * thread's events, walking its chunks back: totals cost nothing on the
 * hot path, and these calls are rare.
 */
#include "readback.h"
#include "recorder.h"
#include "counters.h"
#include "thread.h"

#include <string.h>

/* COUNT events a START or STOP of the thread writes. */
static inline uint32_t counting(const struct sbt_thread *t)
{
	return t->ctrs ? sbt_ctrs_nev(t->ctrs) : 0;
}

/* One sample's counts, STOP reading b - START reading a (enabled,
 * running, counters), into sum; those of the multiplexed group (bits of
 * `scaled`) scaled by enabled / running.  A reading with nothing enabled
 * (a failed read) or never running adds nothing. */
static void add_counts(double *sum, const uint64_t *a, const uint64_t *b,
		       uint32_t n, uint32_t scaled)
{
	double on, run;

	if (!a[0] || !b[0] || b[1] <= a[1] || b[0] < a[0])
		return;
	on = (double)(b[0] - a[0]);
	run = (double)(b[1] - a[1]);
	for (uint32_t j = 2; j < n; j++)
		sum[j - 2] += (double)(b[j] - a[j]) *
			      (scaled >> (j - 2) & 1 ? on / run : 1);
}

/* The committed events of chunk c: [first, *end). */
static const struct sbt_event *chunk_events(const struct sbt_thread *t,
					    const struct sbt_chunk *c,
					    const struct sbt_event **end)
{
	const struct sbt_event *first = (const void *)(c + 1);
	const struct sbt_event *last = (const void *)((const char *)c +
						      c->size);
	const struct sbt_event *e = first;

	if (c == t->chunk)
		last = (const void *)t->hot.cur;
	while (e < last && e->word)
		e++;
	*end = e;
	return first;
}

/* Walks the thread's own events back to the region's last RESET: totals
 * cost nothing on the hot path, and GetRegion-style calls are rare.  A
 * region has at most one open instance per thread, so walking backwards
 * a STOP is always met before the START it closes.  Under sparse
 * recording the count is every call (SKIP events count the others) and
 * the time is the recorded calls' scaled to all.  COUNT events follow
 * their START or STOP (after its CYCLES): walking back, they are met
 * first and held in `pend` until it comes. */
int sbt_rec_totals(sbt_id id, uint64_t *count, double *seconds, double *ev,
		   uint32_t *nev)
{
	struct sbt_thread *t = sbt_me;
	uint64_t n = 0, ticks = 0, t1 = 0, hz = sbt_thread_tick_hz();
	uint64_t skipped = 0, pend[SBT_COUNT_MAX + 2], stopv[SBT_COUNT_MAX + 2];
	uint32_t nc, pmask = 0, smask = 0;
	int have = 0;
	const uint32_t skip = SBT_RF_PROBE | SBT_RF_CALIB;

	if (!t || !id || !hz || sbt_thread_log_state() != 1)
		return SBT_EMISUSE;
	nc = counting(t);
	for (uint32_t j = 0; ev && j + 2 < nc; j++)
		ev[j] = 0;
	for (const struct sbt_chunk *c = t->chunk; c; c = sbt_thread_chunk_at(c->prev)) {
		const struct sbt_event *first, *e;
		first = chunk_events(t, c, &e);
		while (e-- > first) {
			uint32_t w = e->word, k = SBT_EV_KIND(w), held = pmask;
			if (k == SBT_EV_COUNT) {
				uint32_t i = SBT_EV_ID(w), j =
					i == SBT_COUNT_ENABLED ? 0 :
					i == SBT_COUNT_RUNNING ? 1 : i + 2;
				if (j < nc)
					pend[j] = e->t, pmask |= 1u << j;
				continue;
			}
			if (k == SBT_EV_CYCLES)
				continue;
			pmask = 0;
			if (k == SBT_EV_RESET && SBT_EV_ID(w) == id)
				goto done;
			if (k == SBT_EV_SKIP &&
			    sbt_regions_site_region(SBT_EV_ID(w)) == id)
				skipped += e->t;
			if ((k != SBT_EV_START && k != SBT_EV_STOP) ||
			    (SBT_EV_FLAGS(w) & skip) ||
			    sbt_regions_site_region(SBT_EV_ID(w)) != id)
				continue;
			if (k == SBT_EV_STOP) {
				t1 = e->t, have = 1;
				smask = held;
				memcpy(stopv, pend, sizeof stopv);
			} else if (have) {
				n++, ticks += t1 - e->t, have = 0;
				if (ev && nc && held == smask &&
				    held == (1u << nc) - 1)
					add_counts(ev, pend, stopv, nc,
						   sbt_ctrs_scaled(t->ctrs));
			}
		}
	}
done:
	*count = n + skipped;
	*seconds = n ? (double)ticks / (double)hz * (double)(n + skipped) /
		       (double)n : 0;
	if (nev)
		*nev = nc ? nc - 2 : 0;
	return SBT_OK;
}

/* The thread's last pair: its STOP, in the current chunk or the one
 * before (a speed probe after it may have opened a new chunk), and the
 * START it closes, there or in the chunk before (a SKIP event, being
 * single, can leave a pair split across two chunks). */
int sbt_readback_last(const struct sbt_thread *t, uint64_t *ticks,
		     uint64_t *cycles)
{
	const struct sbt_event *first, *end, *e, *s = NULL;
	const struct sbt_chunk *c = t->chunk;
	uint64_t c1 = 0;

	if (!c)
		return SBT_EMISUSE;
	first = chunk_events(t, c, &end);
	for (int hop = 0; !s && hop < 2; hop++) {
		for (e = end; e-- > first && !s; ) {
			uint32_t k = SBT_EV_KIND(e->word);
			if (k == SBT_EV_CYCLES)
				c1 = e->t;
			else if (k == SBT_EV_COUNT || k == SBT_EV_SPEED)
				continue;
			else if (k == SBT_EV_STOP)
				s = e;
			else
				return SBT_EMISUSE;
		}
		if (!s && (!hop && (c = sbt_thread_chunk_at(c->prev))))
			first = chunk_events(t, c, &end);
		else if (!s)
			return SBT_EMISUSE;
	}
	for (int hop = 0; s && hop < 2; hop++) {
		for (e = hop ? end : s; e-- > first; ) {
			if (SBT_EV_KIND(e->word) != SBT_EV_START ||
			    SBT_EV_ID(e->word) != SBT_EV_ID(s->word))
				continue;
			*ticks = s->t - e->t;
			*cycles = c1 && e + 1 < end &&
				  SBT_EV_KIND(e[1].word) == SBT_EV_CYCLES ?
				  c1 - e[1].t : 0;
			return SBT_OK;
		}
		if (!(c = sbt_thread_chunk_at(c->prev)))
			break;
		first = chunk_events(t, c, &end);
	}
	return SBT_EMISUSE;
}

int sbt_rec_last(uint64_t *ticks, uint64_t *cycles)
{
	const struct sbt_thread *t = sbt_me;

	return t ? sbt_readback_last(t, ticks, cycles) : SBT_EMISUSE;
}
