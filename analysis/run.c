/*
 * run.c - one group through the analysis's steps, in order: its samples
 * gathered, filtered, kept, scored, their phases found; and once the
 * machine's events are known, scored again on its steady samples.  Each
 * group is filtered and summarized on its own, which keeps the working
 * set to one group's values at a time.
 *
 * Probes (in-situ empty pairs, SBT_SF_PROBE) travel with their region's
 * group but are not samples of it: they never enter the filters or the
 * statistics, only the scoring.
 */
#include "run.h"
#include "bigmem.h"
#include "drop.h"
#include "jobs.h"
#include "phase.h"
#include "sort.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sbt_scratch_free(struct scratch *w)
{
	big_free(w->v, w->cap * sizeof *w->v);
	big_free(w->y, w->cap * sizeof *w->y);
	big_free(w->t, w->cap * sizeof *w->t);
	big_free(w->keep, w->cap);
	big_free(w->score, w->cap * sizeof *w->score);
	big_free(w->ix, w->cap * sizeof *w->ix);
	memset(w, 0, sizeof *w);
}

/* Room for a group of n samples.  0, or -1 when out of memory. */
int sbt_scratch_fit(struct scratch *w, size_t n)
{
	if (n <= w->cap && w->v)
		return 0;
	sbt_scratch_free(w);
	w->cap = n ? n : 1;
	w->v = big_alloc(w->cap * sizeof *w->v);
	w->y = big_alloc(w->cap * sizeof *w->y);
	w->t = big_alloc(w->cap * sizeof *w->t);
	w->keep = big_alloc(w->cap);
	w->score = big_alloc(w->cap * sizeof *w->score);
	w->ix = big_alloc(w->cap * sizeof *w->ix);
	return w->v && w->y && w->t && w->keep && w->score && w->ix ? 0 : -1;
}

/* An in-situ probe of the timer: it travels with its region's group,
 * but is no sample of it. */
static int is_probe(const struct sbt_sample *s)
{
	return (s->flags & SBT_SF_PROBE) != 0;
}

/* The group's phases with the processor's samples left in (wphases):
 * machine.c's coincidence test must see the shifts the speed probes took
 * out, to say whether it agrees.  Only where there are such samples,
 * all of one source (one clock).  In w: run_phases's (phases(), below). */
static void witness_phases(const struct run *r, struct scratch *w)
{
	const struct sbt_dataset *ds = r->ds;
	struct sbt_group *g = r->g;
	double cost = sbt_cost_of(r->o, &ds->sources[g->source]);
	size_t k = 0;

	free(g->wphases);
	g->wphases = NULL;
	if (!g->speed_n)
		return;
	for (size_t i = 0; i < g->n; i++) {
		const struct sbt_sample *s = &ds->s[r->idx[i]];
		if (s->source != g->source)
			return;
		if (!is_probe(s) && !(r->mark[r->idx[i]] & (SBT_MK_DROPPED |
						       SBT_MK_AFTER_PROBE))) {
			w->t[k] = s->t_ns;
			w->ix[k++] = r->idx[i];
		}
	}
	if (sbt_sort_keyed(w->t, w->ix, k) != 0 ||
	    !(g->wphases = calloc(1, sizeof *g->wphases)))
		return;
	for (size_t i = 0; i < k; i++)
		w->v[i] = ds->s[w->ix[i]].ns - cost;
	if (sbt_phase_detect(w->t, w->v, k, r->in->min_shift_ns,
			     g->wphases) != 0) {
		free(g->wphases);
		g->wphases = NULL;
		return;
	}
	for (int p = 0; p < g->wphases->nphases; p++) {
		struct sbt_phase *ph = &g->wphases->ph[p];
		ph->cpu = ds->s[w->ix[ph->first]].cpu_start;
	}
}

/* Phases need the kept samples in time order, and one time base: found
 * on one source's samples only. */
static void run_phases(const struct run *r, struct scratch *w)
{
	const struct sbt_dataset *ds = r->ds;
	struct sbt_group *g = r->g;
	double cost = sbt_cost_of(r->o, &ds->sources[g->source]);
	double min_shift = r->in->min_shift_ns;
	size_t k = 0;

	memset(&g->phases, 0, sizeof g->phases);
	for (size_t i = 0; i < g->n; i++) {
		const struct sbt_sample *s = &ds->s[r->idx[i]];
		if (s->source != g->source)
			return;         /* several logs: no common clock */
		/* the processor's samples say nothing of the code's time,
		 * nor do those a probe's detour may have changed, nor those
		 * the machine shifted (marked only when searched again:
		 * own_phases) */
		if (!is_probe(s) && !(r->mark[r->idx[i]] & (SBT_MK_DROPPED |
				      SBT_MK_SPEED | SBT_MK_AFTER_PROBE |
				      SBT_MK_MACHINE))) {
			w->t[k] = s->t_ns;
			w->v[k] = s->ns - cost;  /* as they come: mostly */
			w->ix[k++] = r->idx[i];
		}
	}
	size_t sorted = 1;
	for (size_t i = 1; i < k && sorted; i++)
		sorted = w->t[i - 1] <= w->t[i];
	if (!sorted) {
		if (sbt_sort_keyed(w->t, w->ix, k) != 0)
			return;
		for (size_t i = 0; i < k; i++)
			w->v[i] = ds->s[w->ix[i]].ns - cost;
	}
	if (sbt_phase_detect(w->t, w->v, k, min_shift, &g->phases) != 0)
		return;
	sbt_phase_classify(&g->phases, k, min_shift);
	for (int p = 0; p < g->phases.nphases; p++) {
		struct sbt_phase *ph = &g->phases.ph[p];
		ph->cpu = ds->s[w->ix[ph->first]].cpu_start;
	}
}

/* After run_phases, with its w: the samples of its warm-up and
 * excursions marked SBT_MK_TRANSIENT (they stay kept: the statistics
 * describe them, the modes and the spread do not).  Apart, so that
 * witness_phases, which reads the marks, can run beside run_phases. */
static void mark_transient(const struct run *r)
{
	const struct sbt_group *g = r->g;

	for (int p = 0; p < g->phases.nphases; p++) {
		const struct sbt_phase *ph = &g->phases.ph[p];
		if (ph->kind == SBT_PH_LEVEL)
			continue;
		for (size_t i = ph->first; i < ph->first + ph->n; i++)
			r->mark[r->w->ix[i]] |= SBT_MK_TRANSIENT;
	}
}

/* The two phase searches of a group (each a sort and a segmentation of
 * its samples) side by side on two threads, when the pool lends the
 * group more than one (inner > 1): witness_phases in scratch of its own
 * (t, ix, v).  Both only read the samples and marks; each writes its
 * own field of g.  The same result as in turn. */
struct both {
	const struct run *r;
	struct scratch *w2;
};

static void both_work(void *arg, size_t i, int t)
{
	struct both *b = arg;

	(void)t;
	if (i == 0)
		run_phases(b->r, b->r->w);
	else
		witness_phases(b->r, b->w2);
}

/* One sample into its group's OS tally; `kept`: by the OS filter. */
static void os_count(struct sbt_group_os *t, const struct sbt_source *src,
		     const struct sbt_sample *s, int kept, int os_on)
{
	int hit = s->switches || s->faults, c = sbt_os_class(s);

	if (src->os_state != SBT_OS_ON)
		return;
	t->covered++;
	t->interrupted += hit;
	t->preempted += c == SBT_OSC_PREEMPTED;
	t->yielded += c == SBT_OSC_YIELDED;
	t->waited += c == SBT_OSC_WAITED;
	t->switches += s->switches;
	t->faults += s->faults;
	t->lost += !!(s->flags & SBT_SF_OS_LOST);
	if (!os_on)
		return;
	t->cut += !kept;
	t->cut_interrupted += !kept && hit;
	t->interrupted_kept += kept && hit;
}

/* ---- the steps of one group, in order (run_group) -------------------- */

/* Step 1: count its probes and calls, and lay its samples' values out
 * per log (w->ix[i] is value i's sample): time less the timing cost in
 * v, cycles in y; the highest clock quantum, cost and kernel entry of
 * its logs. */
static int gather(struct run *r)
{
	const struct sbt_dataset *ds = r->ds;
	const struct sbt_options *o = r->o;
	struct sbt_group *g = r->g;
	struct scratch *w = r->w;
	double te_max = 0, q = 0;

	r->n = 0;
	r->cycles = 1;
	r->floor_ns = 0;
	for (size_t i = 0; i < g->n; i++) {
		const struct sbt_sample *s = &ds->s[r->idx[i]];
		const struct sbt_source *src = &ds->sources[s->source];
		double te = sbt_cost_of(o, src);

		if (src->kernel_entry_ns > r->floor_ns)
			r->floor_ns = src->kernel_entry_ns;
		if (is_probe(s)) {
			g->probes++;
			continue;
		}
		g->speed_n += !!(r->mark[r->idx[i]] & SBT_MK_SPEED);
		g->calls += 1 + (uint64_t)s->skipped;
		if (te > te_max) te_max = te;
		if (src->quantum_ns > q) q = src->quantum_ns;
		if (!src->has_cycles)
			r->cycles = 0;
		w->v[r->n] = s->ns - te;
		w->y[r->n] = s->cycles - ((o->filters & SBT_F_COST) ?
					  src->te_cycles : 0);
		w->ix[r->n] = r->idx[i];
		g->migrated += !!(s->flags & SBT_SF_MIGRATED);
		r->n++;
	}
	g->count = r->n;
	g->te_ns = te_max;
	g->quantum_ns = q;
	return 0;
}

/* Step 2: the drop filters o->filters names, each on each log's samples
 * of the group in turn (a log's samples are contiguous in a group),
 * clearing w->keep[]; counts in g->dropped_by, the OS filter's scores in
 * w->score, the highest cut in g->cut.  The median they are given: of
 * all n, for a group of one log. */
static int drop(struct run *r)
{
	const struct sbt_dataset *ds = r->ds;
	const struct sbt_options *o = r->o;
	struct sbt_group *g = r->g;
	struct scratch *w = r->w;
	uint8_t *keep = w->keep;
	size_t n = r->n;

	g->cut = NAN;
	memset(keep, 1, n);
	memset(g->dropped_by, 0, sizeof g->dropped_by);
	r->median = NAN;
	if (n == 0)
		return 0;
	if (o->filters & SBT_F_OS) {
		memcpy(w->t, w->v, n * sizeof *w->v);
		r->median = sbt_quantile(w->t, n, 0.5);
	}
	for (int f = 0; f < SBT_NDROP; f++) {
		const struct sbt_drop_filter *d = sbt_drop_filters[f];
		size_t before = 0, after = 0;
		if (!(o->filters & SBT_F_DROP(f)))
			continue;
		for (size_t i = 0; i < n; i++)
			before += keep[i];
		for (size_t a = 0, b; a < n; a = b) {
			uint32_t src = ds->s[w->ix[a]].source;
			for (b = a + 1; b < n && ds->s[w->ix[b]].source == src;
			     b++)
				;
			struct sbt_drop_in in = {
				.ns = w->v + a, .cycles = r->cycles ? w->y + a :
				NULL, .sample = w->ix + a, .n = b - a,
				.ds = ds, .src = &ds->sources[src],
				.quantum_ns = g->quantum_ns,
				.median_ns = b - a == n ? r->median : NAN,
				.seed = o->seed, .os_method = o->os_method,
				.scratch = w->t,
			};
			struct sbt_drop_out out = {
				.score = f == SBT_DROP_ID_os ? w->score + a :
				NULL, .cut = NAN };
			if (d->run(&in, keep + a, &out) == 0 &&
			    !isnan(out.cut) &&
			    (isnan(g->cut) || out.cut > g->cut))
				g->cut = out.cut;
		}
		for (size_t i = 0; i < n; i++)
			after += keep[i];
		g->dropped_by[f] = before - after;
	}
	return 0;
}

/* Step 3: what is kept.  With the OS filter on, a sample the kernel saw
 * preempted (sbt_os_class) is left out whatever the isolation forest
 * said: that is no guess.  Unless its region was preempted in half its
 * calls or more (a long region, or one that shares its cpu all the
 * time): then that is its time, decided per region (leave_pre) so that
 * every view keeps the same.  Marks the left out SBT_MK_DROPPED, tallies
 * the kernel's record, keeps the scores where asked, and compacts the
 * kept values: v[0..k), their cycles y[0..ny). */
static int keep(struct run *r)
{
	const struct sbt_dataset *ds = r->ds;
	struct sbt_group *g = r->g;
	struct scratch *w = r->w;
	uint8_t *kp = w->keep;
	int os_on = (r->o->filters & SBT_F_OS) != 0;
	int leave_out = os_on && r->leave_pre == SBT_PRE_LEAVE;
	size_t j = 0, k = 0, ny = 0, npre = 0;

	memset(&g->os, 0, sizeof g->os);
	g->os.kept_excess_ns = NAN;
	g->os.keep_pre = r->leave_pre;
	for (j = 0; j < r->n; j++) {
		uint32_t ix = w->ix[j];
		const struct sbt_sample *s = &ds->s[ix];
		int pre = sbt_os_class(s) == SBT_OSC_PREEMPTED;
		npre += pre;
		if (r->score && os_on)
			r->score[ix] = w->score[j];
		os_count(&g->os, &ds->sources[s->source], s, kp[j], os_on);
		if (leave_out && pre) {
			g->os.left_out++;
			g->os.preempted_kept += kp[j];
			kp[j] = 0;
		}
		if (!kp[j]) {
			r->mark[ix] |= SBT_MK_DROPPED;
			continue;
		}
		w->v[k++] = w->v[j];
		if (r->cycles)
			w->y[ny++] = w->y[j];
	}
	g->os.preempted_own = os_on && !leave_out && npre;
	g->kept = r->k = k;
	g->dropped = r->n - k;
	g->cycles_median = r->cycles && ny ? sbt_quantile(w->y, ny, 0.5) : NAN;
	return 0;
}

/* What a probe leaves in a sample near it: at most this many clock
 * steps (afterprobe.h: 1-5 measured).  Where that is under a tenth of
 * the region's own spread (robust sd of its kept calls) it cannot make
 * a mode, a step or a shift the verdict would name: the samples near a
 * probe stay (a LULESH region of 2-30 us spreads by microseconds and
 * met a probe in 40 % of its calls). */
#define SBT_PROBE_STEPS  5
#define SBT_PROBE_SHARE 10

/* The robust sd (IQR / 1.349) of the group's kept calls; 0 when too few
 * or out of memory (the samples near probes then go, as ever). */
static double kept_sd(const struct run *r)
{
	const struct sbt_group *g = r->g;
	double *v = big_alloc(g->n * sizeof *v), sd = 0;
	size_t k = 0;

	if (!v)
		return 0;
	for (size_t i = 0; i < g->n; i++) {
		uint32_t ix = r->idx[i];
		const struct sbt_sample *s = &r->ds->s[ix];
		if (!is_probe(s) && !(r->mark[ix] & SBT_MK_DROPPED))
			v[k++] = s->ns;
	}
	if (k >= 8) {
		double q1 = sbt_quantile(v, k, 0.25);
		sd = (sbt_quantile(v, k, 0.75) - q1) / 1.349;
	}
	big_free(v, g->n * sizeof *v);
	return sd;
}

static int probe_visible(const struct run *r)
{
	const struct sbt_source *src = &r->ds->sources[r->g->source];
	double step = src->quantum_ns > 0 ? src->quantum_ns : 1;

	return SBT_PROBE_SHARE * SBT_PROBE_STEPS * step > kept_sd(r);
}

/* Step 4: the kept samples a recorder probe disturbed - among their
 * thread's first calls after a speed probe (afterprobe.c), or holding a
 * probe's detour (SBT_SF_DETOUR: its span was taken out, but 1-5 clock
 * steps of it stay in, the clock reads around it and the way into the
 * recorder) - are left out of the steady ones, all marked
 * SBT_MK_AFTER_PROBE; unless half or more of them are: a region called
 * about as often as the probes come, or longer than their cadence,
 * meets one nearly every call, and that is then its normal; or where the
 * region's own spread drowns what a probe leaves (probe_visible()).
 * There the marks are cleared, so that every format shows the samples
 * used. */
static int after_probe(struct run *r)
{
	struct sbt_group *g = r->g;
	size_t m = 0;

	/* marked as if they stay: mostly they do, and no second pass */
	for (size_t i = 0; i < g->n; i++) {
		uint32_t ix = r->idx[i];
		const struct sbt_sample *s = &r->ds->s[ix];
		int near = (r->mark[ix] & SBT_MK_AFTER_PROBE) ||
			   (s->flags & SBT_SF_DETOUR);
		m += !is_probe(s) && !(r->mark[ix] & SBT_MK_DROPPED) && near;
		if (near)
			r->mark[ix] |= SBT_MK_AFTER_PROBE;
	}
	g->after_n = 2 * m < g->kept && m && probe_visible(r) ? m : 0;
	for (size_t i = 0; !g->after_n && i < g->n; i++)
		r->mark[r->idx[i]] &= (uint8_t)~SBT_MK_AFTER_PROBE;
	return 0;
}

/* Step 5: the in-situ probes, cost removed, in y[0..np) (the kept
 * cycles there are done with: keep took their median). */
static int probes(struct run *r)
{
	const struct sbt_dataset *ds = r->ds;

	r->np = 0;
	for (size_t i = 0; i < r->g->n; i++) {
		const struct sbt_sample *s = &ds->s[r->idx[i]];
		if (is_probe(s))
			r->w->y[r->np++] = s->ns - sbt_cost_of(r->o,
						&ds->sources[s->source]);
	}
	return 0;
}

/* Step 6: the kept values sorted once, for the statistics, the metrics
 * and the phases' size test; what score_group needs in r->in; the group
 * scored now, while v is sorted (a group that turns out to have a
 * warm-up, an excursion or a machine shift is scored again on its
 * steady samples: score_group); then its statistics (which reorder v). */
static int describe(struct run *r)
{
	const struct sbt_options *o = r->o;
	struct sbt_group *g = r->g;
	struct sbt_score_in *in = r->in;
	double *v = r->w->v, *y = r->w->y;
	size_t k = r->k;

	*in = (struct sbt_score_in){
		.quantum_ns = g->quantum_ns,
		.profile_t_min_ns = o->profile_t_min_ns,
		.profile_t_diff_ns = o->profile_t_diff_ns,
		.profile_label = o->profile_label,
		.os_floor_ns = r->floor_ns,
		.prefer = o->prefer_profile ? SBT_PREFER_PROFILE
					    : SBT_PREFER_INSITU,
		.noise_spread_ns = -1,
	};
	if (sbt_sort_doubles(v, k) != 0)
		return -1;
	in->sorted = 1;
	if (sbt_score_metrics(v, k, y, r->np, in, &g->score) != 0)
		return -1;
	g->iqr_ns = k ? v[k - 1 - k / 4] - v[k / 4] : NAN;
	in->quantum_ns = g->score.quantum_ns;
	in->min_shift_ns = sbt_min_shift(g->score.t_diff_ns, k ? (k % 2 ?
					 v[k / 2] : 0.5 * (v[k / 2 - 1] +
					 v[k / 2])) : NAN,
					 g->score.quantum_ns, SBT_SCORE_EPS);
	if (sbt_score_group(v, k, y, r->np, in, &g->score) != 0)
		return -1;
	sbt_stats(v, k, &g->st);            /* reorders v */
	return 0;
}

/* Step 7: how much longer the interrupted samples still kept (switched
 * out of their own accord, or faulted) are than the kept median: the OS
 * time the statistics hold.  Uses w->t. */
static int os_excess(struct run *r)
{
	const struct sbt_dataset *ds = r->ds;
	struct sbt_group *g = r->g;
	size_t m = 0;

	if (!(r->o->filters & SBT_F_OS) || !g->os.interrupted_kept)
		return 0;
	for (size_t i = 0; i < g->n; i++) {
		const struct sbt_sample *s = &ds->s[r->idx[i]];
		if (!is_probe(s) && !(r->mark[r->idx[i]] & SBT_MK_DROPPED) &&
		    (s->switches || s->faults))
			r->w->t[m++] = s->ns - sbt_cost_of(r->o,
						&ds->sources[s->source]);
	}
	g->os.kept_excess_ns = m ? sbt_quantile(r->w->t, m, 0.5) -
				   g->st.median : NAN;
	return 0;
}

/* Step 8: over time (a warm-up or an excursion is not a mode): the
 * group's phases, then the witness's; side by side when the group may
 * use two threads and has a witness to find. */
static int phases(struct run *r)
{
	struct scratch w2 = { .cap = r->g->n ? r->g->n : 1 };

	if (r->inner > 1 && r->g->speed_n) {
		w2.t = big_alloc(w2.cap * sizeof *w2.t);
		w2.v = big_alloc(w2.cap * sizeof *w2.v);
		w2.ix = big_alloc(w2.cap * sizeof *w2.ix);
	}
	if (w2.t && w2.v && w2.ix) {
		struct both b = { r, &w2 };
		sbt_jobs_each(2, 2, both_work, &b);
		mark_transient(r);
	} else {
		run_phases(r, r->w);
		mark_transient(r);
		witness_phases(r, r->w);
	}
	sbt_scratch_free(&w2);
	return 0;
}

/* Filter and summarize one group, find its phases: sets up g->score's
 * metrics, and in r->in what score_group needs.  0, or -1 when out of
 * memory. */
int sbt_run_group(struct run *r)
{
	static int (*const step[])(struct run *) = {
		gather, drop, keep, after_probe, probes, describe, os_excess,
		phases,
	};

	for (size_t i = 0; i < sizeof step / sizeof *step; i++)
		if (step[i](r) != 0)
			return -1;
	return 0;
}

/* Score a group's steady samples: kept, and in no warm-up, excursion or
 * machine-wide shift; and its probes but those of machine shifts. */
static int score_group(const struct run *r)
{
	const struct sbt_dataset *ds = r->ds;
	double *v = r->w->v, *y = r->w->y;
	size_t k = 0, np = 0;
	const unsigned out = SBT_MK_DROPPED | SBT_MK_TRANSIENT |
			     SBT_MK_MACHINE | SBT_MK_SPEED | SBT_MK_AFTER_PROBE;

	for (size_t i = 0; i < r->g->n; i++) {
		const struct sbt_sample *s = &ds->s[r->idx[i]];
		unsigned mk = r->mark[r->idx[i]];
		double x = s->ns - sbt_cost_of(r->o, &ds->sources[s->source]);
		if (is_probe(s)) {
			if (!(mk & (SBT_MK_MACHINE | SBT_MK_SPEED)))
				y[np++] = x;
		} else if (!(mk & out)) {
			v[k++] = x;
		}
	}
	if (sbt_sort_doubles(v, k) != 0)
		return -1;
	return sbt_score_group(v, k, y, np, r->in, &r->g->score);
}

/* A group some of whose samples a dropped processor shift gave back
 * (machine_witness): its phases found again with them, as the regions'
 * own. */
static void speed_undone(const struct run *r)
{
	struct sbt_group *g = r->g;
	size_t n = 0;

	if (!g->speed_n)
		return;
	for (size_t i = 0; i < g->n; i++)
		n += !is_probe(&r->ds->s[r->idx[i]]) &&
		     (r->mark[r->idx[i]] & SBT_MK_SPEED);
	if (n == g->speed_n)
		return;
	g->speed_n = n;
	for (size_t i = 0; i < g->n; i++)
		r->mark[r->idx[i]] &= (uint8_t)~SBT_MK_TRANSIENT;
	run_phases(r, r->w);
	mark_transient(r);
}

/* A group the machine shifted whose phase search ran out of phases
 * (SBT_PHASE_MAX), or one of whose phases the machine's samples made
 * (machine_made), searched again without the machine's samples: a host
 * that slows the VM in many windows spends the phases on the windows'
 * edges, and the region's own step among them is lost in a phase that
 * spans it.  Where the search had phases to spare, its phases stand:
 * they resolve the region's changes, and a sample left out as the
 * machine's at one of them (the machine moved its neighbour then) would
 * move the change's date.  The changes the machine made are then no
 * phase change of the group's: machine.c's events list them, and its
 * samples left out say how many it shifted. */
/* Whether a phase of g that machine.c did not name the machine's holds
 * mostly samples it left out as the machine's: marked after the phases
 * were found (machine_late), so they made that phase. */
static int machine_made(const struct run *r)
{
	const struct sbt_group *g = r->g;
	const struct sbt_phases *p = &g->phases;

	if (!g->machine_late)
		return 0;
	for (int k = 0; k < p->nphases; k++) {
		size_t n = 0, m = 0;
		if (p->ph[k].kind == SBT_PH_MACHINE)
			continue;
		for (size_t i = 0; i < g->n; i++) {
			const struct sbt_sample *s = &r->ds->s[r->idx[i]];
			if (is_probe(s) || s->t_ns < p->ph[k].t_begin_ns ||
			    s->t_ns > p->ph[k].t_end_ns)
				continue;
			n++;
			m += (r->mark[r->idx[i]] & SBT_MK_MACHINE) != 0;
		}
		if (n >= SBT_PHASE_MIN_SEG && 2 * m > n)
			return 1;
	}
	return 0;
}

static void own_phases(const struct run *r)
{
	struct sbt_group *g = r->g;

	if (!g->machine_n || (g->phases.nphases < SBT_PHASE_MAX &&
			      !machine_made(r)))
		return;
	for (size_t i = 0; i < g->n; i++)
		r->mark[r->idx[i]] &= (uint8_t)~SBT_MK_TRANSIENT;
	run_phases(r, r->w);
	mark_transient(r);
	g->machine_changes = 0;
}

int sbt_run_rescore(const struct run *r)
{
	speed_undone(r);
	own_phases(r);
	return score_group(r);
}
