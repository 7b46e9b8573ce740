/*
 * changes.c - a group's changes over time in time order (changes.h): its
 * steps, a step and its return folded into one dip (or bump) with its
 * net change, the warm-up, the transient excursions together.  Data for
 * the class (class.c) and the words (report/words.c).
 */
#include "changes.h"

#include <math.h>

/* The steps in time order: phase index, level before, level after. */
struct step { int phase; double from, to; };

static int steps_in_order(const struct sbt_phases *p, struct step *st)
{
	int n = 0;

	for (int k = 0; k < p->nsteps && k < SBT_PHASE_MAX; k++) {
		struct step x = { p->step[k], p->step_from_ns[k],
				  p->ph[p->step[k]].level_ns };
		int j = n++;
		while (j > 0 && st[j - 1].phase > x.phase) {
			st[j] = st[j - 1];
			j--;
		}
		st[j] = x;
	}
	return n;
}

double sbt_phase_t(const struct sbt_phases *p, int k, int end)
{
	if (p->untimed)
		return (double)(end ? p->ph[k].first + p->ph[k].n - 1 :
				p->ph[k].first);
	return end ? p->ph[k].t_end_ns : p->ph[k].t_begin_ns;
}

static void put_change(struct sbt_change *ch, int *n, struct sbt_change c)
{
	int j = (*n)++;

	while (j > 0 && ch[j - 1].t_ns > c.t_ns) {
		ch[j] = ch[j - 1];
		j--;
	}
	ch[j] = c;
}

int sbt_group_changes(const struct sbt_group *g, struct sbt_change *ch)
{
	const struct sbt_phases *p = &g->phases;
	struct step st[SBT_PHASE_MAX];
	int ns = steps_in_order(p, st), n = 0;

	for (int k = 0; k < ns; k++) {
		struct sbt_change c = { .kind = SBT_CH_STEP,
			.t_ns = sbt_phase_t(p, st[k].phase, 0),
			.from_ns = st[k].from,
			.to_ns = st[k].to,
			.rel = st[k].from != 0 ? st[k].to / st[k].from - 1 : 0 };
		/* a step whose next one brings the level more than half
		 * way back, the other way: one dip (or bump), net change */
		if (k + 1 < ns) {
			double d1 = st[k].to - st[k].from;
			double d2 = st[k + 1].to - st[k + 1].from;
			double back = st[k + 1].to - st[k].from;
			if (d1 * d2 < 0 && fabs(back) < 0.5 * fabs(d1)) {
				c.kind = SBT_CH_DIP;
				c.t_end_ns = sbt_phase_t(p, st[k + 1].phase, 0);
				c.back_ns = st[k + 1].to;
				c.net_rel = st[k].from != 0 ?
					    back / st[k].from : 0;
				k++;
			}
		}
		put_change(ch, &n, c);
	}
	if (p->warmup_n) {
		int w = 0;
		while (w < p->nphases && p->ph[w].kind == SBT_PH_WARMUP)
			w++;
		struct sbt_change c = { .kind = SBT_CH_WARMUP,
			.t_ns = sbt_phase_t(p, 0, 0),
			.t_end_ns = w > 0 ? sbt_phase_t(p, w - 1, 1) : NAN,
			.from_ns = p->ph[0].level_ns,
			.to_ns = w < p->nphases ? p->ph[w].level_ns : NAN,
			.n = p->warmup_n };
		put_change(ch, &n, c);
	}
	if (p->ntransients) {
		int first = -1;
		for (int k = 0; k < p->nphases && first < 0; k++)
			if (p->ph[k].kind == SBT_PH_TRANSIENT)
				first = k;
		struct sbt_change c = { .kind = SBT_CH_TRANSIENTS,
			.t_ns = first >= 0 ? sbt_phase_t(p, first, 0) : 0,
			.rel = p->transient_max,
			.n = p->transient_n, .count = p->ntransients };
		put_change(ch, &n, c);
	}
	return n;
}

void sbt_changes_count(const struct sbt_change *ch, int n, int *steps,
		       int *dips)
{
	*steps = *dips = 0;
	for (int k = 0; k < n; k++) {
		*steps += ch[k].kind == SBT_CH_STEP;
		*dips += ch[k].kind == SBT_CH_DIP;
	}
}

/* A place in the run: "61.2 ms", or "sample 4000" without times. */
