/*
 * clause.c - each finding kind in words (clause.h): one function a kind,
 * named in its row of SBT_FINDINGS (result.h), that says it in both
 * forms: short, the clause of the group's verdict and of JSON's and
 * CSV's finding text; long, the item of the -v list and of the HTML
 * page, with what its share of the time is.  The two forms say the same
 * finding at two depths; what differs between them is written side by
 * side, so a change to one is made in sight of the other.
 *
 * Nothing here judges: which form a clause takes is the score stage's
 * (the SBT_FX_ flags, g->said).
 */
#include "clause.h"
#include "say.h"
#include "words.h"

#include <math.h>
#include <stdio.h>

typedef void clause_fn(struct sbt_strbuf *o, const struct sbt_group *g,
		       const struct sbt_finding *x, int form, const char *who);

static const char *by_word(enum sbt_by by)
{
	switch (by) {
	case SBT_BY_THREAD: return "thread";
	case SBT_BY_CPU:    return "cpu";
	case SBT_BY_RANK:   return "rank";
	case SBT_BY_HOST:   return "host";
	case SBT_BY_SITE:   return "call site";
	default:            return "group";
	}
}

/* "2 modes 120 ns apart (60 ns 75 %, 180 ns 25 %)" */
static void modes_of(struct sbt_strbuf *o, const struct sbt_mode *md, int nm)
{
	char a[32], c[32];
	double d = md[nm - 1].center_ns - md[0].center_ns;

	sbt_fmt_ns(a, sizeof a, d);
	sbt_put(o, "%d modes %s %s (", nm, a, nm == 2 ? "apart" :
		"from first to last");
	for (int m = 0; m < nm; m++) {
		sbt_fmt_ns(c, sizeof c, md[m].center_ns);
		sbt_put(o, "%s%s %.0f %%", m ? ", " : "", c,
			100 * md[m].share);
	}
	sbt_put(o, ")");
}

/* ---- one function a kind ------------------------------------------------ */

static void clause_step(struct sbt_strbuf *o, const struct sbt_group *g,
			const struct sbt_finding *x, int form, const char *who)
{
	const struct sbt_phases *p = &g->phases;
	char a[32], b[32];

	(void)who;
	if (form == SBT_LONG) {         /* -v lists the change, timed */
		sbt_fmt_ns(a, sizeof a, x->size_ns);
		sbt_put(o, "a change of level by %s", a);
		return;
	}
	const struct sbt_phase *ph = &p->ph[p->step[x->ref]];
	double m0 = p->step_from_ns[x->ref];
	char at[32];
	sbt_fmt_ns(a, sizeof a, m0);
	sbt_fmt_ns(b, sizeof b, ph->level_ns);
	sbt_phase_when(p, p->step[x->ref], 0, at, sizeof at);
	sbt_put(o, "step at %s: %s -> %s (%+.1f %%)", at, a, b,
		100 * (ph->level_ns - m0) / m0);
}

static void clause_modes(struct sbt_strbuf *o, const struct sbt_group *g,
			 const struct sbt_finding *x, int form, const char *who)
{
	const struct sbt_score *s = &g->score;
	char a[32];

	(void)who;
	if (form == SBT_SHORT) {
		if (x->flags & SBT_FX_DECOMP)
			modes_of(o, g->decomp.modes, g->decomp.nmodes);
		else
			modes_of(o, s->modes, s->nmodes);
		return;
	}
	sbt_put(o, "%d modes:", s->nmodes);
	for (int m = 0; m < s->nmodes; m++) {
		sbt_fmt_ns(a, sizeof a, s->modes[m].center_ns);
		sbt_put(o, "%s %s %.0f %%", m ? " |" : "", a,
			100 * s->modes[m].share);
	}
	sbt_fmt_ns(a, sizeof a, x->size_ns);
	sbt_put(o, "; %s from first to last", a);
}

/* who: the caller's name for the group; NULL: as g->said.by names it */
static void clause_group(struct sbt_strbuf *o, const struct sbt_group *g,
			 const struct sbt_finding *x, int form, const char *who)
{
	enum sbt_by by = (enum sbt_by)g->said.by;
	char a[32], b[32], w[48];

	if (!who) {
		if (by == SBT_BY_THREAD && g->omp_thread >= 0)
			snprintf(w, sizeof w, "OpenMP thread %d",
				 g->omp_thread);
		else
			snprintf(w, sizeof w, "this %s", by_word(by));
		who = w;
	}
	sbt_fmt_ns(a, sizeof a, fabs(g->delta_ns));
	sbt_fmt_ns(b, sizeof b, g->delta_resolution_ns);
	if (form == SBT_SHORT) {
		sbt_say_group(o, who, g->delta_rel, g->delta_ns, a, b);
		/* what a slow share costs: the others' wait for it */
		if (x->flags & SBT_FX_WAITS) {
			sbt_fmt_ns(a, sizeof a, g->others_wait_ns);
			sbt_put(o, "; the others wait %s at each barrier (%.1f "
				"%% of the region)", a, 100 * g->others_wait_rel);
		}
		return;
	}
	sbt_put(o, "%s is %.1f %% %s than the others' median (%s; the two "
		"populations resolve %s)", who, 100 * fabs(g->delta_rel),
		g->delta_ns > 0 ? "slower" : "faster", a, b);
	if (g->delta_ns > 0 && isfinite(g->others_wait_ns)) {
		sbt_fmt_ns(a, sizeof a, g->others_wait_ns);
		sbt_put(o, "; the others wait %s at each barrier (%.1f %% of "
			"their time in it)", a, 100 * g->others_wait_rel);
	}
}

static void clause_broad(struct sbt_strbuf *o, const struct sbt_group *g,
			 const struct sbt_finding *x, int form, const char *who)
{
	const struct sbt_score *s = &g->score;
	char a[32], b[32];

	(void)who;
	sbt_fmt_ns(a, sizeof a, s->variation_ns);
	if (form == SBT_LONG) {
		sbt_fmt_ns(b, sizeof b, x->size_ns);
		sbt_put(o, "broad: spread %s, %s more than the timer's own "
			"noise explains; no distinct modes", a, b);
		if (s->broad && !(s->excess_ns > x->size_ns))
			sbt_put(o, " (%.0f %% of the samples outside any one "
				"workload's window)", 100 * s->outside);
	} else if (x->flags & SBT_FX_WIDE) {
		sbt_fmt_ns(b, sizeof b, s->excess_ns);
		sbt_put(o, "broad: spread %s, %s beyond the timer's own", a, b);
	} else {
		sbt_fmt_ns(b, sizeof b, sbt_score_window(s));
		sbt_put(o, "broad: spread %s, %.0f %% of the samples outside "
			"any %s window (one workload's readings fall in one)",
			a, 100 * s->outside, b);
	}
}

static void clause_os_time(struct sbt_strbuf *o, const struct sbt_group *g,
			   const struct sbt_finding *x, int form,
			   const char *who)
{
	/* the faults' part and the switches' part, each where its cost is
	 * known; the fault cost's source: its calls, the run's, or the
	 * recorder's measure at start (decomp.c) */
	int faults = isfinite(x->per_event_ns) && x->events > 0;
	int lng = form == SBT_LONG;
	char a[32], b[32], c[32];

	(void)g, (void)who;
	sbt_put(o, lng ? "the OS's part of a call:" : "the OS's: ");
	if (faults) {
		sbt_fmt_ns(b, sizeof b, x->per_event_ns);
		if (lng) {
			sbt_fmt_num(c, sizeof c, x->events);
			sbt_put(o, " %s page faults a call x %s each (%s)", c,
				b, x->flags & SBT_FX_RUN_COST ?
				"fitted on the run's" : x->flags &
				SBT_FX_REC_COST ? "measured at start" :
				"fitted on its calls");
		} else {
			sbt_put(o, "%.0f faults a call (%s each%s)", x->events,
				b, x->flags & SBT_FX_RUN_COST ? ", the run's" :
				x->flags & SBT_FX_REC_COST ?
				", measured at start" : "");
		}
	}
	if (isfinite(x->per_switch_ns) && x->switches > 0) {
		sbt_fmt_ns(b, sizeof b, x->per_switch_ns);
		sbt_fmt_num(c, sizeof c, x->switches);
		if (lng)
			sbt_put(o, "%s %s context switches a call x %s each",
				faults ? " and" : "", c, b);
		else
			sbt_put(o, "%s%s switches a call (%s each)",
				faults ? " and " : "", c, b);
	}
	sbt_fmt_ns(a, sizeof a, x->size_ns);
	sbt_put(o, " = %s", a);
	if (isfinite(x->time_share) && x->time_share <= 1)
		sbt_put(o, ", %.0f %% of its time", 100 * x->time_share);
	else if (isfinite(x->time_share))
		sbt_put(o, ", %.1fx its mean time", x->time_share);
}

static void clause_os_spread(struct sbt_strbuf *o, const struct sbt_group *g,
			     const struct sbt_finding *x, int form,
			     const char *who)
{
	char b[32];

	(void)g, (void)who;
	sbt_put(o, "%scalls with more %s took longer (", form == SBT_SHORT ?
		"the OS's: " : "", isfinite(x->per_event_ns) ?
		(isfinite(x->per_switch_ns) ? "faults and switches" :
		 "faults") : "switches");
	if (isfinite(x->per_event_ns)) {
		sbt_fmt_ns(b, sizeof b, x->per_event_ns);
		sbt_put(o, "%s a fault", b);
	}
	if (isfinite(x->per_switch_ns)) {
		sbt_fmt_ns(b, sizeof b, x->per_switch_ns);
		sbt_put(o, "%s%s a switch", isfinite(x->per_event_ns) ? ", " :
			"", b);
	}
	sbt_put(o, form == SBT_SHORT ? "), %.0f %% of the spread" :
		"): %.0f %% of its spread", 100 * x->var_share);
}

/* the processor's: not the code's to chase */
static void clause_processor(struct sbt_strbuf *o, const struct sbt_group *g,
			     const struct sbt_finding *x, int form,
			     const char *who)
{
	char a[32];

	(void)g, (void)who;
	sbt_fmt_ns(a, sizeof a, x->size_ns);
	if (form == SBT_SHORT)
		sbt_put(o, "the processor's: %zu calls %s %s while its speed "
			"was off, %.0f %% of the spread", x->count, a,
			x->flags & SBT_FX_FASTER ? "faster" : "slower",
			100 * x->var_share);
	else
		sbt_put(o, "the processor's: %zu calls differ by %s while its "
			"speed was off, %.0f %% of its spread", x->count, a,
			100 * x->var_share);
}

static void clause_groups(struct sbt_strbuf *o, const struct sbt_group *g,
			  const struct sbt_finding *x, int form,
			  const char *who)
{
	char a[32];

	(void)g, (void)who;
	sbt_fmt_ns(a, sizeof a, x->size_ns);
	sbt_put(o, "thread %u %s slower than the fastest, %.0f %% of %s "
		"spread", x->key, a, 100 * x->var_share,
		form == SBT_SHORT ? "the" : "its");
}

static void clause_time(struct sbt_strbuf *o, const struct sbt_group *g,
			const struct sbt_finding *x, int form, const char *who)
{
	char a[32];

	(void)g, (void)who;
	sbt_fmt_ns(a, sizeof a, x->size_ns);
	sbt_put(o, form == SBT_SHORT ? "over time: levels %s apart, %.0f %% "
		"of the spread" : "levels over the run %s apart, %.0f %% of "
		"its spread", a, 100 * x->var_share);
}

/* what is left: said, not alarmed */
static void clause_unexplained(struct sbt_strbuf *o,
			       const struct sbt_group *g,
			       const struct sbt_finding *x, int form,
			       const char *who)
{
	char p[32];

	(void)g, (void)who;
	sbt_fmt_spread(p, sizeof p, x->rel);
	if (form == SBT_SHORT)
		sbt_put(o, "varies +-%s call to call, unexplained (%.0f %% of "
			"the spread)", p, 100 * x->var_share);
	else
		sbt_put(o, "varies +-%s call to call (robust sd), unexplained "
			"by what was recorded", p);
}

static void clause_few(struct sbt_strbuf *o, const struct sbt_group *g,
		       const struct sbt_finding *x, int form, const char *who)
{
	(void)g, (void)who;
	if (form == SBT_SHORT)
		sbt_put(o, "too few samples to judge (%zu)", x->count);
	else
		sbt_put(o, "too few samples to judge");
}

/* Why a barrier's wait is as long as it is: beyond the slow share's
 * extra time, the kernel's record (the OS's) or nothing; the long form
 * also gives that extra time. */
static void wait_cause(struct sbt_strbuf *o, const struct sbt_finding *x,
		       int form)
{
	char e[32];

	if (form == SBT_SHORT) {
		if (x->flags & SBT_FX_WAIT_OS)
			sbt_put(o, "; far beyond its share's extra time: the "
				"OS's (%zu of %zu long waits preempted)",
				x->os_waits, x->long_waits);
		else if (x->flags & SBT_FX_WAIT_UNEXPL)
			sbt_put(o, "; far beyond its share's extra time, "
				"unexplained (%zu of %zu long waits "
				"preempted)", x->os_waits, x->long_waits);
		return;
	}
	if (!isfinite(x->extra_ns))
		return;
	sbt_fmt_ns(e, sizeof e, fabs(x->extra_ns));
	sbt_put(o, " (its share %s %s than theirs", e,
		x->extra_ns >= 0 ? "longer" : "shorter");
	if (x->flags & SBT_FX_WAIT_OS)
		sbt_put(o, "; far less than the wait: the OS's, %zu of %zu "
			"long waits had the waiter or it preempted)",
			x->os_waits, x->long_waits);
	else if (x->flags & SBT_FX_WAIT_UNEXPL)
		sbt_put(o, "; far less than the wait, and the kernel's record "
			"does not say why: unexplained, %zu of %zu long waits "
			"preempted)", x->os_waits, x->long_waits);
	else
		sbt_put(o, ")");
}

/* a barrier: the thread that waits least is the slow one */
static void clause_wait(struct sbt_strbuf *o, const struct sbt_group *g,
			const struct sbt_finding *x, int form, const char *who)
{
	char a[32];

	(void)g, (void)who;
	sbt_fmt_ns(a, sizeof a, x->size_ns);
	if (form == SBT_LONG)
		sbt_put(o, "thread %u waits least at the barrier: the slow "
			"one; the others wait up to %s more for it", x->key, a);
	else if (x->flags & SBT_FX_UPTO) {   /* from the threads' levels */
		sbt_put(o, "thread %u waits least: the slow one; the others "
			"wait up to %s more for it", x->key, a);
		if (isfinite(x->rel) && x->rel <= 1)
			sbt_put(o, ", %.1f %% of the parallel region's time",
				100 * x->rel);
		else if (isfinite(x->rel))
			sbt_put(o, ", %.1fx the parallel region's typical "
				"time", x->rel);
	} else
		sbt_put(o, "thread %u is the slow one: it waits least here, "
			"the others wait %s more for it", x->key, a);
	wait_cause(o, x, form);
}

static void clause_probe_blind(struct sbt_strbuf *o,
			       const struct sbt_group *g,
			       const struct sbt_finding *x, int form,
			       const char *who)
{
	(void)g, (void)who;
	if (x->flags & SBT_FX_NO_PROBE) {
		/* the memory-latency probes held there too (axes.c) */
		if (form == SBT_SHORT)
			sbt_put(o, "unexplained: neither the speed probes nor "
				"the memory-latency probes moved: the code's, "
				"or a slowdown no probe sees (front end, an "
				"SMT sibling)");
		else
			sbt_put(o, "its level moved, no probe did (speed, "
				"memory latency): unexplained");
		return;
	}
	if (form == SBT_SHORT)
		sbt_put(o, "the speed probes (a register-only chain's compute "
			"speed) did not move: the code's, or a slowdown they "
			"do not see (memory, front end, an SMT sibling)");
	else
		sbt_put(o, "its level moved, the speed probes did not: the "
			"code's, or a slowdown they cannot see (memory, front "
			"end, an SMT sibling)");
}

static void clause_counter(struct sbt_strbuf *o, const struct sbt_group *g,
			   const struct sbt_finding *x, int form,
			   const char *who)
{
	char a[32], b[32];

	(void)g, (void)who;
	sbt_fmt_ns(b, sizeof b, x->per_event_ns);
	if (form == SBT_SHORT) {
		sbt_put(o, "counter %d: calls with more of its events took "
			"longer (%s an event), %.0f %% of the spread",
			(int)x->key, b, 100 * x->var_share);
		return;
	}
	sbt_fmt_num(a, sizeof a, x->events);
	sbt_put(o, "calls with more of counted event %u took longer (%s an "
		"event, %s a call): %.0f %% of its spread", x->key, b, a,
		100 * x->var_share);
}

/* levels over time: in runs of calls, not a code's modes or steps */
static void clause_levels(struct sbt_strbuf *o, const struct sbt_group *g,
			  const struct sbt_finding *x, int form,
			  const char *who)
{
	char a[32], b[32];

	(void)who;
	sbt_fmt_ns(a, sizeof a, x->extra_ns);
	sbt_fmt_ns(b, sizeof b, x->extra_ns + x->size_ns);
	int by = x->flags & (SBT_FX_BY_OS | SBT_FX_BY_SPEED | SBT_FX_BY_MEMORY);
	if (x->flags & SBT_FX_STEPS)
		sbt_put(o, "its level moved %d %s, %s to %s%s", g->phases.nsteps,
			g->phases.nsteps == 1 ? "time" : "times", a, b,
			by ? "" : ", while no probe did (speed, memory "
			"latency)");
	else
		sbt_put(o, "%d %s over time, %s to %s, in runs of consecutive "
			"calls (a code's modes alternate call by call)",
			x->parts, sbt_plural((size_t)x->parts, "level",
					     "levels"), a, b);
	if (x->flags & SBT_FX_BY_OS)
		sbt_put(o, ": the OS's, the speed probes slowed with them on "
			"a cpu another task shared");
	else if (x->flags & SBT_FX_BY_SPEED)
		sbt_put(o, ": the machine's, the processor's speed moved with "
			"them");
	else if (x->flags & SBT_FX_BY_MEMORY)
		sbt_put(o, ": the machine's, memory latency moved with them");
	else if (form == SBT_SHORT)
		sbt_put(o, ": unexplained, no probe saw them; not the "
			"code's");
	else
		sbt_put(o, ": unexplained, no probe saw them");
}

/* ---- the table ------------------------------------------------------------ */

static clause_fn *const clause_of[SBT_FIND__N] = {
#define KIND_CLAUSE(kind, json, cls, clause) [SBT_FIND_##kind] = clause_##clause,
	SBT_FINDINGS(KIND_CLAUSE)
#undef KIND_CLAUSE
};

void sbt_say_finding(struct sbt_strbuf *o, const struct sbt_group *g,
		     const struct sbt_finding *x, int form, const char *who)
{
	if (form == SBT_SHORT && x->flags & SBT_FX_UNSAID)
		return;
	if (x->kind < 0 || x->kind >= SBT_FIND__N) {   /* a newer analysis */
		char a[32];
		sbt_fmt_ns(a, sizeof a, x->size_ns);
		sbt_put(o, "finding of kind %d: size %s", x->kind, a);
	} else {
		clause_of[x->kind](o, g, x, form, who);
	}
	if (form == SBT_SHORT)
		return;
	/* the share of its time the finding moves, as JSON's time_share
	 * says it; else its size against the typical time */
	sbt_say_share(o, isfinite(x->time_share) ? x->time_share : x->rel,
		      x->kind == SBT_FIND_WAIT ? "the parallel region's" :
		      "its", x->minor ? ", minor" : "");
}
