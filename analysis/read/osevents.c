/*
 * osevents.c - lay the kernel's events onto the samples they fell in.
 *
 * A sample of thread T covers [t_ns, t_ns + ns]; every switch-out and
 * page fault of T stamped inside it happened to it (nested regions: to
 * each of the open ones).  The recorder stamped the kernel's events in
 * the samples' own clock, so the join is a search by time per thread.
 *
 * A LOST record means the ring overflowed: the events lost lie between
 * the thread's event before it and the LOST record itself, and samples
 * overlapping that stretch are marked SBT_SF_OS_LOST (their counts may be
 * short).  So are samples past the last drain of their thread (a thread
 * still running at exit) and samples of threads with no record at all.
 *
 * A sample that another thread of its process was preempted during is
 * SBT_SF_TEAM_PREEMPTED: a thread that waits for a preempted one (at a
 * barrier, a lock, a join) slows without a switch of its own.
 */
#include "osevents.h"
#include "jobs.h"
#include "sbtlog.h"

#include <stdlib.h>

static int cmp_rec(const void *a, const void *b)
{
	const struct sbt_os_rec *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->t_ns > y->t_ns) - (x->t_ns < y->t_ns);
}

/* Whether record r comes before (thread, t_ns) in cmp_rec's order. */
static int before(const struct sbt_os_rec *r, uint32_t thread, double t_ns)
{
	return r->thread < thread || (r->thread == thread && r->t_ns < t_ns);
}

/* First record of (thread, t >= t_ns) in rec[lo, hi), rec sorted by
 * cmp_rec and every record before lo before (thread, t_ns). */
static size_t lower_in(const struct sbt_os_rec *rec, size_t lo, size_t hi,
		       uint32_t thread, double t_ns)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (before(&rec[mid], thread, t_ns))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* First record of (thread, t >= t_ns), in rec sorted by cmp_rec. */
static size_t lower(const struct sbt_os_rec *rec, size_t n, uint32_t thread,
		    double t_ns)
{
	return lower_in(rec, 0, n, thread, t_ns);
}

/* The same, known to be `from` or after: the records before `from` come
 * before (thread, t_ns).  A thread's samples come in time order, so the
 * next one's lies a few records on: steps doubling from there, then
 * halving, instead of a search over them all. */
static size_t lower_from(const struct sbt_os_rec *rec, size_t n,
			 uint32_t thread, double t_ns, size_t from)
{
	size_t lo = from, hi = from, step = 1;

	/* first: hi is n or a record not before (thread, t_ns) */
	while (hi < n && before(&rec[hi], thread, t_ns)) {
		lo = hi + 1;
		hi = n - hi > step ? hi + step : n;
		step *= 2;
	}
	return lower_in(rec, lo, hi, thread, t_ns);
}

static int cmp_cover(const void *a, const void *b)
{
	const struct sbt_os_cover *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->until_ns > y->until_ns) - (x->until_ns < y->until_ns);
}

/* The reach of `thread`'s record, -1 without runs; cov sorted. */
static double reach(const struct sbt_os_cover *cov, size_t n,
		    uint32_t thread)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {              /* first entry past the thread's */
		size_t mid = lo + (hi - lo) / 2;
		if (cov[mid].thread <= thread)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && cov[lo - 1].thread == thread ? cov[lo - 1].until_ns : -1;
}

static uint16_t sat_inc(uint16_t v)
{
	return v == UINT16_MAX ? v : (uint16_t)(v + 1);
}

static uint16_t sat_add(uint16_t v, uint32_t n)
{
	return n >= (uint32_t)(UINT16_MAX - v) ? UINT16_MAX : (uint16_t)(v + n);
}

struct join {
	struct sbt_dataset *ds;
	size_t first, last, nb;
	const struct sbt_os_rec *rec;
	size_t n;
	const struct sbt_os_cover *cov;
	size_t ncov;
};

/* Block b of the samples: each sample's own fields only. */
static void join_block(void *arg, size_t b, int w)
{
	const struct join *j = arg;
	const struct sbt_os_rec *rec = j->rec;
	size_t n = j->n, m = j->last - j->first;
	size_t lo = j->first + (size_t)((unsigned __int128)b * m / j->nb);
	size_t hi = j->first + (size_t)((unsigned __int128)(b + 1) * m /
					j->nb);

	/* the sample before's thread, start, first record and reach */
	int had = 0;
	uint32_t th = 0;
	double t0 = 0, far = 0;
	size_t k0 = 0;

	(void)w;
	for (size_t i = lo; i < hi; i++) {
		struct sbt_sample *s = &j->ds->s[i];
		double t1 = s->t_ns + s->ns;

		s->switches = s->faults = 0;
		if (!had || s->thread != th)
			far = reach(j->cov, j->ncov, s->thread);
		k0 = had && s->thread == th && s->t_ns >= t0 ?
		     lower_from(rec, n, s->thread, s->t_ns, k0) :
		     lower(rec, n, s->thread, s->t_ns);
		had = 1, th = s->thread, t0 = s->t_ns;
		if (t1 > far)
			s->flags |= SBT_SF_OS_LOST;
		for (size_t k = k0; k < n && rec[k].thread == s->thread; k++) {
			const struct sbt_os_rec *r = &rec[k];
			/* Lost since the event before this one: that one
			 * is at most t1, so the stretch overlaps. */
			if (r->kind == SBT_OS_LOST)
				s->flags |= SBT_SF_OS_LOST;
			if (r->t_ns > t1)
				break;
			switch (r->kind) {
			case SBT_OS_PREEMPTED:
				s->flags |= SBT_SF_PREEMPTED;
				/* fall through */
			case SBT_OS_SWITCH_OUT:
				s->switches = sat_inc(s->switches);
				break;
			case SBT_OS_FAULT:     /* a storm's: spread() */
				if (r->count <= 1)
					s->faults = sat_inc(s->faults);
				break;
			default:
				break;  /* switch-in, migration: no cost */
			}
		}
	}
}

/* ---- off-cpu time of each thread, summed into its source ------------- */

struct span { double lo, hi; };

/* Each thread's span: its first sample's start to its last one's end. */
static struct span *spans_of(const struct sbt_dataset *ds, size_t first,
			     size_t last, uint32_t *nspan)
{
	struct span *sp = NULL;
	uint32_t n = 0;

	for (size_t i = first; i < last; i++) {
		const struct sbt_sample *s = &ds->s[i];
		double end = s->t_ns + s->ns + s->detour_ns;
		if (s->thread >= n) {
			uint32_t m = s->thread + 1 > 2 * n ? s->thread + 1 :
				     2 * n;
			struct span *g = realloc(sp, m * sizeof *sp);
			if (!g) {
				free(sp);
				return *nspan = 0, NULL;
			}
			for (uint32_t k = n; k < m; k++)
				g[k] = (struct span){ 1, 0 };   /* empty */
			sp = g, n = m;
		}
		struct span *t = &sp[s->thread];
		if (t->lo > t->hi)
			*t = (struct span){ s->t_ns, end };
		else {
			t->lo = t->lo < s->t_ns ? t->lo : s->t_ns;
			t->hi = t->hi > end ? t->hi : end;
		}
	}
	*nspan = n;
	return sp;
}

/* The part of [a, b] inside span t. */
static double clipped(const struct span *t, double a, double b)
{
	a = a > t->lo ? a : t->lo;
	b = b < t->hi ? b : t->hi;
	return b > a ? b - a : 0;
}

/* Sum each thread's time off its cpu, from a switch-out to the switch
 * back in, into src: preempted or of its own accord, by the switch-out's
 * kind.  A LOST record ends what is known of the stretch it falls in;
 * a thread still out at its last record is out to its span's end.  rec
 * sorted by cmp_rec.  Out of memory: the totals stay 0. */
static void off_cpu(const struct sbt_dataset *ds, size_t first, size_t last,
		    const struct sbt_os_rec *rec, size_t n,
		    struct sbt_source *src)
{
	uint32_t nspan;
	struct span *sp = spans_of(ds, first, last, &nspan);

	src->os_span_ns = src->os_preempt_ns = src->os_sleep_ns = 0;
	src->os_preempt_max_ns = 0, src->os_preempt_max_thread = 0;
	if (!sp)
		return;
	for (uint32_t t = 0; t < nspan; t++)
		if (sp[t].hi > sp[t].lo)
			src->os_span_ns += sp[t].hi - sp[t].lo;
	for (size_t a = 0, b; a < n; a = b) {
		uint32_t th = rec[a].thread;
		int out = 0;          /* the kind it left by, 0: on its cpu */
		double t_out = 0, pre = 0, sleep = 0;
		for (b = a; b < n && rec[b].thread == th; b++)
			;
		if (th >= nspan || !(sp[th].hi > sp[th].lo))
			continue;     /* no samples: outside every span */
		for (size_t k = a; k < b; k++) {
			const struct sbt_os_rec *r = &rec[k];
			if (r->kind == SBT_OS_LOST) {
				out = 0;
			} else if (r->kind == SBT_OS_PREEMPTED ||
				   r->kind == SBT_OS_SWITCH_OUT) {
				if (!out)
					out = r->kind, t_out = r->t_ns;
			} else if (r->kind == SBT_OS_SWITCH_IN && out) {
				double d = clipped(&sp[th], t_out, r->t_ns);
				*(out == SBT_OS_PREEMPTED ? &pre : &sleep) += d;
				out = 0;
			}
		}
		if (out) {
			double d = clipped(&sp[th], t_out, sp[th].hi);
			*(out == SBT_OS_PREEMPTED ? &pre : &sleep) += d;
		}
		src->os_preempt_ns += pre, src->os_sleep_ns += sleep;
		if (pre > src->os_preempt_max_ns)
			src->os_preempt_max_ns = pre,
			src->os_preempt_max_thread = th;
	}
	free(sp);
}

/* ---- each thread's stretches off its cpu ------------------------------ */

/* A stretch from a switch-out (preempted, or of the thread's own
 * accord: the kind of the first) to its switch back in, or to a LOST
 * record, which ends what is known; with the thread's off time before
 * it, they give its on-cpu clock: on(t) = t less its off time before t
 * (a thread faults only while it runs: the storms below). */
struct off { double lo, hi, before; uint32_t thread; int preempted; };

/* The off-cpu stretches of rec (sorted by cmp_rec), in the same order;
 * NULL with *noff 0: none, or out of memory (then wall time is used). */
static struct off *offs_of(const struct sbt_os_rec *rec, size_t n,
			   size_t *noff)
{
	struct off *o = NULL;
	size_t k = 0, cap = 0;
	double sum = 0;

	*noff = 0;
	for (size_t i = 0; i < n; i++) {
		if (i && rec[i].thread != rec[i - 1].thread)
			sum = 0;
		if (rec[i].kind != SBT_OS_PREEMPTED &&
		    rec[i].kind != SBT_OS_SWITCH_OUT)
			continue;
		size_t j = i + 1;
		while (j < n && rec[j].thread == rec[i].thread &&
		       rec[j].kind != SBT_OS_SWITCH_IN &&
		       rec[j].kind != SBT_OS_LOST)
			j++;
		/* still out at its last record: no known end, none taken */
		int ended = j < n && rec[j].thread == rec[i].thread;
		double hi = ended ? rec[j].t_ns : rec[i].t_ns;
		if (k == cap) {
			size_t m = cap ? 2 * cap : 64;
			struct off *g = realloc(o, m * sizeof *o);
			if (!g) {
				free(o);
				return NULL;
			}
			o = g, cap = m;
		}
		o[k++] = (struct off){ rec[i].t_ns, hi, sum, rec[i].thread,
				       rec[i].kind == SBT_OS_PREEMPTED };
		sum += hi - rec[i].t_ns;
		i = ended ? j : j - 1;
	}
	*noff = k;
	return o;
}

/* Thread th's on-cpu clock at wall time t (offs_of's stretches). */
static double on_cpu(const struct off *o, size_t m, uint32_t th, double t)
{
	size_t lo = 0, hi = m;

	while (lo < hi) {              /* first of (thread, lo) after t */
		size_t mid = lo + (hi - lo) / 2;
		if (o[mid].thread < th ||
		    (o[mid].thread == th && o[mid].lo <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || o[lo - 1].thread != th)
		return t;
	const struct off *x = &o[lo - 1];
	return t - x->before - (t < x->hi ? t - x->lo : x->hi - x->lo);
}

/* ---- another thread of the process preempted during a sample --------- */

/* A thread's stretch off its cpu after a preemption (offs_of's), by
 * start over every thread. */
struct out { double lo, hi; uint32_t thread; };

static int cmp_out(const void *a, const void *b)
{
	const struct out *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* The preempted stretches of off (offs_of's), sorted by start; *n
 * their number.  NULL with *n 0: none, or out of memory (the flag is
 * then left unset: it adds, never takes away). */
static struct out *outs_of(const struct off *off, size_t noff, size_t *nout)
{
	struct out *o;
	size_t k = 0;

	*nout = 0;
	for (size_t i = 0; i < noff; i++)
		k += off[i].preempted;
	if (!k || !(o = malloc(k * sizeof *o)))
		return NULL;
	k = 0;
	for (size_t i = 0; i < noff; i++)
		if (off[i].preempted)
			o[k++] = (struct out){ off[i].lo, off[i].hi,
					       off[i].thread };
	qsort(o, k, sizeof *o, cmp_out);
	*nout = k;
	return o;
}

/* SBT_SF_TEAM_PREEMPTED on each sample of [first, last) that another
 * thread's preempted stretch overlaps.  reach[i]: the latest end of
 * o[0..i], so a walk back from the last stretch starting before the
 * sample's end stops where nothing earlier can reach it. */
static void team(struct sbt_dataset *ds, size_t first, size_t last,
		 const struct out *o, size_t no)
{
	double *reach = malloc(no * sizeof *reach);

	if (!reach)
		return;
	for (size_t i = 0; i < no; i++)
		reach[i] = i && reach[i - 1] > o[i].hi ? reach[i - 1] : o[i].hi;
	for (size_t i = first; i < last; i++) {
		struct sbt_sample *s = &ds->s[i];
		double t0 = s->t_ns, t1 = s->t_ns + s->ns;
		size_t lo = 0, hi = no;
		while (lo < hi) {      /* first stretch starting at t1 or on */
			size_t mid = lo + (hi - lo) / 2;
			if (o[mid].lo < t1)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t k = lo; k-- > 0 && reach[k] > t0;)
			if (o[k].thread != s->thread && o[k].hi > t0) {
				s->flags |= SBT_SF_TEAM_PREEMPTED;
				break;
			}
	}
	free(reach);
}

/* ---- page faults sampled in a storm ------------------------------------ */

/* A storm's fault event (count K > 1: the kernel recorded every K-th)
 * stands for the K faults of its thread since the fault event before:
 * the stretch (lo, hi], on the thread's on-cpu clock.  Sorted by
 * (thread, hi), as the records are. */
struct storm { double lo, hi, k; uint32_t thread; };

static struct storm *storms_of(const struct sbt_os_rec *rec, size_t n,
			       const struct off *off, size_t noff,
			       size_t *nst)
{
	struct storm *st;
	size_t m = 0;
	double prev = -1;

	for (size_t k = 0; k < n; k++)
		m += rec[k].kind == SBT_OS_FAULT && rec[k].count > 1;
	*nst = 0;
	if (!m || !(st = malloc(m * sizeof *st)))
		return NULL;
	for (size_t k = 0; k < n; k++) {
		const struct sbt_os_rec *r = &rec[k];
		if (k && r->thread != rec[k - 1].thread)
			prev = -1;
		if (r->kind != SBT_OS_FAULT)
			continue;
		double t = on_cpu(off, noff, r->thread, r->t_ns);
		if (r->count > 1)
			st[(*nst)++] = (struct storm){ prev >= 0 ? prev : t,
				t, r->count, r->thread };
		prev = t;
	}
	return st;
}

/* Each call's share of the storms' faults: K spread evenly over its
 * stretch of on-cpu time, the call's overlap's part of it, rounded - a
 * call much shorter than the storm's gap between faults gets none, as
 * most such calls had none; a longer one its count in expectation.  The
 * totals a region's OS share is made of so stay those the kernel
 * counted. */
static void spread(struct sbt_dataset *ds, size_t first, size_t last,
		   const struct storm *st, size_t m,
		   const struct off *off, size_t noff)
{
	for (size_t i = first; i < last; i++) {
		struct sbt_sample *s = &ds->s[i];
		double a = on_cpu(off, noff, s->thread, s->t_ns);
		double b = on_cpu(off, noff, s->thread,
				  s->t_ns + s->ns + s->detour_ns), f = 0;
		size_t lo = 0, hi = m;
		while (lo < hi) {      /* first of (thread, hi >= a) */
			size_t mid = lo + (hi - lo) / 2;
			if (st[mid].thread < s->thread ||
			    (st[mid].thread == s->thread && st[mid].hi < a))
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t k = lo; k < m && st[k].thread == s->thread &&
		     st[k].lo <= b; k++) {
			double l = st[k].lo > a ? st[k].lo : a;
			double h = st[k].hi < b ? st[k].hi : b;
			if (st[k].hi > st[k].lo)
				f += h > l ? st[k].k * (h - l) /
					     (st[k].hi - st[k].lo) : 0;
			else if (st[k].hi >= a && st[k].hi <= b)
				f += st[k].k;  /* no stretch: all here */
		}
		if (f >= 0.5)
			s->faults = sat_add(s->faults, (uint32_t)(f + 0.5));
	}
}

void sbt_os_join(struct sbt_dataset *ds, size_t first, size_t last,
		 struct sbt_os_rec *rec, size_t n,
		 struct sbt_os_cover *cov, size_t ncov, int jobs)
{
	struct join j = { ds, first, last, 0, rec, n, cov, ncov };

	if (n)
		qsort(rec, n, sizeof *rec, cmp_rec);
	if (ncov)
		qsort(cov, ncov, sizeof *cov, cmp_cover);
	if (last <= first)
		return;
	off_cpu(ds, first, last, rec, n, &ds->sources[ds->s[first].source]);
	j.nb = sbt_jobs_blocks(last - first, 1024);
	sbt_jobs_each(j.nb, jobs, join_block, &j);
	size_t noff, nst;
	struct off *off = offs_of(rec, n, &noff);
	struct storm *st = storms_of(rec, n, off, noff, &nst);
	if (st)
		spread(ds, first, last, st, nst, off, noff);
	free(st);
	size_t no;
	struct out *o = outs_of(off, noff, &no);
	if (o)
		team(ds, first, last, o, no);
	free(o);
	free(off);
}

void sbt_os_join_probes(struct sbt_dataset *ds, uint32_t src,
			const struct sbt_os_rec *rec, size_t n)
{
	for (size_t i = 0; i < ds->nprobes; i++) {
		struct sbt_probe *p = &ds->probes[i];
		double t1 = p->t_ns + p->ns;
		if (p->source != src)
			continue;
		p->switched = 0;
		for (size_t k = lower(rec, n, p->thread, p->t_ns);
		     k < n && rec[k].thread == p->thread &&
		     rec[k].t_ns <= t1 && !p->switched; k++)
			p->switched = rec[k].kind == SBT_OS_SWITCH_OUT ||
				      rec[k].kind == SBT_OS_PREEMPTED;
	}
}
