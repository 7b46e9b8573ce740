/*
 * decomp.c - whose is a region's time, and whose its spread.
 *
 * Of its time: the OS's part of a call, its mean page faults and
 * switches times what one costs on this machine.  The cost is measured
 * where it can be: a robust fit of the region's times on its counts,
 * where the counts vary from call to call; else the same fit pooled over
 * the regions of the run whose counts do vary (each region about its own
 * centre, so that regions of different work do not pass for a cost).
 * Where no region's counts vary, the cost the recorder measured at start
 * (fresh pages touched one by one: the header's fault_ns) prices the
 * faults; a log without it leaves the cost, and the OS's time, unknown.
 *
 * Of its spread, the sum of squares about the mean (each effect is
 * estimated robustly, by trimmed means and a Huber fit; the accounting
 * is the analysis of variance's, whose parts add up, over the calls that
 * are not wild: mark_wild), taken apart in turn, each component fitted
 * on what the ones before left:
 *   OS       a robust (Huber) fit of the time on the faults and switches
 *            of each call: the calls with more events took longer;
 *   COUNTERS the same on each event SBT_EVENTS counted (but clocks and
 *            cycles, which are the time itself), one at a time: the
 *            time one more cache miss, branch miss, ... costs;
 *   PROC     the calls while the speed probes saw the processor off its
 *            speed against the others (speed.c's windows);
 *   TIME     levels over the run: the calls cut into up to 16 spans of
 *            equal count in time order, each span's trimmed mean;
 *   GROUPS   a steady offset between its threads (trimmed means), and
 *            where the threads differ mode by mode, each thread's modes
 *            against the fastest thread's (group_modes);
 *   MODES    distinct modes of what is left (score.c's finder), found
 *            within the groups: two threads 5 % apart that are each
 *            bimodal make two modes and a group offset, not four modes;
 *   REST     what nothing recorded explains: the code's own variation,
 *            or a cause that was not recorded.
 * A component is claimed only where it is resolved: its size beyond
 * SBT_SCORE_Z of its standard error and at least the smallest finding
 * (sbt_min_shift); it is taken out only then and only when that lowers
 * the sum of squares, so the shares are >= 0 and sum to 1.  Means are
 * 10 %-trimmed (they move continuously on a quantized clock, and one
 * stray call cannot move them).  Everything is in the samples' order in
 * the dataset, whatever the grouping: the same for every --by.
 *
 * This file runs the passes over each region; the components are
 * estimated behind decomp_parts.h: OS in decomp_os.c, COUNTERS in
 * decomp_counters.c, PROC, TIME and GROUPS in decomp_levels.c, MODES and
 * REST in decomp_modes.c, what they share in decomp_fit.c.
 */
#include "decomp_parts.h"
#include "bigmem.h"
#include "jobs.h"
#include "score.h"
#include "sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One pass of sbt_decomp_region in k's arrays (of in->n each at least,
 * or NULL: out of memory), the spread's shares over the calls k->keep
 * marks (NULL: all, and wild 0). */
static int decompose_pass(const struct sbt_decomp_in *in,
			  struct sbt_decomp *d, struct work *kp, size_t wild)
{
	size_t n = in->n;
	struct work k = *kp;
	struct sbt_score m;
	double q = in->score.quantum_ns, t_diff = NAN;
	int rc = -1;

	memset(d, 0, sizeof *d);
	d->n = n;
	d->wild = wild;
	d->median_ns = d->mean_ns = d->os_time_ns = NAN;
	d->fault_cost_ns = d->fault_cost_se_ns = NAN;
	d->switch_cost_ns = d->switch_cost_se_ns = NAN;
	d->faults = d->switches = NAN;
	for (int j = 0; j < SBT_CNT_COLS; j++)
		d->cnt_mean[j] = d->cnt_cost_ns[j] = d->cnt_share[j] = NAN;
	for (int j = 0; j < SBT_NCOMP; j++) {
		d->c[j].key = d->c[j].key_lo = SBT_FIND_NOKEY;
		d->c[j].t_ns = d->c[j].size_ns = d->c[j].time_ns = NAN;
		d->c[j].resolution_ns = NAN;
	}
	if (!n)
		return 0;
	if (!k.r || !k.w || !k.e || !k.u || !k.ts || !k.ix)
		goto out;
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		if (!k.keep || k.keep[i])
			sum += in->y[i];
	d->mean_ns = sum / (double)(n - wild);  /* the calls not wild */
	struct again *ag = k.ag && k.ag->metrics ? k.ag : NULL;
	if (k.ag)
		k.ag->rest = 0;
	int sorted = 0;
	if (ag) {
		d->median_ns = ag->median;
	} else {
		memcpy(k.w, in->y, n * sizeof *k.w);
		d->median_ns = sbt_dc_med(k.w, n); /* k.w: y sorted, for below */
		sorted = !isnan(d->median_ns);
	}
	double ss0 = sbt_dc_ss_mean(in->y, n, k.keep);
	d->var_ns2 = ss0 / (double)(n - d->wild);
	memcpy(k.r, in->y, n * sizeof *k.r);
	if (in->f) {
		double fs = 0, ss = 0;
		for (size_t i = 0; i < n; i++)
			fs += in->f[i], ss += in->sw ? in->sw[i] : 0;
		d->faults = fs / (double)n;
		d->switches = ss / (double)n;
	}
	if (n < SBT_FEW_SAMPLES) {      /* too few to take apart */
		rc = 0;
		goto out;
	}
	/* the smallest finding: as the groups' scores have it (on y
	 * sorted: sbt_dc_med() left it in k.w; sorted again only if it could not) */
	if (ag) {
		m = ag->m;
	} else {
		if (!sorted) {
			memcpy(k.w, in->y, n * sizeof *k.w);
			if (sbt_sort_doubles(k.w, n) != 0)
				goto out;
		}
		struct sbt_score_in si = in->score;
		si.sorted = 1;
		if (sbt_score_metrics(k.w, n, in->probes, in->np, &si,
				      &m) != 0)
			goto out;
		if (k.ag) {
			k.ag->metrics = 1;
			k.ag->median = d->median_ns;
			k.ag->m = m;
		}
	}
	double min_shift = sbt_min_shift(m.t_diff_ns, d->median_ns,
					 m.quantum_ns, SBT_SCORE_EPS);
	if (!isfinite(min_shift))
		min_shift = fmax(SBT_SCORE_EPS * fabs(d->median_ns), q);
	if (q <= 0)
		q = m.quantum_ns;
	if (!(ss0 > 0)) {
		d->c[SBT_COMP_REST].var_share = 0;
		rc = 0;
		goto out;
	}
	sbt_dc_os(in, d, &k, ss0);
	double ss = sbt_dc_ss_mean(k.r, n, k.keep);
	ss = sbt_dc_counters(in, d, &k, ss, ss0);
	ss = sbt_dc_proc(in, d, &k, min_shift, ss, ss0);
	ss = sbt_dc_time(in, d, &k, min_shift, q, ss, ss0);
	ss = sbt_dc_groups(in, d, &k, min_shift, q, ss, ss0);
	if (sbt_dc_modes(in, d, &k, min_shift, q, &ss, ss0, &t_diff) != 0)
		goto out;
	sbt_dc_rest(d, &k, n, ss0, t_diff, q);
	rc = 0;
out:
	if (rc == 0)
		sbt_decomp_cost(d, 0, 0);
	return rc;
}

/* The calls far out of what every component left: beyond WILD_SD
 * robust sd of the final residuals k->r from their median (and beyond
 * WILD_STEPS clock steps q, so that a quantized constant region has
 * none), marked 0 in k->tame; how many.  A handful of such calls (a stall
 * of the host, a long fault) would own the mean square and make every
 * steady cause read "0 % of the spread": the shares are taken without
 * them, a robust equivalent of the variance; the estimates never saw
 * them as more than one call each (trimmed means, robust fits). */
#define WILD_SD    5.0
#define WILD_STEPS 3.0
#define WILD_OWN   0.1
static size_t mark_wild(struct work *k, size_t n, double q)
{
	double sd, m, bound;
	size_t wild = 0;

	if (k->ag && k->ag->rest) {     /* sbt_dc_rest's, of these residuals */
		sd = k->ag->rest_sd;
		m = k->ag->rest_med;
	} else {
		sd = sbt_dc_mad_sd(k->r, n, k->w);
		memcpy(k->w, k->r, n * sizeof *k->w);
		m = sbt_dc_med(k->w, n);
	}
	bound = fmax(WILD_SD * sd, WILD_STEPS * (q > 0 ? q : 0));
	if (!isfinite(m) || !(bound > 0))
		return 0;
	for (size_t i = 0; i < n; i++) {
		k->tame[i] = fabs(k->r[i] - m) <= bound;
		wild += !k->tame[i];
	}
	return wild;
}

/* sbt_decomp_region in k's arrays: once over every call, and again
 * without the wild ones (mark_wild) where they own WILD_OWN of the mean
 * square or more. */
static int decompose(const struct sbt_decomp_in *in, struct sbt_decomp *d,
		     struct work *k)
{
	struct again ag = { 0 };
	size_t wild;

	k->keep = NULL;
	k->ag = &ag;
	int rc = decompose_pass(in, d, k, 0);
	if (rc != 0 || in->n < SBT_FEW_SAMPLES || !k->tame || !k->r ||
	    !(wild = mark_wild(k, in->n, in->score.quantum_ns)) ||
	    wild >= in->n / 2) {
		k->ag = NULL;
		return rc;
	}
	/* a second pass only where the wild calls own a tenth or more of
	 * the mean square: elsewhere the shares would hardly move */
	if (sbt_dc_ss_mean(in->y, in->n, k->tame) > (1 - WILD_OWN) *
	    sbt_dc_ss_mean(in->y, in->n, NULL))
		return rc;
	k->keep = k->tame;
	rc = decompose_pass(in, d, k, wild);
	k->keep = NULL;
	k->ag = NULL;
	return rc;
}

static int work_alloc(struct work *k, size_t n)
{
	k->r = big_alloc(n * sizeof *k->r);
	k->w = big_alloc(n * sizeof *k->w);
	k->e = big_alloc(n * sizeof *k->e);
	k->u = big_alloc(n * sizeof *k->u);
	k->ts = big_alloc(n * sizeof *k->ts);
	k->ix = big_alloc(n * sizeof *k->ix);
	k->tame = big_alloc(n);
	return k->r && k->w && k->e && k->u && k->ts && k->ix && k->tame ?
	       0 : -1;
}

static void work_free(struct work *k, size_t n)
{
	big_free(k->r, n * sizeof *k->r), big_free(k->w, n * sizeof *k->w);
	big_free(k->e, n * sizeof *k->e), big_free(k->u, n * sizeof *k->u);
	big_free(k->ts, n * sizeof *k->ts), big_free(k->ix, n * sizeof *k->ix);
	big_free(k->tame, n);
}

int sbt_decomp_region(const struct sbt_decomp_in *in, struct sbt_decomp *d)
{
	struct work k = { 0 };

	if (in->n)
		(void)work_alloc(&k, in->n);    /* NULLs: decompose() says */
	int rc = decompose(in, d, &k);
	if (in->n)
		work_free(&k, in->n);
	return rc;
}

/* The OS's time of a call from the costs known. */
static void os_time(struct sbt_decomp *d)
{
	double t = 0;
	int known = 0;

	if (d->faults > 0 && isfinite(d->fault_cost_ns))
		t += d->faults * d->fault_cost_ns, known = 1;
	if (d->switches > 0 && isfinite(d->switch_cost_ns))
		t += d->switches * d->switch_cost_ns, known = 1;
	/* A part larger than the whole call by more than the call's own
	 * spread could make it (10 %): the costs (often the run's, fitted
	 * on other regions) do not fit this one, so nothing is claimed -
	 * unless the counts are a storm's estimates, off by their rounding.
	 * Within that, the part is at most the whole. */
	if (known && t > 1.1 * d->mean_ns && !d->faults_sampled)
		known = 0;
	else if (known && t > d->mean_ns)
		t = d->mean_ns;
	d->os_time_ns = known ? t : NAN;
}

void sbt_decomp_cost(struct sbt_decomp *d, size_t n, double measured_ns)
{
	double sxy = 0, sxx = 0, see = 0, cost = NAN, se = NAN;
	size_t dof = 0;

	for (size_t i = 0; i < n; i++)
		if (d[i].sxx_f > 0) {
			sxy += d[i].sxy_f, sxx += d[i].sxx_f;
			see += d[i].see_f, dof += d[i].dof_f;
		}
	if (sxx > 0 && dof > 0) {
		double b = sxy / sxx, s = sqrt(see / (double)dof / sxx);
		if (b > 0 && b > SBT_SCORE_Z * s)
			cost = b, se = s;
	}
	for (size_t i = 0; i < n; i++)
		if (d[i].fault_cost_from != SBT_COST_REGION && isfinite(cost)) {
			d[i].fault_cost_ns = cost;
			d[i].fault_cost_se_ns = se;
			d[i].fault_cost_from = SBT_COST_RUN;
		} else if (d[i].fault_cost_from == SBT_COST_NONE &&
			   measured_ns > 0 && d[i].faults > 0) {
			/* no fit anywhere: what a fresh page cost the
			 * recorder at start, a measure, not a fit of these
			 * calls (its spread unknown) */
			d[i].fault_cost_ns = measured_ns;
			d[i].fault_cost_se_ns = NAN;
			d[i].fault_cost_from = SBT_COST_RECORDER;
		}
	if (n == 0)
		os_time(d);
	for (size_t i = 0; i < n; i++)
		os_time(&d[i]);
}

/* ---- every region of a result -------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static int counted(const struct sbt_sample *s)
{
	return !(s->flags & (SBT_SF_PROBE | SBT_SF_CALIB | SBT_SF_RESET |
			     SBT_SF_BEFORE_RESET));
}

struct bufs {
	struct work k;                /* decompose()'s, of `big` each   */
	uint32_t *ix;
	double *y, *f, *sw, *t, *pr, *cnt;
	uint8_t *sp;
	uint64_t *key;
};

/* Region groups g[a..b): gather, decompose into *d. */
static int one_region(const struct sbt_dataset *ds,
		      const struct sbt_options *o, const struct sbt_result *res,
		      size_t a, size_t b, struct bufs *u, struct sbt_decomp *d)
{
	size_t m = 0, n = 0, np = 0;
	uint32_t nc = ds->cnt ? ds->cnt->ncol : 0;   /* counted events */
	int os = 1, one_src = 1, sampled = 0;
	double q = 0, floor_ns = 0;

	for (size_t k = a; k < b; k++)
		for (size_t j = 0; j < res->g[k].n; j++)
			u->ix[m++] = res->order[res->g[k].first + j];
	int sorted = 1;         /* one group's order is ascending already */
	for (size_t i = 1; i < m && sorted; i++)
		sorted = u->ix[i - 1] < u->ix[i];
	if (!sorted)
		qsort(u->ix, m, sizeof *u->ix, cmp_u32);
	/* as run.c leaves them out: preempt.c's rule, per region */
	int leave = (o->filters & SBT_F_OS) &&
		    res->g[a].os.keep_pre == SBT_PRE_LEAVE;
	/* preempted more often than the OS preempts: the region gives
	 * its cpu away itself, and the report says so (preempted_own) */
	int own = res->g[a].os.keep_pre == SBT_PRE_OWN;
	for (size_t i = 0; i < m; i++) {
		const struct sbt_sample *s = &ds->s[u->ix[i]];
		const struct sbt_source *src = &ds->sources[s->source];
		double cost = sbt_cost_of(o, src);
		if (src->quantum_ns > q)
			q = src->quantum_ns;
		if (src->kernel_entry_ns > floor_ns)
			floor_ns = src->kernel_entry_ns;
		if (s->flags & SBT_SF_PROBE) {
			u->pr[np++] = s->ns - cost;
			continue;
		}
		if (!counted(s) || (leave && sbt_os_class(s) ==
				    SBT_OSC_PREEMPTED))
			continue;
		os &= src->os_state == SBT_OS_ON;
		sampled |= src->os_fault_k > 1;
		one_src &= s->source == ds->s[u->ix[0]].source;
		u->y[n] = s->ns - cost;
		u->f[n] = s->faults;
		/* the OS's switches are its preemptions; a call that
		 * waited or yielded gave the cpu away itself (sbt_os_class,
		 * the same class as every view's), as did a region whose
		 * preemptions are its own */
		u->sw[n] = sbt_os_class(s) == SBT_OSC_PREEMPTED &&
			   !own ? s->switches : 0;
		u->t[n] = s->t_ns;
		u->sp[n] = !!(res->mark[u->ix[i]] & SBT_MK_SPEED);
		u->key[n] = (uint64_t)s->source << 32 | s->thread;
		for (uint32_t k = 0; k < nc; k++)
			u->cnt[n * nc + k] = sbt_cnt_get(ds, u->ix[i], k);
		n++;
	}
	struct sbt_decomp_in in = {
		.y = u->y, .f = os ? u->f : NULL, .sw = os ? u->sw : NULL,
		.t = one_src ? u->t : NULL, .sp = u->sp, .key = u->key,
		.cnt = nc ? u->cnt : NULL, .ncol = nc,
		.n = n, .probes = u->pr, .np = np, .faults_sampled = sampled,
		.score = {
			.quantum_ns = q,
			.profile_t_min_ns = o->profile_t_min_ns,
			.profile_t_diff_ns = o->profile_t_diff_ns,
			.profile_label = o->profile_label,
			.os_floor_ns = floor_ns,
			.prefer = o->prefer_profile ? SBT_PREFER_PROFILE :
				  SBT_PREFER_INSITU,
			.noise_spread_ns = -1,
		},
	};
	for (uint32_t k = 0; k < nc && k < SBT_CNT_COLS; k++)
		in.use[k] = !sbt_dc_is_clock(ds->cnt->name[k]);
	return decompose(&in, d, &u->k);
}

/* The recorder's page-fault cost, the mean over the logs that measured
 * it (0: none did). */
static double measured_fault_ns(const struct sbt_dataset *ds)
{
	double sum = 0;
	size_t n = 0;

	for (size_t i = 0; i < ds->nsources; i++)
		if (ds->sources[i].fault_ns > 0)
			sum += ds->sources[i].fault_ns, n++;
	return n ? sum / (double)n : 0;
}

static int bufs_alloc(struct bufs *u, size_t big, size_t ncnt)
{
	u->ix = big_alloc(big * sizeof *u->ix);
	u->y = big_alloc(big * sizeof *u->y);
	u->f = big_alloc(big * sizeof *u->f);
	u->sw = big_alloc(big * sizeof *u->sw);
	u->t = big_alloc(big * sizeof *u->t);
	u->pr = big_alloc(big * sizeof *u->pr);
	u->sp = big_alloc(big);
	u->key = big_alloc(big * sizeof *u->key);
	u->cnt = big_alloc(ncnt * sizeof *u->cnt);
	return work_alloc(&u->k, big) != 0 || !u->ix || !u->y || !u->f ||
	       !u->sw || !u->t || !u->pr || !u->sp || !u->key || !u->cnt ?
	       -1 : 0;
}

static void bufs_free(struct bufs *u, size_t big, size_t ncnt)
{
	big_free(u->ix, big * sizeof *u->ix), big_free(u->y, big * sizeof *u->y);
	big_free(u->f, big * sizeof *u->f), big_free(u->sw, big * sizeof *u->sw);
	big_free(u->t, big * sizeof *u->t), big_free(u->pr, big * sizeof *u->pr);
	big_free(u->sp, big), big_free(u->key, big * sizeof *u->key);
	big_free(u->cnt, ncnt * sizeof *u->cnt);
	work_free(&u->k, big);
}

/* The regions decomposed at once (sbt_jobs_each): region r is groups
 * [at[r], at[r + 1]), into d[r]; each thread its own buffers, made
 * when it takes its first region. */
struct regions {
	const struct sbt_dataset *ds;
	const struct sbt_options *o;
	const struct sbt_result *res;
	const size_t *at;
	struct sbt_decomp *d;
	int *failed;                    /* per region                    */
	size_t big, ncnt;
	struct bufs u[SBT_JOBS_MAX];
	int made[SBT_JOBS_MAX];         /* 1 made, -1 out of memory      */
};

static void region_work(void *arg, size_t r, int t)
{
	struct regions *p = arg;

	if (!p->made[t])
		p->made[t] = bufs_alloc(&p->u[t], p->big, p->ncnt) ? -1 : 1;
	p->failed[r] = p->made[t] < 0 ||
		       one_region(p->ds, p->o, p->res, p->at[r], p->at[r + 1],
				  &p->u[t], &p->d[r]) != 0;
}

int sbt_decomp_run(const struct sbt_dataset *ds, const struct sbt_options *o,
		   struct sbt_result *res)
{
	struct regions *p = calloc(1, sizeof *p);
	size_t big = 1, nr = 0;
	int rc = -1;

	if (!p)
		return -1;
	size_t *at = malloc((res->ngroups + 1) * sizeof *at);
	for (size_t a = 0, b; at && a < res->ngroups; a = b) {
		size_t m = 0;
		for (b = a; b < res->ngroups &&
		     res->g[b].region == res->g[a].region; b++)
			m += res->g[b].n;
		if (m > big)
			big = m;
		at[nr++] = a;
	}
	if (at)
		at[nr] = res->ngroups;
	*p = (struct regions){ .ds = ds, .o = o, .res = res, .at = at,
		.d = calloc(nr ? nr : 1, sizeof *p->d),
		.failed = calloc(nr ? nr : 1, sizeof *p->failed), .big = big,
		.ncnt = big * (ds->cnt && ds->cnt->ncol ? ds->cnt->ncol : 1) };
	if (!at || !p->d || !p->failed)
		goto out;
	sbt_jobs_each(nr, o->jobs, region_work, p);
	for (size_t r = 0; r < nr; r++)
		if (p->failed[r])
			goto out;
	struct sbt_decomp *d = p->d;
	sbt_decomp_cost(d, nr, measured_fault_ns(ds));
	nr = 0;
	for (size_t a = 0, b; a < res->ngroups; a = b, nr++) {
		double tot = 0, span = 0;
		for (b = a; b < res->ngroups &&
		     res->g[b].region == res->g[a].region; b++)
			if (isfinite(res->g[b].judged_ns) &&
			    res->g[b].thread_ns > 0)
				tot += res->g[b].judged_ns,
				span += res->g[b].thread_ns;
		d[nr].region_share = span > 0 ? tot / span : NAN;
		for (size_t k = a; k < b; k++)
			res->g[k].decomp = d[nr];
	}
	rc = 0;
out:
	for (int t = 0; t < SBT_JOBS_MAX; t++)
		if (p->made[t])
			bufs_free(&p->u[t], p->big, p->ncnt);
	free(p->d), free(p->failed), free(at), free(p);
	return rc;
}
