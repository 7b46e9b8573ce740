/*
 * report_text.c - the analysis for people, in a terminal of 100 columns:
 * the inputs, one table row per group, the verdicts (word-wrapped), the
 * call sites with their calling context, and with --spark a sparkline of
 * each group's distribution.
 */
#include "totals.h"
#include "report_compare.h"
#include "report_notes.h"
#include "report_util.h"
#include "verdict.h"
#include "report_counters.h"
#include "report_speed.h"
#include "spark.h"
#include "stats.h"
#include "sbtlog.h"

#include <langinfo.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define COLS        100        /* the terminal we fit                    */
#define STACK_LINES 6          /* callers shown per site (JSON has all)  */
#define SPARK_W     48

/* Lost kernel events, and what to set: the recorder drains its rings
 * at marker calls, so a loss means one marker-free stretch (a long
 * region) outran the ring; four times the pages holds four times it. */
static void text_sources(FILE *f, const struct sbt_dataset *ds)
{
	for (size_t i = 0; i < ds->nsources; i++) {
		const struct sbt_source *s = &ds->sources[i];
		if (s->is_csv) {
			fprintf(f, "# %s: CSV samples\n", s->path);
			continue;
		}
		fprintf(f, "# %s: %s pid %d", s->path, s->exe, s->pid);
		if (s->rank >= 0)
			fprintf(f, " rank %d", s->rank);
		fprintf(f, " on %s, %u thread%s\n", s->host, s->nthreads,
			s->nthreads == 1 ? "" : "s");
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
	else
		snprintf(b, sizeof b, w >= 9 ? "%.3g" : "%.2g", ns);
	fprintf(f, " %*s", w, b);
}

/* Print s from column `col` on, breaking at spaces before COLS; later
 * lines start at column `indent`. */
static void wrap(FILE *f, const char *s, int col, int indent)
{
	while (*s) {
		int room = COLS - col, n = (int)strlen(s);
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

struct layout { int name_w, key_w, own; };

/* Columns of numbers: total share [own] count cut median CV p99 max
 * (min, std and the rest: CSV and JSON) */
#define NUM_COLS(own) (70 + ((own) ? 7 : 0))

static struct layout layout(const struct sbt_dataset *ds,
			    const struct sbt_result *res,
			    const struct sbt_report_opts *o)
{
	struct layout l = { 6, 0, 0 };
	char key[300];

	for (size_t i = 0; i < res->ngroups; i++) {
		int n = (int)strlen(ds->regions[res->g[i].region].name);
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
	/* the numbers first; the names get what is left */
	int room = COLS - 1 - NUM_COLS(l.own) - (l.key_w ? l.key_w + 1 : 0);
	if (l.name_w > room)
		l.name_w = room;
	return l;
}

/* Name (and key) of g in the layout's columns; longer names end in '~'. */
static void name_cols(FILE *f, const struct sbt_dataset *ds,
		      const struct sbt_group *g, const struct sbt_report_opts *o,
		      const struct layout *l)
{
	const char *name = ds->regions[g->region].name;
	char key[300];

	if ((int)strlen(name) > l->name_w)
		fprintf(f, "%.*s~", l->name_w - 1, name);
	else
		fprintf(f, "%-*s", l->name_w, name);
	if (l->key_w) {
		sbt_group_key(ds, g, o, key, sizeof key);
		if ((int)strlen(key) > l->key_w)
			fprintf(f, " %.*s~", l->key_w - 1, key);
		else
			fprintf(f, " %*s", l->key_w, key);
	}
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
		fprintf(f, " %zu of %llu calls (%.2f %%), total %.6g +- %.2g ms"
			"\n", g->count, (unsigned long long)g->calls,
			100.0 * (double)g->count / (double)g->calls,
			total / 1e6, se / 1e6);
	}
}

/* A total time in 9 columns, in the unit that suits it. */
static void total(FILE *f, double ns)
{
	char b[32];

	if (!isfinite(ns))
		snprintf(b, sizeof b, "-");
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
		"filter left out, in the total at the median)\n",
		l->own ? "\n   own: its share without the regions nested in "
		"it;" : "");
	sampled(f, ds, res, o, l);
}

static void verdicts(FILE *f, const struct sbt_dataset *ds,
		     const struct sbt_result *res,
		     const struct sbt_report_opts *o, const struct layout *l)
{
	char buf[sizeof res->g->verdict + 256];  /* + metric and OS notes */

	fprintf(f, "\nverdicts (findings first; t_diff: the smallest difference "
		"one sample tells apart,\n  t_min: the shortest region one "
		"sample times to 1 %%):\n");
	for (size_t i = 0; i < res->ngroups; i++) {
		const struct sbt_group *g = &res->g[i];
		fputs("  ", f);
		name_cols(f, ds, g, o, l);
		int n = snprintf(buf, sizeof buf, "%s [%s]", g->verdict,
				 g->score.metric_source);
		if (n > 0 && (size_t)n < sizeof buf &&
		    (g->os.preempted || g->os.faults))
			snprintf(buf + n, sizeof buf - (size_t)n,
				 " OS: %zu preempted, %zu faults",
				 g->os.preempted, g->os.faults);
		fputc(' ', f);
		wrap(f, buf, 3 + l->name_w + (l->key_w ? l->key_w + 1 : 0),
		     6);
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
			fprintf(f, "%.*s\n", COLS - 2 - l->name_w -
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
				fprintf(f, "%8s<- %.*s\n", "", COLS - 11, line);
			}
		}
		free(sc);
	}
	for (size_t i = 0; o->cs && i < o->cs->nnotes; i++) {
		fputs("  note: ", f);
		wrap(f, o->cs->notes[i], 8, 8);
	}
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

	text_sources(f, ds);
	sbt_speed_text(f, ds, res);     /* the processor's, before the code */
	table(f, ds, res, o, &l);
	if (o->spark)
		sparks(f, ds, res, o, &l);
	machine(f, ds, res);
	sbt_cnt_text(f, ds, res, o);
	verdicts(f, ds, res, o, &l);
	callsites(f, ds, res, o, &l);
	if (res == &sorted)
		free(sorted.g);
	return ferror(f) ? -1 : 0;
}

const struct sbt_report_format sbt_format_text = {
	.name = "text", .write = write_text, .compare = sbt_compare_text,
};
