/*
 * class.c - what a group's time does, in one class (class.h): decided
 * here, from its findings and numbers, once for every report; the word
 * is report/words.c's.
 */
#include "class.h"
#include "changes.h"

#include <math.h>

const struct sbt_finding *sbt_finding_major(const struct sbt_group *g)
{
	for (int k = 0; k < g->nfind; k++)
		if (!g->find[k].minor)
			return &g->find[k];
	return NULL;
}

const struct sbt_finding *sbt_finding_of(const struct sbt_group *g, int kind)
{
	for (int k = 0; k < g->nfind; k++)
		if (g->find[k].kind == kind)
			return &g->find[k];
	return NULL;
}

static int processor_share_large(const struct sbt_group *g)
{
	return g->count && (double)g->speed_n >=
		SBT_CLASS_LARGE * (double)g->count;
}

/* The class a group takes from its largest alarm x: its kind's
 * (SBT_FINDINGS), refined where the kind alone does not tell. */
static int finding_class(const struct sbt_group *g,
			 const struct sbt_finding *x)
{
	static const int cls[SBT_FIND__N] = {
#define KIND_CLASS(kind, json, cl, clause) [SBT_FIND_##kind] = cl,
		SBT_FINDINGS(KIND_CLASS)
#undef KIND_CLASS
	};

	if (x->kind < 0 || x->kind >= SBT_FIND__N)
		return SBT_CL_OTHER;
	switch (x->kind) {
	case SBT_FIND_STEP: {           /* one step, or phases */
		struct sbt_change ch[SBT_CHANGES_MAX];
		int steps, dips, n = sbt_group_changes(g, ch);
		sbt_changes_count(ch, n, &steps, &dips);
		return steps == 1 && dips == 0 ? SBT_CL_STEP : SBT_CL_PHASES;
	}
	case SBT_FIND_GROUP:
		return g->delta_ns > 0 ? SBT_CL_SLOW_GROUP : SBT_CL_FAST_GROUP;
	case SBT_FIND_WAIT:
		/* waits the kernel's record gives to the OS */
		return x->flags & SBT_FX_WAIT_OS ? SBT_CL_OS : cls[x->kind];
	default:
		return cls[x->kind];
	}
}

int sbt_group_class(const struct sbt_group *g)
{
	const struct sbt_score *s = &g->score;
	const struct sbt_finding *x = sbt_finding_major(g);

	if (s->n < SBT_CLASS_FEW)
		return SBT_CL_FEW;
	/* The processor's part, left out, outweighs the largest alarm: a
	 * region that mostly followed the processor is the processor's. */
	const struct sbt_finding *p = sbt_finding_of(g, SBT_FIND_PROCESSOR);
	if (x && p && processor_share_large(g) && p->var_share > x->var_share)
		return SBT_CL_PROCESSOR;
	if (x)
		return finding_class(g, x);
	/* levels over time in what was judged: the machine's where a
	 * probe axis moved with them (the OS's where it shared the cpu),
	 * else unexplained; before what the processor's shifts left out;
	 * levels closer than min_share of its time leave it steady */
	const struct sbt_finding *l = sbt_finding_of(g, SBT_FIND_LEVELS);
	if (l && fabs(l->rel) >= g->said.min_share)
		return l->flags & SBT_FX_BY_OS ? SBT_CL_OS :
		       l->flags & (SBT_FX_BY_SPEED | SBT_FX_BY_MEMORY) ?
		       SBT_CL_MACHINE : SBT_CL_UNEXPLAINED;
	if (processor_share_large(g))
		return SBT_CL_PROCESSOR;
	/* A region shorter than a clock step is judged at the step: its
	 * typical time is below what the clock tells, not unresolved. */
	double typ = s->median_ns > g->quantum_ns || !isfinite(g->quantum_ns) ?
		     s->median_ns : g->quantum_ns;
	if (s->resolvable < 0 || !isfinite(s->shift_resolution_ns) ||
	    s->shift_resolution_ns > SBT_CLASS_UNRESOLVED * typ)
		return SBT_CL_UNRESOLVED;
	return SBT_CL_STEADY;
}
