/*
 * verdict.c - every sentence the analysis says of a region, and the
 * findings' data the reports render (g->find: kind, sizes, shares, time,
 * thread, counts, resolution; FINDINGS.md).  The scoring files compute
 * numbers; this one alone turns them into findings and words, so a
 * sentence is changed in one place.
 *
 * A group's findings: steps over time, modes (within its threads, where
 * they differ), a group that differs from the others (--by), a barrier's
 * waits, and its region's decomposition (decomp.c): the OS's share of its
 * time, its spread's components, what nothing recorded explains.  A
 * finding is an alarm only where it is resolved and large enough: a
 * share of the region's time and of the run's (--min-share); a region of
 * fewer than SBT_FEW_SAMPLES samples has none.  Descriptions (the
 * unexplained spread, the processor's, what the probes cannot see) are
 * said, never alarmed.  Alarms come first, then the findings too small to
 * chase, then the descriptions; then the shifts it shared with other
 * regions, the warm-up and transient excursions, what was left out.
 * Precision comes last and never hides a finding: "too short to time to
 * 1 %" is about a single sample, while a population of N samples
 * resolves shifts of its typical time far below t_diff (score.c: the two
 * resolutions).
 *
 * Also the machine's shifts (machine.c) and a comparison's rows
 * (compare.c finds the changes, sbt_cmp_verdict says them).
 */
#include "compare.h"
#include "dataset.h"
#include "strbuf.h"
#include "verdict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- numbers in words ------------------------------------------------- */

void sbt_fmt_ns(char *buf, size_t len, double ns)
{
	double a = fabs(ns);

	if (!isfinite(ns))
		snprintf(buf, len, "? ns");
	else if (a >= 1e9)
		snprintf(buf, len, "%.3g s", ns / 1e9);
	else if (a >= 1e6)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else if (a >= 1e4)
		snprintf(buf, len, "%.3g us", ns / 1e3);
	else if (a >= 10 || a == 0)
		snprintf(buf, len, "%.0f ns", ns);
	else
		snprintf(buf, len, "%.2g ns", ns);
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
	if (s->variation == 1 && strcmp(s->metric_source, "quantum") == 0)
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

static void precision(struct sbt_strbuf *o, const struct sbt_score *s)
{
	char a[32], b[32], c[32];

	if (s->resolvable < 0)
		return;
	sbt_fmt_ns(a, sizeof a, s->t_diff_ns);
	sbt_fmt_ns(b, sizeof b, s->t_min_ns);
	sbt_fmt_ns(c, sizeof c, s->shift_resolution_ns);
	sbt_put(o, "single samples resolve %s%s", a,
	    strcmp(s->metric_source, "quantum") ? "" : " (quantum only)");
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

/* A new finding of g of `size_ns` against a typical time `typ_ns`: the
 * writer of its clause (empty when g->find is full).  Its data beyond
 * the size are the caller's to set; alarm() decides whether it flags. */
static struct sbt_strbuf finding(struct sbt_group *g, int kind, double size_ns,
			  double typ_ns)
{
	struct sbt_finding *x;

	if (g->nfind == SBT_MAX_FINDINGS)
		return (struct sbt_strbuf){ NULL, 0, 0 };
	x = &g->find[g->nfind++];
	memset(x, 0, sizeof *x);
	x->kind = kind;
	x->size_ns = size_ns;
	x->rel = typ_ns > 0 ? size_ns / typ_ns : NAN;
	x->time_share = x->run_share = x->var_share = x->t_ns = NAN;
	x->per_event_ns = x->events = x->resolution_ns = NAN;
	x->per_switch_ns = x->switches = NAN;
	x->key = SBT_FIND_NOKEY;
	x->minor = 1;
	return (struct sbt_strbuf){ x->text, sizeof x->text, 0 };
}

static struct sbt_finding *last(struct sbt_group *g)
{
	return &g->find[g->nfind - 1];
}

/* The alarm: a resolved finding that is large enough - `share` of the
 * region's time (its time_share, else its rel) at least min_share, and
 * that times the region's share of its threads' time at least
 * min_run_share (where known).  Nothing flags a region of too few
 * samples. */
static void alarm(struct sbt_group *g, struct sbt_finding *x,
		  const struct sbt_options *o, int few)
{
	double ms = o && o->min_share > 0 ? o->min_share : SBT_MINOR_SHARE;
	double mr = o && o->min_run_share > 0 ? o->min_run_share :
		    SBT_MIN_RUN_SHARE;
	double sh = isfinite(x->time_share) ? x->time_share : fabs(x->rel);
	double rs = g->decomp.region_share;

	x->run_share = isfinite(rs) ? sh * rs : NAN;
	x->alarm = !few && sh >= ms && !(x->run_share < mr);
	x->minor = !x->alarm;
}

/* A description, not a size to judge: what is left unexplained, the
 * processor's, too few samples, what the probes cannot see. */
static int describes(const struct sbt_finding *x)
{
	return x->kind == SBT_FIND_UNEXPLAINED ||
	       x->kind == SBT_FIND_PROCESSOR || x->kind == SBT_FIND_FEW ||
	       x->kind == SBT_FIND_PROBE_BLIND;
}

/* 0 an alarm, 1 too small (minor), 2 a description. */
static int tier(const struct sbt_finding *x)
{
	return x->alarm ? 0 : describes(x) ? 2 : 1;
}

/* How much of the region's time a finding moves: its time_share, else
 * its size against the typical time; 0 unknown. */
static double weight(const struct sbt_finding *x)
{
	double w = isfinite(x->time_share) ? x->time_share : fabs(x->rel);

	return isfinite(w) ? w : 0;
}

/* Alarms first, then the minor ones, then the descriptions, each part
 * largest first, by the share of the time it moves (stable: a tie keeps
 * the order found). */
static void rank(struct sbt_group *g)
{
	for (int i = 1; i < g->nfind; i++) {
		struct sbt_finding x = g->find[i];
		int j = i;
		while (j > 0 && (tier(&g->find[j - 1]) > tier(&x) ||
				 (tier(&g->find[j - 1]) == tier(&x) &&
				  weight(&g->find[j - 1]) < weight(&x)))) {
			g->find[j] = g->find[j - 1];
			j--;
		}
		g->find[j] = x;
	}
}

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

/* The decomposition's findings (decomp.c): the OS's time, the spread's
 * components, what is left. */
static void components(struct sbt_group *g, const struct sbt_options *o,
		       int few, int steps_said)
{
	enum sbt_by by = o ? o->by : SBT_BY_NONE;
	const struct sbt_decomp *d = &g->decomp;
	const struct sbt_comp_est *c;
	double mean = d->mean_ns;
	char a[32], b[32];

	if (d->n < SBT_FEW_SAMPLES)
		return;
	/* each counted event that carries time, with its cost */
	for (int j = 0; j < SBT_CNT_COLS; j++) {
		if (!isfinite(d->cnt_cost_ns[j]))
			continue;
		double t = d->cnt_cost_ns[j] * d->cnt_mean[j];
		struct sbt_strbuf w = finding(g, SBT_FIND_COUNTER,
					      d->cnt_cost_ns[j], mean);
		struct sbt_finding *x = last(g);
		x->key = (uint32_t)j;
		x->per_event_ns = d->cnt_cost_ns[j];
		x->events = d->cnt_mean[j];
		x->var_share = d->cnt_share[j];
		x->count = d->n;
		x->time_share = mean > 0 ? t / mean : NAN;
		alarm(g, x, o, few);
		sbt_fmt_ns(b, sizeof b, d->cnt_cost_ns[j]);
		sbt_put(&w, "counter %d: calls with more of its events took "
			"longer (%s an event), %.0f %% of the spread", j, b,
			100 * d->cnt_share[j]);
	}
	/* the OS's time, where it is worth a word: min_share of a call */
	if (isfinite(d->os_time_ns) && mean > 0 && d->os_time_ns >=
	    (o && o->min_share > 0 ? o->min_share : SBT_MINOR_SHARE) * mean) {
		struct sbt_strbuf t = finding(g, SBT_FIND_OS_TIME,
					      d->os_time_ns, mean);
		struct sbt_finding *x = last(g);
		x->time_share = mean > 0 ? d->os_time_ns / mean : NAN;
		x->per_event_ns = d->fault_cost_ns;
		x->events = d->faults;
		x->per_switch_ns = d->switch_cost_ns;
		x->switches = d->switches;
		x->count = d->n;
		x->resolution_ns = SBT_SCORE_Z * hypot(d->fault_cost_se_ns *
				   d->faults, d->switch_cost_se_ns *
				   d->switches);
		if (!isfinite(x->resolution_ns))
			x->resolution_ns = NAN;
		alarm(g, x, o, few);
		sbt_fmt_ns(a, sizeof a, d->os_time_ns);
		sbt_put(&t, "the OS's: ");
		if (isfinite(d->fault_cost_ns) && d->faults > 0) {
			sbt_fmt_ns(b, sizeof b, d->fault_cost_ns);
			sbt_put(&t, "%.0f faults a call (%s each%s)", d->faults,
				b, d->fault_cost_from == SBT_COST_RUN ?
				", the run's" : d->fault_cost_from ==
				SBT_COST_RECORDER ? ", measured at start" :
				"");
		}
		if (isfinite(d->switch_cost_ns) && d->switches > 0) {
			sbt_fmt_ns(b, sizeof b, d->switch_cost_ns);
			sbt_put(&t, "%s%.2g switches a call (%s each)",
				isfinite(d->fault_cost_ns) && d->faults > 0 ?
				" and " : "", d->switches, b);
		}
		sbt_put(&t, " = %s, %.0f %% of its time", a,
			100 * x->time_share);
	}
	static const int kind[SBT_NCOMP] = {
		[SBT_COMP_OS] = SBT_FIND_OS_SPREAD,
		[SBT_COMP_COUNTERS] = -1,   /* by column, below */
		[SBT_COMP_PROC] = SBT_FIND_PROCESSOR,
		[SBT_COMP_TIME] = SBT_FIND_TIME,
		[SBT_COMP_GROUPS] = SBT_FIND_GROUPS,
		[SBT_COMP_MODES] = -1,      /* MODES, in sbt_verdict */
		[SBT_COMP_REST] = SBT_FIND_UNEXPLAINED,
	};
	for (int j = 0; j < SBT_NCOMP; j++) {
		c = &d->c[j];
		if (kind[j] < 0 || !c->resolved || !(c->var_share > 0))
			continue;
		/* a spread under min_share of the time: steady, unsaid */
		if (j == SBT_COMP_REST && !(c->size_ns >= (o && o->min_share >
		    0 ? o->min_share : SBT_MINOR_SHARE) * d->median_ns))
			continue;
		if (j == SBT_COMP_TIME && steps_said)
			continue;       /* its steps say it */
		struct sbt_strbuf t = finding(g, kind[j], fabs(c->size_ns),
					      d->median_ns);
		struct sbt_finding *x = last(g);
		x->var_share = c->var_share;
		x->time_share = mean > 0 && isfinite(c->time_ns) ?
				c->time_ns / mean : NAN;
		x->t_ns = c->t_ns;
		x->key = c->key;
		x->count = c->count;
		x->parts = c->parts;
		x->resolution_ns = c->resolution_ns;
		sbt_fmt_ns(a, sizeof a, fabs(c->size_ns));
		switch (kind[j]) {
		case SBT_FIND_OS_SPREAD:
			/* the costs this region's own counts fitted */
			if (d->fault_cost_from == SBT_COST_REGION)
				x->per_event_ns = d->fault_cost_ns,
				x->events = d->faults;
			if (d->switch_cost_from == SBT_COST_REGION)
				x->per_switch_ns = d->switch_cost_ns,
				x->switches = d->switches;
			alarm(g, x, o, few);
			sbt_put(&t, "the OS's: calls with more %s took longer "
				"(", isfinite(x->per_event_ns) ?
				(isfinite(x->per_switch_ns) ? "faults and "
				 "switches" : "faults") : "switches");
			if (isfinite(x->per_event_ns)) {
				sbt_fmt_ns(b, sizeof b, x->per_event_ns);
				sbt_put(&t, "%s a fault", b);
			}
			if (isfinite(x->per_switch_ns)) {
				sbt_fmt_ns(b, sizeof b, x->per_switch_ns);
				sbt_put(&t, "%s%s a switch",
					isfinite(x->per_event_ns) ? ", " : "",
					b);
			}
			sbt_put(&t, "), %.0f %% of the spread",
				100 * c->var_share);
			break;
		case SBT_FIND_PROCESSOR:
			/* the processor's: not the code's to chase */
			sbt_put(&t, "the processor's: %zu calls %s %s while its "
				"speed was off, %.0f %% of the spread",
				c->count, a, c->size_ns > 0 ? "slower" :
				"faster", 100 * c->var_share);
			break;
		case SBT_FIND_TIME:
			alarm(g, x, o, few || g->phases.warmup_n ||
			      g->phases.ntransients);
			sbt_put(&t, "over time: levels %s apart, %.0f %% of "
				"the spread", a, 100 * c->var_share);
			break;
		case SBT_FIND_GROUPS:
			if (by == SBT_BY_THREAD) {
				/* each thread's own finding says it */
				g->nfind--;
				break;
			}
			if (g->barrier) {
				/* a barrier's waits: the thread that waits
				 * least is the slow one */
				x->kind = SBT_FIND_WAIT;
				x->key = c->key_lo;
				/* a share of the parallel region's time: the
				 * barrier's own is mostly the wait itself */
				x->rel = x->time_share = x->size_ns /
							 g->wait_base_ns;
				if (!isfinite(x->rel))
					x->rel = x->time_share = NAN;
				alarm(g, x, o, few);
				sbt_put(&t, "thread %u waits least: the slow "
					"one; the others wait up to %s more "
					"for it", c->key_lo, a);
				if (isfinite(x->rel))
					sbt_put(&t, ", %.1f %% of the parallel "
						"region's time", 100 * x->rel);
				break;
			}
			alarm(g, x, o, few);
			sbt_put(&t, "thread %u %s slower than the fastest, "
				"%.0f %% of the spread", c->key, a,
				100 * c->var_share);
			break;
		default:                /* what is left: said, not alarmed */
			x->rel = d->median_ns > 0 ? c->size_ns / d->median_ns
						  : NAN;
			x->time_share = NAN;
			sbt_put(&t, "varies +-%.2g %% call to call, unexplained "
				"(%.0f %% of the spread)", 100 * x->rel,
				100 * c->var_share);
			break;
		}
	}
}

void sbt_verdict(struct sbt_group *g, const struct sbt_options *opt)
{
	enum sbt_by by = opt ? opt->by : SBT_BY_NONE;
	const struct sbt_score *s = &g->score;
	const struct sbt_phases *p = &g->phases;
	const struct sbt_decomp *dc = &g->decomp;
	struct sbt_strbuf o = { g->verdict, sizeof g->verdict, 0 };
	char line[512], a[32], b[32];
	int f = 0;
	int few = s->n < SBT_FEW_SAMPLES || dc->n < SBT_FEW_SAMPLES;

	g->verdict[0] = 0;
	g->nfind = 0;
	if (s->n == 0 || s->resolvable < 0) {
		sbt_score_verdict(s, g->verdict, sizeof g->verdict);
		g->nfindings = 0;
		if (s->n && s->n < SBT_FEW_SAMPLES) {
			finding(g, SBT_FIND_FEW, NAN, NAN);
			last(g)->count = s->n;
		}
		return;
	}
	/* the findings, each with its size, into g->find */
	if (few) {
		struct sbt_strbuf c = finding(g, SBT_FIND_FEW, NAN, NAN);
		last(g)->count = s->n;
		sbt_put(&c, "too few samples to judge (%zu)", s->n);
	}
	for (int k = 0; k < p->nsteps; k++) {
		const struct sbt_phase *ph = &p->ph[p->step[k]];
		double m0 = p->step_from_ns[k];
		char at[32];
		struct sbt_strbuf c = finding(g, SBT_FIND_STEP,
				       fabs(ph->level_ns - m0), m0);
		struct sbt_finding *x = last(g);
		x->t_ns = ph->t_begin_ns;
		x->count = ph->n;
		x->resolution_ns = s->min_shift_ns;
		alarm(g, x, opt, few);
		sbt_fmt_ns(a, sizeof a, m0);
		sbt_fmt_ns(b, sizeof b, ph->level_ns);
		sbt_phase_when(p, p->step[k], 0, at, sizeof at);
		sbt_put(&c, "step at %s: %s -> %s (%+.1f %%)", at, a, b,
		    100 * (ph->level_ns - m0) / m0);
	}
	/* modes within the threads, where they differ, and of what the OS
	 * left (decomp.c): a fault count's levels are the OS's, not modes
	 * of the code's own work; else the group's own */
	const struct sbt_mode *md = s->modes;
	int nm = s->nmodes;
	if ((dc->c[SBT_COMP_GROUPS].resolved && by == SBT_BY_NONE) ||
	    dc->c[SBT_COMP_OS].resolved)
		md = dc->modes, nm = dc->nmodes;
	/* Where taking the threads' offsets out left fewer modes, the row
	 * (and every format) says those: two threads 5 % apart, each
	 * bimodal, have two modes, not four.  Only where they are times: a
	 * residual's mode falls below zero where a component overshoots
	 * (a wait's offset, a fault cost fitted on a few calls), and then
	 * the row keeps the calls' own modes. */
	if (md == dc->modes && by == SBT_BY_NONE &&
	    dc->c[SBT_COMP_GROUPS].resolved && nm >= 2 && nm < s->nmodes &&
	    md[0].center_ns > 0) {
		g->score.nmodes = nm;
		memcpy(g->score.modes, dc->modes, sizeof g->score.modes);
	}
	if (nm >= 2) {
		double d = md[nm - 1].center_ns - md[0].center_ns;
		struct sbt_strbuf c = finding(g, SBT_FIND_MODES, d, s->median_ns);
		struct sbt_finding *x = last(g);
		x->parts = nm;
		x->count = s->n;
		x->resolution_ns = s->min_shift_ns;
		if (md == dc->modes)
			x->var_share = dc->c[SBT_COMP_MODES].var_share;
		/* a barrier's modes are its waits (which thread came last:
		 * the others' work), said by its wait finding: not an alarm */
		alarm(g, x, opt, few || g->barrier);
		modes_of(&c, md, nm);
	}
	if (g->flagged) {
		struct sbt_strbuf c = finding(g, SBT_FIND_GROUP, fabs(g->delta_ns),
				       fabs(g->delta_ns / g->delta_rel));
		struct sbt_finding *x = last(g);
		char who[48];
		x->key = g->key;
		x->count = g->kept;
		x->resolution_ns = g->delta_resolution_ns;
		alarm(g, x, opt, few);
		sbt_fmt_ns(a, sizeof a, fabs(g->delta_ns));
		sbt_fmt_ns(b, sizeof b, g->delta_resolution_ns);
		if (by == SBT_BY_THREAD && g->omp_thread >= 0)
			snprintf(who, sizeof who, "OpenMP thread %d",
				 g->omp_thread);
		else
			snprintf(who, sizeof who, "this %s", by_word(by));
		sbt_say_group(&c, who, g->delta_rel, g->delta_ns, a, b);
		/* what a slow share costs: the others' wait for it */
		if (g->delta_ns > 0 && isfinite(g->others_wait_ns)) {
			sbt_fmt_ns(a, sizeof a, g->others_wait_ns);
			sbt_put(&c, "; the others wait %s at each barrier (%.1f %% "
			    "of the region)", a, 100 * g->others_wait_rel);
		}
	}
	if (isfinite(g->wait_slow_ns) && g->wait_slow_key != SBT_FIND_NOKEY) {
		/* a barrier: the thread that waits least is the slow one */
		struct sbt_strbuf c = finding(g, SBT_FIND_WAIT,
				       g->wait_others_ns, g->wait_base_ns);
		struct sbt_finding *x = last(g);
		x->key = g->wait_slow_key;
		x->resolution_ns = g->delta_resolution_ns;
		x->time_share = x->rel;
		alarm(g, x, opt, few);
		sbt_fmt_ns(a, sizeof a, g->wait_others_ns);
		sbt_put(&c, "thread %u is the slow one: it waits least here, "
			"the others wait %s more for it", g->wait_slow_key, a);
	}
	if (s->broad && s->nmodes < 2 && !few && dc->n == 0) {
		/* by the extremes, or by the share outside one window; only
		 * where there was nothing to decompose */
		double w = sbt_score_window(s);
		int wide = s->excess_ns > w;
		struct sbt_strbuf c = finding(g, SBT_FIND_BROAD, wide ?
				       s->excess_ns : s->variation_ns - w,
				       s->median_ns);
		alarm(g, last(g), opt, few);
		sbt_fmt_ns(a, sizeof a, s->variation_ns);
		sbt_fmt_ns(b, sizeof b, wide ? s->excess_ns : w);
		if (wide)
			sbt_put(&c, "broad: spread %s, %s beyond the timer's "
			    "own", a, b);
		else
			sbt_put(&c, "broad: spread %s, %.0f %% of the samples "
			    "outside any %s window (one workload's readings "
			    "fall in one)", a, 100 * s->outside, b);
	}
	/* time's levels are said by the steps, the warm-up, the
	 * excursions or the machine's shifts where those found them */
	components(g, opt, few, p->nsteps || p->warmup_n || p->ntransients ||
		   g->machine_changes || g->machine_n);
	if (g->probe_blind) {
		struct sbt_strbuf c = finding(g, SBT_FIND_PROBE_BLIND, NAN, NAN);
		sbt_put(&c, "the speed probes (a register-only chain's compute "
			"speed) did not move: the code's, or a slowdown they "
			"do not see (memory, front end, an SMT sibling)");
	}
	rank(g);
	g->nfindings = 0;
	for (int k = 0; k < g->nfind; k++)
		g->nfindings += !g->find[k].minor;
	double ms = opt && opt->min_share > 0 ? opt->min_share :
		    SBT_MINOR_SHARE;
	int said = 0;
	for (int k = 0; k < g->nfind; k++) {
		const struct sbt_finding *x = &g->find[k];
		if (said == SBT_VERDICT_FINDINGS) {
			/* the rest in the reports' lists: the verdict keeps
			 * room for what follows */
			sbt_put(&o, "; %d more finding%s (the findings list)",
			    g->nfind - k, g->nfind - k == 1 ? "" : "s");
			break;
		}
		/* the processor's is said below, with what was left out */
		if (!x->text[0] || x->kind == SBT_FIND_PROCESSOR)
			continue;
		int first = k == 0 || tier(&g->find[k - 1]) != tier(x);
		if (tier(x) == 1 && first) {
			/* small for the region, or for the run */
			int run = 0;
			for (int j = k; j < g->nfind && tier(&g->find[j]) == 1;
			     j++)
				run |= weight(&g->find[j]) >= ms;
			if (!g->nfindings && !run)
				sbt_put(&o, "%sno variation of %.0f %% or more",
				    said ? "; " : "", 100 * ms);
			else if (!g->nfindings)
				sbt_put(&o, "%snothing large for the run",
				    said ? "; " : "");
			sbt_put(&o, "; minor (under %.0f %% of its time", 100 *
			    ms);
			if (run)
				sbt_put(&o, " or %.2g %% of the run's", 100 *
				    (opt && opt->min_run_share > 0 ?
				     opt->min_run_share : SBT_MIN_RUN_SHARE));
			sbt_put(&o, "): ");
		} else if (said) {
			sbt_put(&o, "%s", tier(x) == 1 ? ", " : "; ");
		}
		sbt_put(&o, "%s", x->text);
		said++;
	}
	f = g->nfindings;
	/* the alarm: something worth chasing was found */
	g->score.variation = g->nfindings > 0;
	/* a handful of samples left out is not worth a clause (JSON has
	 * machine_samples): 0.1 % of them, or a change the machine made */
	int shared = g->machine_changes ||
		     (double)g->machine_n >= 1e-3 * (double)g->count;
	int slowed = (double)g->speed_n >= 1e-3 * (double)g->count;
	if (f == 0 && (!said || shared || slowed))
		sbt_put(&o, "%s%s", said ? "; " : "", shared || slowed ?
		    "no variation of its own" : "no variation found");
	if (slowed)
		sbt_put(&o, "; the processor's, not the code: %zu samples while "
		    "its speed was off (speed probes), left out", g->speed_n);

	if (shared)
		machine(&o, g);
	if (g->after_n)
		sbt_put(&o, "; %zu sample%s beside a recorder probe left out "
		    "(right after one, or around its detour)", g->after_n,
		    g->after_n == 1 ? "" : "s");
	if (p->warmup_n || p->ntransients) {
		struct sbt_phases q = *p;
		q.nsteps = 0;           /* steps were said above */
		sbt_phase_line(&q, line, sizeof line);
		sbt_put(&o, "; %s", line);
	}
	if (g->os.preempted_own)
		sbt_put(&o, g->os.keep_pre == SBT_PRE_OWN ? "; %zu samples gave "
		    "the cpu away while runnable, more often than the OS "
		    "preempts: kept as the region's own (yields)" : "; %zu "
		    "samples preempted, in half its region's calls or more: "
		    "kept (its time holds the OS's)", g->os.preempted);
	if (g->os.yielded)
		sbt_put(&o, "; %zu samples gave the cpu away again and again "
		    "while runnable: kept as the region's own (yields)",
		    g->os.yielded);
	if (g->os.left_out)
		sbt_put(&o, "; %zu sample%s the OS preempted left out (the "
		    "kernel's record)", g->os.left_out,
		    g->os.left_out == 1 ? "" : "s");
	sbt_put(&o, ". ");
	precision(&o, s);
}

const char *sbt_finding_kind_name(int kind)
{
	static const char *const name[SBT_FIND__N] = {
		[SBT_FIND_STEP] = "step", [SBT_FIND_MODES] = "modes",
		[SBT_FIND_GROUP] = "group", [SBT_FIND_BROAD] = "broad",
		[SBT_FIND_OS_TIME] = "os_time",
		[SBT_FIND_OS_SPREAD] = "os_spread",
		[SBT_FIND_PROCESSOR] = "processor",
		[SBT_FIND_GROUPS] = "groups", [SBT_FIND_TIME] = "time",
		[SBT_FIND_UNEXPLAINED] = "unexplained",
		[SBT_FIND_FEW] = "few_samples", [SBT_FIND_WAIT] = "wait",
		[SBT_FIND_PROBE_BLIND] = "probes_blind",
		[SBT_FIND_COUNTER] = "counter",
	};

	return kind >= 0 && kind < SBT_FIND__N ? name[kind] : "?";
}

/* ---- the machine's shifts ---------------------------------------------- */

void sbt_say_machine_event(struct sbt_strbuf *o, const struct sbt_dataset *ds,
			   const struct sbt_result *res, size_t i)
{
	const struct sbt_machine_event *e = &res->ev[i];
	int probes = res->ev_probes ? res->ev_probes[i] : -1;

	if (e->nregions == 2)
		sbt_put(o, "at %.4g ms, both regions", e->t_ns / 1e6);
	else
		sbt_put(o, "at %.4g ms, all %d regions", e->t_ns / 1e6,
			e->nregions);
	if (e->cpu != SBT_CPU_UNKNOWN)
		sbt_put(o, " on cpu %u", e->cpu);
	sbt_put(o, " %s %.0f %% (", e->change > 0 ? "slowed" : "sped up",
		100 * fabs(e->change));
	for (int r = 0; r < e->nregions && r < SBT_MACHINE_MAX_REGIONS; r++)
		sbt_put(o, "%s%s", r ? ", " : "",
			ds->regions[e->regions[r]].name);
	sbt_put(o, "%s)", e->nregions > SBT_MACHINE_MAX_REGIONS ? ", ..." :
		"");
	/* one claim: where the probes held, the witnesses disagree on
	 * whose it is, and the event says no more than they can */
	if (probes == 0)
		sbt_put(o, " together; the speed probes held: not the core's "
			"compute speed (a register-only chain), so the code's "
			"or a slowdown they do not see (memory, front end, an "
			"SMT sibling)");
	else
		sbt_put(o, ": the machine, not the code%s", probes > 0 ?
			"; the speed probes agree" : "");
}

/* ---- a comparison's rows ------------------------------------------------ */

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

/* r->dist: the modes that changed, then the steps. */
static void cmp_dist(struct sbt_cmp_row *r)
{
	struct sbt_strbuf o = { r->dist, sizeof r->dist, 0 };
	const char *sep = "";
	char c[32];

	r->dist[0] = 0;
	for (int i = 0; i < r->nmodes; i++, sep = "; ") {
		const struct sbt_cmp_mode *m = &r->modes[i];
		sbt_fmt_ns(c, sizeof c, m->center_ns);
		if (m->kind == SBT_CMP_MODE_NEW)
			sbt_put(&o, "%sa mode appeared at %s (%.0f %%)", sep, c,
				100 * m->share_n);
		else if (m->kind == SBT_CMP_MODE_GONE)
			sbt_put(&o, "%sthe mode at %s (%.0f %%) vanished", sep,
				c, 100 * m->share_b);
		else
			sbt_put(&o, "%smode at %s: share %.0f %% -> %.0f %%",
				sep, c, 100 * m->share_b, 100 * m->share_n);
	}
	if (r->steps > 0) {
		char line[200];
		sbt_phase_line(&r->n.g->phases, line, sizeof line);
		sbt_put(&o, "%sa step in the new run (%s)", sep, line);
	} else if (r->steps < 0) {
		sbt_put(&o, "%sthe base run's step%s gone", sep,
			r->b.g->phases.nsteps > 1 ? "s are" : " is");
	}
}

void sbt_cmp_verdict(const struct sbt_cmp *c, struct sbt_cmp_row *r)
{
	struct sbt_strbuf o = { r->verdict, sizeof r->verdict, 0 };
	double base = r->b.tm_ns;

	r->verdict[0] = 0;
	r->dist[0] = 0;
	if (r->side) {
		sbt_put(&o, "only in the %s run%s", r->side < 0 ? "base" : "new",
		    (r->side < 0 ? c->runs_b : c->runs_n) > 1 ? "s" : "");
		return;
	}
	if (!r->b.n || !r->n.n) {
		sbt_put(&o, "no kept samples on the %s side",
		    !r->b.n ? "base" : "new");
		return;
	}
	cmp_dist(r);
	change_words(&o, &r->raw, base);
	if (c->speed) {
		sbt_put(&o, "; normalized by the processor's speed, ");
		change_words(&o, &r->norm, base);
	}
	if (r->b.all_kept || r->n.all_kept)
		sbt_put(&o, "; no steady samples on the %s side: all %s kept "
		    "samples compared", r->b.all_kept && r->n.all_kept ?
		    "either" : r->b.all_kept ? "base" : "new",
		    r->b.all_kept && r->n.all_kept ? "their" : "its");
	if (r->dist[0])
		sbt_put(&o, "; %s", r->dist);
	if (r->probe_blind)
		sbt_put(&o, "; the speed probes (a register-only chain's "
		    "compute speed) did not move: the code's, or a slowdown "
		    "they do not see (memory, front end, an SMT sibling)");
	if (r->tripped)
		sbt_put(&o, "; TRIPS the gate (slower than %g %%)", c->co.fail_pct);
}
