/*
 * changes.h - a group's changes over time, in time order (changes.c): a
 * step and its return folded into one dip (or bump) with its net change,
 * the transient excursions together, the warm-up.  Steps only: modes and
 * groups have no time.
 */
#ifndef SBT_CHANGES_H
#define SBT_CHANGES_H

#include "result.h"

enum sbt_change_kind { SBT_CH_STEP, SBT_CH_DIP, SBT_CH_WARMUP,
		       SBT_CH_TRANSIENTS };
struct sbt_change {
	int kind;
	double t_ns, t_end_ns;        /* where (a dip: until it returned);
					 sample numbers when untimed       */
	double from_ns, to_ns;        /* the level before and during       */
	double back_ns;               /* a dip: the level it returned to   */
	double rel;                   /* step: to / from - 1; dip: the
					 excursion; transients: the largest */
	double net_rel;               /* dip: back / from - 1               */
	size_t n;                     /* warm-up, transients: samples      */
	int count;                    /* transients: how many              */
};
#define SBT_CHANGES_MAX (SBT_PHASE_MAX + 2)
/* g's changes into ch (SBT_CHANGES_MAX of them at most); how many. */
int sbt_group_changes(const struct sbt_group *g, struct sbt_change *ch);
/* Where phase k of p begins (end 0) or ends (end 1): ns, or its sample
 * number when p is untimed. */
double sbt_phase_t(const struct sbt_phases *p, int k, int end);
/* Net lasting steps and dips among them. */
void sbt_changes_count(const struct sbt_change *ch, int n, int *steps,
		       int *dips);

#endif
