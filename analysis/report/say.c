/*
 * say.c - the analysis's long sentences (say.h), made at the edge from
 * the data the score stage leaves (result.h, compare.h): the score
 * alone, where its metrics came from, the phases, a group that differs,
 * the machine's shifts, a comparison's rows and labels; durations.
 * Every report that prints them (JSON, CSV, the comparison) calls
 * these, so a sentence is changed in one place.  Nothing here judges.
 * A finding's clause is clause.c's, a group's verdict sayverdict.c's.
 */
#include "say.h"
#include "compare.h"
#include "dataset.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- numbers in words ------------------------------------------------- */

void sbt_fmt_ns(char *buf, size_t len, double ns)
{
	double a = fabs(ns);

	if (!isfinite(ns))
		snprintf(buf, len, "? ns");
	else if (a >= 999.5e9)
		snprintf(buf, len, "%.0f s", ns / 1e9);
	else if (a >= 999.5e6)  /* where 3 digits would round up */
		snprintf(buf, len, "%.3g s", ns / 1e9);
	else if (a >= 999.5e3)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else if (a >= 1e4)
		snprintf(buf, len, "%.3g us", ns / 1e3);
	else if (a >= 10 || a == 0)
		snprintf(buf, len, "%.0f ns", ns);
	else
		snprintf(buf, len, "%.2g ns", ns);
}

void sbt_fmt_num(char *buf, size_t len, double x)
{
	static const char unit[] = "kMGTPE";
	double a = fabs(x);

	if (!isfinite(x)) {
		snprintf(buf, len, "?");
		return;
	}
	if (a < 999.5) {
		if (a == 0 || a >= 10)
			snprintf(buf, len, "%.0f", x);
		else if (a >= 1e-4)
			snprintf(buf, len, "%.2g", x);
		else
			snprintf(buf, len, "%s0.0001", x < 0 ? ">-" : "<");
		return;
	}
	for (int k = 0; unit[k]; k++) {
		x /= 1e3, a /= 1e3;
		if (a < 999.5 || !unit[k + 1]) {
			snprintf(buf, len, a < 9.95 ? "%.1f%c" : "%.0f%c", x,
				 unit[k]);
			return;
		}
	}
}

void sbt_fmt_pct(char *buf, size_t len, double pct)
{
	if (isfinite(pct) && pct >= 999.5)
		snprintf(buf, len, ">999");
	else if (isfinite(pct) && pct <= -999.5)
		snprintf(buf, len, "<-999");
	else
		sbt_fmt_num(buf, len, pct);
}

void sbt_fmt_spread(char *buf, size_t len, double rel)
{
	char a[32];

	if (isfinite(rel) && fabs(rel) >= 9.995) {
		sbt_fmt_num(a, sizeof a, rel);
		snprintf(buf, len, "%sx", a);
	} else {
		sbt_fmt_pct(a, sizeof a, 100 * rel);
		snprintf(buf, len, "%s %%", a);
	}
}

void sbt_fmt_ms(char *buf, size_t len, double ms)
{
	if (isfinite(ms) && fabs(ms) >= 999.5)
		snprintf(buf, len, "%.0f", ms);
	else if (isfinite(ms))
		snprintf(buf, len, "%.3g", ms);
	else
		snprintf(buf, len, "?");
}

void sbt_say_share(struct sbt_strbuf *o, double r, const char *whose,
		   const char *tail)
{
	char a[32];

	if (!isfinite(r))
		return;
	if (r <= 1) {
		sbt_put(o, " [%.1f %% of %s time%s]", 100 * r, whose, tail);
		return;
	}
	/* more than the whole: a ratio, not a share */
	if (r < 9.95)
		snprintf(a, sizeof a, "%.1f", r);
	else
		sbt_fmt_num(a, sizeof a, r);
	sbt_put(o, " [%sx %s typical time%s]", a, whose, tail);
}

/* A ratio such as "37" or "1.4". */
static void fmt_ratio(char *buf, size_t len, double r)
{
	if (r >= 9.95)
		snprintf(buf, len, "%.0f", r);
	else
		snprintf(buf, len, "%.1f", r);
}

/* "1.20 s", "35.00 ms": a point in time of the run. */
static void fmt_time(char *buf, size_t len, double ns)
{
	if (ns >= 1e9)
		snprintf(buf, len, "%.2f s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(buf, len, "%.2f us", ns / 1e3);
	else
		snprintf(buf, len, "%.0f ns", ns);
}

/* ---- the score alone ---------------------------------------------------- */

const char *sbt_metric_source_name(const struct sbt_score *s, char *buf,
				   size_t len)
{
	switch (s->metric_source) {
	case SBT_SRC_INSITU:  snprintf(buf, len, "in-situ"); break;
	case SBT_SRC_PROFILE: snprintf(buf, len, "profile:%s",
				       s->metric_level ? s->metric_level : "?");
			      break;
	case SBT_SRC_QUANTUM: snprintf(buf, len, "quantum"); break;
	default:              snprintf(buf, len, "none"); break;
	}
	return buf;
}

void sbt_score_verdict(const struct sbt_score *s, char *buf, size_t len)
{
	struct sbt_strbuf o = { buf, len, 0 };
	char a[32], b[32], r[32];

	if (len)
		buf[0] = 0;
	if (s->n == 0) {
		sbt_put(&o, "no samples");
		return;
	}
	if (s->resolvable < 0) {
		sbt_fmt_ns(a, sizeof a, s->variation_ns);
		sbt_put(&o, "no t_min/t_diff (no profile, %zu probes, clock "
			"quantum unknown): spread %s", s->insitu.n +
			s->insitu.screened, a);
		return;
	}
	if (!s->resolvable) {       /* first what matters most, then the rest */
		sbt_fmt_ns(a, sizeof a, s->median_ns);
		sbt_fmt_ns(b, sizeof b, s->t_min_ns);
		sbt_put(&o, "too short to time to %g %%: %s < t_min %s; ",
			s->eps * 100, a, b);
	}
	if (!s->variation) {
		sbt_fmt_ns(a, sizeof a, s->t_diff_ns);
		sbt_put(&o, "no variation beyond the timer's %s resolution", a);
	} else if (s->nmodes >= 2) {
		double d = s->modes[s->nmodes - 1].center_ns -
			   s->modes[0].center_ns;
		sbt_fmt_ns(a, sizeof a, d);
		fmt_ratio(r, sizeof r, d / s->t_diff_ns);
		sbt_put(&o, "variation detected: %d modes, %s %s (%s t_diff)",
			s->nmodes, a, s->nmodes == 2 ? "apart" :
			"from first to last", r);
	} else {
		sbt_fmt_ns(a, sizeof a, s->variation_ns);
		fmt_ratio(r, sizeof r, s->variation_tdiff);
		sbt_put(&o, "variation detected: spread %s (%s t_diff), no "
			"distinct modes", a, r);
		if (s->broad && !(s->excess_ns > sbt_score_window(s))) {
			sbt_fmt_ns(a, sizeof a, sbt_score_window(s));
			sbt_put(&o, ", %.0f %% of the samples outside any %s "
				"window", 100 * s->outside, a);
		}
	}
	/* a quantum-only t_diff is a lower bound: say so next to the claim */
	if (s->variation == 1 && s->metric_source == SBT_SRC_QUANTUM)
		sbt_put(&o, " (t_diff = quantum only)");
}

/* ---- phases over time --------------------------------------------------- */

void sbt_phase_when(const struct sbt_phases *p, int k, int end, char *buf,
		    size_t len)
{
	const struct sbt_phase *ph = &p->ph[k];

	if (p->untimed)
		snprintf(buf, len, "sample %zu", end ? ph->first + ph->n - 1 :
			 ph->first);
	else
		fmt_time(buf, len, end ? ph->t_end_ns : ph->t_begin_ns);
}

const char *sbt_phase_kind_name(int kind)
{
	static const char *const name[] = { "level", "warm-up", "transient",
					     "machine" };

	return kind >= 0 && kind <= SBT_PH_MACHINE ? name[kind] : "?";
}

void sbt_phase_line(const struct sbt_phases *p, char *buf, size_t len)
{
	struct sbt_strbuf o = { buf, len, 0 };
	char t[32], a[32], b[32];

	if (len == 0)
		return;
	buf[0] = 0;
	if (p->nsteps == 0 && p->warmup_n == 0 && p->ntransients == 0) {
		sbt_put(&o, "no shift over time");
		return;
	}
	for (int k = 0; k < p->nsteps; k++) {
		const struct sbt_phase *ph = &p->ph[p->step[k]];
		double m0 = p->step_from_ns[k], m1 = ph->level_ns;
		sbt_phase_when(p, p->step[k], 0, t, sizeof t);
		sbt_fmt_ns(a, sizeof a, m0);
		sbt_fmt_ns(b, sizeof b, m1);
		sbt_put(&o, "%sstep at %s: %s -> %s (%+.1f %%)", k ? "; " : "",
			t, a, b, m0 != 0 ? 100 * (m1 - m0) / m0 : 0.0);
	}
	if (p->warmup_n) {
		int w = 0;
		while (w < p->nphases && p->ph[w].kind == SBT_PH_WARMUP)
			w++;
		double m1 = w < p->nphases ? p->ph[w].level_ns : NAN;
		sbt_phase_when(p, w - 1, 1, t, sizeof t);
		sbt_fmt_ns(a, sizeof a, p->ph[0].level_ns);
		sbt_fmt_ns(b, sizeof b, m1);
		sbt_put(&o, "%swarm-up: the first %s ran slower (%s, then %s; "
			"%zu samples)", o.used ? "; " : "", t, a, b,
			p->warmup_n);
	}
	if (p->ntransients) {
		sbt_put(&o, "%s%d transient %s%s (%zu samples, up to %+.0f %%) "
			"at", o.used ? "; " : "", p->ntransients,
			p->transient_max >= 0 ? "slowdown" : "change",
			p->ntransients > 1 ? "s" : "", p->transient_n,
			100 * p->transient_max);
		int shown = 0;
		for (int k = 0; k < p->nphases; k++)
			if (p->ph[k].kind == SBT_PH_TRANSIENT &&
			    (k == 0 || p->ph[k - 1].kind != SBT_PH_TRANSIENT)) {
				if (shown++ == 4) {
					sbt_put(&o, " ...");
					break;
				}
				sbt_phase_when(p, k, 0, t, sizeof t);
				sbt_put(&o, "%s %s", shown > 1 ? "," : "", t);
			}
	}
}

/* ---- a group's verdict -------------------------------------------------- */

void sbt_say_group(struct sbt_strbuf *o, const char *who, double delta_rel,
		   double delta_ns, const char *size, const char *resolution)
{
	sbt_put(o, "%s is %.1f %% %s than the others' median (%s; resolution "
		"%s)", who, 100 * fabs(delta_rel), delta_ns > 0 ? "slower" :
		"faster", size, resolution);
}

/* ---- the machine's shifts ---------------------------------------------- */

void sbt_say_machine_event(struct sbt_strbuf *o, const struct sbt_dataset *ds,
			   const struct sbt_result *res, size_t i)
{
	const struct sbt_machine_event *e = &res->ev[i];
	int probes = res->ev_probes ? res->ev_probes[i] : -1;

	char at[32];

	sbt_fmt_ms(at, sizeof at, e->t_ns / 1e6);
	if (e->nregions == 2)
		sbt_put(o, "at %s ms, both regions", at);
	else
		sbt_put(o, "at %s ms, all %d regions", at, e->nregions);
	if (e->cpu != SBT_CPU_UNKNOWN)
		sbt_put(o, " on cpu %u", e->cpu);
	sbt_put(o, " %s %.0f %% (", e->change > 0 ? "slowed" : "sped up",
		100 * fabs(e->change));
	for (int r = 0; r < e->nregions && r < SBT_MACHINE_MAX_REGIONS; r++)
		sbt_put(o, "%s%s", r ? ", " : "",
			ds->regions[e->regions[r]].name);
	sbt_put(o, "%s)", e->nregions > SBT_MACHINE_MAX_REGIONS ? ", ..." :
		"");
	/* one claim: the kernel's record first (preempted: the OS's);
	 * where the probes held, the witnesses disagree on whose it is,
	 * and the event says no more than they can */
	if (e->os)
		sbt_put(o, ": the OS's, not the machine: %.0f %% of the "
			"threads' samples then preempted, %.0f %% at the "
			"level %s", 100 * e->pre_slow, 100 * e->pre_fast,
			e->change > 0 ? "before" : "after");
	else if (probes == 0)
		sbt_put(o, " together; the speed probes held: not the core's "
			"compute speed (a register-only chain), so the code's "
			"or a slowdown they do not see (memory, front end, an "
			"SMT sibling)");
	else
		sbt_put(o, ": the machine, not the code%s", probes > 0 ?
			"; the speed probes agree" : "");
}

/* ---- a comparison's rows ------------------------------------------------ */

const char *sbt_say_label(const struct sbt_cmp_label *l, char *buf,
			  size_t len)
{
	switch (l->by) {
	case SBT_BY_THREAD: snprintf(buf, len, "thread %u", l->key); break;
	case SBT_BY_CPU:
		if (l->key == SBT_CPU_UNKNOWN)
			snprintf(buf, len, "cpu unknown");
		else
			snprintf(buf, len, "cpu %u", l->key);
		break;
	case SBT_BY_RANK:
		snprintf(buf, len, "%s %u", l->pid ? "pid" : "rank", l->key);
		break;
	case SBT_BY_HOST:   snprintf(buf, len, "host %s", l->host); break;
	default:            snprintf(buf, len, "%s", ""); break;
	}
	return buf;
}

const char *sbt_cmp_bound_name(int bound)
{
	switch (bound) {
	case SBT_CMP_RUNS:  return "run-to-run spread";
	case SBT_CMP_FLOOR: return "smallest finding";
	default:            return "population";
	}
}

/* "2.1 % faster (-21 ns; resolves 0.3 %)", "no change beyond 0.4 %
 * (population)".  Percentages of a region whose time is near nothing
 * (the threshold beyond its time) say nothing: then ns only. */
static void change_words(struct sbt_strbuf *o, const struct sbt_cmp_change *c,
			 double base)
{
	int pct = base > 0 && c->threshold_ns < base;
	char d[32], r[32];

	if (!isfinite(c->delta_ns)) {
		sbt_put(o, "no samples to compare");
		return;
	}
	if (c->change == 0) {
		sbt_fmt_ns(r, sizeof r, c->threshold_ns);
		if (pct)
			sbt_put(o, "no change beyond %.2g %% (%s)",
			    100 * c->threshold_ns / base,
			    sbt_cmp_bound_name(c->bound));
		else
			sbt_put(o, "no change beyond %s (%s)", r,
			    sbt_cmp_bound_name(c->bound));
		return;
	}
	sbt_fmt_ns(d, sizeof d, fabs(c->delta_ns));
	sbt_fmt_ns(r, sizeof r, c->resolution_ns);
	if (pct)
		sbt_put(o, "%.3g %% %s (%s%s; resolves %.2g %%%s)",
		    100 * fabs(c->rel), c->change > 0 ? "slower" : "faster",
		    c->change > 0 ? "+" : "-", d,
		    100 * c->resolution_ns / base,
		    c->bound == SBT_CMP_RUNS ? ", run-to-run" : "");
	else
		sbt_put(o, "%s%s %s (resolves %s%s)", c->change > 0 ? "+" : "-",
		    d, c->change > 0 ? "slower" : "faster", r,
		    c->bound == SBT_CMP_RUNS ? ", run-to-run" : "");
}

/* The modes that changed, "; " between them; what to put before the
 * next clause ("" when none was said). */
const char *sbt_say_cmp_modes(struct sbt_strbuf *o, const struct sbt_cmp_row *r)
{
	const char *sep = "";
	char c[32];

	for (int i = 0; i < r->nmodes; i++, sep = "; ") {
		const struct sbt_cmp_mode *m = &r->modes[i];
		sbt_fmt_ns(c, sizeof c, m->center_ns);
		if (m->kind == SBT_CMP_MODE_NEW)
			sbt_put(o, "%sa mode appeared at %s (%.0f %%)", sep, c,
				100 * m->share_n);
		else if (m->kind == SBT_CMP_MODE_GONE)
			sbt_put(o, "%sthe mode at %s (%.0f %%) vanished", sep,
				c, 100 * m->share_b);
		else
			sbt_put(o, "%smode at %s: share %.0f %% -> %.0f %%",
				sep, c, 100 * m->share_b, 100 * m->share_n);
	}
	return sep;
}

/* The modes that changed, then the steps; nothing for a row not on
 * both sides with kept samples. */
void sbt_say_cmp_dist(struct sbt_strbuf *o, const struct sbt_cmp_row *r)
{
	if (r->side || !r->b.n || !r->n.n)
		return;
	const char *sep = sbt_say_cmp_modes(o, r);
	if (r->steps > 0) {
		char line[200];
		sbt_phase_line(&r->n.g->phases, line, sizeof line);
		sbt_put(o, "%sa step in the new run (%s)", sep, line);
	} else if (r->steps < 0) {
		sbt_put(o, "%sthe base run's step%s gone", sep,
			r->b.g->phases.nsteps > 1 ? "s are" : " is");
	}
}

void sbt_say_cmp(struct sbt_strbuf *o, const struct sbt_cmp *c,
		 const struct sbt_cmp_row *r)
{
	double base = r->b.tm_ns;
	char dist[SBT_SAY_DIST_LEN] = "";
	struct sbt_strbuf d = { dist, sizeof dist, 0 };

	if (r->side) {
		sbt_put(o, "only in the %s run%s", r->side < 0 ? "base" : "new",
		    (r->side < 0 ? c->runs_b : c->runs_n) > 1 ? "s" : "");
		return;
	}
	if (!r->b.n || !r->n.n) {
		sbt_put(o, "no kept samples on the %s side",
		    !r->b.n ? "base" : "new");
		return;
	}
	sbt_say_cmp_dist(&d, r);
	change_words(o, &r->raw, base);
	if (c->speed) {
		sbt_put(o, "; normalized by the processor's speed, ");
		change_words(o, &r->norm, base);
	}
	if (r->b.all_kept || r->n.all_kept)
		sbt_put(o, "; no steady samples on the %s side: all %s kept "
		    "samples compared", r->b.all_kept && r->n.all_kept ?
		    "either" : r->b.all_kept ? "base" : "new",
		    r->b.all_kept && r->n.all_kept ? "their" : "its");
	if (dist[0])
		sbt_put(o, "; %s", dist);
	if (r->probe_blind)
		sbt_put(o, "; the speed probes (a register-only chain's "
		    "compute speed) did not move: the code's, or a slowdown "
		    "they do not see (memory, front end, an SMT sibling)");
	if (r->tripped)
		sbt_put(o, "; TRIPS the gate (slower than %g %%)", c->co.fail_pct);
}
