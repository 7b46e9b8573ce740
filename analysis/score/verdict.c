/*
 * verdict.c - what the analysis finds of a region, as data: the findings
 * the reports render (g->find: kind, sizes, shares, time, thread, counts,
 * resolution, the form of its clause; FINDINGS.md) and what the verdict
 * says beside them (g->said).  The scoring files compute numbers; this
 * one alone turns them into findings and decides every alarm, the order
 * and what is said at all.  The words are report/say.c's and
 * report/words.c's: nothing here writes English.
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
 * chase, then the descriptions.
 */
#include "verdict.h"
#include "class.h"

#include <math.h>
#include <string.h>

/* A new finding of g of `size_ns` against a typical time `typ_ns`, last
 * in g->find (when g->find is full, the last one stays last).  Its data
 * beyond the size are the caller's to set; alarm() decides whether it
 * flags. */
static void finding(struct sbt_group *g, int kind, double size_ns,
		    double typ_ns)
{
	struct sbt_finding *x;

	if (g->nfind == SBT_MAX_FINDINGS)
		return;
	x = &g->find[g->nfind++];
	memset(x, 0, sizeof *x);
	x->kind = kind;
	x->size_ns = size_ns;
	x->rel = typ_ns > 0 ? size_ns / typ_ns : NAN;
	x->time_share = x->run_share = x->var_share = x->t_ns = NAN;
	x->per_event_ns = x->events = x->resolution_ns = NAN;
	x->per_switch_ns = x->switches = NAN;
	x->extra_ns = NAN;
	x->key = SBT_FIND_NOKEY;
	x->ref = -1;
	x->minor = 1;
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
	       x->kind == SBT_FIND_PROBE_BLIND || x->kind == SBT_FIND_LEVELS;
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

/* The decomposition's findings (decomp.c): the OS's time, the spread's
 * components, what is left. */
static void components(struct sbt_group *g, const struct sbt_options *o,
		       int few, int steps_said)
{
	enum sbt_by by = o ? o->by : SBT_BY_NONE;
	const struct sbt_decomp *d = &g->decomp;
	const struct sbt_comp_est *c;
	double mean = d->mean_ns;

	if (d->n < SBT_FEW_SAMPLES)
		return;
	/* each counted event that carries time, with its cost */
	for (int j = 0; j < SBT_CNT_COLS; j++) {
		if (!isfinite(d->cnt_cost_ns[j]))
			continue;
		double t = d->cnt_cost_ns[j] * d->cnt_mean[j];
		finding(g, SBT_FIND_COUNTER, d->cnt_cost_ns[j], mean);
		struct sbt_finding *x = last(g);
		x->key = (uint32_t)j;
		x->per_event_ns = d->cnt_cost_ns[j];
		x->events = d->cnt_mean[j];
		x->var_share = d->cnt_share[j];
		x->count = d->n;
		x->time_share = mean > 0 ? t / mean : NAN;
		alarm(g, x, o, few);
	}
	/* the OS's time, where it is worth a word: min_share of a call */
	if (isfinite(d->os_time_ns) && mean > 0 && d->os_time_ns >=
	    (o && o->min_share > 0 ? o->min_share : SBT_MINOR_SHARE) * mean) {
		finding(g, SBT_FIND_OS_TIME, d->os_time_ns, mean);
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
		if (d->fault_cost_from == SBT_COST_RUN)
			x->flags |= SBT_FX_RUN_COST;
		else if (d->fault_cost_from == SBT_COST_RECORDER)
			x->flags |= SBT_FX_REC_COST;
		alarm(g, x, o, few);
	}
	static const int kind[SBT_NCOMP] = {
		[SBT_COMP_OS] = SBT_FIND_OS_SPREAD,
		[SBT_COMP_COUNTERS] = -1,   /* by column, above */
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
		finding(g, kind[j], fabs(c->size_ns), d->median_ns);
		struct sbt_finding *x = last(g);
		x->var_share = c->var_share;
		x->time_share = mean > 0 && isfinite(c->time_ns) ?
				c->time_ns / mean : NAN;
		x->t_ns = c->t_ns;
		x->key = c->key;
		x->count = c->count;
		x->parts = c->parts;
		x->resolution_ns = c->resolution_ns;
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
			break;
		case SBT_FIND_PROCESSOR:
			/* the processor's: not the code's to chase */
			if (!(c->size_ns > 0))
				x->flags |= SBT_FX_FASTER;
			break;
		case SBT_FIND_TIME:
			alarm(g, x, o, few || g->phases.warmup_n ||
			      g->phases.ntransients);
			break;
		case SBT_FIND_GROUPS:
			if (by == SBT_BY_THREAD) {
				/* each thread's own finding says it */
				g->nfind--;
				break;
			}
			if (g->barrier) {
				/* a barrier's waits are judged from who
				 * arrives last (groups.c): its wait finding
				 * says them, not the threads' levels */
				g->nfind--;
				break;
			}
			alarm(g, x, o, few);
			break;
		default:                /* what is left: said, not alarmed */
			x->rel = d->median_ns > 0 ? c->size_ns / d->median_ns
						  : NAN;
			x->time_share = NAN;
			break;
		}
	}
}

/* What the verdict says beside the findings: the form of each clause
 * that depends on its neighbours, what was left out worth a clause. */
static void said(struct sbt_group *g, const struct sbt_options *opt)
{
	double ms = opt && opt->min_share > 0 ? opt->min_share :
		    SBT_MINOR_SHARE;

	g->said.by = opt ? opt->by : SBT_BY_NONE;
	g->said.min_share = ms;
	g->said.min_run_share = opt && opt->min_run_share > 0 ?
				opt->min_run_share : SBT_MIN_RUN_SHARE;
	for (int k = 0; k < g->nfind; k++) {
		struct sbt_finding *x = &g->find[k];
		if (tier(x) == 2)
			x->flags |= SBT_FX_DESCRIBES;
		/* large enough for the region, too small for the run */
		if (tier(x) == 1 && weight(x) >= ms)
			x->flags |= SBT_FX_RUN_SMALL;
	}
	/* a handful of samples left out is not worth a clause (JSON has
	 * machine_samples): 0.1 % of them, or a change the machine made */
	g->said.shared = g->machine_changes ||
			 (double)g->machine_n >= 1e-3 * (double)g->count;
	g->said.slowed = (double)g->speed_n >= 1e-3 * (double)g->count;
}

/* Levels over time (modetime.c's modes in runs of calls, or steps
 * nothing witnessed): a description, never an alarm, the machine's
 * where a probe axis moved with them (flags say which), else
 * unexplained.  size_ns from the lowest level to the highest; parts the
 * levels; count the calls in them. */
static void levels(struct sbt_group *g, int steps)
{
	const struct sbt_phases *p = &g->phases;
	double lo = INFINITY, hi = -INFINITY;

	for (int m = 0; m < g->nlevel; m++) {
		lo = fmin(lo, g->level[m].center_ns);
		hi = fmax(hi, g->level[m].center_ns);
	}
	/* one level beside the code's modes: how far from the nearest */
	const struct sbt_score *s = &g->score;
	if (g->nlevel == 1 && s->nmodes) {
		double c = s->modes[0].center_ns;
		for (int m = 1; m < s->nmodes; m++)
			if (fabs(s->modes[m].center_ns - lo) < fabs(c - lo))
				c = s->modes[m].center_ns;
		lo = fmin(lo, c), hi = fmax(hi, c);
	}
	if (steps) {
		for (int k = 0; k < p->nsteps; k++) {
			lo = fmin(lo, fmin(p->step_from_ns[k],
					   p->ph[p->step[k]].level_ns));
			hi = fmax(hi, fmax(p->step_from_ns[k],
					   p->ph[p->step[k]].level_ns));
		}
	}
	/* the time component's levels are these: not said twice */
	for (int k = 0; k < g->nfind; k++)
		if (g->find[k].kind == SBT_FIND_TIME) {
			g->find[k] = g->find[--g->nfind];
			break;
		}
	finding(g, SBT_FIND_LEVELS, hi - lo, g->score.median_ns);
	struct sbt_finding *x = last(g);
	x->parts = g->nlevel;
	x->count = g->levels_n;
	static const int by[SBT_AXIS__N] = {
		[SBT_AXIS_SPEED] = SBT_FX_BY_SPEED,
		[SBT_AXIS_MEMORY] = SBT_FX_BY_MEMORY,
		[SBT_AXIS_OS] = SBT_FX_BY_OS };
	int axis = g->levels_axis ? g->levels_axis : steps ? g->step_axis :
		   SBT_AXIS_NONE;
	if (axis > 0 && axis < SBT_AXIS__N)
		x->flags |= by[axis];
	x->resolution_ns = g->score.min_shift_ns;
	x->extra_ns = lo;
	if (steps) {
		x->flags |= SBT_FX_STEPS;
		x->t_ns = p->ph[p->step[0]].t_begin_ns;
	}
}

void sbt_verdict(struct sbt_group *g, const struct sbt_options *opt)
{
	enum sbt_by by = opt ? opt->by : SBT_BY_NONE;
	const struct sbt_score *s = &g->score;
	const struct sbt_phases *p = &g->phases;
	const struct sbt_decomp *dc = &g->decomp;
	int few = s->n < SBT_FEW_SAMPLES || dc->n < SBT_FEW_SAMPLES;

	memset(&g->said, 0, sizeof g->said);
	g->nfind = 0;
	if (s->n == 0 || s->resolvable < 0) {
		g->said.score_only = 1;
		g->nfindings = 0;
		if (s->n && s->n < SBT_FEW_SAMPLES) {
			finding(g, SBT_FIND_FEW, NAN, NAN);
			last(g)->count = s->n;
			last(g)->flags |= SBT_FX_UNSAID;
		}
		g->cls = sbt_group_class(g);
		return;
	}
	/* the findings, each with its size, into g->find */
	if (few) {
		finding(g, SBT_FIND_FEW, NAN, NAN);
		last(g)->count = s->n;
	}
	/* A region alone in its log whose level moved while no probe did
	 * (speed, memory latency): nothing witnessed whose its steps are,
	 * so they are levels over time, said as unexplained, not the
	 * code's steps; where a probe axis's shift met one of them, the
	 * machine's, with that axis. */
	int steps_levels = g->lone && p->nsteps && (g->probe_blind == 2 ||
						    g->step_axis);
	for (int k = 0; k < p->nsteps && !steps_levels; k++) {
		const struct sbt_phase *ph = &p->ph[p->step[k]];
		double m0 = p->step_from_ns[k];
		finding(g, SBT_FIND_STEP, fabs(ph->level_ns - m0), m0);
		struct sbt_finding *x = last(g);
		x->t_ns = ph->t_begin_ns;
		x->count = ph->n;
		x->resolution_ns = s->min_shift_ns;
		x->ref = k;
		alarm(g, x, opt, few);
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
		finding(g, SBT_FIND_MODES, d, s->median_ns);
		struct sbt_finding *x = last(g);
		x->parts = nm;
		x->count = s->n;
		x->resolution_ns = s->min_shift_ns;
		if (md == dc->modes) {
			x->var_share = dc->c[SBT_COMP_MODES].var_share;
			x->flags |= SBT_FX_DECOMP;
		}
		/* a barrier's modes are its waits (which thread came last:
		 * the others' work), said by its wait finding: not an alarm */
		alarm(g, x, opt, few || g->barrier);
	}
	if (g->flagged) {
		finding(g, SBT_FIND_GROUP, fabs(g->delta_ns),
			fabs(g->delta_ns / g->delta_rel));
		struct sbt_finding *x = last(g);
		x->key = g->key;
		x->count = g->kept;
		x->resolution_ns = g->delta_resolution_ns;
		alarm(g, x, opt, few);
		/* what a slow share costs: the others' wait for it */
		if (g->delta_ns > 0 && isfinite(g->others_wait_ns))
			x->flags |= SBT_FX_WAITS;
	}
	if (isfinite(g->wait_slow_ns) && g->wait_slow_key != SBT_FIND_NOKEY) {
		/* a barrier: the thread that waits least is the slow one */
		finding(g, SBT_FIND_WAIT, g->wait_others_ns, g->wait_base_ns);
		struct sbt_finding *x = last(g);
		x->key = g->wait_slow_key;
		x->resolution_ns = g->delta_resolution_ns;
		x->time_share = x->rel;
		x->extra_ns = g->wait_extra_ns;
		x->long_waits = g->wait_long;
		x->os_waits = g->wait_os;
		x->flags |= g->wait_flags;
		alarm(g, x, opt, few);
	}
	if (s->broad && s->nmodes < 2 && !few && dc->n == 0) {
		/* by the extremes, or by the share outside one window; only
		 * where there was nothing to decompose */
		double w = sbt_score_window(s);
		int wide = s->excess_ns > w;
		finding(g, SBT_FIND_BROAD, wide ? s->excess_ns :
			s->variation_ns - w, s->median_ns);
		if (wide)
			last(g)->flags |= SBT_FX_WIDE;
		alarm(g, last(g), opt, few);
	}
	/* time's levels are said by the steps, the warm-up, the
	 * excursions or the machine's shifts where those found them */
	components(g, opt, few, p->nsteps || p->warmup_n || p->ntransients ||
		   g->machine_changes || g->machine_n);
	/* the mode levels of a region whose steps are said are theirs */
	if ((g->nlevel && !p->nsteps) || steps_levels)
		levels(g, steps_levels);
	if (g->probe_blind && !steps_levels) {
		finding(g, SBT_FIND_PROBE_BLIND, NAN, NAN);
		if (g->probe_blind == 2)
			last(g)->flags |= SBT_FX_NO_PROBE;
	}
	rank(g);
	g->nfindings = 0;
	for (int k = 0; k < g->nfind; k++)
		g->nfindings += !g->find[k].minor;
	said(g, opt);
	/* the alarm: something worth chasing was found */
	g->score.variation = g->nfindings > 0;
	g->cls = sbt_group_class(g);
}

const char *sbt_finding_kind_name(int kind)
{
	static const char *const name[SBT_FIND__N] = {
#define KIND_NAME(kind, json, cls, clause) [SBT_FIND_##kind] = json,
		SBT_FINDINGS(KIND_NAME)
#undef KIND_NAME
	};

	return kind >= 0 && kind < SBT_FIND__N ? name[kind] : "?";
}
