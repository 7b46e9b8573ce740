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

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

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

static uint32_t key_of(const struct sbt_dataset *ds, const struct sbt_sample
		       *s, enum sbt_by by)
{
	const struct sbt_source *src = &ds->sources[s->source];

	switch (by) {
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
	case SBT_BY_SITE:   return s->site;     /* dataset-wide already */
	default:            return 0;
	}
}

static const struct sbt_dataset *cmp_ds;

static int cmp_group(const void *a, const void *b)
{
	const struct sbt_group *x = a, *y = b;
	int c = strcmp(cmp_ds->regions[x->region].name,
		       cmp_ds->regions[y->region].name);

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

/* The group's phases with the processor's samples left in (wphases):
 * machine.c's coincidence test must see the shifts the speed probes took
 * out, to say whether it agrees.  Only where there are such samples,
 * all of one source (one clock).  In w: run_phases's (phases(), below). */
static void witness_phases(struct sbt_dataset *ds, const struct sbt_options *o,
			   struct sbt_group *g, const uint32_t *idx,
			   double min_shift, struct scratch *w)
{
	size_t k = 0;

	free(g->wphases);
	g->wphases = NULL;
	if (!g->speed_n)
		return;
	for (size_t i = 0; i < g->n; i++) {
		const struct sbt_sample *s = &ds->s[idx[i]];
		if (s->source != g->source)
			return;
		if (!(s->flags & (SBT_SF_PROBE | SBT_SF_DROPPED |
				  SBT_SF_AFTER_PROBE))) {
			w->t[k] = s->t_ns;
			w->ix[k++] = idx[i];
		}
	}
	if (sbt_sort_keyed(w->t, w->ix, k) != 0 ||
	    !(g->wphases = calloc(1, sizeof *g->wphases)))
		return;
	for (size_t i = 0; i < k; i++)
		w->v[i] = ds->s[w->ix[i]].ns -
			  sbt_cost_of(o, &ds->sources[g->source]);
	if (sbt_phase_detect(w->t, w->v, k, min_shift, g->wphases) != 0) {
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
 * on one source's samples only.  Marks the samples of a warm-up or of a
 * transient excursion SBT_SF_TRANSIENT (they stay kept: the statistics
 * describe them, the modes and the spread do not). */
static void run_phases(struct sbt_dataset *ds, const struct sbt_options *o,
		       struct sbt_group *g, const uint32_t *idx, double min_shift,
		       struct scratch *w)
{
	size_t k = 0;

	memset(&g->phases, 0, sizeof g->phases);
	for (size_t i = 0; i < g->n; i++) {
		const struct sbt_sample *s = &ds->s[idx[i]];
		if (s->source != g->source)
			return;         /* several logs: no common clock */
		/* the processor's samples say nothing of the code's time,
		 * nor do those a probe's detour may have changed, nor those
		 * the machine shifted (marked only when searched again:
		 * own_phases) */
		if (!(s->flags & (SBT_SF_PROBE | SBT_SF_DROPPED |
				  SBT_SF_SPEED | SBT_SF_AFTER_PROBE |
				  SBT_SF_MACHINE))) {
			w->t[k] = s->t_ns;
			w->ix[k++] = idx[i];
		}
	}
	size_t sorted = 1;
	for (size_t i = 1; i < k && sorted; i++)
		sorted = w->t[i - 1] <= w->t[i];
	if (!sorted && sbt_sort_keyed(w->t, w->ix, k) != 0)
		return;
	for (size_t i = 0; i < k; i++)
		w->v[i] = ds->s[w->ix[i]].ns -
			  sbt_cost_of(o, &ds->sources[g->source]);
	if (sbt_phase_detect(w->t, w->v, k, min_shift, &g->phases) != 0)
		return;
	sbt_phase_classify(&g->phases, k, min_shift);
	for (int p = 0; p < g->phases.nphases; p++) {
		struct sbt_phase *ph = &g->phases.ph[p];
		ph->cpu = ds->s[w->ix[ph->first]].cpu_start;
	}
}

/* After run_phases, with its w: the samples of its warm-up and
 * excursions flagged.  Apart, so that witness_phases, which reads the
 * flags, can run beside run_phases. */
static void mark_transient(struct sbt_dataset *ds, const struct sbt_group *g,
			   const struct scratch *w)
{
	for (int p = 0; p < g->phases.nphases; p++) {
		const struct sbt_phase *ph = &g->phases.ph[p];
		if (ph->kind == SBT_PH_LEVEL)
			continue;
		for (size_t i = ph->first; i < ph->first + ph->n; i++)
			ds->s[w->ix[i]].flags |= SBT_SF_TRANSIENT;
	}
}

/* The two phase searches of a group (each a sort and a segmentation of
 * its samples) side by side on two threads, when the pool lends the
 * group more than one (inner > 1): witness_phases in scratch of its own
 * (t, ix, v).  Both only read the samples; each writes its own field of
 * g.  The same result as in turn. */
struct both {
	struct sbt_dataset *ds;
	const struct sbt_options *o;
	struct sbt_group *g;
	const uint32_t *idx;
	double min_shift;
	struct scratch *w, *w2;
};

static void both_work(void *arg, size_t i, int t)
{
	struct both *b = arg;

	(void)t;
	if (i == 0)
		run_phases(b->ds, b->o, b->g, b->idx, b->min_shift, b->w);
	else
		witness_phases(b->ds, b->o, b->g, b->idx, b->min_shift,
			       b->w2);
}

static void phases(struct sbt_dataset *ds, const struct sbt_options *o,
		   struct sbt_group *g, const uint32_t *idx, double min_shift,
		   struct scratch *w, int inner)
{
	struct scratch w2 = { .cap = g->n ? g->n : 1 };

	if (inner > 1 && g->speed_n) {
		w2.t = big_alloc(w2.cap * sizeof *w2.t);
		w2.v = big_alloc(w2.cap * sizeof *w2.v);
		w2.ix = big_alloc(w2.cap * sizeof *w2.ix);
	}
	if (w2.t && w2.v && w2.ix) {
		struct both b = { ds, o, g, idx, min_shift, w, &w2 };
		sbt_jobs_each(2, 2, both_work, &b);
		mark_transient(ds, g, w);
	} else {
		run_phases(ds, o, g, idx, min_shift, w);
		mark_transient(ds, g, w);
		witness_phases(ds, o, g, idx, min_shift, w);
	}
	scratch_free(&w2);
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

/* How much longer the interrupted samples still kept (switched out of
 * their own accord, or faulted) are than the kept median: the OS time
 * the statistics hold.  Uses w->t. */
static void os_excess(const struct sbt_dataset *ds,
		      const struct sbt_options *o, struct sbt_group *g,
		      const uint32_t *idx, struct scratch *w)
{
	size_t m = 0;

	for (size_t i = 0; i < g->n; i++) {
		const struct sbt_sample *s = &ds->s[idx[i]];
		if (!(s->flags & (SBT_SF_PROBE | SBT_SF_DROPPED)) &&
		    (s->switches || s->faults))
			w->t[m++] = s->ns - sbt_cost_of(o,
						&ds->sources[s->source]);
	}
	g->os.kept_excess_ns = m ? sbt_quantile(w->t, m, 0.5) - g->st.median
				 : NAN;
}

/* The drop filters o->filters names, each on each log's samples of the
 * group in turn (a log's samples are contiguous in a group: w->ix[i] is
 * value i's sample), clearing keep[]; counts in g->dropped_by, the OS
 * filter's scores in w->score, the highest cut in g->cut.  median: of
 * all n, for a group of one log. */
static void drop_run(struct sbt_dataset *ds, const struct sbt_options *o,
		     struct sbt_group *g, size_t n, double q, double median,
		     int cycles, struct scratch *w)
{
	uint8_t *keep = w->keep;

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
				.ns = w->v + a, .cycles = cycles ? w->y + a :
				NULL, .sample = w->ix + a, .n = b - a,
				.ds = ds, .src = &ds->sources[src],
				.quantum_ns = q,
				.median_ns = b - a == n ? median : NAN,
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
}

/* The kept samples a recorder probe disturbed - among their thread's
 * first calls after a speed probe (afterprobe.c), or holding a probe's
 * detour (SBT_SF_DETOUR: its span was taken out, but 1-5 clock steps of
 * it stay in, the clock reads around it and the way into the recorder)
 * - are left out of the steady ones, all flagged SBT_SF_AFTER_PROBE;
 * unless half or more of them are: a region called about as often as
 * the probes come, or longer than their cadence, meets one nearly every
 * call, and that is then its normal.  There the flags are cleared, so
 * that every format shows the samples used. */
static void after_probe(struct sbt_dataset *ds, struct sbt_group *g,
			const uint32_t *idx)
{
	const uint32_t near = SBT_SF_AFTER_PROBE | SBT_SF_DETOUR;
	size_t m = 0;

	for (size_t i = 0; i < g->n; i++) {
		uint32_t f = ds->s[idx[i]].flags;
		m += !(f & (SBT_SF_PROBE | SBT_SF_DROPPED)) && (f & near);
	}
	g->after_n = 2 * m < g->kept ? m : 0;
	for (size_t i = 0; i < g->n; i++) {
		struct sbt_sample *s = &ds->s[idx[i]];
		if (g->after_n && (s->flags & near))
			s->flags |= SBT_SF_AFTER_PROBE;
		else
			s->flags &= ~(uint32_t)SBT_SF_AFTER_PROBE;
	}
}

/* Filter and summarize one group, find its phases; sets up g->score's
 * metrics, and in `in` what score_group needs.  leave_pre: its region's
 * rule for its preempted samples (SBT_PRE_*, preempt_rule). */
static int run_group(struct sbt_dataset *ds, const struct sbt_options *o,
		     struct sbt_group *g, const uint32_t *idx,
		     struct scratch *w, struct sbt_score_in *in, int inner,
		     int leave_pre)
{
	double *v = w->v, *y = w->y;
	uint8_t *keep = w->keep;
	size_t n = 0;
	int cycles = 1;
	double te_max = 0, q = 0;

	for (size_t i = 0; i < g->n; i++) {
		struct sbt_sample *s = &ds->s[idx[i]];
		const struct sbt_source *src = &ds->sources[s->source];
		double te = sbt_cost_of(o, src);

		s->flags &= ~(uint32_t)(SBT_SF_TRANSIENT | SBT_SF_MACHINE);
		if (s->flags & SBT_SF_PROBE) {
			g->probes++;
			continue;
		}
		g->speed_n += !!(s->flags & SBT_SF_SPEED);
		g->calls += 1 + (uint64_t)s->skipped;
		if (te > te_max) te_max = te;
		if (src->quantum_ns > q) q = src->quantum_ns;
		if (!src->has_cycles)
			cycles = 0;
		v[n] = s->ns - te;
		y[n] = s->cycles - ((o->filters & SBT_F_COST) ?
				    src->te_cycles : 0);
		w->ix[n] = idx[i];          /* the filters run per log */
		if (s->flags & SBT_SF_MIGRATED)
			g->migrated++;
		n++;
	}
	g->count = n;
	g->te_ns = te_max;
	g->quantum_ns = q;
	g->cut = NAN;
	memset(keep, 1, n);
	double median = NAN;
	memset(g->dropped_by, 0, sizeof g->dropped_by);
	if ((o->filters & SBT_F_OS) && n > 0) {
		memcpy(w->t, v, n * sizeof *v);
		median = sbt_quantile(w->t, n, 0.5);
	}
	if (n > 0)
		drop_run(ds, o, g, n, q, median, cycles, w);
	/* Write back flags and scores, compact the kept values.  With the
	 * OS filter on, a sample the kernel saw preempted (sbt_os_class) is
	 * left out whatever the isolation forest said: that is no guess.
	 * Unless its region was preempted in half its calls or more (a long
	 * region, or one that shares its cpu all the time): then that is its
	 * time, decided per region so that every view keeps the same. */
	size_t j = 0, k = 0, ny = 0, npre = 0;
	int os_on = (o->filters & SBT_F_OS) != 0;
	for (size_t i = 0; i < g->n; i++)
		npre += !(ds->s[idx[i]].flags & SBT_SF_PROBE) &&
			sbt_os_class(&ds->s[idx[i]]) == SBT_OSC_PREEMPTED;
	int leave_out = os_on && leave_pre == SBT_PRE_LEAVE;
	memset(&g->os, 0, sizeof g->os);
	g->os.kept_excess_ns = NAN;
	g->os.keep_pre = leave_pre;
	g->os.preempted_own = os_on && !leave_out && npre;
	for (size_t i = 0; i < g->n; i++) {
		struct sbt_sample *s = &ds->s[idx[i]];
		if (s->flags & SBT_SF_PROBE)
			continue;
		if (os_on && n > 0)
			s->score = w->score[j];
		os_count(&g->os, &ds->sources[s->source], s, keep[j], os_on);
		if (leave_out && sbt_os_class(s) == SBT_OSC_PREEMPTED) {
			g->os.left_out++;
			g->os.preempted_kept += keep[j];
			keep[j] = 0;
		}
		if (keep[j]) {
			v[k] = v[j];
			if (cycles)
				y[ny++] = y[j];
			k++;
		} else {
			s->flags |= SBT_SF_DROPPED;
		}
		j++;
	}
	g->kept = k;
	g->dropped = n - k;
	after_probe(ds, g, idx);
	g->cycles_median = cycles && ny ? sbt_quantile(y, ny, 0.5) : NAN;

	/* In-situ probes, cost removed, in y. */
	size_t np = 0;
	double floor_ns = 0;
	for (size_t i = 0; i < g->n; i++) {
		const struct sbt_sample *s = &ds->s[idx[i]];
		const struct sbt_source *src = &ds->sources[s->source];
		if (src->kernel_entry_ns > floor_ns)
			floor_ns = src->kernel_entry_ns;
		if (s->flags & SBT_SF_PROBE)
			y[np++] = s->ns - sbt_cost_of(o, src);
	}
	*in = (struct sbt_score_in){
		.quantum_ns = q,
		.profile_t_min_ns = o->profile_t_min_ns,
		.profile_t_diff_ns = o->profile_t_diff_ns,
		.profile_label = o->profile_label,
		.os_floor_ns = floor_ns,
		.prefer = o->prefer_profile ? SBT_PREFER_PROFILE
					    : SBT_PREFER_INSITU,
		.noise_spread_ns = -1,
	};
	/* One sort serves the statistics, the metrics and the phases' size
	 * test. */
	if (sbt_sort_doubles(v, k) != 0)
		return -1;
	in->sorted = 1;
	if (sbt_score_metrics(v, k, y, np, in, &g->score) != 0)
		return -1;
	g->iqr_ns = k ? v[k - 1 - k / 4] - v[k / 4] : NAN;
	in->quantum_ns = g->score.quantum_ns;
	in->min_shift_ns = sbt_min_shift(g->score.t_diff_ns, k ? (k % 2 ?
					 v[k / 2] : 0.5 * (v[k / 2 - 1] +
					 v[k / 2])) : NAN,
					 g->score.quantum_ns, SBT_SCORE_EPS);
	/* Scored now, while v is sorted; a group that turns out to have a
	 * warm-up, an excursion or a machine shift is scored again on its
	 * steady samples (score_group). */
	if (sbt_score_group(v, k, y, np, in, &g->score) != 0)
		return -1;
	sbt_stats(v, k, &g->st);            /* reorders v */
	if (os_on && g->os.interrupted_kept)
		os_excess(ds, o, g, idx, w);
	/* Over time first: a warm-up or an excursion is not a mode. */
	phases(ds, o, g, idx, in->min_shift_ns, w, inner);
	return 0;
}


/* Score a group's steady samples: kept, and in no warm-up, excursion or
 * machine-wide shift; and its probes but those of machine shifts. */
static int score_group(struct sbt_dataset *ds, const struct sbt_options *o,
		       struct sbt_group *g, const uint32_t *idx,
		       struct scratch *w, const struct sbt_score_in *in)
{
	double *v = w->v, *y = w->y;
	size_t k = 0, np = 0;

	for (size_t i = 0; i < g->n; i++) {
		const struct sbt_sample *s = &ds->s[idx[i]];
		const struct sbt_source *src = &ds->sources[s->source];
		if (s->flags & SBT_SF_PROBE) {
			if (!(s->flags & (SBT_SF_MACHINE | SBT_SF_SPEED)))
				y[np++] = s->ns - sbt_cost_of(o, src);
		} else if (!(s->flags & (SBT_SF_DROPPED | SBT_SF_TRANSIENT |
					SBT_SF_MACHINE | SBT_SF_SPEED |
					SBT_SF_AFTER_PROBE)))
			v[k++] = s->ns - sbt_cost_of(o, src);
	}
	if (sbt_sort_doubles(v, k) != 0)
		return -1;
	return sbt_score_group(v, k, y, np, in, &g->score);
}

/* A group the machine shifted whose phase search ran out of phases
 * (SBT_PHASE_MAX), searched again without the machine's samples: a host
 * that slows the VM in many windows spends the phases on the windows'
 * edges, and the region's own step among them is lost in a phase that
 * spans it.  Where the search had phases to spare, its phases stand:
 * they resolve the region's changes, and a sample left out as the
 * machine's at one of them (the machine moved its neighbour then) would
 * move the change's date.  The changes the machine made are then no
 * phase change of the group's: machine.c's events list them, and its
 * samples left out say how many it shifted. */
static void own_phases(struct sbt_dataset *ds, const struct sbt_options *o,
		       struct sbt_group *g, const uint32_t *idx,
		       struct scratch *w, double min_shift)
{
	if (!g->machine_n || g->phases.nphases < SBT_PHASE_MAX)
		return;
	for (size_t i = 0; i < g->n; i++)
		ds->s[idx[i]].flags &= ~(uint32_t)SBT_SF_TRANSIENT;
	run_phases(ds, o, g, idx, min_shift, w);
	mark_transient(ds, g, w);
	g->machine_changes = 0;
}

/* ---- groups in parallel ---------------------------------------------- */

/* Groups are independent until machine events compare them: each worker
 * takes the next group (largest first, for balance) and writes only that
 * group and the flags of its own samples. */
enum stage { STAGE_GROUP, STAGE_RESCORE };

struct pool {
	struct sbt_dataset *ds;
	const struct sbt_options *o;
	struct sbt_result *res;
	struct sbt_score_in *in;      /* per group, from run_group        */
	const uint8_t *leave_pre;     /* per region: SBT_PRE_*            */
	uint32_t *todo;               /* group indexes, largest first     */
	struct scratch *w;            /* one per worker, lent (below)     */
	uint8_t *lent;                /* per scratch, under mu            */
	pthread_mutex_t mu;
	int mu_made, nw;
	int inner;                    /* threads a group may use: -j / nw */
	enum stage stage;
	atomic_size_t next;
	atomic_int failed;
};

static const struct sbt_result *cmp_res;

static int cmp_size(const void *a, const void *b)
{
	size_t x = cmp_res->g[*(const uint32_t *)a].n;
	size_t y = cmp_res->g[*(const uint32_t *)b].n;

	return (x < y) - (x > y);
}

static int pool_start(struct pool *p, int jobs)
{
	size_t n = p->res->ngroups;

	jobs = sbt_jobs(jobs);
	p->nw = n < (size_t)jobs ? (int)(n ? n : 1) : jobs;
	p->inner = jobs / p->nw;
	p->todo = malloc((n ? n : 1) * sizeof *p->todo);
	p->w = calloc((size_t)p->nw, sizeof *p->w);
	p->lent = calloc((size_t)p->nw, 1);
	pthread_mutex_init(&p->mu, NULL);
	p->mu_made = 1;
	if (!p->todo || !p->w || !p->lent)
		return -1;
	for (size_t k = 0; k < n; k++)
		p->todo[k] = (uint32_t)k;
	cmp_res = p->res;
	qsort(p->todo, n, sizeof *p->todo, cmp_size);
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

struct worker { struct pool *p; int id; };

static void *work(void *arg)
{
	const struct worker *wk = arg;
	struct pool *p = wk->p;

	for (;;) {
		size_t k = atomic_fetch_add(&p->next, 1);
		if (k >= p->res->ngroups || atomic_load(&p->failed))
			break;
		size_t gi = p->todo[k];
		struct sbt_group *g = &p->res->g[gi];
		const uint32_t *idx = p->res->order + g->first;
		int rc = 0;
		struct scratch *w = borrow(p, g->n);
		if (p->stage == STAGE_GROUP)
			rc = scratch_fit(w, g->n) ||
			     run_group(p->ds, p->o, g, idx, w, &p->in[gi],
				       p->inner, p->leave_pre[g->region]);
		else if (g->phases.warmup_n || g->phases.transient_n ||
			 g->machine_n || g->speed_n || g->after_n) {
			rc = scratch_fit(w, g->n);
			if (!rc)
				own_phases(p->ds, p->o, g, idx, w,
					   p->in[gi].min_shift_ns);
			rc = rc || score_group(p->ds, p->o, g, idx, w,
					       &p->in[gi]);
		}
		give_back(p, w);
		if (rc)
			atomic_store(&p->failed, 1);
	}
	return NULL;
}

/* Run one stage over every group.  0, or -1 when a group failed. */
static int pool_run(struct pool *p, enum stage stage)
{
	pthread_t t[64];
	struct worker wk[64];
	int nt = 0;

	p->stage = stage;
	atomic_store(&p->next, 0);
	atomic_store(&p->failed, 0);
	for (int i = 1; i < p->nw && i < 64; i++) {
		wk[i] = (struct worker){ p, i };
		if (pthread_create(&t[nt], NULL, work, &wk[i]) != 0)
			break;          /* fewer workers: still correct */
		nt++;
	}
	wk[0] = (struct worker){ p, 0 };
	work(&wk[0]);
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	return atomic_load(&p->failed) ? -1 : 0;
}

/* The two witnesses side by side: did the speed probes see each machine
 * event (regions shifting together)?  Within the event's first region's
 * resolution of it: SBT_MACHINE_SAMPLES of its mean spacing is machine.c's;
 * a probe cadence is ours. */
static int machine_witness(struct sbt_result *res)
{
	double tol = 2e3 * (res->speed.cadence_us > 0 ?
			    res->speed.cadence_us : 100);

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
 * Only where some sample was preempted is a median taken. */
static uint8_t *preempt_rule(const struct sbt_dataset *ds)
{
	size_t nr = ds->nregions ? ds->nregions : 1;
	size_t *n = calloc(nr, sizeof *n), *pre = calloc(nr, sizeof *pre);
	double *floor = calloc(nr, sizeof *floor), *v = NULL;
	uint8_t *rule = malloc(nr);

	if (!n || !pre || !floor || !rule)
		goto oom;
	for (size_t i = 0; i < ds->n; i++) {
		const struct sbt_sample *s = &ds->s[i];
		double f = ds->sources[s->source].kernel_entry_ns;
		if (s->flags & (SBT_SF_PROBE | SBT_SF_BEFORE_RESET))
			continue;
		n[s->region]++;
		pre[s->region] += sbt_os_class(s) == SBT_OSC_PREEMPTED;
		if (f > floor[s->region])
			floor[s->region] = f;
	}
	for (size_t r = 0; r < nr; r++) {
		rule[r] = 2 * pre[r] < n[r] ? SBT_PRE_LEAVE : SBT_PRE_HALF;
		if (rule[r] != SBT_PRE_LEAVE || !pre[r])
			continue;
		size_t m = 0;
		free(v);
		if (!(v = malloc(n[r] * sizeof *v)))
			goto oom;
		for (size_t i = 0; i < ds->n; i++)
			if (ds->s[i].region == r && !(ds->s[i].flags &
			    (SBT_SF_PROBE | SBT_SF_BEFORE_RESET)))
				v[m++] = ds->s[i].ns;
		double share = sbt_os_max_share(sbt_quantile(v, m, 0.5),
						floor[r] > 0 ? floor[r] :
						SBT_OS_FLOOR_DEFAULT, m);
		if ((double)pre[r] > share * (double)m)
			rule[r] = SBT_PRE_OWN;
	}
	free(n), free(pre), free(floor), free(v);
	return rule;
oom:
	free(n), free(pre), free(floor), free(v), free(rule);
	return NULL;
}

/* The steps of a region, or its levels over time (decomp.c), while the
 * speed probes held (a usable timeline of its log, no shift near where
 * it moved): what the probes cannot see, so the verdict says so
 * (probe_blind). */
static void probe_blind(struct sbt_result *res)
{
	double tol = 2e3 * (res->speed.cadence_us > 0 ?
			    res->speed.cadence_us : 100);

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

int sbt_analyze(struct sbt_dataset *ds, const struct sbt_options *o,
		struct sbt_result *res)
{
	uint8_t *leave_pre = NULL;
	struct gmap m = { 0 };
	uint32_t *gid = NULL, *cnt = NULL;
	struct sbt_score_in *in = NULL;
	struct pool pool = { 0 };
	int rc = -1;

	memset(res, 0, sizeof *res);
	if (!(gid = big_alloc(ds->n * sizeof *gid)))
		goto out;
	/* Per region only: regions are dense already; a small table maps
	 * them to group numbers without hashing every sample. */
	uint32_t *rg = NULL;
	if (o->by == SBT_BY_NONE) {
		if (!(rg = malloc((ds->nregions + 1) * sizeof *rg)))
			goto out;
		memset(rg, 0xff, (ds->nregions + 1) * sizeof *rg);
	}
	for (size_t i = 0; i < ds->n; i++) {
		const struct sbt_sample *s = &ds->s[i];
		if (s->flags & SBT_SF_BEFORE_RESET) {
			gid[i] = UINT32_MAX;
			continue;
		}
		if (rg && rg[s->region] != UINT32_MAX) {
			gid[i] = rg[s->region];
			continue;
		}
		uint64_t key = (uint64_t)s->region << 32 |
			       key_of(ds, s, o->by);
		if (o->by == SBT_BY_THREAD)
			key ^= (uint64_t)s->source << 20;
		long g = gmap_get(&m, key);
		if (g < 0) {
			free(rg);
			goto out;
		}
		gid[i] = (uint32_t)g;
		if (rg)
			rg[s->region] = (uint32_t)g;
	}
	free(rg);
	res->ngroups = m.n;
	res->g = calloc(m.n ? m.n : 1, sizeof *res->g);
	cnt = calloc(m.n + 1, sizeof *cnt);
	res->order = malloc((ds->n ? ds->n : 1) * sizeof *res->order);
	if (!res->g || !cnt || !res->order)
		goto out;
	/* counting sort by group: stable, so each group stays in log order */
	for (size_t i = 0; i < ds->n; i++)
		if (gid[i] != UINT32_MAX) {
			cnt[gid[i] + 1]++;
			struct sbt_group *g = &res->g[gid[i]];
			const struct sbt_sample *s = &ds->s[i];
			g->region = s->region;
			g->source = s->source;
			g->key = key_of(ds, s, o->by);
			g->others_wait_ns = g->others_wait_rel = NAN;
			g->omp_thread = -1;
			g->wait_slow_key = SBT_FIND_NOKEY;
			g->wait_slow_ns = g->wait_others_ns = NAN;
			g->wait_base_ns = NAN;
		}
	for (size_t k = 0; k < m.n; k++) {
		res->g[k].first = cnt[k];
		res->g[k].n = cnt[k + 1];
		cnt[k + 1] += cnt[k];
	}
	for (size_t i = 0; i < ds->n; i++)
		if (gid[i] != UINT32_MAX)
			res->order[cnt[gid[i]]++] = (uint32_t)i;
	res->norder = m.n ? res->g[m.n - 1].first + res->g[m.n - 1].n : 0;

	if (!(in = malloc((m.n ? m.n : 1) * sizeof *in)))
		goto out;
	if (!(leave_pre = preempt_rule(ds)))
		goto out;
	pool = (struct pool){ .ds = ds, .o = o, .res = res, .in = in,
			      .leave_pre = leave_pre };
	/* The processor first: its shifts are nobody's code. */
	if (sbt_after_probe_mark(ds, o->jobs) != 0 ||
	    sbt_speed_analyze(ds, o->by == SBT_BY_CPU ? 1 :
			      o->by == SBT_BY_HOST ? 2 : 0, &res->speed) ||
	    pool_start(&pool, o->jobs) != 0 || pool_run(&pool, STAGE_GROUP) ||
	    sbt_machine_events(ds, res, gid) != 0 ||
	    machine_witness(res) != 0 ||
	    pool_run(&pool, STAGE_RESCORE) || sbt_totals(ds, o, res) != 0)
		goto out;
	pool_drop(&pool);
	cmp_ds = ds;
	qsort(res->g, res->ngroups, sizeof *res->g, cmp_group);
	if (o->by != SBT_BY_NONE)
		sbt_groups_compare(res, SBT_SCORE_EPS);
	if (o->by == SBT_BY_THREAD)
		sbt_groups_omp(res, ds);
	sbt_groups_barriers(res, ds, o->by == SBT_BY_THREAD);
	if (sbt_decomp_run(ds, o, res) != 0)
		goto out;
	probe_blind(res);
	for (size_t k = 0; k < res->ngroups; k++)
		sbt_verdict(&res->g[k], o);
	rc = 0;
out:
	pool_end(&pool);
	free(m.keys), free(m.val), free(cnt), free(in), free(leave_pre);
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
	sbt_speed_free(&res->speed);
	memset(res, 0, sizeof *res);
}
