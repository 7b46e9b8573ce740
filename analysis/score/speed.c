/*
 * speed.c - the processor's speed over the run, from speed probes.
 *
 * Each probe times the same SBT_META_SPEED workload, so its duration is
 * the processor's speed at that moment, inverted: a core that lost its
 * clock, a vCPU the host shares, a busy SMT sibling.  Per thread:
 *
 *   1. the probes in time order go through the region detector
 *      (sbt_phase_detect: rank CUSUM, |Z| >= 5, 30 probes a level at
 *      least), with the smallest shift it reports set to the resolution
 *      below;
 *   2. the normal speed is the level holding most probes (a processor
 *      slowed for a while is slowed against it; one slow all along has
 *      no shift of its own and is found, if at all, against the other
 *      cpus below);
 *   3. resolution: a level is a 10 %-trimmed mean of at least 30 probes;
 *      two such levels are told apart at 99.9 % when they differ by
 *      3.29 sqrt(2) sd / sqrt(30), sd the probes' own spread within the
 *      normal level (from its trimmed mean's standard error, so that a
 *      quantized probe's dither counts) - floored at 1 %, the method's
 *      precision target.  The detector's size test (first pass) uses
 *      the IQR of all probes;
 *   4. each level off the normal one by more than the resolution is a
 *      shift; neighbouring shifted levels of one sign are one shift.  Its
 *      window runs from midway between the last normal probe and its
 *      first to midway between its last and the next normal one (the
 *      run's ends for the first and last level), but no further than
 *      SBT_SPEED_REACH typical probe gaps beyond its outer probes: a
 *      claim reaches as far as the probes saw.  The samples that
 *      started in it are the processor's;
 *   5. a timeline that resolves coarser than SBT_SPEED_USABLE claims
 *      nothing (counted, with its likely cause);
 *   6. a shift must agree with the regions it claims: their time in its
 *      window against just around it, on its thread (cpu), moved its
 *      way beyond their resolution, for most of its samples (where no
 *      region made 10 calls there, all its calls ranked among their
 *      regions' around it); where they did not, the probes disagree
 *      with the code's own witness, and the shift is dropped (counted:
 *      "probes disagree").  The other witness, regions shifting
 *      together (machine.c), needs a phase's worth of calls of two
 *      regions in the window to see anything: witness_regions says
 *      whether it could.
 *
 *   7. the kernel's record before the probes: a shift whose samples (its
 *      thread's, or its cpu's, between its first and last probe) were
 *      preempted, or waited on a preempted thread, SBT_SPEED_OS_SHARE of
 *      the time or more ran on a cpu the OS shared with another task:
 *      the OS's, not the processor's (osh; no sample marked for it).
 *
 * Per cpu: where several threads shared a cpu, or threads migrated
 * across cpus, the probes of every thread there, pooled in time order,
 * go through 1-4 as one timeline (cpu_timelines); a cpu with one thread
 * that never left it would only repeat that thread's.  Its shifts mark
 * every sample that started on that cpu in their windows.
 *
 * Units (cpus, hosts) are compared as groups are (groups.c): each unit's
 * trimmed mean of probes against the median of the others', flagged
 * beyond 3.29 sqrt(se^2 + se_ref^2) and 1 %.
 */
#include "speed.h"
#include "phase.h"
#include "score.h"
#include "stats.h"
#include "sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SPEED_Z      3.29             /* 99.9 %, two-sided            */
#define SPEED_FLOOR  0.01             /* the method's 1 %             */

static int cmp_probe_cpu(const void *a, const void *b)
{
	const struct sbt_probe *x = a, *y = b;

	if (x->source != y->source)
		return x->source < y->source ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return (x->t_ns > y->t_ns) - (x->t_ns < y->t_ns);
}

static double median_of(double *v, size_t n)
{
	if (!n || sbt_sort_doubles(v, n) != 0)
		return NAN;
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Where a timeline goes: the threads' arrays of sp, or the cpus'. */
struct dest {
	struct sbt_speed_thread **th; size_t *nth;
	struct sbt_speed_shift **sh;  size_t *nsh;
	int cpu;                      /* a cpu's timeline                 */
};

static int push_shift(struct dest *d, const struct sbt_speed_shift *s)
{
	void *n = realloc(*d->sh, (*d->nsh + 1) * sizeof **d->sh);

	if (!n)
		return -1;
	*d->sh = n;
	(*d->sh)[(*d->nsh)++] = *s;
	return 0;
}

/* The distinct threads of p[a..b). */
static unsigned threads_in(const struct sbt_probe *p, size_t a, size_t b)
{
	unsigned n = 0;

	for (size_t i = a; i < b; i++) {
		size_t j;
		for (j = a; j < i && p[j].thread != p[i].thread; j++)
			;
		n += j == i;
		if (n > 64)
			break;          /* enough to say "many" */
	}
	return n;
}

/* The cpu most of p[a..b) ran on: the majority vote (Boyer-Moore), which
 * is the majority when there is one, and some cpu of them otherwise. */
static unsigned main_cpu(const struct sbt_probe *p, size_t a, size_t b)
{
	unsigned cand = SBT_CPU_UNKNOWN;
	size_t votes = 0;

	for (size_t i = a; i < b; i++) {
		if (!votes)
			cand = p[i].cpu, votes = 1;
		else
			votes += p[i].cpu == cand ? 1 : (size_t)-1;
	}
	return cand;
}

/* The median gap between the times t[0..n) (ascending); 0 when n < 2. */
static double typical_gap(const double *t, size_t n)
{
	double *g, m;

	if (n < 2 || !(g = malloc((n - 1) * sizeof *g)))
		return 0;
	for (size_t i = 1; i < n; i++)
		g[i - 1] = t[i] - t[i - 1];
	m = median_of(g, n - 1);
	free(g);
	return m;
}

/* One thread's (or cpu's) probes p[0..n), in time order: its timeline
 * and shifts, into d.  w: scratch of 2n doubles. */
static int timeline_of(struct sbt_speed *sp, struct dest *d,
		       const struct sbt_dataset *ds, const struct sbt_probe *p,
		       size_t n, double *w)
{
	struct sbt_speed_thread th = {
		p[0].source, d->cpu ? SBT_SPEED_ALL_THREADS : p[0].thread,
		p[0].cpu, n, NAN, NAN, NAN, 0, SBT_SPEED_OK };
	double *t = w, *v = w + n, q = ds->sources[p[0].source].quantum_ns;
	struct sbt_phases ph;
	int normal = 0;

	for (size_t i = 0; i < n; i++)
		t[i] = p[i].t_ns, v[i] = p[i].ns;
	/* a first look: the spread of all probes sets the detector's size */
	double *s = malloc(n * sizeof *s);
	if (!s)
		return -1;
	memcpy(s, v, n * sizeof *s);
	double med = median_of(s, n);
	double iqr = sbt_quantile(s, n, 0.75) - sbt_quantile(s, n, 0.25);
	free(s);
	if (!(med > 0))
		goto done;
	double res = fmax(SPEED_FLOOR, SPEED_Z * sqrt(2.0) * (iqr / 1.349) /
			  med / sqrt((double)SBT_PHASE_MIN_SEG));
	res = fmax(res, 0.5 * q / med / sqrt((double)SBT_PHASE_MIN_SEG));
	if (sbt_phase_detect(t, v, n, res * med, &ph) != 0 || !ph.nphases)
		goto done;
	for (int k = 1; k < ph.nphases; k++)
		if (ph.ph[k].n > ph.ph[normal].n)
			normal = k;
	th.normal_ns = ph.ph[normal].level_ns;
	th.nlevels = ph.nphases;
	/* the probes' own spread, within the normal level: its trimmed
	 * mean's error, scaled to a level of SBT_PHASE_MIN_SEG probes */
	{
		const struct sbt_phase *nl = &ph.ph[normal];
		double *u = malloc(nl->n * sizeof *u), m, se;
		if (!u)
			return -1;
		memcpy(u, v + nl->first, nl->n * sizeof *u);
		if (sbt_sort_doubles(u, nl->n) == 0) {
			sbt_trimmed_mean(u, nl->n, &m, &se);
			th.sd_rel = se * sqrt((double)nl->n) / th.normal_ns;
		}
		free(u);
	}
	th.resolution_rel = fmax(SPEED_FLOOR, SPEED_Z * sqrt(2.0) *
				 th.sd_rel / sqrt((double)SBT_PHASE_MIN_SEG));
	if (!isfinite(th.resolution_rel))
		th.resolution_rel = res;
	if (th.resolution_rel > sp->usable_rel) {
		th.unusable = 0.5 * q / th.normal_ns / sqrt((double)
			      SBT_PHASE_MIN_SEG) * SPEED_Z * sqrt(2.0) >
			      sp->usable_rel ? SBT_SPEED_COARSE :
			      SBT_SPEED_NOISY;
		goto done;
	}
	double gap = typical_gap(t, n);
	for (int k = 0; k < ph.nphases; k++) {
		double rel = ph.ph[k].level_ns / th.normal_ns - 1;
		if (!(fabs(rel) > th.resolution_rel))
			continue;
		/* neighbours off the same way: one shift */
		int e = k;
		double sum = rel * (double)ph.ph[k].n;
		size_t np = ph.ph[k].n;
		while (e + 1 < ph.nphases) {
			double r2 = ph.ph[e + 1].level_ns / th.normal_ns - 1;
			if (!(fabs(r2) > th.resolution_rel) ||
			    (r2 > 0) != (rel > 0))
				break;
			e++;
			sum += r2 * (double)ph.ph[e].n;
			np += ph.ph[e].n;
		}
		size_t a = ph.ph[k].first, b = ph.ph[e].first + ph.ph[e].n;
		struct sbt_speed_shift sh = {
			.source = th.source, .thread = th.thread,
			.cpu = d->cpu ? th.cpu : main_cpu(p, a, b),
			.nthreads = threads_in(p, a, b), .rel = sum / (double)np,
			.probes = np,
			.t0_ns = fmax(a ? 0.5 * (t[a - 1] + t[a]) : -INFINITY,
				      t[a] - SBT_SPEED_REACH * gap),
			.t1_ns = fmin(b < n ? 0.5 * (t[b - 1] + t[b]) :
				      INFINITY, t[b - 1] + SBT_SPEED_REACH * gap),
			.regions_moved = -1,
			.first_ns = t[a], .last_ns = t[b - 1],
		};
		if (push_shift(d, &sh) != 0)
			return -1;
		k = e;
	}
done:
	{
		void *nt = realloc(*d->th, (*d->nth + 1) * sizeof **d->th);
		if (!nt)
			return -1;
		*d->th = nt;
		(*d->th)[(*d->nth)++] = th;
		if (th.unusable) {
			sp->unusable++;
			if (!(th.resolution_rel <= sp->unusable_rel)) {
				sp->unusable_rel = th.resolution_rel;
				sp->unusable_cause = th.unusable;
			}
		} else if (isfinite(th.resolution_rel) &&
			   !(th.resolution_rel <= sp->resolution_rel)) {
			sp->resolution_rel = th.resolution_rel;
		}
	}
	return 0;
}

/* A probe whose span holds a switch-out of its thread timed the OS (the
 * kernel's record), not the processor: the timeline is of the others. */
static int timeline(struct sbt_speed *sp, struct dest *d,
		    const struct sbt_dataset *ds, const struct sbt_probe *p,
		    size_t n, double *w)
{
	struct sbt_probe *q = malloc((n ? n : 1) * sizeof *q);
	size_t m = 0;
	int rc;

	if (!q)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!p[i].switched)
			q[m++] = p[i];
	rc = m ? timeline_of(sp, d, ds, q, m, w) : 0;
	free(q);
	return rc;
}

/* The shift of (source, thread) whose window holds t, or NULL.  Shifts
 * come out of thread_timeline by source, thread, then time, their
 * windows apart: a binary search. */
static uint32_t key_of(const struct sbt_speed_shift *h, int cpu)
{
	return cpu ? h->cpu : h->thread;
}

/* The shift of sh[0..n) whose window holds t, for (source, key): key a
 * thread, or with cpu a cpu; or NULL.  Shifts come out of timeline by
 * source, key, then time, their windows apart: a binary search. */
static struct sbt_speed_shift *shift_at(struct sbt_speed_shift *sh, size_t n,
					int cpu, uint32_t src, uint32_t key,
					double t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {               /* first shift not before (src,key,t) */
		size_t mid = lo + (hi - lo) / 2;
		const struct sbt_speed_shift *h = &sh[mid];
		uint32_t k = key_of(h, cpu);
		if (h->source < src || (h->source == src &&
		    (k < key || (k == key && h->t1_ns <= t))))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n)
		return NULL;
	struct sbt_speed_shift *h = &sh[lo];
	return h->source == src && key_of(h, cpu) == key && t >= h->t0_ns &&
	       t < h->t1_ns ? h : NULL;
}

/* Count sample x (region sample, not a probe) into shift h. */
static void count(struct sbt_speed_shift *h, const struct sbt_sample *x)
{
	int seen = 0;

	h->samples++;
	for (int r = 0; r < h->nregions && !seen; r++)
		seen = h->regions[r] == x->region;
	if (!seen && h->nregions < SBT_SPEED_MAX_REGIONS)
		h->regions[h->nregions++] = x->region;
}

/* Mark every region sample inside a shift's window as the processor's,
 * its thread's or its cpu's, and (tally) name the regions each shift
 * touched. */
static void mark(const struct sbt_dataset *ds, struct sbt_speed *sp,
		 uint8_t *marks, int tally)
{
	for (size_t i = 0; i < ds->n && (sp->nsh || sp->ncsh); i++) {
		const struct sbt_sample *x = &ds->s[i];
		struct sbt_speed_shift *h = shift_at(sp->sh, sp->nsh, 0,
						     x->source, x->thread,
						     x->t_ns);
		struct sbt_speed_shift *c = x->cpu_start == SBT_CPU_UNKNOWN ?
			NULL : shift_at(sp->csh, sp->ncsh, 1, x->source,
					x->cpu_start, x->t_ns);
		if (!h && !c)
			continue;
		marks[i] |= SBT_MK_SPEED;
		if (!tally || (x->flags & SBT_SF_PROBE))
			continue;
		if (h)
			count(h, x);
		if (c)
			count(c, x);
	}
}

/* ---- do the regions agree? -------------------------------------------- */

static int in_scope(const struct sbt_sample *x, const struct sbt_speed_shift *h,
		    int cpu)
{
	return x->source == h->source && !(x->flags & (SBT_SF_PROBE |
	       SBT_SF_CALIB | SBT_SF_RESET | SBT_SF_BEFORE_RESET)) &&
	       (cpu ? x->cpu_start == h->cpu : x->thread == h->thread);
}

/* Trimmed mean and its error of the values of slot r in v/tag[0..n);
 * w scratch.  The count, or 0. */
static size_t slot_mean(const double *v, const uint8_t *tag, size_t n, int r,
			double *w, double *m, double *se)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (tag[i] == r)
			w[k++] = v[i];
	if (k < 10 || sbt_sort_doubles(w, k) != 0)
		return 0;
	sbt_trimmed_mean(w, k, m, se);
	return k;
}

/* The rank of x among the sorted o[0..n), as a fraction: 0 below all,
 * 1 above all, ties counted half. */
static double rank_in(const double *o, size_t n, double x)
{
	size_t lo = 0, hi = n, a, b;

	while (lo < hi) {               /* first >= x */
		size_t m = lo + (hi - lo) / 2;
		if (o[m] < x) lo = m + 1; else hi = m;
	}
	a = lo, hi = n;
	while (lo < hi) {               /* first > x */
		size_t m = lo + (hi - lo) / 2;
		if (o[m] <= x) lo = m + 1; else hi = m;
	}
	b = lo;
	return ((double)a + 0.5 * (double)(b - a)) / (double)n;
}

/* The regions pooled, where none has enough calls in the window to be
 * judged alone (a thread that made few calls there, each long): each
 * call in the window ranked among its own region's calls around it.
 * Unmoved, the ranks are uniform (mean 1/2, variance 1/12, less with
 * ties); moved the shift's way, they lean to it.  1 beyond SPEED_Z,
 * 0 not, -1 too few calls to reach it. */
static int pooled_moved(const struct sbt_speed_shift *h, const double *v,
			const uint8_t *tag, size_t n, int nr, double *w)
{
	double z = 0;
	size_t k = 0;

	for (int r = 0; r < nr; r++) {
		size_t ko = 0;
		for (size_t i = 0; i < n; i++)
			if (tag[i] == r + SBT_SPEED_MAX_REGIONS)
				w[ko++] = v[i];
		if (ko < 10 || sbt_sort_doubles(w, ko) != 0)
			continue;
		for (size_t i = 0; i < n; i++)
			if (tag[i] == r) {
				double u = rank_in(w, ko, v[i]) - 0.5;
				z += h->rel > 0 ? u : -u;
				k++;
			}
	}
	/* the largest z k calls reach is k / 2: sqrt(3k) sigmas */
	if (sqrt(3.0 * (double)k) <= SPEED_Z)
		return -1;
	return z / sqrt((double)k / 12) > SPEED_Z;
}

/* Did the regions of shift h (its first SBT_SPEED_MAX_REGIONS) move its
 * way in its window, against as long a stretch on each side?  1 most of
 * its samples' regions did, 0 they did not, -1 none can tell.  Where no
 * region has 10 calls on either side, their calls pooled by rank say it
 * (pooled_moved).  Also counts h->witness_regions.  v, w: scratch of
 * ds->n doubles; tag of ds->n bytes. */
static int regions_moved(const struct sbt_dataset *ds,
			 struct sbt_speed_shift *h, int cpu, double *v,
			 double *w, uint8_t *tag)
{
	uint32_t reg[SBT_SPEED_MAX_REGIONS];
	size_t inside_n[SBT_SPEED_MAX_REGIONS] = { 0 };
	int nr = 0;
	size_t n = 0;
	double span = h->t1_ns - h->t0_ns;
	double agree = 0, against = 0;

	h->witness_regions = 0;
	if (!isfinite(span))
		return -1;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < ds->n; i++) {
			const struct sbt_sample *x = &ds->s[i];
			int inside = x->t_ns >= h->t0_ns && x->t_ns < h->t1_ns;
			int r;
			if (!in_scope(x, h, cpu) || inside != !pass ||
			    x->t_ns < h->t0_ns - span ||
			    x->t_ns >= h->t1_ns + span)
				continue;
			for (r = 0; r < nr && reg[r] != x->region; r++)
				;
			if (r == nr) {
				if (pass || nr == SBT_SPEED_MAX_REGIONS)
					continue;
				reg[nr++] = x->region;
			}
			if (!pass)
				inside_n[r]++;
			v[n] = x->ns;
			tag[n++] = (uint8_t)(r + (pass ? SBT_SPEED_MAX_REGIONS
						       : 0));
		}
	for (int r = 0; r < nr; r++)
		h->witness_regions += inside_n[r] >= SBT_PHASE_MIN_SEG;
	for (int r = 0; r < nr; r++) {
		double mi, si, mo, so;
		size_t ki = slot_mean(v, tag, n, r, w, &mi, &si);
		size_t ko = slot_mean(v, tag, n, r + SBT_SPEED_MAX_REGIONS, w,
				      &mo, &so);
		if (!ki || !ko || !(mo > 0))
			continue;
		double rel = mi / mo - 1;
		double res = SPEED_Z * sqrt(si * si + so * so) / mo;
		if ((h->rel > 0 ? rel : -rel) > res)
			agree += (double)ki;
		else
			against += (double)ki;
	}
	if (agree + against == 0)
		return pooled_moved(h, v, tag, n, nr, w);
	return agree >= against;
}

/* Drop the shifts of sh[0..*n) whose regions did not move (counted). */
static int check_shifts(const struct sbt_dataset *ds, struct sbt_speed *sp,
			struct sbt_speed_shift *sh, size_t *n, int cpu)
{
	double *v = NULL, *w = NULL;
	uint8_t *tag = NULL;
	size_t k = 0;

	if (!*n)
		return 0;
	v = malloc((ds->n ? ds->n : 1) * sizeof *v);
	w = malloc((ds->n ? ds->n : 1) * sizeof *w);
	tag = malloc(ds->n ? ds->n : 1);
	if (!v || !w || !tag) {
		free(v), free(w), free(tag);
		return -1;
	}
	for (size_t i = 0; i < *n; i++) {
		sh[i].regions_moved = regions_moved(ds, &sh[i], cpu, v, w, tag);
		if (sh[i].regions_moved == 0)
			sp->ndisagree++;
		else
			sh[k++] = sh[i];
	}
	*n = k;
	free(v), free(w), free(tag);
	return 0;
}

/* Whether the cpu of probes p[a..b) (one source, one cpu) needs its own
 * timeline: more than one thread probed there, or one that also probed
 * elsewhere (all: the source's probes, by thread, n of them). */
static int cpu_needs_timeline(const struct sbt_probe *p, size_t a, size_t b,
			      const struct sbt_probe *all, size_t n)
{
	if (threads_in(p, a, b) > 1)
		return 1;
	for (size_t i = 0; i < n; i++)
		if (all[i].source == p[a].source &&
		    all[i].thread == p[a].thread && all[i].cpu != p[a].cpu)
			return 1;
	return 0;
}

/* The cpus' timelines (see speed.h), from a copy of the probes in cpu
 * order; w as for timeline.  0, or -1 when out of memory. */
static int cpu_timelines(struct sbt_speed *sp, const struct sbt_dataset *ds,
			 double *w)
{
	size_t n = ds->nprobes;
	struct sbt_probe *c = malloc(n * sizeof *c);
	struct dest d = { &sp->ct, &sp->nct, &sp->csh, &sp->ncsh, 1 };

	if (!c)
		return -1;
	memcpy(c, ds->probes, n * sizeof *c);
	qsort(c, n, sizeof *c, cmp_probe_cpu);
	for (size_t a = 0, b; a < n; a = b) {
		for (b = a + 1; b < n && c[b].source == c[a].source &&
		     c[b].cpu == c[a].cpu; b++)
			;
		if (c[a].cpu == SBT_CPU_UNKNOWN ||
		    b - a < SBT_SPEED_MIN_PROBES ||
		    !cpu_needs_timeline(c, a, b, ds->probes, n))
			continue;
		if (timeline(sp, &d, ds, c + a, b - a, w) != 0) {
			free(c);
			return -1;
		}
	}
	free(c);
	return 0;
}

static uint32_t unit_key(const struct sbt_dataset *ds,
			 const struct sbt_probe *p, int by)
{
	if (by == 1)
		return p->cpu;
	for (uint32_t i = 0; i < p->source; i++)
		if (!strcmp(ds->sources[i].host, ds->sources[p->source].host))
			return i;
	return p->source;
}

/* Per cpu or host: trimmed mean of the probes, against the others'. */
static int units(const struct sbt_dataset *ds, struct sbt_speed *sp, int by)
{
	size_t n = ds->nprobes;
	uint32_t *key = malloc((n ? n : 1) * sizeof *key);
	double *v = malloc((n ? n : 1) * sizeof *v);
	int rc = -1;

	if (!key || !v)
		goto out;
	for (size_t i = 0; i < n; i++)
		key[i] = unit_key(ds, &ds->probes[i], by);
	for (size_t i = 0; i < n; i++) {
		size_t m = 0, u;
		for (u = 0; u < sp->nun && sp->un[u].key != key[i]; u++)
			;
		if (u < sp->nun)
			continue;
		for (size_t j = i; j < n; j++)
			if (key[j] == key[i] && !ds->probes[j].switched)
				v[m++] = ds->probes[j].ns;
		void *nu = realloc(sp->un, (sp->nun + 1) * sizeof *sp->un);
		if (!nu || sbt_sort_doubles(v, m) != 0)
			goto out;
		sp->un = nu;
		struct sbt_speed_unit *x = &sp->un[sp->nun++];
		*x = (struct sbt_speed_unit){ .key = key[i], .probes = m,
					      .delta_rel = NAN,
					      .resolution_rel = NAN };
		sbt_trimmed_mean(v, m, &x->level_ns, &x->se_ns);
	}
	for (size_t u = 0; u < sp->nun; u++) {
		struct sbt_speed_unit *x = &sp->un[u];
		size_t k = 0;
		double var = 0;
		for (size_t o = 0; o < sp->nun; o++)
			if (o != u && isfinite(sp->un[o].level_ns)) {
				v[k++] = sp->un[o].level_ns;
				var += sp->un[o].se_ns * sp->un[o].se_ns;
			}
		if (!k || !isfinite(x->level_ns))
			continue;
		double ref = median_of(v, k);
		double se_ref = sqrt(var / (double)k) / sqrt((double)k) *
				(k >= 3 ? sqrt(M_PI / 2) : 1);
		double d = x->level_ns - ref;
		x->delta_rel = d / ref;
		x->resolution_rel = fmax(SPEED_FLOOR, SPEED_Z *
					 sqrt(x->se_ns * x->se_ns +
					      se_ref * se_ref) / ref);
		x->flagged = fabs(x->delta_rel) > x->resolution_rel;
	}
	rc = 0;
out:
	free(key), free(v);
	return rc;
}

/* Keep the shifts of sh[0..*n) beyond res, the resolution the report
 * gives for the probes (the coarsest usable timeline's): a shift its
 * own finer timeline resolves, but not that, is no claim to print
 * beside it.  The number dropped. */
static size_t resolved_only(struct sbt_speed_shift *sh, size_t *n, double res)
{
	size_t k = 0, n0 = *n;

	if (!isfinite(res))
		return 0;
	for (size_t i = 0; i < n0; i++)
		if (fabs(sh[i].rel) > res)
			sh[k++] = sh[i];
	*n = k;
	return n0 - k;
}

/* Move the shifts of sh[0..*n) on a cpu the OS shared (os_share) to
 * sp->osh: a probe there timed a cpu that another task took in turns,
 * and the kernel's record, not the probes, says whose that time is.
 * Every sample in scope is looked at for each shift: shifts are few. */
static int os_shared(const struct sbt_dataset *ds, struct sbt_speed *sp,
		     struct sbt_speed_shift *sh, size_t *n, int cpu)
{
	const uint32_t pre = SBT_SF_PREEMPTED | SBT_SF_TEAM_PREEMPTED;
	size_t k = 0;

	for (size_t j = 0; j < *n; j++) {
		struct sbt_speed_shift *h = &sh[j];
		size_t m = 0, p = 0;
		for (size_t i = 0; i < ds->n; i++) {
			const struct sbt_sample *x = &ds->s[i];
			if (x->t_ns < h->first_ns || x->t_ns > h->last_ns ||
			    !in_scope(x, h, cpu))
				continue;
			m++;
			p += (x->flags & pre) != 0;
		}
		h->os_share = m ? (double)p / (double)m : 0;
		if (h->os_share < SBT_SPEED_OS_SHARE) {
			sh[k++] = *h;
			continue;
		}
		struct sbt_speed_shift *g = realloc(sp->osh, (sp->nosh + 1) *
						    sizeof *g);
		if (!g)
			return -1;
		sp->osh = g;
		sp->osh[sp->nosh++] = *h;
	}
	*n = k;
	return 0;
}

int sbt_speed_analyze(const struct sbt_dataset *ds, int by_unit,
		      struct sbt_speed *sp, uint8_t *marks)
{
	return sbt_speed_analyze_usable(ds, by_unit, SBT_SPEED_USABLE, sp,
					marks);
}

int sbt_speed_analyze_usable(const struct sbt_dataset *ds, int by_unit,
			     double usable, struct sbt_speed *sp,
			     uint8_t *marks)
{
	size_t n = ds->nprobes;
	double *w = NULL;

	memset(sp, 0, sizeof *sp);
	sp->usable_rel = usable;
	sp->resolution_rel = sp->unusable_rel = NAN;
	sp->by = by_unit;
	for (size_t i = 0; i < ds->n; i++)
		marks[i] &= (uint8_t)~SBT_MK_SPEED;
	if (!n)
		return 0;
	sp->probes = n;
	for (size_t i = 0; i < ds->nsources; i++)
		if (ds->sources[i].speed_ops) {
			sp->cadence_us = ds->sources[i].speed_cadence_us;
			sp->ops = ds->sources[i].speed_ops;
			break;
		}
	if (!(w = malloc(2 * n * sizeof *w)))
		goto oom;
	struct dest d = { &sp->th, &sp->nth, &sp->sh, &sp->nsh, 0 };
	for (size_t a = 0, b; a < n; a = b) {
		for (b = a + 1; b < n && ds->probes[b].source ==
		     ds->probes[a].source && ds->probes[b].thread ==
		     ds->probes[a].thread; b++)
			;
		if (b - a >= SBT_SPEED_MIN_PROBES &&
		    timeline(sp, &d, ds, ds->probes + a, b - a, w) != 0)
			goto oom;
	}
	if (cpu_timelines(sp, ds, w) != 0)
		goto oom;
	free(w);
	w = NULL;
	sp->nunresolved = resolved_only(sp->sh, &sp->nsh, sp->resolution_rel) +
			  resolved_only(sp->csh, &sp->ncsh, sp->resolution_rel);
	if (check_shifts(ds, sp, sp->sh, &sp->nsh, 0) != 0 ||
	    check_shifts(ds, sp, sp->csh, &sp->ncsh, 1) != 0 ||
	    os_shared(ds, sp, sp->sh, &sp->nsh, 0) != 0 ||
	    os_shared(ds, sp, sp->csh, &sp->ncsh, 1) != 0)
		goto oom;
	mark(ds, sp, marks, 1);
	if (by_unit && units(ds, sp, by_unit) != 0)
		goto oom;
	return 0;
oom:
	free(w);
	sbt_speed_free(sp);
	for (size_t i = 0; i < ds->n; i++)
		marks[i] &= (uint8_t)~SBT_MK_SPEED;
	return -1;
}

/* Keep the shifts of sh[0..*n) the coincidence witness did not deny;
 * the number dropped. */
static size_t keep_witnessed(struct sbt_speed_shift *sh, size_t *n)
{
	size_t k = 0, n0 = *n;

	for (size_t i = 0; i < n0; i++)
		if (sh[i].regions_agree != 0)
			sh[k++] = sh[i];
	*n = k;
	return n0 - k;
}

size_t sbt_speed_drop_unwitnessed(const struct sbt_dataset *ds,
				  struct sbt_speed *sp, uint8_t *marks)
{
	size_t d = keep_witnessed(sp->sh, &sp->nsh) +
		   keep_witnessed(sp->csh, &sp->ncsh);

	if (!d)
		return 0;
	sp->ndisagree += d;
	for (size_t i = 0; i < ds->n; i++)
		marks[i] &= (uint8_t)~SBT_MK_SPEED;
	mark(ds, sp, marks, 0);
	return d;
}

void sbt_speed_free(struct sbt_speed *sp)
{
	free(sp->th), free(sp->sh), free(sp->un), free(sp->osh);
	free(sp->ct), free(sp->csh);
	memset(sp, 0, sizeof *sp);
	sp->resolution_rel = sp->unusable_rel = NAN;
}

int sbt_speed_covers(const struct sbt_speed *sp, uint32_t src,
		     double t_ns, double tol_ns)
{
	int timeline = 0;

	/* an unusable timeline tells nothing either way */
	for (size_t i = 0; i < sp->nth; i++)
		timeline |= sp->th[i].source == src && !sp->th[i].unusable &&
			    isfinite(sp->th[i].normal_ns);
	for (size_t i = 0; i < sp->nct; i++)
		timeline |= sp->ct[i].source == src && !sp->ct[i].unusable &&
			    isfinite(sp->ct[i].normal_ns);
	if (!timeline)
		return -1;
	for (size_t k = 0; k < sp->nsh; k++)
		if (sp->sh[k].source == src &&
		    t_ns >= sp->sh[k].t0_ns - tol_ns &&
		    t_ns <= sp->sh[k].t1_ns + tol_ns)
			return 1;
	for (size_t k = 0; k < sp->ncsh; k++)
		if (sp->csh[k].source == src &&
		    t_ns >= sp->csh[k].t0_ns - tol_ns &&
		    t_ns <= sp->csh[k].t1_ns + tol_ns)
			return 1;
	return 0;
}
