/*
 * sayverdict.c - a group's verdict in one paragraph (say.h,
 * sbt_say_verdict): JSON's "verdict", CSV's.  Nothing here judges:
 * which findings, their order, alarm or minor, and which clause takes
 * which form are the score stage's (g->find, g->said, the SBT_FX_
 * flags).
 *
 * Its findings come first (alarms, then those too small to chase, then
 * the descriptions; the processor's said with what was left out), each
 * in its short clause (clause.c); then the shifts it shared with other
 * regions, the warm-up and transient excursions, what was left out.
 * Precision comes last and never hides a finding: "too short to time to
 * 1 %" is about a single sample, while a population of N samples
 * resolves shifts of its typical time far below t_diff (score.c: the two
 * resolutions).
 */
#include "say.h"
#include "clause.h"

#include <math.h>
#include <stdio.h>

static void precision(struct sbt_strbuf *o, const struct sbt_score *s)
{
	char a[32], b[32], c[32];

	if (s->resolvable < 0)
		return;
	sbt_fmt_ns(a, sizeof a, s->t_diff_ns);
	sbt_fmt_ns(b, sizeof b, s->t_min_ns);
	sbt_fmt_ns(c, sizeof c, s->shift_resolution_ns);
	sbt_put(o, "single samples resolve %s%s", a,
	    s->metric_source == SBT_SRC_QUANTUM ? " (quantum only)" : "");
	if (isfinite(s->shift_resolution_ns))
		sbt_put(o, ", the %zu samples shifts of %s", s->n, c);
	if (s->resolvable)
		sbt_put(o, "; timed to 1 %% (t_min %s)", b);
	else
		sbt_put(o, "; one sample cannot be timed to 1 %% (t_min %s)", b);
}

/* The changes it shared with other regions: listed, not counted as its
 * own findings. */
static void machine(struct sbt_strbuf *o, const struct sbt_group *g)
{
	const struct sbt_phases *p = &g->phases;
	int shown = 0;

	sbt_put(o, "; shared with the other regions, not its own:");
	if (!g->machine_changes) {
		sbt_put(o, " the other regions ran shifted during %zu of its "
		    "samples, left out", g->machine_n);
		return;
	}
	for (int k = 1; k < p->nphases; k++) {
		double m0 = p->ph[k - 1].level_ns, m1 = p->ph[k].level_ns;
		if (!p->ph[k].machine)
			continue;
		if (shown++ == 4) {
			sbt_put(o, " ...");
			break;
		}
		char at[32];
		sbt_phase_when(p, k, 0, at, sizeof at);
		sbt_put(o, "%s %+.0f %% at %s", shown > 1 ? "," : "",
		    100 * (m1 - m0) / m0, at);
	}
	if (g->machine_n)
		sbt_put(o, " (%zu samples left out)", g->machine_n);
}

/* 0 an alarm, 1 too small (minor), 2 a description. */
static int tier(const struct sbt_finding *x)
{
	return x->alarm ? 0 : x->flags & SBT_FX_DESCRIBES ? 2 : 1;
}

void sbt_say_verdict(struct sbt_strbuf *o, const struct sbt_group *g)
{
	const struct sbt_score *s = &g->score;
	const struct sbt_phases *p = &g->phases;
	const struct sbt_said *w = &g->said;
	char line[512];
	int said = 0;

	if (w->score_only) {
		char v[SBT_SAY_VERDICT_LEN];
		sbt_score_verdict(s, v, sizeof v);
		sbt_put(o, "%s", v);
		return;
	}
	for (int k = 0; k < g->nfind; k++) {
		const struct sbt_finding *x = &g->find[k];
		char text[SBT_SAY_FINDING_LEN];
		if (said == SBT_VERDICT_FINDINGS) {
			/* the rest in the reports' lists: the verdict keeps
			 * room for what follows */
			sbt_put(o, "; %d more finding%s (the findings list)",
			    g->nfind - k, g->nfind - k == 1 ? "" : "s");
			break;
		}
		struct sbt_strbuf t = { text, sizeof text, 0 };
		text[0] = 0;
		sbt_say_finding(&t, g, x, SBT_SHORT, NULL);
		/* the processor's is said below, with what was left out */
		if (!text[0] || x->kind == SBT_FIND_PROCESSOR)
			continue;
		int first = k == 0 || tier(&g->find[k - 1]) != tier(x);
		if (tier(x) == 1 && first) {
			/* small for the region, or for the run */
			int run = 0;
			for (int j = k; j < g->nfind && tier(&g->find[j]) == 1;
			     j++)
				run |= !!(g->find[j].flags & SBT_FX_RUN_SMALL);
			if (!g->nfindings && !run)
				sbt_put(o, "%sno variation of %.0f %% or more",
				    said ? "; " : "", 100 * w->min_share);
			else if (!g->nfindings)
				sbt_put(o, "%snothing large for the run",
				    said ? "; " : "");
			sbt_put(o, "; minor (under %.0f %% of its time", 100 *
			    w->min_share);
			if (run)
				sbt_put(o, " or %.2g %% of the run's", 100 *
				    w->min_run_share);
			sbt_put(o, "): ");
		} else if (said) {
			sbt_put(o, "%s", tier(x) == 1 ? ", " : "; ");
		}
		sbt_put(o, "%s", text);
		said++;
	}
	if (g->nfindings == 0 && (!said || w->shared || w->slowed))
		sbt_put(o, "%s%s", said ? "; " : "", w->shared || w->slowed ?
		    "no variation of its own" : "no variation found");
	if (w->slowed)
		sbt_put(o, "; the processor's, not the code: %zu samples while "
		    "its speed was off (speed probes), left out", g->speed_n);

	if (w->shared)
		machine(o, g);
	if (g->after_n)
		sbt_put(o, "; %zu sample%s beside a recorder probe left out "
		    "(right after one, or around its detour)", g->after_n,
		    g->after_n == 1 ? "" : "s");
	if (p->warmup_n || p->ntransients) {
		struct sbt_phases q = *p;
		q.nsteps = 0;           /* steps were said above */
		sbt_phase_line(&q, line, sizeof line);
		sbt_put(o, "; %s", line);
	}
	if (g->os.preempted_own)
		sbt_put(o, g->os.keep_pre == SBT_PRE_OWN ? "; %zu samples gave "
		    "the cpu away while runnable, more often than the OS "
		    "preempts: kept as the region's own (yields)" : "; %zu "
		    "samples preempted, in half its region's calls or more: "
		    "kept (its time holds the OS's)", g->os.preempted);
	if (g->os.yielded)
		sbt_put(o, "; %zu samples gave the cpu away again and again "
		    "while runnable: kept as the region's own (yields)",
		    g->os.yielded);
	if (g->os.left_out)
		sbt_put(o, "; %zu sample%s the OS preempted left out (the "
		    "kernel's record)", g->os.left_out,
		    g->os.left_out == 1 ? "" : "s");
	sbt_put(o, ". ");
	precision(o, s);
}

