/*
 * machine.c - shifts that are the machine's, not the code's.
 *
 * When a core's clock changes, or a co-runner on the host takes part of
 * it, every region running there slows or speeds up at the same instant.
 * Each region's phase detector (phase.c) sees that as a change of its
 * own; only the coincidence tells who did it.  So: every change between
 * neighbouring phases of every group of one process is a candidate; two
 * candidates coincide when their instants are within both detectors'
 * resolution and they go the same way; a cluster of coinciding changes
 * in two or more distinct regions is a machine event.  A single region
 * cannot tell, so it is never blamed on the machine.
 *
 * Resolution.  A cut found by the rank test is placed to within a few
 * samples; SBT_MACHINE_SAMPLES of its group's mean spacing is the window
 * (20 samples: a 300 ns region called back to back resolves ~15 us, a
 * region called once a millisecond 20 ms).
 *
 * Moments.  A machine that changes speed every few hundred microseconds
 * gives more changes than phases are reported (SBT_PHASE_MAX), so each
 * sample is also judged by its neighbours: the median relative time
 * (time / its group's median) of the SBT_MACHINE_NEAR nearest samples of
 * OTHER regions of its thread that are steady witnesses (p25..p75 within
 * twice their smallest finding: a bimodal region's median sits on either
 * mode and says nothing of the machine; or, where the machine itself
 * moves them that often, a region whose samples off their median are,
 * nine in ten, met by another region's nearest sample off the same way:
 * it moves only with the others, and its median is its own level).
 * When that median is off by more
 * than twice their smallest finding, the machine was shifted at that
 * moment; if the sample itself is off the same way by its own, it
 * is marked.  Both must move: a constant neighbour does not mark a
 * region's own slow mode.  A region alone in its thread is never marked:
 * one region cannot tell.  A region with a step of its own is no witness
 * by its median (half its samples sit off it), so once the test has
 * taken the machine's samples out of it, its own levels are found again
 * from the rest, and it is judged and used as a witness against the
 * level it held at each moment (moments_again): beside a region that
 * steps, a constant region amid a turbulent host is told the machine's
 * moments too, not only the ones its phases could hold.
 *
 * Then each group separates what followed the machine from its own.  A
 * machine change away from a level, then only machine changes until one
 * back to that level, brackets a shifted period (SBT_PH_MACHINE): an
 * excursion of the machine.  The level it left is one the group settled
 * at: a phase the machine both entered and left is the machine's, not a
 * level to come back to, and a change back to the settled level opens
 * no period (else the region's own new level between two host slowdowns
 * reads as an excursion from the slowdown).  A change the machine makes
 * and keeps is named, not cut out, and is not the region's step either - unless
 * as many of the event's regions came back to their level as kept it:
 * then the machine did not keep it, and the regions that did made a
 * change of their own at that instant (own_keeps; "came back" includes
 * the change that is itself the way back).  The samples
 * of shifted periods and moments are marked SBT_MK_MACHINE and left out
 * of the group's own scoring, as warm-ups and excursions are; so are its
 * probes taken then (mark_probes); and its steps and excursions are named
 * again without them (here for the shifted periods; the phases are
 * searched again without all of them by run.c's own_phases).
 *
 * Two witnesses.  The speed probes (speed.c) take the samples of the
 * processor's shifts out of a group's phases before this runs; were the
 * coincidence test to look at those phases, it would never see what the
 * probes saw, and could neither confirm nor contradict them.  So it looks
 * at the group's witness phases (wphases: those samples left in) where
 * there are any, and a change found there marks the group's own phase
 * that starts at the same instant the same way, if one does (a change
 * the probes took out has none: nothing of the group's is left to mark).
 */
#include "machine.h"
#include "phase.h"
#include "sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SBT_MACHINE_SAMPLES 20.0
#define SBT_MACHINE_NEAR    9

struct change {
	double t_ns, tol_ns;   /* instant, and the detector's resolution */
	double rel;            /* (after - before) / before               */
	uint32_t group;        /* index into res->g                       */
	int phase;             /* the phase it starts in its group's phases,
				  -1: none (a change of wphases only)     */
	unsigned cpu;          /* where that phase ran                    */
};

static int cmp_change(const void *a, const void *b)
{
	const struct change *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return (x->group > y->group) - (x->group < y->group);
}

/* The phase of g's own phases that starts within tol of t, changing the
 * same way as rel; -1 for none. */
static int own_phase(const struct sbt_group *g, double t, double tol,
		     double rel)
{
	const struct sbt_phases *p = &g->phases;

	for (int k = 1; k < p->nphases; k++) {
		double m0 = p->ph[k - 1].level_ns, m1 = p->ph[k].level_ns;
		if (fabs(p->ph[k].t_begin_ns - t) <= tol && m0 > 0 &&
		    (m1 > m0) == (rel > 0))
			return k;
	}
	return -1;
}

/* The changes of one group's witness phases (its phases when it has
 * none), appended to c[*n]. */
static void collect(const struct sbt_group *g, uint32_t gi,
		    struct change *c, size_t *n)
{
	const struct sbt_phases *p = g->wphases ? g->wphases : &g->phases;
	const struct sbt_phase *first = &p->ph[0], *last;
	double span, tol;
	size_t total = 0;

	if (p->nphases < 2)
		return;
	last = &p->ph[p->nphases - 1];
	for (int k = 0; k < p->nphases; k++)
		total += p->ph[k].n;
	span = last->t_end_ns - first->t_begin_ns;
	if (!(span > 0))
		return;         /* no time base (CSV without t_ns) */
	tol = SBT_MACHINE_SAMPLES * span / (double)(total > 1 ? total - 1 : 1);
	for (int k = 1; k < p->nphases; k++) {
		double m0 = p->ph[k - 1].level_ns, m1 = p->ph[k].level_ns;
		if (!(m0 > 0))
			continue;
		struct change x = {
			.t_ns = p->ph[k].t_begin_ns, .tol_ns = tol,
			.rel = (m1 - m0) / m0, .group = gi, .phase = k,
			.cpu = p->ph[k].cpu,
		};
		if (g->wphases)
			x.phase = own_phase(g, x.t_ns, tol, x.rel);
		c[(*n)++] = x;
	}
}

/* The spans of the levels before and after the event's change, from
 * its first member with a phase of its own (e->slow_t0 NAN: none). */
static void spans(const struct sbt_result *res, const struct change *const *m,
		  size_t n, struct sbt_machine_event *e)
{
	e->slow_t0 = e->slow_t1 = e->fast_t0 = e->fast_t1 = NAN;
	e->pre_slow = e->pre_fast = NAN;
	for (size_t i = 0; i < n; i++) {
		const struct sbt_phases *p = &res->g[m[i]->group].phases;
		int k = m[i]->phase;
		if (k < 1 || k >= p->nphases)
			continue;
		const struct sbt_phase *a = &p->ph[k - 1], *b = &p->ph[k];
		const struct sbt_phase *slow = m[i]->rel > 0 ? b : a;
		const struct sbt_phase *fast = m[i]->rel > 0 ? a : b;
		e->slow_t0 = slow->t_begin_ns, e->slow_t1 = slow->t_end_ns;
		e->fast_t0 = fast->t_begin_ns, e->fast_t1 = fast->t_end_ns;
		return;
	}
}

/*
 * Whose the event is: a region slowed where the kernel's record shows
 * the threads preempted more than at its level before or after is the
 * OS's (another task had the cpu), not the machine's.  Every sample of
 * the source in each span counts, whatever its region or thread: a
 * thread that waits for a preempted one slows without a switch of its
 * own.
 */
static void os_witness(const struct sbt_dataset *ds, struct sbt_result *res)
{
	const uint32_t skip = SBT_SF_PROBE | SBT_SF_CALIB | SBT_SF_RESET;

	for (size_t k = 0; k < res->nev; k++) {
		struct sbt_machine_event *e = &res->ev[k];
		size_t ns = 0, ps = 0, nf = 0, pf = 0;
		e->os = 0;
		if (!isfinite(e->slow_t0))
			continue;
		for (size_t i = 0; i < ds->n; i++) {
			const struct sbt_sample *x = &ds->s[i];
			if (x->source != e->source || x->flags & skip)
				continue;
			int pre = !!(x->flags & SBT_SF_PREEMPTED);
			if (x->t_ns >= e->slow_t0 && x->t_ns <= e->slow_t1)
				ns++, ps += (size_t)pre;
			else if (x->t_ns >= e->fast_t0 &&
				 x->t_ns <= e->fast_t1)
				nf++, pf += (size_t)pre;
		}
		e->pre_slow = ns ? (double)ps / (double)ns : NAN;
		e->pre_fast = nf ? (double)pf / (double)nf : NAN;
		e->os = ns && nf && e->pre_slow - e->pre_fast >=
			SBT_MACHINE_OS_GAP;
	}
}

/* Turn the cluster m[0..n) (changes of distinct groups) into an event if
 * it spans two regions: 1 if it did, 0 if not, -1 on allocation failure. */
static int event(struct sbt_result *res, const struct change *const *m,
		 size_t n, size_t *cap)
{
	struct sbt_machine_event e = { 0 };
	double rel[64];
	size_t nrel = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t r = res->g[m[i]->group].region;
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = res->g[m[j]->group].region == r;
		if (seen)
			continue;
		if (e.nregions < SBT_MACHINE_MAX_REGIONS)
			e.regions[e.nregions] = r;
		e.nregions++;
	}
	if (e.nregions < 2)
		return 0;
	for (size_t i = 0; i < n; i++) {
		struct sbt_group *g = &res->g[m[i]->group];
		if (m[i]->phase >= 0) {
			/* which event: own_keeps() compares its members */
			g->phases.ph[m[i]->phase].machine = (int)res->nev + 1;
			g->machine_changes++;
		}
		if (nrel < sizeof rel / sizeof rel[0])
			rel[nrel++] = m[i]->rel;
	}
	qsort(rel, nrel, sizeof rel[0], sbt_cmp_double);
	spans(res, m, n, &e);
	e.source = res->g[m[0]->group].source;
	e.t_ns = m[0]->t_ns;
	e.cpu = m[0]->cpu;
	e.change = nrel % 2 ? rel[nrel / 2] :
		   0.5 * (rel[nrel / 2 - 1] + rel[nrel / 2]);
	if (res->nev == *cap) {
		size_t nc = *cap ? 2 * *cap : 16;
		void *p = realloc(res->ev, nc * sizeof *res->ev);
		if (!p)
			return -1;
		res->ev = p, *cap = nc;
	}
	res->ev[res->nev++] = e;
	return 1;
}

/* Cluster the changes of one source, c[0..n) sorted by time: a cluster
 * takes, from its earliest change on, every change not yet taken that
 * lies within both resolutions, goes the same way and belongs to a
 * group not in it yet. */
static int cluster(struct sbt_result *res, const struct change *c,
		   size_t n, size_t *cap)
{
	const struct change **m = malloc(n * sizeof *m);
	uint8_t *used = calloc(n, 1);
	double tol_max = 0;
	int rc = 0;

	if (!m || !used) {
		free(m), free(used);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		tol_max = fmax(tol_max, c[i].tol_ns);
	for (size_t i = 0; i < n && rc == 0; i++) {
		size_t k = 0;
		if (used[i])
			continue;
		m[k++] = &c[i];
		for (size_t j = i + 1; j < n && c[j].t_ns - c[i].t_ns <=
		     c[i].tol_ns + tol_max; j++) {
			int dup = 0;
			if (used[j] || (c[j].rel > 0) != (c[i].rel > 0) ||
			    c[j].t_ns - c[i].t_ns > c[i].tol_ns + c[j].tol_ns)
				continue;
			for (size_t q = 0; q < k && !dup; q++)
				dup = m[q]->group == c[j].group;
			if (!dup) {
				used[j] = 1;
				m[k++] = &c[j];
			}
		}
		rc = event(res, m, k, cap);
		if (rc == 0)            /* no event: the others stay free */
			for (size_t q = 1; q < k; q++)
				used[m[q] - c] = 0;
		rc = rc < 0 ? -1 : 0;
	}
	free(m), free(used);
	return rc;
}

/* The samples p's phases hold. */
static size_t phase_total(const struct sbt_phases *p)
{
	size_t total = 0;

	for (int k = 0; k < p->nphases; k++)
		total += p->ph[k].n;
	return total;
}

/* Whether phase j is the machine's: entered and left by machine changes.
 * However long, such a level is no level of the region's to come back
 * to (a host slowdown of a few ms holds more than an excursion's share
 * of a short run). */
static int machine_period(const struct sbt_phases *p, int j)
{
	int a = j, b = j + 1;

	/* through transients: the detector may cut a short phase at the
	 * machine's edge and then the level it moved to, a change of no
	 * one's (the edge's trimmed mean between the two levels) */
	while (a > 1 && !p->ph[a].machine &&
	       p->ph[a - 1].kind == SBT_PH_TRANSIENT)
		a--;
	while (b + 1 < p->nphases && !p->ph[b].machine &&
	       p->ph[b].kind == SBT_PH_TRANSIENT)
		b++;
	return j >= 1 && b < p->nphases && p->ph[a].machine &&
	       p->ph[b].machine;
}

/* The level p had settled at before phase a: that of the nearest phase
 * before a holding at least SBT_PHASE_TRANS_FRAC of its samples, or
 * ph[a-1]'s when none does.  A shorter phase is an excursion itself: the
 * host's turbulence passes through levels it never keeps, and a level
 * met in passing is no level to come back to (a region's own step among
 * such turbulence once read as the machine's because a later passing
 * level matched an earlier one). */
static double settled_before(const struct sbt_phases *p, int a, size_t total)
{
	for (int j = a - 1; j >= 0; j--)
		if ((double)p->ph[j].n >= SBT_PHASE_TRANS_FRAC * (double)total &&
		    !machine_period(p, j))
			return p->ph[j].level_ns;
	return p->ph[a - 1].level_ns;
}

/* The shifted periods of p: in[k] = 1 for each phase of the machine's
 * excursions.  A machine change away from the level p had settled at,
 * then only machine changes until one back to it: of the two levels, the
 * one holding fewer of p's samples is the excursion, the other the
 * region's own.  Mostly that is the period inside; when the inside holds
 * half of p's samples or more (this VM's host slows it for up to 10 ms,
 * a whole short run), the phases at the level before and after it are
 * the excursion instead, each where a machine change or the run's start
 * or end bounds it (a warm-up as slow as the machine's last slowdown once
 * bracketed a whole run between them, and left the region no sample of
 * its own).  Whether there is any. */
static int brackets(const struct sbt_phases *p, int in[SBT_PHASE_MAX])
{
	double shift = p->min_shift_ns;
	size_t total = phase_total(p);
	int any = 0, n = p->nphases;

	memset(in, 0, SBT_PHASE_MAX * sizeof *in);
	for (int a = 1; a < n; a++) {
		if (!p->ph[a].machine)
			continue;
		double ref = settled_before(p, a, total);
		size_t inside = p->ph[a].n;
		if (fabs(p->ph[a].level_ns - ref) < shift)
			continue;       /* a way back, not one away */
		for (int b = a + 1; b < n && p->ph[b].machine; b++) {
			if (fabs(p->ph[b].level_ns - ref) < shift) {
				if (2 * inside < total) {
					for (int k = a; k < b; k++)
						in[k] = 1;
				} else {
					in[a - 1] |= a == 1 ||
						     p->ph[a - 1].machine;
					in[b] |= b + 1 == n ||
						 p->ph[b + 1].machine;
				}
				any |= in[a - 1] || in[a] || in[b];
				a = b - 1;
				break;
			}
			inside += p->ph[b].n;
		}
	}
	return any;
}

/* Whether the level p had settled at before phase a (settled_before)
 * is back in phase a or a later one (within the detector's size test):
 * the change into a may itself be the way back (the machine's return
 * from an excursion whose way out p met during levels too short to
 * settle at). */
static int came_back(const struct sbt_phases *p, int a)
{
	double ref = settled_before(p, a, phase_total(p));

	for (int b = a; b < p->nphases; b++)
		if (fabs(p->ph[b].level_ns - ref) < p->min_shift_ns)
			return 1;
	return 0;
}

/* A machine event's change that one region keeps while another region
 * of the same event comes back to its level is not the machine keeping
 * it: the machine came back.  What that region kept is its own change
 * at that instant (a step of its code the host's turbulence happened to
 * meet), and stays its own: the change loses its machine mark, and the
 * region's step is named.  The regions of an event vote: where more of
 * them kept the change than came back, the machine kept it (one region
 * of fifty that later returns to its level, through an event of its own
 * or its code's, does not make the other forty-nine's change theirs). */
static int own_keeps(struct sbt_result *res)
{
	size_t *back = calloc(res->nev + 1, sizeof *back);
	size_t *kept = calloc(res->nev + 1, sizeof *kept);

	if (!back || !kept) {
		free(back), free(kept);
		return -1;
	}
	for (size_t k = 0; k < res->ngroups; k++) {
		const struct sbt_phases *p = &res->g[k].phases;
		for (int a = 1; a < p->nphases; a++)
			if (p->ph[a].machine &&
			    (size_t)p->ph[a].machine <= res->nev) {
				if (came_back(p, a))
					back[p->ph[a].machine - 1]++;
				else
					kept[p->ph[a].machine - 1]++;
			}
	}
	for (size_t k = 0; k < res->ngroups; k++) {
		struct sbt_group *g = &res->g[k];
		struct sbt_phases *p = &g->phases;
		for (int a = 1; a < p->nphases; a++) {
			size_t e = (size_t)p->ph[a].machine - 1;
			if (p->ph[a].machine && e < res->nev && back[e] &&
			    back[e] >= kept[e] && !came_back(p, a)) {
				p->ph[a].machine = 0;
				g->machine_changes--;
			}
		}
	}
	free(back), free(kept);
	return 0;
}

/* Mark the samples of g's shifted periods (see the top comment). */
static void mark(const struct sbt_dataset *ds, const struct sbt_result *res,
		 struct sbt_group *g)
{
	struct sbt_phases *p = &g->phases;
	double shift = p->min_shift_ns;
	int in[SBT_PHASE_MAX], any = brackets(p, in);
	size_t total = 0;

	for (int k = 0; k < p->nphases; k++) {
		total += p->ph[k].n;
		if (in[k])
			p->ph[k].kind = SBT_PH_MACHINE;
	}
	sbt_phase_classify(p, total, shift);  /* its own steps, excursions */
	if (!any)
		return;
	const uint32_t *idx = res->order + g->first;
	for (size_t i = 0; i < g->n; i++) {
		const struct sbt_sample *s = &ds->s[idx[i]];
		if (res->mark[idx[i]] & SBT_MK_DROPPED ||
		    s->source != g->source)
			continue;
		for (int k = 0; k < p->nphases; k++)
			if (in[k] && s->t_ns >= p->ph[k].t_begin_ns &&
			    s->t_ns <= p->ph[k].t_end_ns) {
				res->mark[idx[i]] |= SBT_MK_MACHINE;
				g->machine_n += !(s->flags & SBT_SF_PROBE);
				break;
			}
	}
}

/* What the neighbour test needs of a group. */
struct witness {
	double med;            /* median of its kept samples              */
	struct sbt_phases *own;/* its levels once the machine's samples are
				  out (local_levels); NULL: med throughout */
	double te;             /* the cost subtracted from them           */
	double thr;            /* 2 min_shift / med                       */
	int steady;            /* a witness: p25..p75 within 2 min_shift,
				  or moving only with the others (vote)  */
	size_t off, with;      /* vote: samples off by more than thr, and
				  of those, the ones whose nearest other
				  region's sample is off the same way     */
};

/* w's level at time t: its own level there, else its median. */
static double level_at(const struct witness *w, double t)
{
	const struct sbt_phases *p = w->own;
	int k = 0;

	if (!p)
		return w->med;
	while (k + 1 < p->nphases && p->ph[k + 1].t_begin_ns <= t)
		k++;
	return p->ph[k].level_ns > 0 ? p->ph[k].level_ns : w->med;
}

/* Sorted insertion of x into a[0..n). */
static void insert(double *a, int n, double x)
{
	int i = n;

	while (i > 0 && a[i - 1] > x) {
		a[i] = a[i - 1];
		i--;
	}
	a[i] = x;
}

/* The median relative time of the SBT_MACHINE_NEAR witness samples of
 * other regions nearest to pos[i] in its thread (pos[lo..hi), in time
 * order), and their median threshold; NAN when there are fewer close by
 * (bounded: a thread without witnesses costs 64 looks a sample). */
static double neighbours(const struct sbt_dataset *ds, const uint32_t *pos,
			 const uint32_t *gof, const struct witness *w,
			 size_t lo, size_t hi, size_t i, double *thr)
{
	const struct sbt_sample *x = &ds->s[pos[i]];
	double r[SBT_MACHINE_NEAR], t[SBT_MACHINE_NEAR];
	size_t a = i, b = i + 1, scanned = 0;
	int k = 0;

	while (k < SBT_MACHINE_NEAR && (a > lo || b < hi) &&
	       scanned++ < 64 * SBT_MACHINE_NEAR) {
		size_t j;
		if (b >= hi || (a > lo && x->t_ns - ds->s[pos[a - 1]].t_ns <=
				ds->s[pos[b]].t_ns - x->t_ns))
			j = --a;
		else
			j = b++;
		const struct sbt_sample *y = &ds->s[pos[j]];
		const struct witness *wy = &w[gof[pos[j]]];
		if (y->region == x->region || !wy->steady)
			continue;
		insert(r, k, (y->ns - wy->te) / level_at(wy, y->t_ns));
		insert(t, k, wy->thr);
		k++;
	}
	if (k < SBT_MACHINE_NEAR)
		return NAN;
	*thr = t[k / 2];
	return r[k / 2];
}

static int cmp_time(const void *a, const void *b, void *arg)
{
	const struct sbt_dataset *ds = arg;
	double x = ds->s[*(const uint32_t *)a].t_ns;
	double y = ds->s[*(const uint32_t *)b].t_ns;
	return (x > y) - (x < y);
}

/* The neighbour test over one thread's samples pos[lo..hi). */
static int mark_thread(const struct sbt_dataset *ds, struct sbt_result *res,
		       uint32_t *pos, const uint32_t *gof,
		       const struct witness *w, size_t lo, size_t hi)
{
	int sorted = 1;

	for (size_t i = lo + 1; i < hi && sorted; i++)
		sorted = ds->s[pos[i - 1]].t_ns <= ds->s[pos[i]].t_ns;
	if (!sorted)            /* damaged or merged input: rare */
		qsort_r(pos + lo, hi - lo, sizeof *pos, cmp_time,
			(void *)ds);
	for (size_t i = lo; i < hi; i++) {
		const struct sbt_sample *s = &ds->s[pos[i]];
		const struct witness *ws = &w[gof[pos[i]]];
		double thr, f, own;
		/* the processor's (speed.c) are left out as its already */
		if (res->mark[pos[i]] & (SBT_MK_MACHINE | SBT_MK_SPEED) ||
		    !(ws->med > 0))
			continue;
		own = (s->ns - ws->te) / level_at(ws, s->t_ns) - 1;
		if (!(fabs(own) > ws->thr / 2))
			continue;       /* cheap test first: it did not move */
		f = neighbours(ds, pos, gof, w, lo, hi, i, &thr);
		if (!(fabs(f - 1) > thr) || (own > 0) != (f > 1))
			continue;
		res->mark[pos[i]] |= SBT_MK_MACHINE;
		res->g[gof[pos[i]]].machine_n++;
	}
	return 0;
}

/* Whether sample ix is off its group's median by more than its thr, and
 * which way: +1, -1, or 0. */
static int off_way(const struct sbt_dataset *ds, const uint32_t *gof,
		   const struct witness *w, uint32_t ix)
{
	const struct witness *wx = &w[gof[ix]];
	double own = (ds->s[ix].ns - wx->te) / level_at(wx, ds->s[ix].t_ns) - 1;

	return own > wx->thr ? 1 : own < -wx->thr ? -1 : 0;
}

/* The vote over one thread's samples pos[lo..hi), in time order: for each
 * sample off its level, is the nearest sample of another region off the
 * same way?  A region whose every move is the others' too moves with the
 * machine only, however often the machine moves (a host that slows the
 * VM a third of the time puts its p75 at the slow level). */
static void vote_thread(const struct sbt_dataset *ds, const uint32_t *pos,
			const uint32_t *gof, struct witness *w, size_t lo,
			size_t hi)
{
	for (size_t i = lo; i < hi; i++) {
		const struct sbt_sample *x = &ds->s[pos[i]];
		int way = off_way(ds, gof, w, pos[i]);
		size_t a = i, b = i + 1, j = SIZE_MAX;
		if (!way)
			continue;
		for (int n = 0; n < 64 && j == SIZE_MAX &&
		     (a > lo || b < hi); n++) {
			size_t c;
			if (b >= hi || (a > lo && x->t_ns - ds->s[pos[a - 1]].t_ns
					<= ds->s[pos[b]].t_ns - x->t_ns))
				c = --a;
			else
				c = b++;
			if (ds->s[pos[c]].region != x->region)
				j = c;
		}
		if (j == SIZE_MAX)
			continue;
		w[gof[pos[i]]].off++;
		w[gof[pos[i]]].with += off_way(ds, gof, w, pos[j]) == way;
	}
}

/* Does sample i take part in the neighbour test? */
static int takes_part(const struct sbt_dataset *ds,
		      const struct sbt_result *res, const uint32_t *gof,
		      const struct witness *w, size_t i)
{
	return gof[i] != UINT32_MAX && w[gof[i]].med > 0 &&
	       !(ds->s[i].flags & SBT_SF_PROBE) &&
	       !(res->mark[i] & SBT_MK_DROPPED);
}

/* Mark the samples taken while the other regions of their thread ran
 * shifted (see the top comment).  gof[ix]: the group of sample ix, or
 * UINT32_MAX for none. */
static int mark_moments(const struct sbt_dataset *ds, struct sbt_result *res,
			const uint32_t *gof, struct witness *w, int vote)
{
	uint32_t *pos;
	size_t *start, nthreads = 1, nkeys;
	int rc = 0;

	for (size_t i = 0; i < ds->nsources; i++)
		if (ds->sources[i].nthreads > nthreads)
			nthreads = ds->sources[i].nthreads;
	nkeys = ds->nsources * nthreads;
	pos = malloc((ds->n ? ds->n : 1) * sizeof *pos);
	start = calloc(nkeys + 1, sizeof *start);
	if (!pos || !start) {
		free(pos), free(start);
		return -1;
	}
	/* one counting sort by source and thread, stable: the log holds
	 * each thread's samples in time order already */
	for (size_t i = 0; i < ds->n; i++)
		if (ds->s[i].thread < nthreads &&
		    takes_part(ds, res, gof, w, i))
			start[ds->s[i].source * nthreads + ds->s[i].thread +
			      1]++;
	for (size_t k = 0; k < nkeys; k++)
		start[k + 1] += start[k];
	for (size_t i = 0; i < ds->n; i++)
		if (ds->s[i].thread < nthreads &&
		    takes_part(ds, res, gof, w, i))
			pos[start[ds->s[i].source * nthreads +
				  ds->s[i].thread]++] = (uint32_t)i;
	/* start[k]: now the end of key k's run */
	for (size_t src = 0, lo = 0; src < ds->nsources && rc == 0; src++) {
		size_t *end = start + src * nthreads;
		if (end[nthreads - 1] - lo < 2) {   /* the source's samples */
			lo = end[nthreads - 1];
			continue;
		}
		for (size_t t = 0; t < nthreads; t++) {
			size_t hi = end[t];
			if (vote)
				vote_thread(ds, pos, gof, w, lo, hi);
			else
				rc = mark_thread(ds, res, pos, gof, w, lo, hi);
			if (rc)
				break;
			lo = hi;
		}
	}
	free(pos), free(start);
	return rc;
}

/* A probe is taken at its region's start, just before a sample: when
 * that sample ran in a shifted moment, so did the probe, and the timer's
 * own noise must not be judged on it. */
static void mark_probes(const struct sbt_dataset *ds,
			const struct sbt_result *res,
			const struct sbt_group *g)
{
	const uint32_t *idx = res->order + g->first;
	size_t pending = SIZE_MAX;

	for (size_t i = 0; i < g->n; i++) {
		const struct sbt_sample *s = &ds->s[idx[i]];
		if (s->flags & SBT_SF_PROBE) {
			pending = i;
		} else if (pending != SIZE_MAX && s->thread ==
			   ds->s[idx[pending]].thread) {
			if (res->mark[idx[i]] & SBT_MK_MACHINE)
				res->mark[idx[pending]] |= SBT_MK_MACHINE;
			pending = SIZE_MAX;
		}
	}
}

/* g's levels over time from its samples the machine left alone, into a
 * new w->own: where its own step made it no witness (half its samples
 * off its median, the machine or not), it is one against the level it
 * held at each moment.  0, or -1 on allocation failure. */
static int local_levels(const struct sbt_dataset *ds,
			const struct sbt_result *res,
			const struct sbt_group *g, struct witness *w)
{
	const uint32_t *idx = res->order + g->first;
	size_t n = g->n ? g->n : 1, k = 0;
	double *t = malloc(n * sizeof *t), *v = malloc(n * sizeof *v);
	uint32_t *ix = malloc(n * sizeof *ix);
	int rc = -1, sorted = 1;

	w->own = calloc(1, sizeof *w->own);
	if (!t || !v || !ix || !w->own)
		goto out;
	for (size_t i = 0; i < g->n; i++) {
		const struct sbt_sample *x = &ds->s[idx[i]];
		if (x->source != g->source || x->flags & SBT_SF_PROBE ||
		    res->mark[idx[i]] & (SBT_MK_DROPPED | SBT_MK_SPEED |
					 SBT_MK_MACHINE))
			continue;
		t[k] = x->t_ns;
		ix[k] = idx[i];
		sorted &= k == 0 || t[k - 1] <= t[k];
		k++;
	}
	if (!sorted && sbt_sort_keyed(t, ix, k) != 0)
		goto out;
	for (size_t i = 0; i < k; i++)
		v[i] = ds->s[ix[i]].ns - w->te;
	rc = sbt_phase_detect(t, v, k, g->phases.min_shift_ns, w->own);
	if (rc == 0 && w->own->nphases < 2)
		rc = 1;         /* no step of its own: its median was right */
out:
	if (rc != 0) {
		free(w->own);
		w->own = NULL;
	}
	free(t), free(v), free(ix);
	return rc < 0 ? -1 : 0;
}

/* The neighbour test again, with the regions that were no witness for
 * their own steps seen at their own levels (local_levels).  The samples
 * it marks are counted in machine_late: their group's phases were found
 * with them in. */
static int moments_again(const struct sbt_dataset *ds,
			 struct sbt_result *res, const uint32_t *gof,
			 struct witness *w)
{
	size_t *before = calloc(res->ngroups + 1, sizeof *before);
	int rc = 0, any = 0;

	if (!before)
		return -1;
	for (size_t k = 0; k < res->ngroups && rc == 0; k++) {
		w[k].off = w[k].with = 0;
		before[k] = res->g[k].machine_n;
		if (!w[k].steady && w[k].med > 0 && res->g[k].machine_n &&
		    res->g[k].phases.min_shift_ns > 0)
			rc = local_levels(ds, res, &res->g[k], &w[k]);
		any |= w[k].own != NULL;
	}
	if (rc == 0 && any && (rc = mark_moments(ds, res, gof, w, 1)) == 0) {
		any = 0;
		for (size_t k = 0; k < res->ngroups; k++)
			if (w[k].own && w[k].off > 0 &&
			    10 * w[k].with >= 9 * w[k].off)
				any = w[k].steady = 1;
			else if (w[k].own) {
				free(w[k].own);
				w[k].own = NULL;
			}
		if (any)
			rc = mark_moments(ds, res, gof, w, 0);
	}
	for (size_t k = 0; k < res->ngroups; k++) {
		res->g[k].machine_late = res->g[k].machine_n - before[k];
		free(w[k].own);
		w[k].own = NULL;
	}
	free(before);
	return rc;
}

/* The neighbour test, where it can say something: in a source with
 * two regions or more, one of them a steady witness. */
static int moments(const struct sbt_dataset *ds, struct sbt_result *res,
		   const uint32_t *gof)
{
	struct witness *w = calloc(res->ngroups + 1, sizeof *w);
	int rc = 0, any = 0;

	if (!w)
		return -1;
	for (size_t k = 0; k < res->ngroups; k++) {
		const struct sbt_group *g = &res->g[k];
		double shift = g->phases.min_shift_ns;
		w[k].med = g->st.median;
		w[k].te = g->te_ns;
		w[k].thr = 2 * shift / g->st.median;
		w[k].steady = g->st.median > 0 && shift > 0 &&
			      g->iqr_ns <= 2 * shift;
		any |= w[k].steady;
	}
	if (res->ngroups >= 2 && (rc = mark_moments(ds, res, gof, w, 1)) == 0)
		for (size_t k = 0; k < res->ngroups; k++) {
			/* nine in ten: a coincidence now and then is not
			 * a region's own mode */
			w[k].steady |= w[k].med > 0 && w[k].off > 0 &&
				       10 * w[k].with >= 9 * w[k].off;
			any |= w[k].steady;
		}
	if (rc == 0 && any && res->ngroups >= 2)
		rc = mark_moments(ds, res, gof, w, 0);
	if (rc == 0 && any && res->ngroups >= 2)
		rc = moments_again(ds, res, gof, w);
	free(w);
	for (size_t k = 0; k < res->ngroups && rc == 0; k++)
		if (res->g[k].machine_n)
			mark_probes(ds, res, &res->g[k]);
	return rc;
}

int sbt_machine_events(const struct sbt_dataset *ds, struct sbt_result *res,
		       const uint32_t *gid)
{
	struct change *c;
	size_t n = 0, cap = 0;
	int rc = 0;

	res->ev = NULL, res->nev = 0;
	for (size_t k = 0; k < res->ngroups; k++) {
		res->g[k].machine_changes = 0;
		res->g[k].machine_n = 0;
		res->g[k].machine_late = 0;
		n += res->g[k].wphases ? res->g[k].wphases->nphases :
		     res->g[k].phases.nphases;
	}
	if (!(c = malloc((n ? n : 1) * sizeof *c)))
		return -1;
	/* one source at a time: only its groups share a clock */
	for (uint32_t src = 0; src < ds->nsources && rc == 0; src++) {
		size_t m = 0;
		for (size_t k = 0; k < res->ngroups; k++)
			if (res->g[k].source == src)
				collect(&res->g[k], (uint32_t)k, c, &m);
		if (m < 2)
			continue;
		qsort(c, m, sizeof *c, cmp_change);
		rc = cluster(res, c, m, &cap);
	}
	free(c);
	if (rc == 0)
		os_witness(ds, res);
	if (rc == 0)
		rc = own_keeps(res);
	for (size_t k = 0; k < res->ngroups && rc == 0; k++)
		if (res->g[k].machine_changes)
			mark(ds, res, &res->g[k]);
	if (rc == 0)
		rc = moments(ds, res, gid);
	return rc;
}
