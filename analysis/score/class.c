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
	if (x) {
		switch (x->kind) {
		case SBT_FIND_STEP: {
			struct sbt_change ch[SBT_CHANGES_MAX];
			int steps, dips, n = sbt_group_changes(g, ch);
			sbt_changes_count(ch, n, &steps, &dips);
			return steps == 1 && dips == 0 ? SBT_CL_STEP :
			       SBT_CL_PHASES;
		}
		case SBT_FIND_MODES: return SBT_CL_MODES;
		case SBT_FIND_GROUP:
			return g->delta_ns > 0 ? SBT_CL_SLOW_GROUP :
			       SBT_CL_FAST_GROUP;
		case SBT_FIND_BROAD: return SBT_CL_BROAD;
		case SBT_FIND_OS_TIME:
		case SBT_FIND_OS_SPREAD: return SBT_CL_OS;
		case SBT_FIND_PROCESSOR: return SBT_CL_PROCESSOR;
		case SBT_FIND_WAIT:
			/* waits the kernel's record gives to the OS */
			return x->flags & SBT_FX_WAIT_OS ? SBT_CL_OS :
			       SBT_CL_SLOW_GROUP;
		case SBT_FIND_GROUPS: return SBT_CL_SLOW_GROUP;
		case SBT_FIND_TIME:  return SBT_CL_PHASES;
		case SBT_FIND_FEW:   return SBT_CL_FEW;
		default:             return SBT_CL_OTHER;
		}
	}
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
