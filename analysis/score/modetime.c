/*
 * modetime.c - the code's modes against levels over time (modetime.h).
 *
 * Two modes are interleaved when, among the calls of the two taken in
 * time order, windows of consecutive calls hold them at their pooled
 * shares: each window's share of the smaller one within SBT_SCORE_Z
 * binomial errors of its share over the run, in half the windows or
 * more; and the smaller one does not follow itself more than RUN_X
 * times as often as its share (beyond chance): calls slowed in bursts
 * of a few are levels too, however evenly the bursts spread.  A window
 * is long enough (WIN_K (1-p)/p calls) that a window holding none of
 * the smaller mode is outside that band, so levels that
 * take turns fail the test whatever their shares; calls misassigned
 * between two close modes are noise independent of time and do not.
 * The modes interleaved with each other, transitively, are one family;
 * the family of two modes or more with the most calls is the code's, the
 * other modes are levels over time.  Pairs too small to judge (fewer
 * than WIN_MIN windows) count as interleaved: nothing is taken from the
 * code without evidence.
 */
#include "modetime.h"
#include "mark.h"
#include "jobs.h"
#include "sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WIN_K    16.0  /* window length in units of (1-p)/p         */
#define WIN_LEN  8     /* calls a window at least                   */
#define WIN_MIN  8     /* windows a pair at least, else interleaved */
#define RUN_X    2.0   /* the smaller mode after itself: this times its
			  share, and beyond chance, is in runs        */

/* The nearest mode of each value: the boundaries are the midpoints. */
static void assign(const double *v, size_t n, const struct sbt_mode *m,
		   int nm, uint8_t *a)
{
	for (size_t i = 0; i < n; i++) {
		int k = 0;
		while (k + 1 < nm && v[i] > 0.5 * (m[k].center_ns +
						   m[k + 1].center_ns))
			k++;
		a[i] = (uint8_t)k;
	}
}

/* Whether modes x and y are interleaved (see the top). */
static int interleaved(const uint8_t *a, size_t n, int x, int y)
{
	size_t nx = 0, ny = 0;

	for (size_t i = 0; i < n; i++)
		nx += a[i] == x, ny += a[i] == y;
	if (!nx || !ny)
		return 1;
	int small = nx <= ny ? x : y;
	double p = (double)(nx <= ny ? nx : ny) / (double)(nx + ny);
	size_t w = (size_t)ceil(WIN_K * (1 - p) / p);
	if (w < WIN_LEN)
		w = WIN_LEN;
	if ((nx + ny) / w < WIN_MIN)
		return 1;
	double tol = SBT_SCORE_Z * sqrt(p * (1 - p) / (double)w);
	size_t in = 0, wins = 0, c = 0, s = 0, after = 0, again = 0;
	int prev = -1;
	for (size_t i = 0; i < n; i++) {
		if (a[i] != x && a[i] != y)
			continue;
		if (prev == small)
			after++, again += a[i] == small;
		prev = a[i];
		s += a[i] == small;
		if (++c < w)
			continue;
		in += fabs((double)s / (double)w - p) <= tol;
		wins++;
		c = s = 0;
	}
	/* in runs: the smaller mode follows itself far more often than
	 * its share (a code's modes alternate, or follow at random) */
	double q = after ? (double)again / (double)after : 0;
	if (after && q > RUN_X * p &&
	    q - p > SBT_SCORE_Z * sqrt(p * (1 - p) / (double)after))
		return 0;
	return 2 * in >= wins;
}

static int root(int *up, int i)
{
	while (up[i] != i)
		i = up[i] = up[up[i]];
	return i;
}

unsigned sbt_mode_levels(const double *v, size_t n, const struct sbt_mode *m,
			 int nm, uint8_t *a)
{
	int up[SBT_SCORE_MAX_MODES];
	double held[SBT_SCORE_MAX_MODES] = { 0 };
	int size[SBT_SCORE_MAX_MODES] = { 0 };

	if (nm < 2 || nm > SBT_SCORE_MAX_MODES)
		return 0;
	assign(v, n, m, nm, a);
	for (int i = 0; i < nm; i++)
		up[i] = i;
	for (int i = 0; i < nm; i++)
		for (int j = i + 1; j < nm; j++)
			if (root(up, i) != root(up, j) &&
			    interleaved(a, n, i, j))
				up[root(up, j)] = root(up, i);
	for (int i = 0; i < nm; i++) {
		held[root(up, i)] += m[i].share;
		size[root(up, i)]++;
	}
	int code = -1;
	for (int i = 0; i < nm; i++)
		if (size[i] >= 2 && (code < 0 || held[i] > held[code]))
			code = i;
	unsigned bits = 0;
	for (int i = 0; i < nm; i++)
		if (root(up, i) != code)
			bits |= 1u << i;
	return bits;
}

/* ---- the groups ---------------------------------------------------------- */

/* Whether t_ns of source src falls in one of sh[0..n) (a thread's
 * shift: of that thread; a cpu's: on that cpu). */
static int in_shift(const struct sbt_speed_shift *sh, size_t n,
		    const struct sbt_sample *s)
{
	for (size_t k = 0; k < n; k++) {
		const struct sbt_speed_shift *h = &sh[k];
		if (h->source != s->source || s->t_ns < h->t0_ns ||
		    s->t_ns > h->t1_ns)
			continue;
		if (h->thread == SBT_SPEED_ALL_THREADS ? s->cpu_start == h->cpu
						       : s->thread == h->thread)
			return 1;
	}
	return 0;
}

/* The levels out of g->score.modes into g->level; the code's modes
 * that stay take their shares over themselves (they sum to 1). */
static void split(struct sbt_group *g)
{
	struct sbt_score *s = &g->score;
	double held = 0;
	int k = 0;

	g->nlevel = 0;
	for (int m = 0; m < s->nmodes; m++)
		if (g->levels >> m & 1)
			g->level[g->nlevel++] = s->modes[m];
		else
			held += s->modes[m].share;
	for (int m = 0; m < s->nmodes; m++)
		if (!(g->levels >> m & 1)) {
			s->modes[k] = s->modes[m];
			s->modes[k++].share = held > 0 ? s->modes[m].share / held
						       : 0;
		}
	s->nmodes = k;
}

struct job {
	const struct sbt_dataset *ds;
	const struct sbt_options *o;
	struct sbt_result *res;
};

/* The axis that moved where most of a group's level calls were, when
 * it holds half of them or more (enum sbt_axis). */
static int axis_of(const struct sbt_result *res, const size_t *on, size_t n)
{
	int best = SBT_AXIS_NONE;

	for (int k = SBT_AXIS_SPEED; k < SBT_AXIS__N; k++)
		if (2 * on[k] >= n && n && (best == SBT_AXIS_NONE ||
					    on[k] > on[best]))
			best = k;
	(void)res;
	return best;
}

static void group_levels(void *arg, size_t k, int t)
{
	const struct job *j = arg;
	const struct sbt_dataset *ds = j->ds;
	struct sbt_result *res = j->res;
	struct sbt_group *g = &res->g[k];
	const struct sbt_score *s = &g->score;
	const unsigned out = SBT_MK_DROPPED | SBT_MK_TRANSIENT |
			     SBT_MK_MACHINE | SBT_MK_SPEED | SBT_MK_AFTER_PROBE;
	double *tv = NULL, *v = NULL;
	uint32_t *ix = NULL;
	uint8_t *a = NULL;
	size_t n = 0;

	(void)t;
	g->levels = 0;
	g->levels_axis = SBT_AXIS_NONE;
	g->levels_n = 0;
	g->nlevel = 0;
	/* where the verdict says the decomposition's modes, those stand */
	if (s->nmodes < 2 || g->barrier || g->decomp.c[SBT_COMP_OS].resolved ||
	    (g->decomp.c[SBT_COMP_GROUPS].resolved &&
	     j->o->by == SBT_BY_NONE))
		return;
	if (!(tv = malloc(g->n * sizeof *tv)) ||
	    !(v = malloc(g->n * sizeof *v)) ||
	    !(ix = malloc(g->n * sizeof *ix)) || !(a = malloc(g->n)))
		goto out;
	for (size_t i = g->first; i < g->first + g->n; i++) {
		uint32_t si = res->order[i];
		const struct sbt_sample *x = &ds->s[si];
		/* several logs: no common clock; several threads: their
		 * calls side by side in time are no sequence (a barrier's
		 * modes are which thread came last) */
		if (x->source != g->source || x->thread != ds->s[
		    res->order[g->first]].thread)
			goto out;
		if ((x->flags & SBT_SF_PROBE) || (res->mark[si] & out))
			continue;
		tv[n] = x->t_ns;
		ix[n++] = si;
	}
	if (sbt_sort_keyed(tv, ix, n) != 0)
		goto out;
	double cost = sbt_cost_of(j->o, &ds->sources[g->source]);
	for (size_t i = 0; i < n; i++)
		v[i] = ds->s[ix[i]].ns - cost;
	g->levels = sbt_mode_levels(v, n, s->modes, s->nmodes, a);
	if (!g->levels)
		goto out;
	split(g);
	/* where the level calls were: inside a shift of which axis */
	size_t on[SBT_AXIS__N] = { 0 };
	for (size_t i = 0; i < n; i++) {
		const struct sbt_sample *x = &ds->s[ix[i]];
		if (!(g->levels >> a[i] & 1))
			continue;
		g->levels_n++;
		on[SBT_AXIS_SPEED] += in_shift(res->speed.sh, res->speed.nsh,
					       x) ||
				      in_shift(res->speed.csh,
					       res->speed.ncsh, x);
		on[SBT_AXIS_MEMORY] += in_shift(res->mem.sh, res->mem.nsh, x);
		on[SBT_AXIS_OS] += in_shift(res->speed.osh, res->speed.nosh,
					    x);
	}
	g->levels_axis = axis_of(res, on, g->levels_n);
out:
	free(tv), free(v), free(ix), free(a);
}

int sbt_modes_in_time(const struct sbt_dataset *ds,
		      const struct sbt_options *o, struct sbt_result *res)
{
	struct job j = { ds, o, res };

	for (size_t k = 0; k < res->ngroups; k++) {
		struct sbt_group *g = &res->g[k];
		g->lone = 1;
		for (size_t i = 0; i < res->ngroups && g->lone; i++)
			g->lone = i == k || res->g[i].source != g->source ||
				  res->g[i].region == g->region ||
				  res->g[i].count < SBT_FEW_SAMPLES;
	}
	sbt_jobs_each(res->ngroups, o->jobs, group_levels, &j);
	return 0;
}
