/*
 * verdict.c - one group's verdict as a person reads it: what was found
 * first, then what the timer can resolve.
 *
 * Findings, in this order: steps over time, modes, a group that differs
 * from the others (--by), a spread broader than the timer's noise; then
 * the shifts it shared with other regions (the machine's, machine.c), the
 * warm-up and transient excursions (named, not alarms: a warm-up is the
 * process's, an excursion is short and returns).  Precision comes
 * last and never hides a finding: "too short to time to 1 %" is about a
 * single sample, while a population of N samples resolves shifts of its
 * typical time far below t_diff (score.c: the two resolutions).
 */
#include "analyze.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct out { char *buf; size_t len, used; };

static void put(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (o->used + 1 >= o->len)
		return;
	va_start(ap, fmt);
	w = vsnprintf(o->buf + o->used, o->len - o->used, fmt, ap);
	va_end(ap);
	if (w > 0)
		o->used += (size_t)w < o->len - o->used ? (size_t)w :
			   o->len - o->used - 1;
}

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

static void modes(struct out *o, const struct sbt_score *s)
{
	char a[32], c[32];
	double d = s->modes[s->nmodes - 1].center_ns - s->modes[0].center_ns;

	sbt_fmt_ns(a, sizeof a, d);
	put(o, "%d modes %s %s (", s->nmodes, a,
	    s->nmodes == 2 ? "apart" : "from first to last");
	for (int m = 0; m < s->nmodes; m++) {
		sbt_fmt_ns(c, sizeof c, s->modes[m].center_ns);
		put(o, "%s%s %.0f %%", m ? ", " : "", c,
		    100 * s->modes[m].share);
	}
	put(o, ")");
}

static void precision(struct out *o, const struct sbt_score *s)
{
	char a[32], b[32], c[32];

	if (s->resolvable < 0)
		return;
	sbt_fmt_ns(a, sizeof a, s->t_diff_ns);
	sbt_fmt_ns(b, sizeof b, s->t_min_ns);
	sbt_fmt_ns(c, sizeof c, s->shift_resolution_ns);
	put(o, "single samples resolve %s%s", a,
	    strcmp(s->metric_source, "quantum") ? "" : " (quantum only)");
	if (isfinite(s->shift_resolution_ns))
		put(o, ", the %zu samples shifts of %s", s->n, c);
	if (s->resolvable)
		put(o, "; timed to 1 %% (t_min %s)", b);
	else
		put(o, "; one sample cannot be timed to 1 %% (t_min %s)", b);
}

/* The changes it shared with other regions: listed, not counted as its
 * own findings. */
static void machine(struct out *o, const struct sbt_group *g)
{
	const struct sbt_phases *p = &g->phases;
	int shown = 0;

	put(o, "; with the machine, not the code:");
	if (!g->machine_changes) {
		put(o, " the other regions ran shifted during %zu of its "
		    "samples, left out", g->machine_n);
		return;
	}
	for (int k = 1; k < p->nphases; k++) {
		double m0 = p->ph[k - 1].level_ns, m1 = p->ph[k].level_ns;
		if (!p->ph[k].machine)
			continue;
		if (shown++ == 4) {
			put(o, " ...");
			break;
		}
		char at[32];
		sbt_phase_when(p, k, 0, at, sizeof at);
		put(o, "%s %+.0f %% at %s", shown > 1 ? "," : "",
		    100 * (m1 - m0) / m0, at);
	}
	if (g->machine_n)
		put(o, " (%zu samples left out)", g->machine_n);
}

void sbt_verdict(struct sbt_group *g, enum sbt_by by)
{
	const struct sbt_score *s = &g->score;
	const struct sbt_phases *p = &g->phases;
	struct out o = { g->verdict, sizeof g->verdict, 0 };
	char line[512], a[32], b[32];
	int f = 0;

	g->verdict[0] = 0;
	if (s->n == 0 || s->resolvable < 0) {
		put(&o, "%s", s->verdict);
		g->nfindings = 0;
		return;
	}
	for (int k = 0; k < p->nsteps; k++, f++) {
		const struct sbt_phase *ph = &p->ph[p->step[k]];
		double m0 = p->step_from_ns[k];
		char at[32];
		sbt_fmt_ns(a, sizeof a, m0);
		sbt_fmt_ns(b, sizeof b, ph->level_ns);
		sbt_phase_when(p, p->step[k], 0, at, sizeof at);
		put(&o, "%sstep at %s: %s -> %s (%+.1f %%)", f ? "; " : "",
		    at, a, b, 100 * (ph->level_ns - m0) / m0);
	}
	if (s->nmodes >= 2) {
		put(&o, "%s", f++ ? "; " : "");
		modes(&o, s);
	}
	if (g->flagged) {
		char who[48];
		sbt_fmt_ns(a, sizeof a, fabs(g->delta_ns));
		sbt_fmt_ns(b, sizeof b, g->delta_resolution_ns);
		if (by == SBT_BY_THREAD && g->omp_thread >= 0)
			snprintf(who, sizeof who, "OpenMP thread %d",
				 g->omp_thread);
		else
			snprintf(who, sizeof who, "this %s", by_word(by));
		put(&o, "%s%s is %.1f %% %s than the others' median (%s; "
		    "resolution %s)", f++ ? "; " : "", who,
		    100 * fabs(g->delta_rel), g->delta_ns > 0 ? "slower" :
		    "faster", a, b);
		/* what a slow share costs: the others' wait for it */
		if (g->delta_ns > 0 && isfinite(g->others_wait_ns)) {
			sbt_fmt_ns(a, sizeof a, g->others_wait_ns);
			put(&o, "; the others wait %s at each barrier (%.1f %% "
			    "of the region)", a, 100 * g->others_wait_rel);
		}
	}
	if (s->broad && s->nmodes < 2) {
		sbt_fmt_ns(a, sizeof a, s->variation_ns);
		sbt_fmt_ns(b, sizeof b, s->excess_ns);
		put(&o, "%sbroad: spread %s, %s beyond the timer's own",
		    f++ ? "; " : "", a, b);
	}
	g->nfindings = f;
	g->score.variation = f > 0;     /* the alarm: something was found */
	/* a handful of samples left out is not worth a clause (JSON has
	 * machine_samples): 0.1 % of them, or a change the machine made */
	int shared = g->machine_changes ||
		     (double)g->machine_n >= 1e-3 * (double)g->count;
	if (f == 0)
		put(&o, shared ? "no variation of its own" :
		    "no variation found");
	if (shared)
		machine(&o, g);
	if (p->warmup_n || p->ntransients) {
		struct sbt_phases q = *p;
		q.nsteps = 0;           /* steps were said above */
		sbt_phase_line(&q, line, sizeof line);
		put(&o, "; %s", line);
	}
	if (g->os.preempted_own)
		put(&o, "; %zu samples gave the cpu away while runnable, more "
		    "than the OS preempts: kept as the region's own (yields, "
		    "waits)", g->os.preempted);
	if (g->os.left_out)
		put(&o, "; %zu sample%s the OS preempted left out (the "
		    "kernel's record)", g->os.left_out,
		    g->os.left_out == 1 ? "" : "s");
	put(&o, ". ");
	precision(&o, s);
}
