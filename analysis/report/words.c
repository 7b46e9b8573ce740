/*
 * words.c - a group's analysis in words (words.h): the class, its size,
 * the changes over time, each finding, what was left out, the precision
 * and the kernel's record.  Numbers come from the group's data; the
 * words are made here, once, for every report that says them.
 */
#include "words.h"
#include "class.h"
#include "compare.h"
#include "say.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *sbt_plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

const char *sbt_class_word(int cl)
{
	static const char *const w[SBT_CL__N] = {
		"steady", "modes", "step", "phases", "slow group",
		"fast group", "broad", "processor", "unresolved", "too few",
		"OS", "machine", "unexplained", "finding" };

	return cl >= 0 && cl < SBT_CL__N ? w[cl] : "?";
}

/* ---- changes over time -------------------------------------------------- */

static void when(char *b, size_t len, const struct sbt_group *g, double t)
{
	if (g->phases.untimed)
		snprintf(b, len, "sample %.0f", t);
	else if (t >= 1e9)
		snprintf(b, len, "%.2f s", t / 1e9);
	else if (t >= 1e6)
		snprintf(b, len, "%.2f ms", t / 1e6);
	else
		snprintf(b, len, "%.1f us", t / 1e3);
}

void sbt_words_change(struct sbt_strbuf *o, const struct sbt_group *g,
		      const struct sbt_change *c)
{
	const struct sbt_phases *p = &g->phases;
	char t[32], t2[32], a[32], b[32], r[32];

	when(t, sizeof t, g, c->t_ns);
	sbt_fmt_ns(a, sizeof a, c->from_ns);
	sbt_fmt_ns(b, sizeof b, c->to_ns);
	switch (c->kind) {
	case SBT_CH_STEP:
		sbt_put(o, "step %+.1f %% at %s: %s -> %s", 100 * c->rel, t,
			a, b);
		break;
	case SBT_CH_DIP:
		when(t2, sizeof t2, g, c->t_end_ns);
		sbt_fmt_ns(r, sizeof r, c->back_ns);
		sbt_put(o, "%s %+.1f %% from %s to %s: %s -> %s, back to %s "
			"(net %+.1f %%)", c->to_ns < c->from_ns ? "dip" : "bump",
			100 * (c->from_ns != 0 ? c->to_ns / c->from_ns - 1 : 0),
			t, t2, a, b, r, 100 * c->net_rel);
		break;
	case SBT_CH_WARMUP:
		when(t2, sizeof t2, g, c->t_end_ns);
		sbt_put(o, "warm-up until %s: %s, then %s (%zu %s)", t2, a, b,
			c->n, sbt_plural(c->n, "sample", "samples"));
		break;
	case SBT_CH_TRANSIENTS: {
		int shown = 0;
		sbt_put(o, "%d transient %s (%zu %s, up to %+.0f %%), "
			"returned each time: at", c->count,
			sbt_plural((size_t)c->count, "excursion", "excursions"),
			c->n, sbt_plural(c->n, "sample", "samples"),
			100 * c->rel);
		for (int k = 0; k < p->nphases; k++)
			if (p->ph[k].kind == SBT_PH_TRANSIENT &&
			    (k == 0 || p->ph[k - 1].kind != SBT_PH_TRANSIENT)) {
				if (shown++ == 6) {
					sbt_put(o, " ...");
					break;
				}
				when(t2, sizeof t2, g, sbt_phase_t(p, k, 0));
				sbt_put(o, "%s %s", shown > 1 ? "," : "", t2);
			}
		break;
	}
	}
}

/* ---- the class and its size -------------------------------------------- */

/* The largest finding that is not minor, or NULL. */
static const struct sbt_finding *major(const struct sbt_group *g)
{
	return sbt_finding_major(g);
}

/* The spread nothing recorded explains, when said: a description. */
static const struct sbt_finding *unexplained(const struct sbt_group *g)
{
	return sbt_finding_of(g, SBT_FIND_UNEXPLAINED);
}

/* "60 ns 75 % | 240 ns 25 %, 4.0x apart": the largest mode and the
 * largest of those at least MODES_APART from it (else the next largest),
 * in time order, and how many there are when more. */
#define MODES_APART 0.10
static void modes_size(struct sbt_strbuf *o, const struct sbt_score *s)
{
	int a = 0, b = -1, near = -1;
	char x[32], y[32];

	for (int m = 0; m < s->nmodes; m++)
		if (s->modes[m].share > s->modes[a].share)
			a = m;
	for (int m = 0; m < s->nmodes; m++) {
		int *into = fabs(s->modes[m].center_ns - s->modes[a].center_ns) >=
			    MODES_APART * s->modes[a].center_ns ? &b : &near;
		if (m != a && (*into < 0 ||
			       s->modes[m].share > s->modes[*into].share))
			*into = m;
	}
	if (b < 0)
		b = near >= 0 ? near : a;
	if (b < a) {
		int t = a;
		a = b, b = t;
	}
	sbt_fmt_ns(x, sizeof x, s->modes[a].center_ns);
	sbt_fmt_ns(y, sizeof y, s->modes[b].center_ns);
	sbt_put(o, "%s %.0f%% | %s %.0f%%", x, 100 * s->modes[a].share, y,
		100 * s->modes[b].share);
	if (s->modes[a].center_ns > 0) {
		double r = s->modes[b].center_ns / s->modes[a].center_ns;
		sbt_put(o, r < 10 ? ", %.2fx" : ", %.0fx", r);
	}
	if (s->nmodes > 2)
		sbt_put(o, " (%d modes)", s->nmodes);
	else
		sbt_put(o, " apart");
}

/* The largest change of the group's time, sized. */
static void changes_size(struct sbt_strbuf *o, const struct sbt_group *g)
{
	struct sbt_change ch[SBT_CHANGES_MAX];
	int n = sbt_group_changes(g, ch), steps, dips, big = -1;
	char t[32];

	sbt_changes_count(ch, n, &steps, &dips);
	for (int k = 0; k < n; k++)
		if ((ch[k].kind == SBT_CH_STEP || ch[k].kind == SBT_CH_DIP) &&
		    (big < 0 || fabs(ch[k].to_ns - ch[k].from_ns) >
		     fabs(ch[big].to_ns - ch[big].from_ns)))
			big = k;
	if (big < 0)
		return;
	when(t, sizeof t, g, ch[big].t_ns);
	if (steps == 1 && dips == 0) {
		sbt_put(o, "%+.1f %% at %s", 100 * ch[big].rel, t);
		return;
	}
	if (ch[big].kind == SBT_CH_DIP)
		sbt_put(o, "%s %+.1f %% at %s", ch[big].to_ns < ch[big].from_ns ?
			"dip" : "bump", 100 * (ch[big].to_ns /
			ch[big].from_ns - 1), t);
	else
		sbt_put(o, "%+.1f %% at %s", 100 * ch[big].rel, t);
	if (steps + dips > 1)
		sbt_put(o, ", %d changes", steps + dips);
}

/* "levels 591 ns apart, no probe moved" */
static void levels_size(struct sbt_strbuf *o, const struct sbt_group *g)
{
	const struct sbt_finding *x = sbt_finding_of(g, SBT_FIND_LEVELS);
	char a[32];

	if (!x)
		return;
	sbt_fmt_ns(a, sizeof a, x->size_ns);
	sbt_put(o, "levels %s apart", a);
	if (x->flags & SBT_FX_BY_OS)
		sbt_put(o, ", cpu shared");
	else if (x->flags & SBT_FX_BY_SPEED)
		sbt_put(o, ", with its speed");
	else if (x->flags & SBT_FX_BY_MEMORY)
		sbt_put(o, ", with memory latency");
	else
		sbt_put(o, ", no probe moved");
}

void sbt_words_size(struct sbt_strbuf *o, const struct sbt_group *g, int cl)
{
	const struct sbt_score *s = &g->score;
	const struct sbt_finding *x = major(g);
	char a[32];

	switch (cl) {
	case SBT_CL_MODES:
		modes_size(o, s);
		break;
	case SBT_CL_STEP:
	case SBT_CL_PHASES:
		if (x && x->kind == SBT_FIND_TIME) {
			sbt_fmt_ns(a, sizeof a, x->size_ns);
			sbt_put(o, "levels %s apart, %.0f%% of spread", a,
				100 * x->var_share);
			break;
		}
		changes_size(o, g);
		break;
	case SBT_CL_MACHINE:
	case SBT_CL_UNEXPLAINED:
		levels_size(o, g);
		break;
	case SBT_CL_OS:
		if (!x && sbt_finding_of(g, SBT_FIND_LEVELS)) {
			levels_size(o, g);
			break;
		}
		if (x && x->kind == SBT_FIND_WAIT) {
			sbt_fmt_ns(a, sizeof a, x->size_ns);
			if (x->long_waits)
				sbt_put(o, "wait %s, %.0f%% preempted", a,
					100.0 * (double)x->os_waits /
					(double)x->long_waits);
			else
				sbt_put(o, "wait %s", a);
			break;
		}
		if (x && x->kind == SBT_FIND_OS_TIME && x->time_share <= 1)
			sbt_put(o, "%.0f%% of its time", 100 * x->time_share);
		else if (x && x->kind == SBT_FIND_OS_TIME)
			sbt_put(o, "%.1fx its mean time", x->time_share);
		else if (x)
			sbt_put(o, "%.0f%% of its spread", 100 * x->var_share);
		if (x && isfinite(x->events) && isfinite(x->per_event_ns)) {
			char c[32];
			sbt_fmt_ns(a, sizeof a, x->per_event_ns);
			sbt_fmt_num(c, sizeof c, x->events);
			sbt_put(o, ", %s faults x %s", c, a);
		}
		break;
	case SBT_CL_SLOW_GROUP:
	case SBT_CL_FAST_GROUP:
		if (x && x->kind == SBT_FIND_WAIT) {
			sbt_fmt_ns(a, sizeof a, x->size_ns);
			if (x->flags & SBT_FX_WAIT_UNEXPL)
				sbt_put(o, "thread %u last, wait %s unexplained",
					x->key, a);
			else
				sbt_put(o, "thread %u slow, others wait %s",
					x->key, a);
			break;
		}
		if (x && x->kind == SBT_FIND_GROUPS) {
			sbt_fmt_ns(a, sizeof a, x->size_ns);
			sbt_put(o, "thread %u +%s, %.0f%% of spread", x->key, a,
				100 * x->var_share);
			break;
		}
		/* against the others' median */
		sbt_put(o, "%+.1f%%", 100 * g->delta_rel);
		if (g->delta_ns > 0 && isfinite(g->others_wait_ns)) {
			sbt_fmt_ns(a, sizeof a, g->others_wait_ns);
			sbt_put(o, ", others wait %s", a);
		}
		break;
	case SBT_CL_BROAD:          /* beyond the timer's own noise */
		sbt_fmt_ns(a, sizeof a, x ? x->size_ns : s->variation_ns);
		sbt_put(o, "spread +%s", a);
		if (x && isfinite(x->rel))
			sbt_put(o, x->rel >= 10 ? ", %.0fx" :
				", %.0f%%", x->rel >= 10 ? x->rel : 100 * x->rel);
		break;
	case SBT_CL_PROCESSOR:
		if (x && x->kind == SBT_FIND_PROCESSOR) {
			sbt_put(o, "%.0f%% of its spread", 100 * x->var_share);
			break;
		}
		sbt_put(o, "%.0f%% of samples left out",
			100 * (double)g->speed_n / (double)g->count);
		break;
	case SBT_CL_FEW:
		/* judged of its samples, where the others were left out */
		if (s->n == g->count)
			sbt_put(o, "%zu %s", s->n, sbt_plural(s->n, "sample",
							      "samples"));
		else
			sbt_put(o, "%zu of %zu judged", s->n, g->count);
		break;
	case SBT_CL_OTHER:
		sbt_put(o, "kind %d: ", x ? x->kind : -1);
		/* fall through */
	default:                /* steady, unresolved: what it resolves */
		if (cl == SBT_CL_OTHER && x) {
			sbt_fmt_ns(a, sizeof a, x->size_ns);
			sbt_put(o, "%s (%.1f %%)", a, 100 * x->rel);
		} else if (unexplained(g) && isfinite(unexplained(g)->rel)) {
			/* short: the row's name may leave it 20 columns */
			double r = 100 * unexplained(g)->rel;
			if (r >= 999.5)
				sbt_put(o, "+-%.0fx unexplained", r / 100);
			else
				sbt_put(o, r < 10 ? "+-%.1f%% unexplained" :
					"+-%.0f%% unexplained", r);
		} else if (isfinite(s->shift_resolution_ns)) {
			if (s->median_ns < g->quantum_ns) {
				sbt_fmt_ns(a, sizeof a, g->quantum_ns);
				sbt_put(o, "under the %s clock step; ", a);
				sbt_fmt_ns(a, sizeof a, s->shift_resolution_ns);
				sbt_put(o, "resolves %s", a);
				break;
			}
			sbt_fmt_ns(a, sizeof a, s->shift_resolution_ns);
			/* the population's: its typical time's shifts */
			sbt_put(o, "resolves shifts of %s", a);
			if (s->median_ns > 0) {
				sbt_fmt_pct(a, sizeof a, 100 *
					    s->shift_resolution_ns /
					    s->median_ns);
				sbt_put(o, " (%s%%)", a);
			}
		} else {
			sbt_put(o, "no resolution");
		}
	}
}

/* ---- what was left out -------------------------------------------------- */

const char *sbt_left_name(int why)
{
	static const char *const w[SBT_LEFT__N] = {
		"cut as OS noise", "its thread preempted (the OS's)",
		"the processor off speed",
		"other regions shifted with it", "beside a recorder probe",
		"in warm-up or transients" };

	return why >= 0 && why < SBT_LEFT__N ? w[why] : "?";
}

const char *sbt_left_word(int why)
{
	static const char *const w[SBT_LEFT__N] = {
		"OS noise", "preempted", "processor", "machine", "probes",
		"transients" };

	return why >= 0 && why < SBT_LEFT__N ? w[why] : "?";
}

const char *sbt_left_advice(int why)
{
	switch (why) {
	case SBT_LEFT_CUT:
		return "a quieter machine, pinned threads";
	case SBT_LEFT_OS:
	case SBT_LEFT_SPEED:
	case SBT_LEFT_MACHINE:
		return "pin threads to idle cpus";
	case SBT_LEFT_PROBE:
		return "raise SBT_PROBE_PERIOD and SBT_SPEED_US";
	default:
		return "";
	}
}

void sbt_group_leftout(const struct sbt_group *g, struct sbt_leftout *lo)
{
	memset(lo, 0, sizeof *lo);
	lo->n = g->left_n;
	for (int w = 0; w < SBT_LEFT__N; w++) {
		lo->by[w] = g->left[w];
		lo->total += g->left[w];
	}
}

void sbt_words_leftout(struct sbt_strbuf *o, const struct sbt_leftout *lo,
		       int brief)
{
	int order[SBT_LEFT__N];

	if (!lo->total) {
		sbt_put(o, "nothing of %zu %s", lo->n,
			sbt_plural(lo->n, "sample", "samples"));
		return;
	}
	for (int w = 0; w < SBT_LEFT__N; w++) {  /* largest first */
		int j = w;
		while (j > 0 && lo->by[order[j - 1]] < lo->by[w]) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = w;
	}
	sbt_put(o, "%.1f %% of %zu %s", 100 * (double)lo->total /
		(double)lo->n, lo->n, sbt_plural(lo->n, "sample", "samples"));
	if (!brief)
		sbt_put(o, " (%zu)", lo->total);
	sbt_put(o, ":");
	for (int k = 0; k < SBT_LEFT__N && lo->by[order[k]]; k++) {
		char p[32];
		sbt_fmt_pct(p, sizeof p, 100 * (double)lo->by[order[k]] /
			    (double)lo->n);
		sbt_put(o, "%s %s %s %%", k ? "," : "",
			brief ? sbt_left_word(order[k]) :
			sbt_left_name(order[k]), p);
	}
}

/* ---- precision, the kernel's record ------------------------------------- */

void sbt_words_precision(struct sbt_strbuf *o, const struct sbt_group *g)
{
	const struct sbt_score *s = &g->score;
	char a[32], b[32], c[32];

	if (s->n == 0) {
		sbt_put(o, "not judged: none of its samples was left for the "
			"verdict");
		return;
	}
	if (s->resolvable < 0) {
		sbt_put(o, "unknown: no profile, too few probes%s",
			g->quantum_ns > 0 ? "" : " and no clock quantum");
		return;
	}
	sbt_fmt_ns(a, sizeof a, s->t_diff_ns);
	sbt_fmt_ns(b, sizeof b, s->t_min_ns);
	sbt_put(o, "one sample tells apart %s (t_diff%s) and times a region "
		"of %s or more to 1 %% (t_min; this one is %s)", a,
		s->metric_source == SBT_SRC_QUANTUM ?
		", the clock's quantum only" : "", b,
		s->resolvable ? "longer" : "shorter");
	if (isfinite(s->shift_resolution_ns)) {
		sbt_fmt_ns(c, sizeof c, s->shift_resolution_ns);
		sbt_put(o, "; its %zu kept %s resolve a shift of their typical "
			"time of %s (99.9 %%)", s->n,
			sbt_plural(s->n, "sample", "samples"), c);
	}
	if (s->metric_source == SBT_SRC_INSITU)
		sbt_put(o, "; t_diff and t_min from in-situ probes");
	else if (s->metric_source == SBT_SRC_QUANTUM)
		sbt_put(o, "; t_diff from the clock's quantum alone");
	else
		sbt_put(o, "; t_diff and t_min from %s",
			sbt_metric_source_name(s, c, sizeof c));
}

void sbt_words_os(struct sbt_strbuf *o, const struct sbt_group *g)
{
	const struct sbt_group_os *x = &g->os;

	if (!x->covered)
		return;
	sbt_put(o, "of %zu %s the kernel watched: %zu preempted, %zu "
		"interrupted; %zu context %s, %zu page %s", x->covered,
		sbt_plural(x->covered, "sample", "samples"), x->preempted,
		x->interrupted, x->switches,
		sbt_plural(x->switches, "switch", "switches"), x->faults,
		sbt_plural(x->faults, "fault", "faults"));
	if (x->left_out)
		sbt_put(o, "; %zu preempted left out", x->left_out);
	/* the region's rule, as the summary line says it (say.c) */
	if (x->preempted_own && x->keep_pre == SBT_PRE_OWN)
		sbt_put(o, "; gave the cpu away more often than the OS "
			"preempts: kept as its own (yields, waits)");
	else if (x->preempted_own)
		sbt_put(o, "; preempted in half its calls or more: kept (its "
			"time holds the OS's)");
	if (x->lost)
		sbt_put(o, "; %zu near lost events (counts may be low)",
			x->lost);
}

/* ---- a comparison's distribution ---------------------------------------- */

void sbt_words_cmp_dist(struct sbt_strbuf *o, const struct sbt_cmp_row *r)
{
	const char *sep = sbt_say_cmp_modes(o, r);
	if (r->steps > 0 && r->n.g) {
		struct sbt_change ch[SBT_CHANGES_MAX];
		int n = sbt_group_changes(r->n.g, ch), said = 0;
		for (int k = 0; k < n; k++) {
			if (ch[k].kind != SBT_CH_STEP && ch[k].kind != SBT_CH_DIP)
				continue;
			sbt_put(o, "%s%s", said ? "; " : sep,
				said ? "" : "in the new run: ");
			said++;
			sbt_words_change(o, r->n.g, &ch[k]);
		}
	} else if (r->steps < 0 && r->b.g) {
		sbt_put(o, "%sthe base run's step%s gone", sep,
			r->b.g->phases.nsteps > 1 ? "s are" : " is");
	}
}
