/*
 * report_text.c - the analysis for people, in a terminal (100 columns,
 * or COLUMNS, or --width).  By default: the inputs, one line per group
 * (its total, typical time, class word and size: words.h), at most three
 * lines of context for the run and the command for more.  With -v: the
 * processor's timeline, the full table, the machine's events, and per
 * group the evidence (findings in time order, what was left out, the
 * precision, the kernel's record), then the call sites; --explain REGION
 * gives one region's evidence; --spark a sparkline per group.
 */
#include "totals.h"
#include "report_compare.h"
#include "report_notes.h"
#include "report_util.h"
#include "fitname.h"
#include "clause.h"
#include "say.h"
#include "report_counters.h"
#include "report_speed.h"
#include "report_axes.h"
#include "spark.h"
#include "words.h"
#include "stats.h"
#include "sbtlog.h"

#include <langinfo.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define COLS        100        /* the terminal we fit, unless told       */
#define STACK_LINES 6          /* callers shown per site (JSON has all)  */
#define SPARK_W     48

/* Lost kernel events, and what to set: the recorder drains its rings
 * at marker calls, so a loss means one marker-free stretch (a long
 * region) outran the ring; four times the pages holds four times it. */
/* A log's first line within `cols`: the program by its file name when
 * its path does not fit, then the log's path cut in its middle ('~'). */
static void source_line(FILE *f, const struct sbt_source *s, int cols)
{
	char tail[160], path[4096];
	const char *exe = s->exe, *b = strrchr(s->exe, '/');
	int n;

	if (s->rank >= 0)
		snprintf(tail, sizeof tail, " pid %d rank %d on %s, %u thread%s",
			 s->pid, s->rank, s->host, s->nthreads,
			 s->nthreads == 1 ? "" : "s");
	else
		snprintf(tail, sizeof tail, " pid %d on %s, %u thread%s",
			 s->pid, s->host, s->nthreads,
			 s->nthreads == 1 ? "" : "s");
	n = 4 + (int)(strlen(s->path) + strlen(exe) + strlen(tail));
	if (n > cols && b && b[1])
		n -= (int)(++b - exe), exe = b;
	snprintf(path, sizeof path, "%s", s->path);
	int len = (int)strlen(path), cut = n - cols;
	if (cut > 0 && len - cut >= 12) {   /* keep both ends readable */
		int head = (len - cut - 1) / 2, keep = len - cut - 1 - head;
		path[head] = '~';
		memmove(path + head + 1, path + len - keep, (size_t)keep + 1);
	}
	fprintf(f, "# %s: %s%s\n", path, exe, tail);
}

static void text_sources(FILE *f, const struct sbt_dataset *ds, int cols)
{
	for (size_t i = 0; i < ds->nsources; i++) {
		const struct sbt_source *s = &ds->sources[i];
		if (s->is_csv) {
			fprintf(f, "# %s: CSV samples\n", s->path);
			continue;
		}
		source_line(f, s, cols);
		fprintf(f, "#   clock %.4f GHz, quantum %.1f ns, t_e,std %.1f "
			"ns (p50 %.1f, p99.9 %.1f); %s\n", 1.0 / s->tick_ns,
			s->quantum_ns, s->te_ns, s->te_p50_ns, s->te_p999_ns,
			s->has_cycles ? "cycles recorded" :
			"wall clock only");
		sbt_source_notes(f, ds, i, "#   ");
	}
}

/* A duration in exactly `w` columns: 1 decimal while it fits. */
static void num(FILE *f, int w, double ns)
{
	char b[32];

	if (!isfinite(ns))
		snprintf(b, sizeof b, "-");
	else if (fabs(ns) < 1e6)
		snprintf(b, sizeof b, "%.1f", ns);
	else if (fabs(ns) < 1e9 && w >= 9)
		snprintf(b, sizeof b, "%.0f", ns);
	else                    /* too wide in ns: in seconds, said so */
		snprintf(b, sizeof b, fabs(ns) < 999.5e9 ? "%.3g s" :
			 "%.0f s", ns / 1e9);
	fprintf(f, " %*s", w, b);
}

/* Print s from column `col` on, breaking at spaces before `cols`; later
 * lines start at column `indent`. */
static void wrap(FILE *f, const char *s, int col, int indent, int cols)
{
	while (*s) {
		int room = cols - col, n = (int)strlen(s);
		if (room < 10)
			room = 10;
		if (n > room) {
			int cut = room;
			while (cut > 0 && s[cut] != ' ')
				cut--;
			n = cut > 0 ? cut : room;   /* a word longer than a line */
		}
		fprintf(f, "%.*s\n", n, s);
		s += n;
		while (*s == ' ')
			s++;
		if (*s)
			fprintf(f, "%*s", indent, "");
		col = indent;
	}
}

/* The line's width: --width, else the terminal's COLUMNS, else COLS. */
static int columns(const struct sbt_report_opts *o)
{
	const char *e = getenv("COLUMNS");
	int c = e ? atoi(e) : 0;

	if (o->width > 0)
		return o->width;
	return c >= 60 && c <= 1000 ? c : COLS;
}

struct layout {
	int cols;                     /* the line's width                */
	int name_w, key_w, own;
	int short_name;               /* the one-line table's name width  */
	const struct sbt_dataset *ds;
	const struct sbt_result *res;
	struct sbt_fit_rows names;       /* every region's, told apart      */
};

/* Columns of numbers: total share [own] count cut median CV p99 max
 * (min, std and the rest: CSV and JSON) */
#define NUM_COLS(own) (70 + ((own) ? 7 : 0))
/* The one-line table: total share typical, the class word, and at least
 * this much room for its size. */
#define SHORT_COLS (1 + 9 + 1 + 6 + 1 + 9 + 2 + 10 + 2)
#define SIZE_ROOM  26

static int name_len(const struct sbt_dataset *ds, const struct sbt_group *g)
{
	return (int)strlen(ds->regions[g->region].name);
}

/* The names' column when the longest, l->name_w, is wider than room:
 * room (at least 12), or the least width beyond it at which every row's
 * name that can in NAME_LIMIT columns reads apart from the others
 * (fitname.h). */
#define NAME_LIMIT 40
static int widen(const struct layout *l, int room)
{
	int w = room < 12 ? 12 : room;

	for (size_t i = 0; i < l->res->ngroups && w < NAME_LIMIT; i++) {
		const char *name = l->ds->regions[l->res->g[i].region].name;
		if ((int)strlen(name) > w) {
			/* a name that needs more than the limit is cut
			 * at it anyway: it widens nothing */
			int need = sbt_fit_need(name, &l->names);
			if (need > w && need <= NAME_LIMIT)
				w = need;
		}
	}
	return w < l->name_w ? w : l->name_w;
}

static const char *region_name(const void *ctx, size_t i)
{
	return ((const struct sbt_dataset *)ctx)->regions[i].name;
}

static struct layout layout(const struct sbt_dataset *ds,
			    const struct sbt_result *res,
			    const struct sbt_report_opts *o)
{
	struct layout l = { columns(o), 6, 0, 0, 6, ds, res,
			    { region_name, ds, ds->nregions } };
	char key[300];

	for (size_t i = 0; i < res->ngroups; i++) {
		int n = name_len(ds, &res->g[i]);
		if (n > l.name_w) l.name_w = n;
		l.own |= res->g[i].nested;
		if (o->by || o->by_site) {
			sbt_group_key(ds, &res->g[i], o, key, sizeof key);
			n = (int)strlen(key);
			if (n > l.key_w) l.key_w = n;
		}
	}
	if (o->by || o->by_site) {
		int k = (int)strlen(sbt_by_name(o));
		if (l.key_w < k) l.key_w = k;
		if (l.key_w > 14) l.key_w = 14;
	}
	/* the numbers first; the names get what is left, widened where
	 * that is too little to tell the rows apart */
	int kw = l.key_w ? l.key_w + 1 : 0;
	int room = l.cols - 1 - NUM_COLS(l.own) - kw;
	int short_room = l.cols - SHORT_COLS - SIZE_ROOM - kw;
	l.short_name = l.name_w > short_room ? widen(&l, short_room) :
		       l.name_w;
	l.name_w = l.name_w > room ? widen(&l, room) : l.name_w;
	if (l.short_name < 12)
		l.short_name = 12;
	if (l.name_w < 12)
		l.name_w = 12;
	return l;
}

/* name in exactly w columns (fitname.h): whole, or whole words that
 * keep it apart from the other regions' names. */
static void fit(FILE *f, const struct layout *l, const char *name, int w)
{
	char b[512];

	if (w >= (int)sizeof b)
		w = (int)sizeof b - 1;
	sbt_fit_name(b, sizeof b, name, w, &l->names);
	fputs(b, f);
}

/* Name (and key) of g in the layout's columns. */
static void name_w_cols(FILE *f, const struct sbt_dataset *ds,
			const struct sbt_group *g,
			const struct sbt_report_opts *o,
			const struct layout *l, int w)
{
	char key[300];

	fit(f, l, ds->regions[g->region].name, w);
	if (l->key_w) {
		int n;
		sbt_group_key(ds, g, o, key, sizeof key);
		n = (int)strlen(key);
		if (n > l->key_w && o->by_site && o->cs && g->key < o->cs->n &&
		    o->cs->c[g->key].twin)
			/* its end (line and offset) is what tells it apart */
			fprintf(f, " ~%s", key + n - (l->key_w - 1));
		else if (n > l->key_w)
			fprintf(f, " %.*s~", l->key_w - 1, key);
		else
			fprintf(f, " %*s", l->key_w, key);
	}
}

static void name_cols(FILE *f, const struct sbt_dataset *ds,
		      const struct sbt_group *g, const struct sbt_report_opts *o,
		      const struct layout *l)
{
	name_w_cols(f, ds, g, o, l, l->name_w);
}

/* Regions recorded sparsely (SBT_SAMPLE) or held in part (beyond the
 * analyzer's sample budget, thin.h): their exact calls, the share
 * analyzed, and the total time of all calls with its standard error. */
static void sampled(FILE *f, const struct sbt_dataset *ds,
		    const struct sbt_result *res,
		    const struct sbt_report_opts *o, const struct layout *l)
{
	int any = 0;
	uint64_t total_n = 0, held_n = 0;

	for (size_t r = 0; r < ds->nregions; r++)
		if (ds->regions[r].keep < 1) {
			total_n += ds->regions[r].total;
			held_n += (uint64_t)((double)ds->regions[r].total *
					     ds->regions[r].keep);
		}
	for (size_t i = 0; i < res->ngroups; i++) {
		const struct sbt_group *g = &res->g[i];
		double total, se;
		if (g->calls <= g->count)
			continue;
		if (!any++) {
			fprintf(f, "\nnot every call analyzed (count: calls "
				"analyzed; the total of all calls estimated, "
				"+- one standard error):\n");
			if (total_n)
				fprintf(f, "  beyond --max-samples: about %llu "
					"of %llu samples held, a random share "
					"of each large region\n",
					(unsigned long long)held_n,
					(unsigned long long)total_n);
		}
		sbt_group_total(g, &total, &se);
		fputs("  ", f);
		name_cols(f, ds, g, o, l);
		char tt[32], ts[32];
		snprintf(tt, sizeof tt, total < 999999.5e6 ? "%.6g" : "%.0f",
			 total / 1e6);
		sbt_fmt_num(ts, sizeof ts, se / 1e6);
		fprintf(f, " %zu of %llu calls (%.2f %%), total %s +- %s ms"
			"\n", g->count, (unsigned long long)g->calls,
			100.0 * (double)g->count / (double)g->calls, tt, ts);
	}
}

/* A total time in 9 columns, in the unit that suits it. */
static void total(FILE *f, double ns)
{
	char b[32];

	if (!isfinite(ns))
		snprintf(b, sizeof b, "-");
	else if (ns >= 9999.5e9)
		snprintf(b, sizeof b, "%.0f s", ns / 1e9);
	else if (ns >= 1e9)
		snprintf(b, sizeof b, "%.4g s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(b, sizeof b, "%.4g ms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(b, sizeof b, "%.4g us", ns / 1e3);
	else
		snprintf(b, sizeof b, "%.4g ns", ns);
	fprintf(f, " %9s", b);
}

static void share(FILE *f, double x)
{
	if (isfinite(x))
		fprintf(f, " %5.1f%%", 100 * x);
	else
		fprintf(f, " %6s", "-");
}

/* One row a group: its total and share of its threads' time first
 * (exclusive too when regions nest), then the distribution. */
static void table(FILE *f, const struct sbt_dataset *ds,
		  const struct sbt_result *res, const struct sbt_report_opts *o,
		  const struct layout *l)
{
	fprintf(f, "\n%-*s", l->name_w, "region");
	if (l->key_w)
		fprintf(f, " %*s", l->key_w, sbt_by_name(o));
	fprintf(f, " %9s %6s", "total", "share");
	if (l->own)
		fprintf(f, " %6s", "own");
	fprintf(f, " %9s %5s %9s %6s %9s %9s\n", "count", "cut",
		"median ns", "CV", "p99 ns", "max ns");
	for (size_t i = 0; i < res->ngroups; i++) {
		const struct sbt_group *g = &res->g[i];
		name_cols(f, ds, g, o, l);
		total(f, g->total_ns);
		share(f, g->share);
		if (l->own) {
			if (g->nested)
				share(f, g->excl_share);
			else
				fprintf(f, " %6s", "");
		}
		fprintf(f, " %9zu %5zu", g->count, g->dropped);
		num(f, 9, g->st.median);
		fprintf(f, " %6.4f", g->st.cv);
		num(f, 9, g->st.p99);
		num(f, 9, g->st.max);
		fputc('\n', f);
	}
	fprintf(f, "  (total: the time of all its calls; share: of the time "
		"of the threads it ran on;%s\n   cut: samples the OS-noise "
		"filter left out, in the total with their time)\n",
		l->own ? "\n   own: its share without the regions nested in "
		"it;" : "");
	sampled(f, ds, res, o, l);
}

/* ---- the one-line table --------------------------------------------------- */

/* A duration in 9 columns for the short table: "431 ns". */
static void typical(FILE *f, double ns)
{
	char b[32];

	sbt_fmt_ns(b, sizeof b, ns);
	fprintf(f, " %9s", isfinite(ns) ? b : "-");
}

/* One line a group: name, total, share, typical time, class, size. */
static void short_table(FILE *f, const struct sbt_dataset *ds,
			const struct sbt_result *res,
			const struct sbt_report_opts *o, const struct layout *l)
{
	int pre = l->short_name + (l->key_w ? l->key_w + 1 : 0);
	char size[256];

	fprintf(f, "\n%-*s", l->short_name, "region");
	if (l->key_w)
		fprintf(f, " %*s", l->key_w, sbt_by_name(o));
	fprintf(f, " %9s %6s %9s  %-10s  %s\n", "total", "share", "typical",
		"class", "size");
	for (size_t i = 0; i < res->ngroups; i++) {
		const struct sbt_group *g = &res->g[i];
		int cl = g->cls;
		struct sbt_strbuf sb = { size, sizeof size, 0 };
		sbt_words_size(&sb, g, cl);
		name_w_cols(f, ds, g, o, l, l->short_name);
		total(f, g->total_ns);
		share(f, g->share);
		typical(f, g->st.median);
		fprintf(f, "  %-10s  ", sbt_class_word(cl));
		int room = l->cols - pre - SHORT_COLS;
		if ((int)strlen(size) > room && room > 1)
			fprintf(f, "%.*s~\n", room - 1, size);
		else
			fprintf(f, "%s\n", size);
	}
}

/* ---- the run's context ----------------------------------------------------- */

/* Where the kernel's record shows the threads preempted in a tenth of
 * their samples or more (a busy loop beside them: half), that is the
 * first thing to know of the run's times: another task had their cpus. */
#define SBT_TEXT_PREEMPTED 0.10
static void preempted_line(FILE *f, const struct sbt_result *res,
			   const struct layout *l, int *lines)
{
	size_t cov = 0, pre = 0;
	char line[512];

	for (size_t i = 0; i < res->ngroups; i++)
		cov += res->g[i].os.covered, pre += res->g[i].os.preempted;
	if (!cov || !((double)pre >= SBT_TEXT_PREEMPTED * (double)cov))
		return;
	snprintf(line, sizeof line, "OS: %.0f %% of %zu samples preempted "
		 "(the kernel's record): another task had their cpus, and "
		 "that time is the OS's", 100.0 * (double)pre / (double)cov,
		 cov);
	if (!(*lines)++)
		fputc('\n', f);
	wrap(f, line, 0, 2, l->cols);
}

/* At most four lines: the processor's shifts, what was left out when
 * that is much, the machine's events, the OS's preemption; each with
 * what to do. */
static void context(FILE *f, const struct sbt_result *res,
		    const struct layout *l)
{
	const struct sbt_speed *sp = &res->speed;
	struct sbt_leftout all = { 0 }, lo;
	char line[1024];
	int lines = 0;

	for (size_t i = 0; i < res->ngroups; i++) {
		sbt_group_leftout(&res->g[i], &lo);
		all.n += lo.n;
		all.total += lo.total;
		for (int w = 0; w < SBT_LEFT__N; w++)
			all.by[w] += lo.by[w];
	}
	if (!(sp->nsh + sp->ncsh) && sp->nosh) {
		const struct sbt_speed_shift *h = &sp->osh[0];
		for (size_t k = 1; k < sp->nosh; k++)
			if (sp->osh[k].os_share > h->os_share)
				h = &sp->osh[k];
		struct sbt_strbuf b = { line, sizeof line, 0 };
		sbt_put(&b, "processor: no shift of its own; its probes slowed "
			"where the OS shared the cpu with another task (%.0f "
			"%% of the samples there preempted): the OS's",
			100 * h->os_share);
		if (!lines++)
			fputc('\n', f);
		wrap(f, line, 0, 2, l->cols);
	}
	if (sp->nsh + sp->ncsh) {
		const struct sbt_speed_shift *h = sp->nsh ? &sp->sh[0] :
						  &sp->csh[0];
		for (size_t k = 0; k < sp->nsh + sp->ncsh; k++) {
			const struct sbt_speed_shift *x = k < sp->nsh ?
				&sp->sh[k] : &sp->csh[k - sp->nsh];
			if (x->samples > h->samples)
				h = x;
		}
		size_t nsh = sp->nsh + sp->ncsh;
		double t0 = isfinite(h->t0_ns) && h->t0_ns > 0 ? h->t0_ns : 0;
		double t1 = isfinite(h->t1_ns) ? h->t1_ns : h->last_ns;
		struct sbt_strbuf b = { line, sizeof line, 0 };
		sbt_put(&b, "processor: ");
		if (nsh > 1)
			sbt_put(&b, "%zu shifts, largest ", nsh);
		if (h->cpu != SBT_CPU_UNKNOWN)
			sbt_put(&b, "cpu %u ", h->cpu);
		/* h->samples: of the largest; the left-out line has all */
		char m0[32], m1[32];
		sbt_fmt_ms(m0, sizeof m0, t0 / 1e6);
		sbt_fmt_ms(m1, sizeof m1, t1 / 1e6);
		sbt_put(&b, "%.0f %% %s %s-%s ms%s: %zu %s out; %s",
			100 * fabs(h->rel), h->rel > 0 ? "slower" : "faster",
			m0, m1, nsh > 1 ? "" : " (speed probes)",
			h->samples, sbt_plural(h->samples, "sample", "samples"),
			sbt_left_advice(SBT_LEFT_SPEED));
		if (sp->nosh)
			sbt_put(&b, "; %zu more where the OS shared the cpu: "
				"the OS's", sp->nosh);
		if (!lines++)
			fputc('\n', f);
		wrap(f, line, 0, 2, l->cols);
	}
	if (sbt_axes_context(line, sizeof line, res)) {
		if (!lines++)
			fputc('\n', f);
		wrap(f, line, 0, 2, l->cols);
	}
	if (all.n && (double)all.total >= SBT_CLASS_LARGE * (double)all.n) {
		struct sbt_strbuf b = { line, sizeof line, 0 };
		int big = 0;
		for (int w = 1; w < SBT_LEFT__N; w++)
			if (all.by[w] > all.by[big])
				big = w;
		sbt_put(&b, "left out: ");
		sbt_words_leftout(&b, &all, 1);
		/* the processor's line said what to do about its share */
		if (*sbt_left_advice(big) && !(big == SBT_LEFT_SPEED &&
					       sp->nsh + sp->ncsh))
			sbt_put(&b, " (%s: %s)", sbt_left_word(big),
				sbt_left_advice(big));
		if (!lines++)
			fputc('\n', f);
		wrap(f, line, 0, 2, l->cols);
	}
	if (res->nev) {
		size_t os = 0;
		for (size_t i = 0; i < res->nev; i++)
			os += (size_t)res->ev[i].os;
		if (os)
			snprintf(line, sizeof line, "machine: %zu %s shared "
				 "by regions at one instant, not the code's; "
				 "%zu of them the OS's (its threads "
				 "preempted: the kernel's record; -v lists "
				 "them)", res->nev, sbt_plural(res->nev,
				 "shift", "shifts"), os);
		else
			snprintf(line, sizeof line, "machine: %zu %s shared "
				 "by regions at one instant, not the code's "
				 "(-v lists them)", res->nev,
				 sbt_plural(res->nev, "shift", "shifts"));
		if (!lines++)
			fputc('\n', f);
		wrap(f, line, 0, 2, l->cols);
	}
	preempted_line(f, res, l, &lines);
}

/* The command for more: this one with -v (its options that write
 * files, quiet it or only set how many threads work left out: the
 * report is the same whatever -j). */
static void next(FILE *f, const struct sbt_report_in *in,
		 const struct layout *l)
{
	char line[1024];
	struct sbt_strbuf b = { line, sizeof line, 0 };
	const char *me = in->argc > 0 ? strrchr(in->argv[0], '/') : NULL;

	sbt_put(&b, "more: %s -v", me ? me + 1 : in->argc > 0 ?
		in->argv[0] : "sbt-analyze");
	for (int i = 1; i < in->argc; i++) {
		const char *a = in->argv[i];
		if (!strcmp(a, "-q") || !strcmp(a, "--quiet") ||
		    (!strncmp(a, "-j", 2) && a[2]) ||
		    !strncmp(a, "--jobs=", 7))
			continue;
		if (!strcmp(a, "--html") || !strcmp(a, "--trace") ||
		    !strcmp(a, "--dump") || !strcmp(a, "--format") ||
		    !strcmp(a, "-j") || !strcmp(a, "--jobs")) {
			i++;
			continue;
		}
		if (!strncmp(a, "--html=", 7) || !strncmp(a, "--trace=", 8) ||
		    !strncmp(a, "--dump=", 7) || !strncmp(a, "--format=", 9))
			continue;
		sbt_put(&b, " %s", a);
	}
	sbt_put(&b, " (each region's evidence), or --explain REGION");
	fputc('\n', f);
	wrap(f, line, 0, 6, l->cols);
}

/* ---- the evidence, per group ----------------------------------------------- */

/* "label" in 12 columns, then text wrapped under itself. */
static void item(FILE *f, const struct layout *l, const char *label,
		 const char *text)
{
	fprintf(f, "  %-11s ", label);
	wrap(f, text, 14, 14, l->cols);
}

static void evidence(FILE *f, const struct sbt_dataset *ds,
		     const struct sbt_report_opts *o, const struct layout *l,
		     const struct sbt_group *g)
{
	struct sbt_change ch[SBT_CHANGES_MAX];
	struct sbt_leftout lo;
	char line[2048], who[300], t[32], a[32];
	struct sbt_strbuf b;
	int cl = g->cls, n;

	who[0] = 0;
	if (l->key_w)
		sbt_group_key(ds, g, o, who, sizeof who);
	fprintf(f, "\n%s%s%s%s: ", ds->regions[g->region].name,
		who[0] ? " [" : "", who, who[0] ? "]" : "");
	b = (struct sbt_strbuf){ line, sizeof line, 0 };
	sbt_fmt_ns(a, sizeof a, g->st.median);
	if (isfinite(g->total_ns)) {
		sbt_fmt_ns(t, sizeof t, g->total_ns);
		sbt_put(&b, "%s in all", t);
		/* the total is every call's; the verdict judged the kept */
		if (g->kept < g->count && isfinite(g->kept_ns)) {
			sbt_fmt_ns(t, sizeof t, g->kept_ns);
			sbt_put(&b, " (the OS filter kept %zu samples: %s)", g->kept,
				t);
		}
		if (isfinite(g->share))
			sbt_put(&b, ", %.1f %% of its threads' time", 100 *
				g->share);
		if (g->nested && isfinite(g->excl_share))
			sbt_put(&b, " (own %.1f %%)", 100 * g->excl_share);
		sbt_put(&b, "; ");
	}
	if (isfinite(g->st.median))
		sbt_put(&b, "%zu %s, typical (median kept) %s; %s: ", g->count,
			sbt_plural(g->count, "sample", "samples"), a,
			sbt_class_word(cl));
	else            /* no typical time without samples */
		sbt_put(&b, "%zu %s, none kept: no typical time; %s: ",
			g->count, sbt_plural(g->count, "sample", "samples"),
			sbt_class_word(cl));
	sbt_words_size(&b, g, cl);
	wrap(f, line, (int)strlen(ds->regions[g->region].name) + 2 +
	     (who[0] ? (int)strlen(who) + 3 : 0), 2, l->cols);

	/* findings without a time first, then the changes in time order */
	snprintf(who, sizeof who, "this %s", l->key_w ?
		 sbt_by_name(o) : "group");
	if (o->by == SBT_BY_THREAD && g->omp_thread >= 0)
		snprintf(who, sizeof who, "OpenMP thread %d", g->omp_thread);
	for (int k = 0; k < g->nfind; k++) {
		if (g->find[k].kind == SBT_FIND_STEP)
			continue;
		b = (struct sbt_strbuf){ line, sizeof line, 0 };
		sbt_say_finding(&b, g, &g->find[k], SBT_LONG, who);
		item(f, l, g->find[k].minor ? "minor" : "throughout", line);
	}
	n = sbt_group_changes(g, ch);
	for (int k = 0; k < n; k++) {
		char when[32];
		b = (struct sbt_strbuf){ line, sizeof line, 0 };
		sbt_words_change(&b, g, &ch[k]);
		if (ch[k].kind == SBT_CH_TRANSIENTS)
			snprintf(when, sizeof when, "transients");
		else if (g->phases.untimed)
			snprintf(when, sizeof when, "#%.0f", ch[k].t_ns);
		else
			snprintf(when, sizeof when, "%.2f ms", ch[k].t_ns / 1e6);
		item(f, l, when, line);
	}
	if (!g->nfind && !n)
		item(f, l, "findings", cl == SBT_CL_FEW ? "too few samples "
		     "to judge" : "none of its own");
	if (g->decomp.wild) {
		/* what the spread's shares above leave out (decomp.c) */
		b = (struct sbt_strbuf){ line, sizeof line, 0 };
		/* by --by, the decomposition is its region's, all groups */
		sbt_put(&b, "%zu of %s%zu calls far out of what every "
			"component left (beyond 5 robust sd): not in the "
			"shares of its spread", g->decomp.wild, l->key_w ?
			"its region's " : "", g->decomp.n);
		item(f, l, "wild", line);
	}

	sbt_group_leftout(g, &lo);
	b = (struct sbt_strbuf){ line, sizeof line, 0 };
	sbt_words_leftout(&b, &lo, 0);
	item(f, l, "left out", line);
	b = (struct sbt_strbuf){ line, sizeof line, 0 };
	sbt_words_precision(&b, g);
	item(f, l, "precision", line);
	b = (struct sbt_strbuf){ line, sizeof line, 0 };
	line[0] = 0;
	sbt_words_os(&b, g);
	if (line[0])
		item(f, l, "OS", line);
}

/* The evidence of every group, or of --explain's region alone. */
static void evidences(FILE *f, const struct sbt_dataset *ds,
		      const struct sbt_result *res,
		      const struct sbt_report_opts *o, const struct layout *l)
{
	int any = 0;

	for (size_t i = 0; i < res->ngroups; i++) {
		const struct sbt_group *g = &res->g[i];
		if (o->explain && strcmp(o->explain,
					 ds->regions[g->region].name))
			continue;
		evidence(f, ds, o, l, g);
		any = 1;
	}
	if (o->explain && !any)
		fprintf(f, "\nno region named '%s'\n", o->explain);
}

/* What the symbolizer noted of the modules (a binary rebuilt after the
 * run: names and lines may be wrong). */
static void notes(FILE *f, const struct sbt_report_opts *o,
		  const struct layout *l)
{
	for (size_t i = 0; o->cs && i < o->cs->nnotes; i++) {
		fputs("  note: ", f);
		wrap(f, o->cs->notes[i], 8, 8, l->cols);
	}
}

static void callsites(FILE *f, const struct sbt_dataset *ds,
		      const struct sbt_result *res,
		      const struct sbt_report_opts *o, const struct layout *l)
{
	char line[1200];
	int any = 0;

	for (size_t i = 0; o->cs && i < res->ngroups; i++) {
		const struct sbt_group *g = &res->g[i];
		struct sbt_sitecount *sc;
		long n = sbt_group_sites(ds, res, g, o->cs, &sc);
		for (long k = 0; k < n; k++) {
			const struct sbt_callsite *c = &o->cs->c[sc[k].site];
			const char *m = strrchr(c->at.module, '/');
			if (!any++)
				fprintf(f, "\ncall sites (samples; calling "
					"context innermost first):\n");
			fputs("  ", f);
			name_cols(f, ds, g, o, l);
			snprintf(line, sizeof line, " %10llu  %s [%s, %s]",
				 (unsigned long long)sc[k].count, c->label,
				 sbt_api_name(ds->regions[g->region].api),
				 m ? m + 1 : c->at.module[0] ? c->at.module :
				 "?");
			fprintf(f, "%.*s\n", l->cols - 2 - l->name_w -
				(l->key_w ? l->key_w + 1 : 0), line);
			for (int s = 1; s < c->nstack && s <= STACK_LINES; s++) {
				const struct sbt_symframe *fr = &c->stack[s];
				const char *b = strrchr(fr->file, '/');
				if (s == STACK_LINES && c->nstack > s + 1) {
					fprintf(f, "%8s... %d more\n", "",
						c->nstack - s);
					break;
				}
				if (fr->file[0])
					snprintf(line, sizeof line, "%s (%s:%d)",
						 fr->function, b ? b + 1 :
						 fr->file, fr->line);
				else
					snprintf(line, sizeof line, "%s",
						 fr->function);
				fprintf(f, "%8s<- %.*s\n", "", l->cols - 11, line);
			}
		}
		free(sc);
	}
	notes(f, o, l);
}

static int utf8_locale(void)
{
	const char *cs = nl_langinfo(CODESET);
	return cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
}

static void sparks(FILE *f, const struct sbt_dataset *ds,
		   const struct sbt_result *res,
		   const struct sbt_report_opts *o, const struct layout *l)
{
	size_t maxn = 0;
	char line[SPARK_W * 3 + 1], a[32], b[32];

	for (size_t i = 0; i < res->ngroups; i++)
		if (res->g[i].n > maxn)
			maxn = res->g[i].n;
	double *v = malloc((maxn ? maxn : 1) * sizeof *v);
	if (!v)
		return;
	fprintf(f, "\ndistributions (kept samples, min to max):\n");
	for (size_t i = 0; i < res->ngroups; i++) {
		const struct sbt_group *g = &res->g[i];
		size_t k = sbt_group_kept(ds, res, g, o, v);
		sbt_spark(v, k, g->st.min, g->st.max, SPARK_W, utf8_locale(),
			  line, sizeof line);
		sbt_fmt_ns(a, sizeof a, g->st.min);
		sbt_fmt_ns(b, sizeof b, g->st.max);
		fputs("  ", f);
		name_cols(f, ds, g, o, l);
		fprintf(f, " %9s |%s| %s\n", a, line, b);
	}
	free(v);
}

/* "at 20.9 ms, all 4 regions on cpu 1 slowed 3 % (...): the machine, not
 * the code" - shifts shared by several regions at one instant. */
static void machine(FILE *f, const struct sbt_dataset *ds,
		    const struct sbt_result *res)
{
	for (size_t i = 0; i < res->nev; i++) {
		const struct sbt_machine_event *e = &res->ev[i];
		if (i == 0)
			fprintf(f, "\nmachine events (shifts shared by several "
				"regions at one instant):\n");
		if (i == 20) {
			fprintf(f, "  ... %zu more\n", res->nev - i);
			break;
		}
		char line[1024];
		struct sbt_strbuf o = { line, sizeof line, 0 };
		sbt_say_machine_event(&o, ds, res, i);
		fputs("  ", f);
		if (ds->nsources > 1)
			fprintf(f, "%s: ", ds->sources[e->source].path);
		fprintf(f, "%s\n", line);
	}
}

static int write_text(FILE *f, const struct sbt_report_in *in)
{
	const struct sbt_dataset *ds = in->ds;
	const struct sbt_report_opts *o = in->o;
	const struct sbt_result *res0 = in->res, *res = res0;
	struct sbt_result sorted;

	/* out of memory: the analysis's order is still a report */
	if (sbt_result_sorted(ds, res0, o, &sorted, NULL) == 0)
		res = &sorted;
	struct layout l = layout(ds, res, o);

	text_sources(f, ds, l.cols);
	if (o->explain) {
		evidences(f, ds, res, o, &l);
	} else if (o->verbose) {
		sbt_speed_text(f, ds, res); /* the processor's, before the code */
		sbt_axes_text(f, ds, res);
		table(f, ds, res, o, &l);
		if (o->spark)
			sparks(f, ds, res, o, &l);
		machine(f, ds, res);
		sbt_cnt_text(f, ds, res, o);
		evidences(f, ds, res, o, &l);
		callsites(f, ds, res, o, &l);
	} else {
		short_table(f, ds, res, o, &l);
		sampled(f, ds, res, o, &l);
		notes(f, o, &l);
		if (o->spark)
			sparks(f, ds, res, o, &l);
		sbt_cnt_text(f, ds, res, o);
		context(f, res, &l);
		next(f, in, &l);
	}
	if (res == &sorted)
		free(sorted.g);
	return ferror(f) ? -1 : 0;
}

const struct sbt_report_format sbt_format_text = {
	.name = "text", .write = write_text, .compare = sbt_compare_text,
};
