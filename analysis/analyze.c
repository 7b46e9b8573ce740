/*
 * analyze.c - group the samples, filter each group, summarize it.
 *
 * Grouping is linear: a hash map gives every (region, key) pair a dense
 * group number, then one counting sort lays the samples out group by group
 * (res->order).  Each group is then filtered and summarized on its own,
 * which keeps the working set to one group's values at a time.
 *
 * Probes (in-situ empty pairs, SBT_SF_PROBE) travel with their region's
 * group but are not samples of it: they never enter the filters or the
 * statistics, only the scoring.
 */
#include "analyze.h"
#include "afterprobe.h"
#include "decomp.h"
#include "groups.h"
#include "machine.h"
#include "totals.h"
#include "verdict.h"
#include "sbtlog.h"
#include "sort.h"
#include "bigmem.h"
#include "jobs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdatomic.h>

struct gmap { uint64_t *keys; uint32_t *val; size_t cap, n; };

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33; x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static int gmap_grow(struct gmap *m)
{
	size_t cap = m->cap ? 2 * m->cap : 1024;
	uint64_t *k = malloc(cap * sizeof *k);
	uint32_t *v = malloc(cap * sizeof *v);

	if (!k || !v) {
		free(k), free(v);
		return -1;
	}
	memset(v, 0xff, cap * sizeof *v);
	for (size_t i = 0; i < m->cap; i++) {
		if (m->val[i] == UINT32_MAX)
			continue;
		size_t j = mix(m->keys[i]) & (cap - 1);
		while (v[j] != UINT32_MAX)
			j = (j + 1) & (cap - 1);
		k[j] = m->keys[i], v[j] = m->val[i];
	}
	free(m->keys), free(m->val);
	m->keys = k, m->val = v, m->cap = cap;
	return 0;
}

/* Dense number of `key`, new ones numbered in order of appearance. */
static long gmap_get(struct gmap *m, uint64_t key)
{
	size_t j;

	if ((m->n + 1) * 2 > m->cap && gmap_grow(m) != 0)
		return -1;
	for (j = mix(key) & (m->cap - 1); m->val[j] != UINT32_MAX;
	     j = (j + 1) & (m->cap - 1))
		if (m->keys[j] == key)
			return m->val[j];
	m->keys[j] = key;
	m->val[j] = (uint32_t)m->n;
	return (long)m->n++;
}

static uint32_t key_of(const struct sbt_dataset *ds,
		       const struct sbt_options *o, const struct sbt_sample *s)
{
	const struct sbt_source *src = &ds->sources[s->source];

	switch (o->by) {
	case SBT_BY_THREAD: return s->thread;
	case SBT_BY_CPU:    return s->cpu_start;
	case SBT_BY_RANK:   return (uint32_t)(src->rank >= 0 ? src->rank
							  : src->pid);
	case SBT_BY_HOST:
		/* hosts are keyed by their first source */
		for (uint32_t i = 0; i < s->source; i++)
			if (!strcmp(ds->sources[i].host, src->host))
				return i;
		return s->source;
	case SBT_BY_SITE:   /* dataset-wide already */
		return s->site < ds->nsites || !o->site_fallback ? s->site :
		       o->site_fallback[s->region];
	default:            return 0;
	}
}

/* Groups by region name, then region, log and key (qsort_r: arg the
 * dataset; no shared state, so analyses may run side by side). */
static int cmp_group(const void *a, const void *b, void *arg)
{
	const struct sbt_dataset *ds = arg;
	const struct sbt_group *x = a, *y = b;
	int c = strcmp(ds->regions[x->region].name,
		       ds->regions[y->region].name);

	if (c)
		return c;
	if (x->region != y->region)
		return x->region < y->region ? -1 : 1;
	if (x->source != y->source)
		return x->source < y->source ? -1 : 1;
	return (x->key > y->key) - (x->key < y->key);
}

/* Scratch for one group, each of at least the largest group's size. */
struct scratch {
	double *v, *y, *t;
	uint8_t *keep;
	float *score;
	uint32_t *ix;                   /* a value's sample               */
	size_t cap;
};

static void scratch_free(struct scratch *w)
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
static int scratch_fit(struct scratch *w, size_t n)
{
	if (n <= w->cap && w->v)
		return 0;
	scratch_free(w);
	w->cap = n ? n : 1;
	w->v = big_alloc(w->cap * sizeof *w->v);
	w->y = big_alloc(w->cap * sizeof *w->y);
	w->t = big_alloc(w->cap * sizeof *w->t);
	w->keep = big_alloc(w->cap);
	w->score = big_alloc(w->cap * sizeof *w->score);
	w->ix = big_alloc(w->cap * sizeof *w->ix);
	return w->v && w->y && w->t && w->keep && w->score && w->ix ? 0 : -1;
}

/* One group on its way through the steps of run_group (below): what
 * each step leaves for the next.  The dataset is only read; what the
 * analysis says of a sample goes to mark[] (and score[]), each group
 * writing only its own samples' bytes. */
struct run {
	const struct sbt_dataset *ds;
	const struct sbt_options *o;
	uint8_t *mark;                /* res->mark                        */
	float *score;                 /* res->score, or NULL              */
	struct sbt_group *g;
	const uint32_t *idx;          /* its samples, g->n                */
	struct scratch *w;
	struct sbt_score_in *in;
	int inner;                    /* threads the group may use        */
	int leave_pre;                /* its region's SBT_PRE_*           */
	/* gather: */
	size_t n;                     /* samples (not probes): v, y, ix   */
	int cycles;                   /* every log has a cycle clock      */
	double floor_ns;              /* highest kernel entry of its logs */
	/* drop, keep: */
	double median;                /* of all n, for the OS filter      */
	size_t k;                     /* kept values in v                */
	/* probes: */
	size_t np;                    /* in-situ probes in y              */
};

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
	double *v = malloc((g->n ? g->n : 1) * sizeof *v), sd = 0;
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
	free(v);
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
	scratch_free(&w2);
	return 0;
}

/* Filter and summarize one group, find its phases: sets up g->score's
 * metrics, and in r->in what score_group needs.  0, or -1 when out of
 * memory. */
static int run_group(struct run *r)
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

/* ---- groups in parallel ---------------------------------------------- */

/* Groups are independent until machine events compare them: each worker
 * takes the next group (largest first, for balance) and writes only that
 * group and the marks of its own samples. */
enum stage { STAGE_GROUP, STAGE_RESCORE };

struct pool {
	const struct sbt_dataset *ds;
	const struct sbt_options *o;
	struct sbt_result *res;
	struct sbt_score_in *in;      /* per group, from run_group        */
	const uint8_t *leave_pre;     /* per region: SBT_PRE_*            */
	uint32_t *todo;               /* group indexes, largest first     */
	struct scratch *w;            /* nw of them, lent (borrow)        */
	uint8_t *lent;                /* per scratch, under mu            */
	pthread_mutex_t mu;
	int mu_made, nw;
	int jobs;                     /* -j, resolved                     */
	int inner;                    /* threads a group may use: -j / nw */
	enum stage stage;
	atomic_int failed;
};

/* Group indexes, largest first (qsort_r: arg the result). */
static int cmp_size(const void *a, const void *b, void *arg)
{
	const struct sbt_result *res = arg;
	size_t x = res->g[*(const uint32_t *)a].n;
	size_t y = res->g[*(const uint32_t *)b].n;

	return (x < y) - (x > y);
}

static int pool_start(struct pool *p, int jobs)
{
	size_t n = p->res->ngroups;

	p->jobs = sbt_jobs(jobs);
	p->nw = sbt_jobs_width(n, p->jobs);
	p->inner = p->jobs / p->nw;
	p->todo = malloc((n ? n : 1) * sizeof *p->todo);
	p->w = calloc((size_t)p->nw, sizeof *p->w);
	p->lent = calloc((size_t)p->nw, 1);
	pthread_mutex_init(&p->mu, NULL);
	p->mu_made = 1;
	if (!p->todo || !p->w || !p->lent)
		return -1;
	for (size_t k = 0; k < n; k++)
		p->todo[k] = (uint32_t)k;
	qsort_r(p->todo, n, sizeof *p->todo, cmp_size, p->res);
	return 0;
}

/* The groups' scratch given back (bigmem.h keeps it for what follows:
 * fresh pages cost a fault and the kernel's zeroing each). */
static void pool_drop(struct pool *p)
{
	for (int i = 0; p->w && i < p->nw; i++)
		scratch_free(&p->w[i]);
}

static void pool_end(struct pool *p)
{
	pool_drop(p);
	free(p->w), free(p->todo), free(p->lent);
	if (p->mu_made)
		pthread_mutex_destroy(&p->mu);
}

/* The scratch a group of n samples is worked in: the smallest free one
 * that fits, else the largest free one (grown).  Scratch goes with the
 * group, not the thread: a worker keeping its own, the largest group's
 * second stage on another thread held a second scratch of its size
 * (about 150 MB at 4 million samples).  At most nw are lent at once, so
 * one is always free. */
static struct scratch *borrow(struct pool *p, size_t n)
{
	int best = -1;

	pthread_mutex_lock(&p->mu);
	for (int i = 0; i < p->nw; i++) {
		if (p->lent[i])
			continue;
		size_t c = p->w[i].cap, b = best < 0 ? 0 : p->w[best].cap;
		if (best < 0 || (c >= n && (b < n || c < b)) ||
		    (c < n && b < n && c > b))
			best = i;
	}
	p->lent[best] = 1;
	pthread_mutex_unlock(&p->mu);
	return &p->w[best];
}

static void give_back(struct pool *p, struct scratch *w)
{
	pthread_mutex_lock(&p->mu);
	p->lent[w - p->w] = 0;
	pthread_mutex_unlock(&p->mu);
}

/* Group todo[k] through the pool's stage (sbt_jobs_each's item). */
static void work(void *arg, size_t k, int t)
{
	struct pool *p = arg;
	size_t gi = p->todo[k];
	struct sbt_group *g = &p->res->g[gi];
	struct run r = {
		.ds = p->ds, .o = p->o, .mark = p->res->mark,
		.score = p->res->score, .g = g,
		.idx = p->res->order + g->first, .in = &p->in[gi],
		.inner = p->inner, .leave_pre = p->leave_pre[g->region],
	};
	int rc = 0;

	(void)t;
	if (atomic_load(&p->failed))
		return;
	if (p->stage == STAGE_RESCORE && !(g->phases.warmup_n ||
	    g->phases.transient_n || g->machine_n || g->speed_n ||
	    g->after_n))
		return;
	r.w = borrow(p, g->n);
	if (scratch_fit(r.w, g->n) != 0)
		rc = -1;
	else if (p->stage == STAGE_GROUP)
		rc = run_group(&r);
	else {
		speed_undone(&r);
		own_phases(&r);
		rc = score_group(&r);
	}
	give_back(p, r.w);
	if (rc)
		atomic_store(&p->failed, 1);
}

/* Run one stage over every group, on nw threads (sbt_jobs_each).  0, or
 * -1 when a group failed. */
static int pool_run(struct pool *p, enum stage stage)
{
	p->stage = stage;
	atomic_store(&p->failed, 0);
	sbt_jobs_each(p->res->ngroups, p->nw, work, p);
	return atomic_load(&p->failed) ? -1 : 0;
}

/* The two witnesses side by side: did the speed probes see each machine
 * event (regions shifting together)?  Within the event's first region's
 * resolution of it: SBT_MACHINE_SAMPLES of its mean spacing is machine.c's;
 * a probe cadence is ours. */
static int machine_witness(const struct sbt_dataset *ds,
			   struct sbt_result *res)
{
	double tol = 2e3 * (res->speed.cadence_us > 0 ?
			    res->speed.cadence_us : SBT_SPEED_US_DEFAULT);

	/* ... and the other way: did regions move together in each
	 * processor shift?  Only a shift over two regions or more can
	 * tell (machine.c never blames a region alone). */
	for (size_t k = 0; k < res->speed.nsh + res->speed.ncsh; k++) {
		struct sbt_speed_shift *h = k < res->speed.nsh ?
			&res->speed.sh[k] : &res->speed.csh[k - res->speed.nsh];
		h->regions_agree = h->nregions >= 2 ? 0 : -1;
		for (size_t i = 0; i < res->nev && h->regions_agree == 0; i++)
			h->regions_agree = res->ev[i].source == h->source &&
					   res->ev[i].t_ns >= h->t0_ns - tol &&
					   res->ev[i].t_ns <= h->t1_ns + tol;
		if (h->regions_agree == 0 && h->witness_regions < 2)
			h->regions_agree = -1;  /* too few calls to see it */
	}
	/* a shift the regions could have shown and did not: no claim, and
	 * its samples are the regions' again (rescored: speed_undone) */
	sbt_speed_drop_unwitnessed(ds, &res->speed, res->mark);
	if (!res->nev)
		return 0;
	if (!(res->ev_probes = malloc(res->nev * sizeof *res->ev_probes)))
		return -1;
	for (size_t i = 0; i < res->nev; i++)
		res->ev_probes[i] = sbt_speed_covers(&res->speed,
			res->ev[i].source, res->ev[i].t_ns, tol);
	return 0;
}

/* Per region: are its preempted samples left out (SBT_PRE_LEAVE)?  Not
 * where half its calls or more were preempted (SBT_PRE_HALF: a long
 * region, or one that shares its cpu all the time: that is its time), nor
 * where more were than the OS can preempt (SBT_PRE_OWN, the bound the
 * OS filter uses at the region's median: the region gives its cpu away
 * itself, as MPI progress loops do with sched_yield).  Per region, not
 * per group, so that a sample is classed the same in every view (--by).
 * Only where some sample was preempted is a median taken.
 *
 * The passes over the samples run in fixed blocks on -j threads: counts
 * and highest floors per block (sums and maxima: any order gives them),
 * then each block's times of a region gathered at its own offset (a
 * median does not depend on the order of its values), then the medians
 * one region per item. */
struct prule {
	const struct sbt_dataset *ds;
	size_t nb, nr;
	size_t *n, *pre;              /* [nb + 1][nr]: calls, preempted
					 ones (row nb: the sums)         */
	double *floor;                /* [nb + 1][nr]: highest kernel
					 entry (row nb: of all)          */
	size_t *at;                   /* [nb][nr]: where its times go in v */
	size_t *start;                /* per region: its times in v        */
	uint8_t *rule;
	double *v;
};

static int is_call(const struct sbt_sample *s)
{
	return !(s->flags & (SBT_SF_PROBE | SBT_SF_BEFORE_RESET));
}

static void prule_count(void *arg, size_t b, int w)
{
	struct prule *p = arg;
	const struct sbt_dataset *ds = p->ds;
	size_t *n = p->n + b * p->nr, *pre = p->pre + b * p->nr;
	double *floor = p->floor + b * p->nr;

	(void)w;
	for (size_t i = b * ds->n / p->nb, hi = (b + 1) * ds->n / p->nb;
	     i < hi; i++) {
		const struct sbt_sample *s = &ds->s[i];
		double f = ds->sources[s->source].kernel_entry_ns;
		if (!is_call(s))
			continue;
		n[s->region]++;
		pre[s->region] += sbt_os_class(s) == SBT_OSC_PREEMPTED;
		if (f > floor[s->region])
			floor[s->region] = f;
	}
}

static void prule_gather(void *arg, size_t b, int w)
{
	struct prule *p = arg;
	const struct sbt_dataset *ds = p->ds;
	size_t *at = p->at + b * p->nr;

	(void)w;
	for (size_t i = b * ds->n / p->nb, hi = (b + 1) * ds->n / p->nb;
	     i < hi; i++) {
		const struct sbt_sample *s = &ds->s[i];
		if (p->start[s->region] != SIZE_MAX && is_call(s))
			p->v[at[s->region]++] = s->ns;
	}
}

/* Region r's median against the OS's bound (item r). */
static void prule_median(void *arg, size_t r, int w)
{
	struct prule *p = arg;
	size_t all = p->nb * p->nr + r, m = p->n[all];

	(void)w;
	if (p->start[r] == SIZE_MAX)
		return;
	double share = sbt_os_max_share(sbt_quantile(p->v + p->start[r], m,
						     0.5),
					p->floor[all] > 0 ? p->floor[all] :
					SBT_OS_FLOOR_DEFAULT, m);
	if ((double)p->pre[all] > share * (double)m)
		p->rule[r] = SBT_PRE_OWN;
}

static uint8_t *preempt_rule(const struct sbt_dataset *ds, int jobs)
{
	size_t nr = ds->nregions ? ds->nregions : 1, tot = 0;
	struct prule p = { .ds = ds, .nr = nr,
			   .nb = sbt_jobs_blocks(ds->n, ((size_t)1 << 20) /
						 (nr + 1)) };
	uint8_t *rule = malloc(nr);

	p.n = calloc((p.nb + 1) * nr, sizeof *p.n);
	p.pre = calloc((p.nb + 1) * nr, sizeof *p.pre);
	p.floor = calloc((p.nb + 1) * nr, sizeof *p.floor);
	p.at = malloc(p.nb * nr * sizeof *p.at);
	p.start = malloc(nr * sizeof *p.start);
	if (!rule || !p.n || !p.pre || !p.floor || !p.at || !p.start)
		goto oom;
	sbt_jobs_each(p.nb, jobs, prule_count, &p);
	size_t *n = p.n + p.nb * nr, *pre = p.pre + p.nb * nr;
	double *floor = p.floor + p.nb * nr;
	for (size_t b = 0; b < p.nb; b++)
		for (size_t r = 0; r < nr; r++) {
			n[r] += p.n[b * nr + r];
			pre[r] += p.pre[b * nr + r];
			if (p.floor[b * nr + r] > floor[r])
				floor[r] = p.floor[b * nr + r];
		}
	/* the regions whose median is wanted: their calls' times, each
	 * region's from start[r], block by block */
	for (size_t r = 0; r < nr; r++) {
		rule[r] = 2 * pre[r] < n[r] ? SBT_PRE_LEAVE : SBT_PRE_HALF;
		p.start[r] = SIZE_MAX;
		if (rule[r] != SBT_PRE_LEAVE || !pre[r])
			continue;
		p.start[r] = tot;
		for (size_t b = 0; b < p.nb; b++) {
			p.at[b * nr + r] = tot;
			tot += p.n[b * nr + r];
		}
	}
	if (tot && !(p.v = malloc(tot * sizeof *p.v)))
		goto oom;
	if (tot)
		sbt_jobs_each(p.nb, jobs, prule_gather, &p);
	p.rule = rule;
	if (tot)
		sbt_jobs_each(nr, jobs, prule_median, &p);
	free(p.n), free(p.pre), free(p.floor), free(p.at), free(p.start);
	free(p.v);
	return rule;
oom:
	free(p.n), free(p.pre), free(p.floor), free(p.at), free(p.start);
	free(p.v), free(rule);
	return NULL;
}

/* The steps of a region, or its levels over time (decomp.c), while the
 * speed probes held (a usable timeline of its log, no shift near where
 * it moved): what the probes cannot see, so the verdict says so
 * (probe_blind). */
static void probe_blind(struct sbt_result *res)
{
	double tol = 2e3 * (res->speed.cadence_us > 0 ?
			    res->speed.cadence_us : SBT_SPEED_US_DEFAULT);

	for (size_t k = 0; k < res->ngroups; k++) {
		struct sbt_group *g = &res->g[k];
		const struct sbt_phases *p = &g->phases;
		const struct sbt_comp_est *c = &g->decomp.c[SBT_COMP_TIME];
		g->probe_blind = c->resolved && isfinite(c->t_ns) &&
				 sbt_speed_covers(&res->speed, g->source,
						  c->t_ns, tol) == 0;
		for (int i = 0; i < p->nsteps && !g->probe_blind; i++)
			g->probe_blind = sbt_speed_covers(&res->speed,
				g->source, p->ph[p->step[i]].t_begin_ns,
				tol) == 0;
	}
}

/* Each group's samples left out and why, from the final marks (item k
 * of sbt_jobs_each: group k, its one writer); each sample under the first
 * reason of enum sbt_left it has. */
static void left_count(void *arg, size_t k, int w)
{
	/* SBT_LEFT_OS: a sample the processor's, the machine's or a
	 * transient's marks left out whose thread the kernel's record
	 * shows preempted in it: that time is the OS's first */
	static const uint8_t flag[SBT_LEFT__N] = {
		SBT_MK_DROPPED, SBT_MK_SPEED | SBT_MK_MACHINE |
		SBT_MK_TRANSIENT, SBT_MK_SPEED, SBT_MK_MACHINE,
		SBT_MK_AFTER_PROBE, SBT_MK_TRANSIENT };
	const struct pool *p = arg;
	const struct sbt_result *res = p->res;
	struct sbt_group *g = &res->g[k];

	(void)w;
	g->left_n = 0;
	memset(g->left, 0, sizeof g->left);
	for (size_t i = g->first; i < g->first + g->n && i < res->norder;
	     i++) {
		uint32_t f = p->ds->s[res->order[i]].flags;
		if (f & (SBT_SF_PROBE | SBT_SF_CALIB | SBT_SF_RESET |
			 SBT_SF_BEFORE_RESET))
			continue;
		g->left_n++;
		for (int r = 0; r < SBT_LEFT__N; r++)
			if ((res->mark[res->order[i]] & flag[r]) &&
			    (r != SBT_LEFT_OS || (f & SBT_SF_PREEMPTED))) {
				g->left[r]++;
				break;
			}
	}
}

/* Grouping's passes over the samples, in fixed blocks on -j threads
 * (sbt_jobs_blocks: by the sample count only, so the same for any -j):
 * per region, where it first appears (by region alone: its group number
 * is its rank in that order); then every sample's group; per group, how
 * many samples each block holds, and they laid out from there. */
struct gpass {
	const struct sbt_dataset *ds;
	uint32_t *gid;
	size_t nb, nr, ng;
	size_t *fst;                  /* [nb][nr]: block's first sample   */
	const uint32_t *rg;           /* region -> group                  */
	uint32_t *at;                 /* [nb][ng]: block's count, then
					 where its samples go in order   */
	uint32_t *order;
};

static size_t gp_lo(const struct gpass *p, size_t b)
{
	return (size_t)((unsigned __int128)b * p->ds->n / p->nb);
}

static void gp_first(void *arg, size_t b, int w)
{
	struct gpass *p = arg;
	size_t *fst = p->fst + b * p->nr;

	(void)w;
	for (size_t i = gp_lo(p, b), hi = gp_lo(p, b + 1); i < hi; i++) {
		const struct sbt_sample *s = &p->ds->s[i];
		if (!(s->flags & SBT_SF_BEFORE_RESET) &&
		    fst[s->region] == SIZE_MAX)
			fst[s->region] = i;
	}
}

static void gp_gid(void *arg, size_t b, int w)
{
	struct gpass *p = arg;

	(void)w;
	for (size_t i = gp_lo(p, b), hi = gp_lo(p, b + 1); i < hi; i++) {
		const struct sbt_sample *s = &p->ds->s[i];
		p->gid[i] = s->flags & SBT_SF_BEFORE_RESET ? UINT32_MAX :
			    p->rg[s->region];
	}
}

static void gp_count(void *arg, size_t b, int w)
{
	struct gpass *p = arg;
	uint32_t *at = p->at + b * p->ng;

	(void)w;
	for (size_t i = gp_lo(p, b), hi = gp_lo(p, b + 1); i < hi; i++)
		if (p->gid[i] != UINT32_MAX)
			at[p->gid[i]]++;
}

static void gp_lay(void *arg, size_t b, int w)
{
	struct gpass *p = arg;
	uint32_t *at = p->at + b * p->ng;

	(void)w;
	for (size_t i = gp_lo(p, b), hi = gp_lo(p, b + 1); i < hi; i++)
		if (p->gid[i] != UINT32_MAX)
			p->order[at[p->gid[i]]++] = (uint32_t)i;
}

/* Regions by where they first appear (qsort_r: arg the first samples). */
static int cmp_first(const void *a, const void *b, void *arg)
{
	const size_t *fst = arg;
	size_t x = fst[*(const uint32_t *)a], y = fst[*(const uint32_t *)b];

	return (x > y) - (x < y);
}

/* By region alone: group numbers in order of each region's first
 * sample, gid[] from them.  Returns the number of groups, or -1 when
 * out of memory. */
static long group_regions(struct gpass *p, int jobs)
{
	size_t nr = p->nr, ng = 0;
	uint32_t *rg = malloc(nr * sizeof *rg), *by = malloc(nr * sizeof *by);
	size_t *first = malloc(nr * sizeof *first);

	p->fst = malloc(p->nb * nr * sizeof *p->fst);
	if (!rg || !by || !first || !p->fst) {
		free(rg), free(by), free(first), free(p->fst);
		return -1;
	}
	memset(p->fst, 0xff, p->nb * nr * sizeof *p->fst);
	sbt_jobs_each(p->nb, jobs, gp_first, p);
	for (size_t r = 0; r < nr; r++) {
		first[r] = SIZE_MAX;
		for (size_t b = 0; b < p->nb && first[r] == SIZE_MAX; b++)
			first[r] = p->fst[b * nr + r];
		if (first[r] != SIZE_MAX)
			by[ng++] = (uint32_t)r;
		rg[r] = UINT32_MAX;
	}
	qsort_r(by, ng, sizeof *by, cmp_first, first);
	for (size_t k = 0; k < ng; k++)
		rg[by[k]] = (uint32_t)k;
	p->rg = rg;
	sbt_jobs_each(p->nb, jobs, gp_gid, p);
	free(rg), free(by), free(first), free(p->fst);
	p->rg = NULL, p->fst = NULL;
	return (long)ng;
}

/* By a key (o->by): a dense number for each (region, key) in order of
 * appearance, in turn.  Returns the number of groups, or -1. */
static long group_keys(const struct sbt_dataset *ds,
		       const struct sbt_options *o, uint32_t *gid)
{
	struct gmap m = { 0 };
	long n = -1;

	for (size_t i = 0; i < ds->n; i++) {
		const struct sbt_sample *s = &ds->s[i];
		if (s->flags & SBT_SF_BEFORE_RESET) {
			gid[i] = UINT32_MAX;
			continue;
		}
		uint64_t key = (uint64_t)s->region << 32 |
			       key_of(ds, o, s);
		if (o->by == SBT_BY_THREAD)
			key ^= (uint64_t)s->source << 20;
		long g = gmap_get(&m, key);
		if (g < 0)
			goto out;
		gid[i] = (uint32_t)g;
	}
	n = (long)m.n;
out:
	free(m.keys), free(m.val);
	return n;
}

/* Every sample but those a reset discarded into its group: a dense
 * number for each (region, o->by's key) in gid[] (UINT32_MAX: none),
 * res->g with each group's first and n, and res->order, the samples laid
 * out group by group (a counting sort: stable, so each group stays in
 * log order).  A group's region, source and key are its last sample's.
 * 0, or -1 when out of memory. */
static int group(const struct sbt_dataset *ds, const struct sbt_options *o,
		 struct sbt_result *res, uint32_t *gid)
{
	struct gpass p = { .ds = ds, .gid = gid,
			   .nr = ds->nregions + 1 };
	long ng;

	p.nb = sbt_jobs_blocks(ds->n, ((size_t)1 << 20) / (p.nr + 1));
	ng = o->by == SBT_BY_NONE ? group_regions(&p, o->jobs) :
	     group_keys(ds, o, gid);
	if (ng < 0)
		return -1;
	res->ngroups = (size_t)ng;
	res->g = calloc(ng ? (size_t)ng : 1, sizeof *res->g);
	res->order = malloc((ds->n ? ds->n : 1) * sizeof *res->order);
	if (!res->g || !res->order)
		return -1;
	/* the counting sort's blocks: per-block counts of some 2^22
	 * entries at most */
	p.ng = (size_t)ng;
	p.nb = sbt_jobs_blocks(ds->n, ((size_t)1 << 22) / (p.ng + 1));
	p.order = res->order;
	if (!(p.at = calloc(p.nb * p.ng + 1, sizeof *p.at)))
		return -1;
	sbt_jobs_each(p.nb, o->jobs, gp_count, &p);
	size_t at = 0;
	for (size_t k = 0; k < p.ng; k++) {
		res->g[k].first = at;
		for (size_t b = 0; b < p.nb; b++) {
			uint32_t c = p.at[b * p.ng + k];
			p.at[b * p.ng + k] = (uint32_t)at;
			at += c;
		}
		res->g[k].n = at - res->g[k].first;
	}
	sbt_jobs_each(p.nb, o->jobs, gp_lay, &p);
	free(p.at);
	res->norder = at;
	for (size_t k = 0; k < p.ng; k++) {
		struct sbt_group *g = &res->g[k];
		const struct sbt_sample *s = &ds->s[res->order[g->first +
							       g->n - 1]];
		g->region = s->region;
		g->source = s->source;
		g->key = key_of(ds, o, s);
		g->others_wait_ns = g->others_wait_rel = NAN;
		g->omp_thread = -1;
		g->wait_slow_key = SBT_FIND_NOKEY;
		g->wait_slow_ns = g->wait_others_ns = NAN;
		g->wait_base_ns = NAN;
		g->wait_extra_ns = NAN;
		g->wait_long = g->wait_os = 0;
		g->wait_flags = 0;
	}
	return 0;
}

int sbt_analyze(const struct sbt_dataset *ds, const struct sbt_options *o,
		struct sbt_result *res)
{
	uint8_t *leave_pre = NULL;
	uint32_t *gid = NULL;
	struct sbt_score_in *in = NULL;
	struct pool pool = { 0 };
	size_t ng;
	int rc = -1;

	memset(res, 0, sizeof *res);
	/* the probes as the readers leave them (dataset.h): never sorted
	 * here, where the dataset is only read */
	if (!sbt_ds_probes_sorted(ds))
		return -1;
	res->nmark = ds->n;
	if (!(gid = big_alloc(ds->n * sizeof *gid)) ||
	    !(res->mark = calloc(ds->n ? ds->n : 1, 1)) ||
	    (o->scores && !(res->score = calloc(ds->n ? ds->n : 1,
						 sizeof *res->score))) ||
	    group(ds, o, res, gid) != 0)
		goto out;
	ng = res->ngroups;
	if (!(in = malloc((ng ? ng : 1) * sizeof *in)))
		goto out;
	if (!(leave_pre = preempt_rule(ds, o->jobs)))
		goto out;
	pool = (struct pool){ .ds = ds, .o = o, .res = res, .in = in,
			      .leave_pre = leave_pre };
	/* The processor first: its shifts are nobody's code. */
	if (sbt_after_probe_mark(ds, o->jobs, res->mark) != 0 ||
	    sbt_speed_analyze(ds, o->by == SBT_BY_CPU ? 1 :
			      o->by == SBT_BY_HOST ? 2 : 0, &res->speed,
			      res->mark) ||
	    pool_start(&pool, o->jobs) != 0 || pool_run(&pool, STAGE_GROUP) ||
	    sbt_machine_events(ds, res, gid) != 0 ||
	    machine_witness(ds, res) != 0 ||
	    pool_run(&pool, STAGE_RESCORE) || sbt_totals(ds, o, res) != 0)
		goto out;
	pool_drop(&pool);
	qsort_r(res->g, res->ngroups, sizeof *res->g, cmp_group, (void *)ds);
	if (o->by != SBT_BY_NONE)
		sbt_groups_compare(res, SBT_SCORE_EPS);
	if (o->by == SBT_BY_THREAD)
		sbt_groups_omp(res, ds);
	sbt_groups_barriers(res, ds, o->by == SBT_BY_THREAD ? 1 :
			    o->by == SBT_BY_NONE ? 0 : -1);
	if (sbt_decomp_run(ds, o, res) != 0)
		goto out;
	probe_blind(res);
	for (size_t k = 0; k < res->ngroups; k++)
		sbt_verdict(&res->g[k], o);
	sbt_jobs_each(res->ngroups, o->jobs, left_count, &pool);
	rc = 0;
out:
	pool_end(&pool);
	free(in), free(leave_pre);
	big_free(gid, ds->n * sizeof *gid);
	if (rc != 0)
		sbt_result_free(res);
	return rc;
}

void sbt_result_free(struct sbt_result *res)
{
	for (size_t k = 0; res->g && k < res->ngroups; k++)
		free(res->g[k].wphases);
	free(res->g);
	free(res->order);
	free(res->ev);
	free(res->ev_probes);
	free(res->mark);
	free(res->score);
	sbt_speed_free(&res->speed);
	memset(res, 0, sizeof *res);
}
