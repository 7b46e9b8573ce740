/*
 * report_trace.c - the samples on a timeline, as Chrome Trace Event
 * Format JSON (the "JSON Object Format": {"traceEvents": [...],
 * "displayTimeUnit", "otherData"}), which Perfetto UI and chrome://tracing
 * open.
 *
 * Tracks: one per process (pid: the log's, or the input's number when
 * two logs share one) and thread (tid: sbtmark's thread index + 1, named
 * "thread N").  Processes are placed on one time axis by the wall-clock
 * time their logs started (header start_unix_ns), when every input has
 * it; otherwise each starts at 0, and otherData says so.
 *
 * A sample's slice runs from its START's clock read to its STOP's: its
 * real times.  Where the recorder took the thread aside inside it (a
 * speed probe, an in-situ probe, a drain of the kernel's events: the
 * log's SPAN detours), that detour is a slice of its own, named
 * "sbtmark" in category "recorder", nested where it ran; the sample's
 * args keep its detour-free time ("ns") and what was taken out
 * ("detour_ns").  Detours inside no shown sample are not shown.
 *
 * Times are microseconds with three decimals: each slice's start and
 * end are rounded to the nanosecond separately (rounding is monotone, so
 * order is kept) and printed exactly from the integer.  A sample that
 * starts inside another of its thread is nested in it; its end is then
 * clamped to its parent's, which moves it by at most the rounding - or
 * by more for a region stopped out of nesting order (counted misuse in
 * the log), whose event then carries "clamped_ns".  So every nested event
 * lies inside its parent, as trace viewers require.
 *
 * Bound: at most trace_max (--trace-max; 0: all) complete events.  Beyond, the samples (of all
 * processes, in time order) are taken at an even stride - every
 * (held/max)-th - so the timeline keeps its shape over the whole run; a
 * child may then be shown without its parent and vice versa.  Instant
 * and counter events are those of the samples shown.
 *
 * What the dataset does not keep, the trace cannot show: the kernel's
 * events are joined to samples when a log is read (switches, faults,
 * preempted per sample), so an interruption is an instant event at the
 * start of the innermost sample it fell in, not at its own moment.
 */
#include "report_trace.h"
#include "counters.h"
#include "escape.h"
#include "report_util.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NEST_MAX 256             /* nesting depth the clamping follows */

/* A slice shown: where, and its start and end in integer ns on the
 * trace's axis. */
struct tev {
	size_t   i;              /* sample index, or detour index         */
	int      detour;         /* 1: i is into ds->detours              */
	uint32_t source, thread;
	int64_t  t0, t1;
	int64_t  clamped;        /* ns cut off its end to fit its parent  */
	int      leaf;           /* no shown sample nested in it          */
};

static int cmp_track(const void *a, const void *b)
{
	const struct tev *x = a, *y = b;

	if (x->source != y->source)
		return x->source < y->source ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->t0 != y->t0)
		return x->t0 < y->t0 ? -1 : 1;
	if (x->t1 != y->t1)                  /* the parent first */
		return x->t1 > y->t1 ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* Ordering candidates by time for the even stride. */
static const double *by_time;

static int cmp_time(const void *a, const void *b)
{
	double x = by_time[*(const size_t *)a], y = by_time[*(const size_t *)b];

	if (x != y)
		return x < y ? -1 : 1;
	return (*(const size_t *)a > *(const size_t *)b) -
	       (*(const size_t *)a < *(const size_t *)b);
}

/* ns as microseconds, exactly: "-"? digits "." three digits. */
static void put_us(FILE *f, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)-ns : (uint64_t)ns;

	fprintf(f, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", a / 1000,
		(unsigned)(a % 1000));
}

/* The output and how many events it holds: events are separated by
 * commas, not terminated, as the JSON array takes no trailing one. */
struct tw {
	FILE  *f;
	size_t n;
};

/* Start an event: its separator; returns the stream to write it to. */
static FILE *ev_open(struct tw *w)
{
	fputs(w->n++ ? ",\n" : "", w->f);
	return w->f;
}

static int shown(const struct sbt_sample *s)
{
	return !(s->flags & (SBT_SF_PROBE | SBT_SF_CALIB | SBT_SF_RESET));
}

/* Per source: its offset on the common axis (ns), and its trace pid. */
struct axis {
	double  *off;
	int32_t *pid;
	int      aligned;
	uint64_t origin_unix_ns;
};

static int axis_make(const struct sbt_dataset *ds, struct axis *ax)
{
	uint64_t lo = UINT64_MAX;
	int unique = 1;

	ax->off = calloc(ds->nsources + 1, sizeof *ax->off);
	ax->pid = calloc(ds->nsources + 1, sizeof *ax->pid);
	if (!ax->off || !ax->pid)
		return -1;
	ax->aligned = 1;
	for (size_t k = 0; k < ds->nsources; k++) {
		const struct sbt_source *s = &ds->sources[k];
		if (!s->start_unix_ns)
			ax->aligned = 0;
		else if (s->start_unix_ns < lo)
			lo = s->start_unix_ns;
		for (size_t j = 0; j < k; j++)
			if (ds->sources[j].pid == s->pid)
				unique = 0;
		if (s->pid <= 0)
			unique = 0;
	}
	ax->origin_unix_ns = ax->aligned ? lo : 0;
	for (size_t k = 0; k < ds->nsources; k++) {
		if (ax->aligned)
			ax->off[k] = (double)(ds->sources[k].start_unix_ns - lo);
		ax->pid[k] = unique ? ds->sources[k].pid : (int32_t)k + 1;
	}
	return 0;
}

/* The samples shown, each with its integer times; *nheld: candidates. */
static struct tev *choose(const struct sbt_dataset *ds,
			  const struct axis *ax, size_t max, size_t *nheld,
			  size_t *n)
{
	size_t m = 0, k = 0, *cand;
	double *t;
	struct tev *ev;

	for (size_t i = 0; i < ds->n; i++)
		m += shown(&ds->s[i]);
	*nheld = m;
	*n = max && m > max ? max : m;
	cand = malloc((m + 1) * sizeof *cand);
	t = malloc((ds->n + 1) * sizeof *t);
	ev = malloc((*n + ds->ndetours + 1) * sizeof *ev);
	if (!cand || !t || !ev) {
		free(cand), free(t), free(ev);
		return NULL;
	}
	for (size_t i = 0; i < ds->n; i++) {
		const struct sbt_sample *s = &ds->s[i];
		t[i] = s->t_ns + ax->off[s->source];
		if (shown(s))
			cand[k++] = i;
	}
	if (*n < m) {                  /* every (m/n)-th, in time order */
		by_time = t;
		qsort(cand, m, sizeof *cand, cmp_time);
		for (size_t j = 0; j < *n; j++)
			cand[j] = cand[(size_t)(((double)j + 0.5) * (double)m /
					       (double)*n)];
	}
	for (size_t j = 0; j < *n; j++) {
		const struct sbt_sample *s = &ds->s[cand[j]];
		double a = t[cand[j]], b = a + (s->ns > 0 ? s->ns : 0);
		b += (double)s->detour_ns;      /* its real end */
		ev[j] = (struct tev){ cand[j], 0, s->source, s->thread,
				      llround(a), llround(b), 0, 1 };
		if (ev[j].t1 < ev[j].t0)
			ev[j].t1 = ev[j].t0;
	}
	for (size_t k = 0; k < ds->ndetours; k++) {
		const struct sbt_probe *d = &ds->detours[k];
		double a = d->t_ns + ax->off[d->source];
		ev[*n + k] = (struct tev){ k, 1, d->source, d->thread,
					   llround(a), llround(a + d->ns), 0,
					   1 };
	}
	free(cand), free(t);
	qsort(ev, *n + ds->ndetours, sizeof *ev, cmp_track);
	return ev;
}

/* Keep the detours nest() placed inside a sample; n: what is left. */
static size_t drop_loose(struct tev *ev, size_t n)
{
	size_t k = 0;

	for (size_t j = 0; j < n; j++)
		if (!ev[j].detour || ev[j].leaf >= 0)
			ev[k++] = ev[j];
	return k;
}

/* Nest each track's events: a child's end clamped to its parent's.
 * ev is sorted by cmp_track, so a parent comes before its children.  A
 * detour is nobody's parent; one inside no sample gets leaf -1. */
static void nest(struct tev *ev, size_t n)
{
	size_t st[NEST_MAX], d = 0;

	for (size_t j = 0; j < n; j++) {
		if (j && (ev[j].source != ev[j - 1].source ||
			  ev[j].thread != ev[j - 1].thread))
			d = 0;                   /* a new track */
		/* Ended before it starts: not its parent.  (The same start:
		 * the sort put the longer first, so it is.) */
		while (d && ev[st[d - 1]].t1 <= ev[j].t0 &&
		       ev[st[d - 1]].t0 != ev[j].t0)
			d--;
		if (d) {
			struct tev *p = &ev[st[d - 1]];
			if (!ev[j].detour)
				p->leaf = 0;
			if (ev[j].t1 > p->t1) {
				ev[j].clamped = ev[j].t1 - p->t1;
				ev[j].t1 = p->t1;
			}
		} else if (ev[j].detour) {
			ev[j].leaf = -1;
		}
		if (d < NEST_MAX && !ev[j].detour)
			st[d++] = j;
	}
}

static const char *base_name(const char *p)
{
	const char *b = strrchr(p, '/');
	return b ? b + 1 : p;
}

static void put_meta(struct tw *w, const struct sbt_dataset *ds,
		     const struct axis *ax, const struct tev *ev, size_t n)
{
	FILE *f = w->f;
	for (size_t k = 0; k < ds->nsources; k++) {
		const struct sbt_source *s = &ds->sources[k];
		char name[700];
		int len = snprintf(name, sizeof name, "%s (pid %d",
				   s->exe[0] ? base_name(s->exe)
					     : base_name(s->path), s->pid);
		if (s->rank >= 0)
			len += snprintf(name + len, sizeof name - (size_t)len,
					", rank %d", s->rank);
		if (s->host[0])
			len += snprintf(name + len, sizeof name - (size_t)len,
					", %s", s->host);
		snprintf(name + len, sizeof name - (size_t)len, ")");
		fprintf(ev_open(w), "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,"
			"\"args\":{\"name\":", ax->pid[k]);
		sbt_json_str(f, name);
		fputs("}}", f);
		fprintf(ev_open(w), "{\"ph\":\"M\",\"name\":"
			"\"process_sort_index\",\"pid\":%d,\"args\":"
			"{\"sort_index\":%zu}}", ax->pid[k], k);
	}
	for (size_t j = 0; j < n; j++) {
		if (j && ev[j].source == ev[j - 1].source &&
		    ev[j].thread == ev[j - 1].thread)
			continue;
		fprintf(ev_open(w), "{\"ph\":\"M\",\"name\":\"thread_name\","
			"\"pid\":%d,\"tid\":%u,\"args\":{\"name\":"
			"\"thread %u\"}}", ax->pid[ev[j].source],
			ev[j].thread + 1, ev[j].thread);
		fprintf(ev_open(w), "{\"ph\":\"M\",\"name\":"
			"\"thread_sort_index\",\"pid\":%d,\"tid\":%u,"
			"\"args\":{\"sort_index\":%u}}",
			ax->pid[ev[j].source], ev[j].thread + 1, ev[j].thread);
	}
}

static void put_sample(struct tw *w, const struct sbt_dataset *ds,
		       const struct sbt_result *res, const struct axis *ax,
		       const struct tev *e)
{
	FILE *f = w->f;
	const struct sbt_sample *s = &ds->s[e->i];
	const struct sbt_region *r = &ds->regions[s->region];
	const struct sbt_source *src = &ds->sources[s->source];

	fputs("{\"ph\":\"X\",\"name\":", ev_open(w));
	sbt_json_str(f, r->name);
	fprintf(f, ",\"cat\":\"%s\",\"pid\":%d,\"tid\":%u,\"ts\":",
		sbt_api_name(r->api), ax->pid[s->source], s->thread + 1);
	put_us(f, e->t0);
	fputs(",\"dur\":", f);
	put_us(f, e->t1 - e->t0);
	fputs(",\"args\":{", f);
	fputs("\"ns\":", f);
	fprintf(f, "%.1f", s->ns);
	if (s->detour_ns > 0)
		fprintf(f, ",\"detour_ns\":%.1f", (double)s->detour_ns);
	if (s->cpu_start != SBT_CPU_UNKNOWN)
		fprintf(f, ",\"cpu\":%u", s->cpu_start);
	if (res && res->mark && (res->mark[e->i] & SBT_MK_DROPPED))
		fputs(",\"os_filter\":\"dropped\"", f);
	if (s->flags & SBT_SF_MIGRATED)
		fputs(",\"migrated\":1", f);
	if (s->flags & SBT_SF_CROSSED)
		fputs(",\"crossed\":1", f);
	if (e->clamped)
		fprintf(f, ",\"clamped_ns\":%" PRId64, e->clamped);
	if (src->os_state == SBT_OS_ON && (s->switches || s->faults))
		fprintf(f, ",\"switches\":%u,\"faults\":%u,\"preempted\":%d",
			s->switches, s->faults,
			!!(s->flags & SBT_SF_PREEMPTED));
	for (uint32_t k = 0; ds->cnt && k < ds->cnt->ncol; k++) {
		double v = sbt_cnt_get(ds, e->i, k);
		if (!isnan(v)) {
			fputc(',', f);
			sbt_json_str(f, ds->cnt->name[k]);
			fprintf(f, ":%.0f", v);
		}
	}
	fputs("}}", f);
}

/* A recorder's detour inside a sample. */
static void put_detour(struct tw *w, const struct sbt_dataset *ds,
		       const struct axis *ax, const struct tev *e)
{
	FILE *f = w->f;
	const struct sbt_probe *d = &ds->detours[e->i];

	fprintf(ev_open(w), "{\"ph\":\"X\",\"name\":\"sbtmark\","
		"\"cat\":\"recorder\",\"pid\":%d,\"tid\":%u,\"ts\":",
		ax->pid[d->source], d->thread + 1);
	put_us(f, e->t0);
	fputs(",\"dur\":", f);
	put_us(f, e->t1 - e->t0);
	fprintf(f, ",\"args\":{\"detour_ns\":%.1f}}", d->ns);
}

/* SBT_EVENTS: per thread and event a counter track, each innermost
 * sample's count from its start to its end (leaves do not overlap). */
static void put_counters(struct tw *w, const struct sbt_dataset *ds,
			 const struct axis *ax, const struct tev *ev, size_t n)
{
	FILE *f = w->f;

	for (size_t j = 0; ds->cnt && j < n; j++) {
		if (!ev[j].leaf || ev[j].detour)
			continue;
		for (uint32_t k = 0; k < ds->cnt->ncol; k++) {
			double v = sbt_cnt_get(ds, ev[j].i, k);
			if (isnan(v))
				continue;
			for (int edge = 0; edge < 2; edge++) {
				char track[SBT_CNT_NAME + 24];
				snprintf(track, sizeof track, "%s (thread %u)",
					 ds->cnt->name[k], ev[j].thread);
				fputs("{\"ph\":\"C\",\"name\":", ev_open(w));
				sbt_json_str(f, track);
				fprintf(f, ",\"pid\":%d,\"ts\":",
					ax->pid[ev[j].source]);
				put_us(f, edge ? ev[j].t1 : ev[j].t0);
				fputs(",\"args\":{", f);
				sbt_json_str(f, ds->cnt->name[k]);
				fprintf(f, ":%.0f}}", edge ? 0.0 : v);
			}
		}
	}
}

/* The kernel's interruptions, at the start of the innermost sample. */
static void put_os(struct tw *w, const struct sbt_dataset *ds,
		   const struct axis *ax, const struct tev *ev, size_t n)
{
	FILE *f = w->f;

	for (size_t j = 0; j < n; j++) {
		const struct sbt_sample *s = &ds->s[ev[j].i];
		if (ev[j].detour)
			continue;
		if (!ev[j].leaf || ds->sources[s->source].os_state != SBT_OS_ON ||
		    !(s->switches || s->faults))
			continue;
		fprintf(ev_open(w), "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"OS: %s\","
			"\"cat\":\"os\",\"pid\":%d,\"tid\":%u,\"ts\":",
			s->flags & SBT_SF_PREEMPTED ? "preempted" :
			s->switches ? "switched out" : "page fault",
			ax->pid[s->source], s->thread + 1);
		put_us(f, ev[j].t0);
		fprintf(f, ",\"args\":{\"switches\":%u,\"faults\":%u,"
			"\"in\":", s->switches, s->faults);
		sbt_json_str(f, ds->regions[s->region].name);
		fputs("}}", f);
	}
}

/* The machine's shifts (machine.c), process-wide instants. */
static void put_machine(struct tw *w, const struct sbt_dataset *ds,
			  const struct sbt_result *res, const struct axis *ax)
{
	FILE *f = w->f;
	for (size_t k = 0; res && k < res->nev; k++) {
		const struct sbt_machine_event *e = &res->ev[k];
		fprintf(ev_open(w), "{\"ph\":\"i\",\"s\":\"p\",\"name\":\"machine: "
			"%d regions %+.1f %%\",\"cat\":\"machine\",\"pid\":%d,"
			"\"ts\":", e->nregions, 100 * e->change,
			ax->pid[e->source]);
		put_us(f, llround(e->t_ns + ax->off[e->source]));
		fprintf(f, ",\"args\":{\"cpu\":%u,\"change\":%.4f,\"regions\":[",
			e->cpu, e->change);
		for (int r = 0; r < e->nregions && r < SBT_MACHINE_MAX_REGIONS;
		     r++) {
			if (r)
				fputc(',', f);
			sbt_json_str(f, ds->regions[e->regions[r]].name);
		}
		fputs("]}}", f);
	}
}

static void put_other(FILE *f, const struct sbt_dataset *ds,
		      const struct axis *ax, size_t held, size_t n,
		      size_t detours)
{
	fprintf(f, "\"otherData\":{\"generator\":\"sbt-analyze\","
		"\"samples_held\":%zu,\"complete_events\":%zu,"
		"\"detour_events\":%zu,", held, n, detours);
	if (n < held)
		fprintf(f, "\"thinning\":\"%zu of %zu held samples shown, "
			"one every %.2f in time order (--trace-max %zu)\",",
			n, held, (double)held / (double)n, n);
	else
		fputs("\"thinning\":\"none: every held sample shown\",", f);
	if (ax->aligned)
		fprintf(f, "\"time_origin_unix_ns\":%" PRIu64 ",",
			ax->origin_unix_ns);
	else
		fputs("\"time_origin\":\"each process from its log's start "
		      "(an input without a start time)\",", f);
	fputs("\"inputs\":[", f);
	for (size_t k = 0; k < ds->nsources; k++) {
		if (k)
			fputc(',', f);
		sbt_json_str(f, ds->sources[k].path);
	}
	fputs("]},\n", f);
}

static int write_trace(FILE *f, const struct sbt_report_in *in)
{
	const struct sbt_dataset *ds = in->ds;
	const struct sbt_result *res = in->res;
	size_t max = in->trace_max;
	struct axis ax = { 0 };
	struct tw w = { f, 0 };
	struct tev *ev = NULL;
	size_t held, n, all;

	if (axis_make(ds, &ax) != 0 ||
	    !(ev = choose(ds, &ax, max, &held, &n))) {
		free(ax.off), free(ax.pid);
		return -1;
	}
	nest(ev, n + ds->ndetours);
	all = drop_loose(ev, n + ds->ndetours);
	fputs("{\"displayTimeUnit\":\"ns\",\n", f);
	put_other(f, ds, &ax, held, n, all - n);
	fputs("\"traceEvents\":[\n", f);
	put_meta(&w, ds, &ax, ev, all);
	for (size_t j = 0; j < all; j++) {
		if (ev[j].detour)
			put_detour(&w, ds, &ax, &ev[j]);
		else
			put_sample(&w, ds, res, &ax, &ev[j]);
	}
	put_counters(&w, ds, &ax, ev, all);
	put_os(&w, ds, &ax, ev, all);
	put_machine(&w, ds, res, &ax);
	fputs("\n]}\n", f);
	free(ev), free(ax.off), free(ax.pid);
	return ferror(f) ? -1 : 0;
}

const struct sbt_report_format sbt_format_trace = {
	.name = "trace", .write = write_trace,
};
