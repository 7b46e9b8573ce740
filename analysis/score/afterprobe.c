/*
 * afterprobe.c - flag the calls right after each speed probe.
 *
 * Two passes over the samples, in any order: each sample finds the last
 * probe of its thread that started before it (binary search in the
 * probes, sorted by source, thread, time) and offers its start time to
 * that probe's list of the K earliest; then a sample is flagged when its
 * start is among its probe's K earliest.  Equal start times are all
 * flagged or none, so the result depends on values only.
 */
#include "afterprobe.h"
#include "bigmem.h"
#include "jobs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define K SBT_AFTER_PROBE_CALLS

/* Samples that are calls of the application. */
#define NOT_CALL (SBT_SF_PROBE | SBT_SF_CALIB | SBT_SF_RESET)

/* The last probe of s's thread that started before s; -1: none.  *hint:
 * the previous answer, tried first - a thread's samples mostly come in
 * time order, so most answers are it or the next one. */
static long last_before(const struct sbt_probe *p, size_t n,
			const struct sbt_sample *s, long *hint)
{
	size_t lo = 0, hi = n;          /* p[lo..hi): first one not before */
	struct sbt_probe key = { .t_ns = s->t_ns, .thread = s->thread,
				 .source = s->source };

	/* p[h] is before the key and p[h + 1] is not: lo = h + 1 */
	for (long h = *hint; h >= 0 && h <= *hint + 1 && (size_t)h < n; h++)
		if (sbt_probe_cmp(&p[h], &key) < 0 &&
		    ((size_t)h + 1 == n || sbt_probe_cmp(&p[h + 1], &key) >= 0))
			lo = hi = (size_t)h + 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sbt_probe_cmp(&p[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*hint = lo ? (long)lo - 1 : -1;
	if (lo == 0 || p[lo - 1].source != s->source ||
	    p[lo - 1].thread != s->thread)
		return -1;
	return (long)lo - 1;
}

/* Offer t to a probe's ascending list of its K earliest (INFINITY: free). */
static void offer(double *first, double t)
{
	if (!(t < first[K - 1]))
		return;
	int i = K - 1;
	for (; i > 0 && first[i - 1] > t; i--)
		first[i] = first[i - 1];
	first[i] = t;
}

/* In sbt_probe_cmp order, and no time NaN (which it cannot order)? */
static int in_order(const struct sbt_probe *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (isnan(p[i].t_ns) ||
		    (i && sbt_probe_cmp(&p[i - 1], &p[i]) > 0))
			return 0;
	return 1;
}

/* The places where a thread left the application: its speed probes and
 * the recorder's detours, in sbt_probe_cmp order (merged where each is
 * in order already: one thread's are); NULL when out of memory.  Which
 * of two equal places comes first does not matter: a sample finds the
 * last of them, and every sample of theirs the same one. */
static struct sbt_probe *places(const struct sbt_dataset *ds, size_t n)
{
	struct sbt_probe *p = malloc(n * sizeof *p);
	const struct sbt_probe *a = ds->probes, *b = ds->detours;
	size_t na = ds->nprobes, nb = ds->ndetours, i = 0, j = 0, k = 0;

	if (!p)
		return NULL;
	if (!in_order(a, na) || !in_order(b, nb)) {
		if (na)
			memcpy(p, a, na * sizeof *p);
		if (nb)
			memcpy(p + na, b, nb * sizeof *p);
		qsort(p, n, sizeof *p, sbt_probe_cmp);
		return p;
	}
	while (i < na && j < nb)
		p[k++] = sbt_probe_cmp(&b[j], &a[i]) < 0 ? b[j++] : a[i++];
	while (i < na)
		p[k++] = a[i++];
	while (j < nb)
		p[k++] = b[j++];
	return p;
}

/* Both passes in fixed blocks of samples on `jobs` threads.  The offers
 * go to K-lists of each thread's own (first + w * n * K), merged into
 * thread 0's after: a list's K earliest do not depend on the order they
 * were offered in.  Where every thread's lists would take more than
 * OWN_MAX bytes, one thread offers (n * K doubles a thread). */
#define OWN_MAX ((size_t)64 << 20)

struct mark {
	const struct sbt_dataset *ds;
	uint8_t *marks;
	const struct sbt_probe *at;
	size_t n, nb;
	double *first;                /* [workers][n][K] */
};

static size_t blk(const struct mark *m, size_t b)
{
	return (size_t)((unsigned __int128)b * m->ds->n / m->nb);
}

static void mark_offer(void *arg, size_t b, int w)
{
	const struct mark *m = arg;
	double *first = m->first + (size_t)w * m->n * K;
	long hint = -1;

	for (size_t i = blk(m, b), hi = blk(m, b + 1); i < hi; i++) {
		const struct sbt_sample *s = &m->ds->s[i];
		long p;
		if (!(s->flags & NOT_CALL) &&
		    (p = last_before(m->at, m->n, s, &hint)) >= 0)
			offer(first + (size_t)p * K, s->t_ns);
	}
}

static void mark_flag(void *arg, size_t b, int w)
{
	const struct mark *m = arg;
	long hint = -1;

	(void)w;
	for (size_t i = blk(m, b), hi = blk(m, b + 1); i < hi; i++) {
		const struct sbt_sample *s = &m->ds->s[i];
		long p;
		if (m->n && !(s->flags & NOT_CALL) &&
		    (p = last_before(m->at, m->n, s, &hint)) >= 0 &&
		    s->t_ns <= m->first[(size_t)p * K + K - 1])
			m->marks[i] |= SBT_MK_AFTER_PROBE;
		else
			m->marks[i] &= (uint8_t)~SBT_MK_AFTER_PROBE;
	}
}

int sbt_after_probe_mark(const struct sbt_dataset *ds, int jobs,
			 uint8_t *marks)
{
	size_t n = ds->nprobes + ds->ndetours;
	struct mark m = { .ds = ds, .marks = marks, .n = n,
			  .nb = sbt_jobs_blocks(ds->n, 1024) };
	struct sbt_probe *at = NULL;
	int ow = sbt_jobs_width(m.nb, jobs);

	if (n && !(at = places(ds, n)))
		return -1;
	if (n && (size_t)ow * n * K * sizeof *m.first > OWN_MAX)
		ow = 1;
	size_t nfirst = (size_t)ow * n * K;
	if (n && !(m.first = big_alloc(nfirst * sizeof *m.first))) {
		free(at);
		return -1;
	}
	m.at = at;
	for (size_t i = 0; i < (size_t)ow * n * K; i++)
		m.first[i] = INFINITY;
	if (n)
		sbt_jobs_each(m.nb, ow, mark_offer, &m);
	for (size_t i = n * K; i < (size_t)ow * n * K; i++)
		if (isfinite(m.first[i]))
			offer(m.first + i / K % n * K, m.first[i]);
	sbt_jobs_each(m.nb, jobs, mark_flag, &m);
	big_free(m.first, nfirst * sizeof *m.first);
	free(at);
	return 0;
}
