/*
 * report_html.c - the HTML report: inputs and their warnings, the
 * findings in words, a summary of every region (totals first), then per
 * region its findings, four plots (each with its legend) and its call
 * sites.
 *
 * The page is one file with no outside reference: SVG and CSS inline,
 * system fonts.  Plots are drawn from figures.c's reductions, so their
 * size does not grow with the number of samples.  One small script
 * checks, once the page is laid out, that every plot was drawn, and
 * records the count on <body data-rendered> (says so on the page when
 * one was not).  Printing puts each region on its own page.
 *
 * A per_region format (report.h): in->res is the analysis per region
 * (its marks of each sample), in->boxes the groups compared and
 * in->o how they are grouped, call sites and cost; in->argv the command
 * for the header.
 */
#include "figures.h"
#include "report_compare.h"
#include "report_speed.h"
#include "report_counters.h"
#include "plot.h"
#include "report_notes.h"
#include "report_util.h"
#include "clause.h"
#include "say.h"
#include "words.h"
#include "sbtlog.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SBT_HTML_PLOTS   4      /* SVG plots per detailed region        */
#define SBT_HTML_REGIONS 100    /* regions drawn in detail, at most      */

static const char css[] =
"body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;"
"margin:0 auto;max-width:1200px;padding:0 16px;color:#222}"
"h1{font-size:22px;margin:16px 0 4px}h2{font-size:18px;margin:24px 0 6px;"
"border-bottom:1px solid #ccc}h3{font-size:15px;margin:12px 0 4px}"
"table{border-collapse:collapse;font-size:13px;margin:4px 0}"
"td,th{padding:2px 8px;text-align:left;vertical-align:top;"
"border-bottom:1px solid #eee}th{background:#f4f4f4}"
"td.n{text-align:right;font-variant-numeric:tabular-nums}"
".cmd,code{font-family:ui-monospace,monospace;font-size:12px}"
".cmd{color:#555;word-break:break-all}.warn{color:#b00}"
".verdict{background:#f7f7fb;border-left:3px solid #66c;padding:4px 8px}"
".grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(440px,1fr));"
"gap:8px}svg.plot{width:100%;height:auto;background:#fff}"
"svg text{font:11px system-ui,sans-serif;fill:#333}"
"svg .pt{font-size:12px;font-weight:600}svg .tx,svg .xl{text-anchor:middle}"
"svg .ty{text-anchor:end}svg .yl{text-anchor:middle}"
"svg .fr{fill:none;stroke:#999}svg .gr{stroke:#eee}"
"svg .kept{fill:#4878b0;stroke:none}svg .kl{fill:none;stroke:#4878b0;"
"stroke-width:1.5}svg .al{fill:none;stroke:#888;stroke-width:1.5;"
"stroke-dasharray:4 2}svg .dr{stroke:#d62728;fill:#d62728}"
"svg .mode{stroke:#2a9d4a;stroke-width:1.5}svg .ml{fill:#2a9d4a}"
"svg .td{stroke:#8a4fc0;stroke-width:2;fill:none}svg .tdl{fill:#8a4fc0}"
"svg .bmm{stroke:#c5d5ea}svg .bq{stroke:#7fa3cf}svg .med{fill:none;"
"stroke:#1d3f6e;stroke-width:1.2}svg .ph{stroke:#e07b00;stroke-width:1.5;"
"stroke-dasharray:5 3}svg .lv{stroke:#e07b00;stroke-width:2}"
"svg .tr{fill:#e07b00;opacity:.12}svg .bx{fill:#c5d5ea;stroke:#4878b0}"
"svg .bx.fl{fill:#f4b5b5;stroke:#d62728}svg .wh{stroke:#4878b0}"
"svg .fl text,svg text.fl{fill:#d62728}svg .bm{stroke:#1d3f6e;"
"stroke-width:2}"
"ol.stack{margin:2px 0 2px 18px;padding:0;font-size:12px}"
"figure{margin:0}figcaption{margin:0 0 6px 8px}"
"ul.findings{margin:4px 0;padding-left:20px}ul.findings li{margin:2px 0}"
"ul.findings li.slow{color:#b00}ul.findings.minor{font-size:12px;"
"color:#555}ul.notes{margin:4px 0;padding-left:20px;font-size:13px}"
".sw{display:inline-block;width:14px;height:9px;margin:0 3px 0 10px;"
"vertical-align:middle;border-radius:1px}.sw.kept,.sw.kl{background:"
"#4878b0}.sw.al{background:#888}.sw.dr{background:#d62728}.sw.mode{"
"background:#2a9d4a}.sw.td{background:#8a4fc0}.sw.bmm{background:#c5d5ea}"
".sw.bq{background:#7fa3cf}.sw.med{background:#1d3f6e;height:3px}"
".sw.lv,.sw.ph{background:#e07b00;height:3px}.sw.tr{background:#e07b00;"
"opacity:.25}.sw.bx{background:#c5d5ea;border:1px solid #4878b0}"
".sw.bm{background:#1d3f6e;width:3px}.sw.wh{background:#4878b0;"
"height:2px}.sw.flb{background:#f4b5b5;border:1px solid #d62728}"
"svg .ln{fill:#7fa3cf;opacity:.8}svg .ln.fl{fill:#f4b5b5;opacity:1}"
"svg text.dl{fill:#d62728}svg text.ty.fl{fill:#d62728}"
".legend{font-size:12px;color:#555}"
"@media print{body{max-width:none}section.region{break-before:page}"
".grid{grid-template-columns:1fr 1fr}}";

/* Checks the plots were laid out; marks <body> for people and tests. */
static const char script[] =
"(function(){var n=0,bad=[];"
"document.querySelectorAll('svg.plot').forEach(function(s){"
"var r=s.getBoundingClientRect();"
"if(r.width>0&&r.height>0)n++;else bad.push(s.querySelector('title')"
".textContent)});document.body.setAttribute('data-rendered',n);"
"if(bad.length){var p=document.createElement('p');p.className='warn';"
"p.textContent='plots not drawn: '+bad.join(', ');"
"document.body.insertBefore(p,document.body.firstChild)}})();";

static void fmt_ns(char *b, size_t n, double v)
{
	sbt_plot_fmt(SBT_TICK_NS, v, b, n);
	if (!isfinite(v))
		snprintf(b, n, "-");
}

/* ---- header: inputs and warnings --------------------------------------- */

/* Source i's warnings, as the text report gives them (one <li> each). */
static void source_notes(FILE *f, const struct sbt_dataset *ds, size_t i)
{
	const struct sbt_source *s = &ds->sources[i];
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return;
	sbt_source_notes(m, ds, i, "");
	if (s->truncated && !s->is_csv)
		fputs("not closed cleanly: the process was killed, crashed or "
		      "still ran\n", m);
	if (fclose(m) != 0) {
		free(buf);
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		/* the counters' line is information, not a warning */
		int info = !strncmp(line, "events:", 7) &&
			   !strstr(line, "unavailable");
		fprintf(f, "<li%s>", info ? "" : " class=\"warn\"");
		if (ds->nsources > 1) {
			fputs("<code>", f);
			sbt_html_str(f, s->path);
			fputs("</code>: ", f);
		}
		sbt_html_str(f, line);
		fputs("</li>\n", f);
	}
	free(buf);
}

static void inputs(FILE *f, const struct sbt_report_in *in)
{
	const struct sbt_dataset *ds = in->ds;
	char a[32], b[32], c[32];

	fputs("<section id=\"inputs\"><h2>Inputs</h2><table><tr><th>log</th>"
	      "<th>program</th><th>host</th><th>pid / rank</th><th>cpu</th>"
	      "<th>clock</th><th>quantum</th><th>t<sub>e,std</sub> "
	      "(p50, p99.9)</th><th>threads</th><th title=\"samples the "
	      "recorder could not write: no space left for the log\">lost "
	      "by the recorder (log full)</th></tr>\n", f);
	for (size_t i = 0; i < ds->nsources; i++) {
		const struct sbt_source *s = &ds->sources[i];
		fputs("<tr><td><code>", f);
		sbt_html_str(f, s->path);
		fputs("</code></td><td><code>", f);
		sbt_html_str(f, s->is_csv ? "(CSV samples)" : s->exe);
		fputs("</code></td><td>", f);
		sbt_html_str(f, s->host);
		if (s->rank >= 0)
			fprintf(f, "</td><td class=\"n\">%d / rank %d</td><td>",
				s->pid, s->rank);
		else
			fprintf(f, "</td><td class=\"n\">%d (no rank)</td><td>",
				s->pid);
		sbt_html_str(f, s->cpu_model);
		fmt_ns(a, sizeof a, s->te_ns);
		fmt_ns(b, sizeof b, s->te_p50_ns);
		fmt_ns(c, sizeof c, s->te_p999_ns);
		fprintf(f, "</td><td>%.4f GHz wall%s</td><td class=\"n\">%.1f "
			"ns</td><td class=\"n\">%s (%s, %s)</td><td class="
			"\"n\">%u</td><td class=\"n\">%llu</td></tr>\n",
			s->tick_ns > 0 ? 1 / s->tick_ns : 0,
			s->has_cycles ? ", cycles" : "", s->quantum_ns, a, b, c,
			s->nthreads,
			(unsigned long long)s->counters[SBT_CNT_DROPPED]);
	}
	fputs("</table>\n<ul class=\"notes\">\n", f);
	for (size_t i = 0; i < ds->nsources; i++)
		source_notes(f, ds, i);
	for (size_t i = 0; in->o->cs && i < in->o->cs->nnotes; i++) {
		fputs("<li class=\"warn\">call sites: ", f);
		sbt_html_str(f, in->o->cs->notes[i]);
		fputs("</li>\n", f);
	}
	fputs("</ul></section>\n", f);
}

/* Shifts shared by several regions at one instant: the machine's. */
static void machine(FILE *f, const struct sbt_report_in *in)
{
	const struct sbt_result *res = in->res;

	if (res->nev == 0)
		return;
	fputs("<section id=\"machine\"><h2>Machine events</h2><p>Shifts "
	      "found at one instant, the same way, in several regions: the "
	      "machine, not the code. Each region's verdict leaves out the "
	      "samples taken while they lasted.</p><table><tr><th>log</th>"
	      "<th>at</th><th>cpu</th><th>change</th><th>regions</th></tr>\n",
	      f);
	for (size_t i = 0; i < res->nev && i < 200; i++) {
		const struct sbt_machine_event *e = &res->ev[i];
		fputs("<tr><td>", f);
		sbt_html_str(f, in->ds->sources[e->source].path);
		char at[32];
		sbt_fmt_ms(at, sizeof at, e->t_ns / 1e6);
		fprintf(f, "</td><td class=\"n\">%s ms</td><td class=\"n\">",
			at);
		if (e->cpu != SBT_CPU_UNKNOWN)
			fprintf(f, "%u", e->cpu);
		fprintf(f, "</td><td class=\"n\">%+.1f %%</td><td>",
			100 * e->change);
		for (int r = 0; r < e->nregions && r < SBT_MACHINE_MAX_REGIONS;
		     r++) {
			fputs(r ? ", " : "", f);
			sbt_html_str(f, in->ds->regions[e->regions[r]].name);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table></section>\n", f);
}

/* Where t_min / t_diff came from, for people. */
static void metric_source(FILE *f, const struct sbt_score *s)
{
	char b[48];

	if (s->metric_source == SBT_SRC_INSITU)
		fprintf(f, "in-situ probes (%zu used, %zu screened out)",
			s->insitu.n, s->insitu.screened);
	else if (s->metric_source == SBT_SRC_PROFILE) {
		fputs("calibration profile, level ", f);
		sbt_html_str(f, s->metric_level ? s->metric_level : "?");
	} else if (s->metric_source == SBT_SRC_QUANTUM)
		fputs("clock quantum only (too few probes, no profile)", f);
	else
		sbt_html_str(f, sbt_metric_source_name(s, b, sizeof b));
}

/* The sentence of a group that differs from the others of its region,
 * the group named as people name it: "thread 3", "thread worker",
 * "OpenMP thread 2", "rank 5". */
static void group_finding(FILE *f, const struct sbt_report_in *in,
			  const struct sbt_box *b)
{
	char a[32], r[32], who[96], line[256];
	struct sbt_strbuf o = { line, sizeof line, 0 };

	fmt_ns(a, sizeof a, fabs(b->delta_ns));
	fmt_ns(r, sizeof r, b->resolution_ns);
	if (!strncmp(b->key, "omp ", 4))
		snprintf(who, sizeof who, "OpenMP thread %s", b->key + 4);
	else
		snprintf(who, sizeof who, "%s %s", sbt_by_name(in->o), b->key);
	sbt_say_group(&o, who, b->delta_rel, b->delta_ns, a, r);
	sbt_html_str(f, line);
}

/* The class word and its size, as the text's one-line table says. */
static void verdict_words(FILE *f, const struct sbt_group *g)
{
	char line[512];
	struct sbt_strbuf o = { line, sizeof line, 0 };
	int cl = g->cls;

	line[0] = 0;
	sbt_words_size(&o, g, cl);
	fprintf(f, "<b>%s</b> ", sbt_class_word(cl));
	sbt_html_str(f, line);
}

/* What was left out, the precision and the kernel's record, as -v. */
static void evidence_words(FILE *f, const struct sbt_group *g)
{
	static const char *const label[3] = { "left out", "precision", "OS" };
	struct sbt_leftout lo;
	char line[1024];

	sbt_group_leftout(g, &lo);
	for (int k = 0; k < 3; k++) {
		struct sbt_strbuf o = { line, sizeof line, 0 };
		line[0] = 0;
		if (k == 0)
			sbt_words_leftout(&o, &lo, 0);
		else if (k == 1)
			sbt_words_precision(&o, g);
		else
			sbt_words_os(&o, g);
		if (!line[0])
			continue;
		fprintf(f, "<br>%s: ", label[k]);
		sbt_html_str(f, line);
	}
}

/* One finding in the list, named by its region when `named`. */
static void finding_item(FILE *f, const struct sbt_report_in *in,
			 const struct sbt_group *g, int named, const char *line)
{
	fputs("<li>", f);
	if (named) {
		fputs("<b>", f);
		sbt_html_str(f, in->ds->regions[g->region].name);
		fputs("</b>: ", f);
	}
	sbt_html_str(f, line);
	fputs("</li>\n", f);
}

/* The findings of region group g, largest first: its own (steps with
 * their time, modes, spread) and its groups that differ (the boxes);
 * major ones, or with `minor` the minor ones.  How many were written. */
static int findings(FILE *f, const struct sbt_report_in *in,
		    const struct sbt_group *g, int minor, int named)
{
	const struct sbt_boxes *bx = in->boxes;
	int n = 0;

	char line[1024];
	struct sbt_change ch[SBT_CHANGES_MAX];
	int nch = sbt_group_changes(g, ch), steps = 0;

	/* findings without a time (words.c), then the steps as the text's
	 * -v says them: in time order, a step and its return one dip */
	for (int k = 0; k < g->nfind; k++) {
		if (g->find[k].minor != minor)
			continue;
		if (g->find[k].kind == SBT_FIND_STEP) {
			steps++;
			continue;
		}
		struct sbt_strbuf o = { line, sizeof line, 0 };
		line[0] = 0;
		sbt_say_finding(&o, g, &g->find[k], SBT_LONG,
				"this group");
		finding_item(f, in, g, named, line);
		n++;
	}
	for (int k = 0; steps && k < nch; k++) {
		int big = fabs(ch[k].to_ns - ch[k].from_ns) >=
			  SBT_MINOR_SHARE * fabs(ch[k].from_ns);
		if ((ch[k].kind != SBT_CH_STEP && ch[k].kind != SBT_CH_DIP) ||
		    big == minor)
			continue;
		struct sbt_strbuf o = { line, sizeof line, 0 };
		line[0] = 0;
		sbt_words_change(&o, g, &ch[k]);
		finding_item(f, in, g, named, line);
		n++;
	}
	for (size_t i = 0; bx && i < bx->n; i++) {
		const struct sbt_box *b = &bx->b[i];
		if (b->region != g->region || !b->flagged || b->minor != minor)
			continue;
		fprintf(f, "<li class=\"%s\">", b->delta_ns > 0 ? "slow" :
			"fast");
		if (named) {
			fputs("<b>", f);
			sbt_html_str(f, in->ds->regions[g->region].name);
			fputs("</b>: ", f);
		}
		group_finding(f, in, b);
		fputs("</li>\n", f);
		n++;
	}
	/* Processor shifts found by the speed probes (SBT_EV_SPEED) belong
	 * here, after the group findings: one <li> each, major or minor by
	 * the same 1 % rule, counted in n. */
	return n;
}

/* Shifts the machine made, as sentences (machine.c). */
static int machine_findings(FILE *f, const struct sbt_report_in *in)
{
	const struct sbt_result *res = in->res;
	size_t i;

	for (i = 0; i < res->nev && i < 20; i++) {
		const struct sbt_machine_event *e = &res->ev[i];
		char line[1024];
		struct sbt_strbuf o = { line, sizeof line, 0 };
		sbt_say_machine_event(&o, in->ds, res, i);
		fputs("<li>", f);
		if (in->ds->nsources > 1) {
			sbt_html_str(f, in->ds->sources[e->source].path);
			fputs(": ", f);
		}
		sbt_html_str(f, line);
		fputs("</li>\n", f);
	}
	return (int)i;
}

/* The page's summary in words: every major finding, then the minor. */
static void summary_findings(FILE *f, const struct sbt_report_in *in,
			     const struct sbt_result *res)
{
	int n = 0;

	fputs("<section id=\"findings\"><h2>Findings</h2><ul class=\"findings"
	      "\">\n", f);
	for (size_t i = 0; i < res->ngroups; i++)
		n += findings(f, in, &res->g[i], 0, 1);
	n += machine_findings(f, in);
	fputs("</ul>\n", f);
	if (!n)
		fputs("<p>No variation of 1 % or more of any region's time "
		      "beyond what the timer and the samples resolve.</p>\n",
		      f);
	fputs("<details><summary>Minor findings (resolved, but under 1 % "
	      "of the region's time)</summary><ul class=\"findings minor\">"
	      "\n", f);
	n = 0;
	for (size_t i = 0; i < res->ngroups; i++)
		n += findings(f, in, &res->g[i], 1, 1);
	if (!n)
		fputs("<li>none</li>\n", f);
	fputs("</ul></details></section>\n", f);
}

static void share_cell(FILE *f, double x)
{
	if (isfinite(x))
		fprintf(f, "<td class=\"n\">%.1f %%</td>", 100 * x);
	else
		fputs("<td class=\"n\">-</td>", f);
}

static void summary(FILE *f, const struct sbt_report_in *in,
		    const struct sbt_result *res, const char *detail,
		    const size_t *idx)
{
	const struct sbt_dataset *ds = in->ds;
	char a[32], b[32], c[32], d[32], t[32];
	int own = 0;

	for (size_t i = 0; i < res->ngroups; i++)
		own |= res->g[i].nested;
	fputs("<section id=\"summary\"><h2>Regions</h2><table><tr><th>region"
	      "</th><th title=\"the time of all its calls\">total</th><th "
	      "title=\"of the time of the threads it ran on\">share</th>", f);
	if (own)
		fputs("<th title=\"its share without the regions nested in it"
		      "\">own share</th>", f);
	fputs("<th>api</th><th>calls</th><th>samples</th><th title=\"samples"
	      " the OS-noise filter left out of the statistics\">cut by the "
	      "OS filter</th><th>median</th><th>p99</th><th>t<sub>min</sub>"
	      "</th><th>t<sub>diff</sub></th><th>t<sub>min</sub>, t<sub>diff"
	      "</sub> from</th><th>verdict</th></tr>\n", f);
	for (size_t i = 0; i < res->ngroups; i++) {
		const struct sbt_group *g = &res->g[i];
		fmt_ns(a, sizeof a, g->st.median);
		fmt_ns(b, sizeof b, g->st.p99);
		fmt_ns(c, sizeof c, g->score.t_min_ns);
		fmt_ns(d, sizeof d, g->score.t_diff_ns);
		sbt_plot_fmt(SBT_TICK_NS, g->total_ns, t, sizeof t);
		fputs("<tr><td>", f);
		if (detail[idx[i]])
			fprintf(f, "<a href=\"#r%zu\">", idx[i]);
		sbt_html_str(f, ds->regions[g->region].name);
		fprintf(f, "%s</td><td class=\"n\">%s</td>", detail[idx[i]] ?
			"</a>" : "", t);
		share_cell(f, g->share);
		if (own) {
			if (g->nested)
				share_cell(f, g->excl_share);
			else
				fputs("<td></td>", f);
		}
		fprintf(f, "<td>%s</td><td class=\"n\">%llu</td><td class="
			"\"n\">%zu</td><td class=\"n\">%zu</td><td class=\"n\">"
			"%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
			"<td class=\"n\">%s</td><td>",
			sbt_api_name(ds->regions[g->region].api),
			(unsigned long long)g->calls, g->count, g->dropped, a,
			b, c, d);
		metric_source(f, &g->score);
		fputs("</td><td>", f);
		verdict_words(f, g);
		fputs("</td></tr>\n", f);
	}
	fputs("</table></section>\n", f);
}

/* ---- the four plots ------------------------------------------------------ */

/* A legend under a plot: <figcaption> with swatches (see the css). */
static void caption(FILE *f, const char *html)
{
	fprintf(f, "<figcaption class=\"legend\">%s</figcaption></figure>\n",
		html);
}

/* The histogram's header strip (above the frame): the t_diff bar on the
 * first row, the modes' labels on the next two, so no label lies on a
 * bar. */
#define HIST_TD_Y   32
#define HIST_MODE_Y 45

static void hist_plot(FILE *f, const struct sbt_group *g,
		      const struct sbt_region_fig *fig)
{
	const struct sbt_hist *h = &fig->hist;
	struct sbt_plot p = { .xfmt = SBT_TICK_NS, .yfmt = SBT_TICK_COUNT,
			      .ylog = 1, .mt = 60 };
	char a[32], b[32];
	double pad = g->quantum_ns > 0 ? g->quantum_ns : 1;

	p.x0 = h->lo, p.x1 = h->lo + h->nbins * h->width;
	if (!(p.x1 > p.x0)) p.x0 -= pad, p.x1 += pad;
	p.y0 = 0.7, p.y1 = h->max > 0 ? h->max * 1.5 : 10;
	fputs("<figure>", f);
	sbt_plot_begin(&p, f, "hist", "Histogram of kept samples (log count)");
	sbt_plot_axes(&p, "duration (t_e,std removed)", "samples");
	fputs("<path class=\"kept\" d=\"", f);
	for (int i = 0; i < h->nbins; i++) {
		if (!h->count[i])
			continue;
		double x0 = sbt_plot_x(&p, h->lo + i * h->width);
		double x1 = sbt_plot_x(&p, h->lo + (i + 1) * h->width);
		double y = sbt_plot_y(&p, (double)h->count[i]);
		double yb = sbt_plot_y(&p, p.y0);
		if (x1 - x0 >= 4 && g->quantum_ns > 0 &&
		    h->width < g->quantum_ns * 1.5) {
			/* one tick of the clock per bar: show them apart */
			double in = (x1 - x0) * 0.15;
			x0 += in, x1 -= in;
		}
		if (x1 - x0 < 1) x1 = x0 + 1;       /* never invisible */
		fprintf(f, "M%.1f %.1fV%.1fH%.1fV%.1fZ", x0, yb, y, x1, yb);
	}
	fputs("\"/>\n", f);
	/* modes: a line down through the frame from a label in the strip */
	int right_edge = p.w - 4;
	for (int m = 0; m < g->score.nmodes; m++) {
		double x = sbt_plot_x(&p, g->score.modes[m].center_ns);
		int y = HIST_MODE_Y + 11 * (m % 2);
		fmt_ns(a, sizeof a, g->score.modes[m].center_ns);
		int right = x > p.ml + 0.6 * (p.w - p.ml - p.mr);
		fprintf(f, "<line class=\"mode\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f"
			"\" y2=\"%d\"/><text class=\"ml\"%s x=\"%.1f\" y=\"%d\">"
			"%s %.0f%%</text>\n", x, y - 8, x, p.h - p.mb,
			right ? " text-anchor=\"end\"" : "",
			right ? x - 3 : x + 3, y, a,
			100 * g->score.modes[m].share);
	}
	/* t_diff as a bar from the first mode (or the median) */
	double t0 = g->score.nmodes ? g->score.modes[0].center_ns
				    : g->st.median;
	if (isfinite(g->score.t_diff_ns) && isfinite(t0)) {
		double xa = sbt_plot_x(&p, t0);
		double xb = sbt_plot_x(&p, t0 + g->score.t_diff_ns);
		int y = HIST_TD_Y;
		if (xb < xa + 2)
			xb = xa + 2;
		fmt_ns(b, sizeof b, g->score.t_diff_ns);
		/* the label beside the bar, on the side with room */
		int left = xb + 90 > right_edge;
		fprintf(f, "<path class=\"td\" d=\"M%.1f %dv-6v12v-6H%.1fv-6v12"
			"\"/><text class=\"tdl\"%s x=\"%.1f\" y=\"%d\">t_diff %s"
			"</text>\n", xa, y, xb, left ? " text-anchor=\"end\"" :
			"", left ? xa - 4 : xb + 4, y + 4, b);
	}
	sbt_plot_end(&p);
	caption(f, "<span class=\"sw kept\"></span>kept samples "
		"<span class=\"sw mode\"></span>modes (centre, share) "
		"<span class=\"sw td\"></span>t<sub>diff</sub> from the first "
		"mode: the smallest difference one sample tells apart");
}

static void cdf_path(FILE *f, const struct sbt_plot *p, const struct sbt_cdf
		     *c, const uint64_t *a, const uint64_t *b, uint64_t n,
		     const char *cls)
{
	uint64_t cum = 0;
	double prev = -1;

	fprintf(f, "<path class=\"%s\" d=\"M%.1f %.1f", cls,
		sbt_plot_x(p, c->lo), sbt_plot_y(p, 0));
	for (int j = 0; j < SBT_FIG_COLS; j++) {
		cum += a[j] + (b ? b[j] : 0);
		double y = (double)cum / (double)n;
		if (y == prev)
			continue;
		/* the step happens inside column j: draw it at its left */
		fprintf(f, "H%.1fV%.1f", sbt_plot_x(p, sbt_cdf_edge(c, j)),
			sbt_plot_y(p, y));
		prev = y;
	}
	fprintf(f, "H%.1f\"/>\n", sbt_plot_x(p, c->hi));
}

/* The OS filter's cut samples beyond the kept range, in a strip of their
 * own right of the frame: a tick per column that holds any, on a log
 * scale over their range, which the two labels give. */
#define CDF_STRIP 104

static void cdf_cut_strip(FILE *f, const struct sbt_plot *p,
			  const struct sbt_cdf *c)
{
	double x0 = p->w - CDF_STRIP + 14, x1 = p->w - 8;
	double y0 = p->h - p->mb, y1 = p->mt;
	double w = (x1 - x0) / SBT_CUT_COLS;
	uint64_t mx = 1;
	char a[32], b[32];

	for (int j = 0; j < SBT_CUT_COLS; j++)
		if (c->cut[j] > mx)
			mx = c->cut[j];
	fprintf(f, "<rect class=\"fr\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		"height=\"%.1f\"/><text class=\"dl\" x=\"%.1f\" y=\"%.1f\">cut "
		"%llu</text>\n<path class=\"dr\" d=\"", x0, y1, x1 - x0, y0 - y1,
		x0 + 2, y1 + 12, (unsigned long long)c->ncut);
	for (int j = 0; j < SBT_CUT_COLS; j++)
		if (c->cut[j]) {
			/* height: log of the count, so one sample shows */
			double hgt = 8 + (y0 - y1 - 30) * log1p((double)c->cut[j])
				     / log1p((double)mx);
			fprintf(f, "M%.1f %.1fv%.1f", x0 + (j + 0.5) * w, y0,
				-hgt);
		}
	fmt_ns(a, sizeof a, c->clo);
	fmt_ns(b, sizeof b, c->chi);
	fprintf(f, "\"/>\n<text class=\"dl\" x=\"%.1f\" y=\"%.1f\">%s</text>"
		"<text class=\"dl\" text-anchor=\"end\" x=\"%.1f\" y=\"%.1f\">"
		"to %s</text>\n", x0, y0 + 13, a, x1, y0 + 26, b);
}

static void cdf_plot(FILE *f, const struct sbt_group *g,
		     const struct sbt_region_fig *fig)
{
	const struct sbt_cdf *c = &fig->cdf;
	struct sbt_plot p = { .xfmt = SBT_TICK_NS, .yfmt = SBT_TICK_FRAC,
			      .xlog = c->log, .y0 = 0, .y1 = 1,
			      .mr = c->ncut ? CDF_STRIP : 0 };
	char html[512];

	p.x0 = c->lo, p.x1 = c->hi;
	fputs("<figure>", f);
	sbt_plot_begin(&p, f, "cdf", c->log ? "CDF before and after the OS "
		       "filter (log scale)" : "CDF before and after the OS "
		       "filter");
	sbt_plot_axes(&p, "duration of the kept samples' range", "fraction "
		      "below");
	if (c->nkept + c->ndropped)
		cdf_path(f, &p, c, c->kept, c->dropped, c->nkept + c->ndropped,
			 "al");
	if (c->nkept)
		cdf_path(f, &p, c, c->kept, NULL, c->nkept, "kl");
	/* cut samples within the kept range (the paper's filter may cut
	 * there): a red tick per column that holds any */
	fputs("<path class=\"dr\" d=\"", f);
	for (int j = 0; j < SBT_FIG_COLS; j++)
		if (c->dropped[j])
			fprintf(f, "M%.1f %dv-8", sbt_plot_x(&p, 0.5 *
				(sbt_cdf_edge(c, j) + sbt_cdf_edge(c, j + 1))),
				p.h - p.mb);
	fputs("\"/>\n", f);
	if (c->ncut)
		cdf_cut_strip(f, &p, c);
	sbt_plot_end(&p);
	snprintf(html, sizeof html, "<span class=\"sw kl\"></span>kept by the "
		 "OS-noise filter (%zu) <span class=\"sw al\"></span>all "
		 "samples, before the filter (%zu) <span class=\"sw dr\">"
		 "</span>cut by the filter (%zu)%s", g->kept, g->count,
		 g->dropped, c->ncut ? ": those beyond the kept range in the "
		 "strip on the right, on a scale of their own" : "");
	caption(f, html);
}

/* Samples over time, the region's samples in one band. */
static void time_band(FILE *f, const struct sbt_plot *pp,
		      const struct sbt_group *g,
		      const struct sbt_region_fig *fig)
{
	const struct sbt_bands *bd = &fig->bands;
	const struct sbt_plot p = *pp;
	double cw = (double)(p.w - p.ml - p.mr) / SBT_FIG_COLS;
	int c;

	/* Column c covers times [t0 + c dt, t0 + (c+1) dt): draw it at its
	 * centre, as wide as it is. */
	double dt = (bd->t1 - bd->t0) / SBT_FIG_COLS;
#define CX(c) (bd->t1 > bd->t0 ? sbt_plot_x(&p, bd->t0 + ((c) + 0.5) * dt) \
		: (p.ml + p.w - p.mr) / 2.0)
	fprintf(f, "<path class=\"bmm\" stroke-width=\"%.2f\" d=\"", cw + 0.3);
	for (c = 0; c < SBT_FIG_COLS; c++)
		if (bd->col[c].n)
			fprintf(f, "M%.1f %.1fV%.1f", CX(c),
				sbt_plot_y(&p, bd->col[c].min),
				sbt_plot_y(&p, bd->col[c].max) - 0.5);
	fprintf(f, "\"/>\n<path class=\"bq\" stroke-width=\"%.2f\" d=\"",
		cw + 0.3);
	for (c = 0; c < SBT_FIG_COLS; c++)
		if (bd->col[c].n)
			fprintf(f, "M%.1f %.1fV%.1f", CX(c),
				sbt_plot_y(&p, bd->col[c].p10),
				sbt_plot_y(&p, bd->col[c].p90) - 0.5);
	fputs("\"/>\n<path class=\"med\" d=\"", f);
	for (int c0 = 1, c = 0; c < SBT_FIG_COLS; c++)
		if (bd->col[c].n) {
			fprintf(f, "%c%.1f %.1f", c0 ? 'M' : 'L', CX(c),
				sbt_plot_y(&p, bd->col[c].p50));
			c0 = 0;
		}
	/* dropped samples: a dot at their largest per column, on the top
	 * edge when off the scale */
	fputs("\"/>\n<path class=\"dr\" d=\"", f);
	for (c = 0; c < SBT_FIG_COLS; c++)
		if (bd->col[c].ndropped)
			fprintf(f, "M%.1f %.1fh1.5v1.5h-1.5Z", CX(c) - 0.75,
				sbt_plot_y(&p, bd->col[c].dmax) - 0.75);
	fputs("\"/>\n", f);
#undef CX
	/* levels */
	for (int k = 0; k < g->phases.nphases && g->phases.nphases > 1; k++) {
		const struct sbt_phase *ph = &g->phases.ph[k];
		if (ph->kind == SBT_PH_LEVEL)
			fprintf(f, "<line class=\"lv\" x1=\"%.1f\" y1=\"%.1f\" "
				"x2=\"%.1f\" y2=\"%.1f\"/>\n",
				sbt_plot_x(&p, ph->t_begin_ns),
				sbt_plot_y(&p, ph->level_ns),
				sbt_plot_x(&p, ph->t_end_ns),
				sbt_plot_y(&p, ph->level_ns));
	}
}

/* Marked in red: a group that differs from the others by 1 % or more of
 * its time; one that differs by less (a minor finding) is labelled with
 * its difference but drawn like the rest. */
static int loud(const struct sbt_box *b)
{
	return b->flagged && !b->minor;
}

/* A group's label at the left of its row: the key (shortened to fit the
 * margin) and, flagged, how far it is from the others. */
#define GROUP_KEY_MAX 14

static void group_label(FILE *f, const struct sbt_box *b, int x, double y)
{
	int n = (int)strlen(b->key);

	fprintf(f, "<text class=\"ty%s\" x=\"%d\" y=\"%.1f\">", loud(b) ?
		" fl" : "", x, y);
	if (n > GROUP_KEY_MAX) {
		char k[GROUP_KEY_MAX + 1];
		snprintf(k, sizeof k, "%.*s", GROUP_KEY_MAX - 1, b->key);
		sbt_html_str(f, k);
		fputs("~", f);
	} else {
		sbt_html_str(f, b->key);
	}
	if (b->flagged)
		fprintf(f, " %+.1f%%", 100 * b->delta_rel);
	fputs("<title>", f);
	sbt_html_str(f, b->key);
	fputs("</title></text>", f);
}

/* The region's groups with lanes (figures.c), in lane order. */
static size_t lanes_of(const struct sbt_report_in *in, uint32_t region,
		       const struct sbt_box **ln, size_t *ngroups)
{
	size_t n = 0;

	*ngroups = 0;
	for (size_t i = 0; in->boxes && i < in->boxes->n; i++) {
		const struct sbt_box *b = &in->boxes->b[i];
		if (b->region != region)
			continue;
		++*ngroups;
		if (b->lane && b->lane_rank < SBT_LANES)
			ln[b->lane_rank] = b, n++;
	}
	return n;
}

/* Samples over time, a lane per group: p10-p90 as a band, the median as
 * a line, dropped samples as dots, all lanes on one duration scale. */
#define LANE_ML 122

static void time_lanes(FILE *f, const struct sbt_plot *p,
		       const struct sbt_box *const *ln, size_t n, double lo,
		       double hi)
{
	double lh = (double)(p->h - p->mt - p->mb) / (double)n;

	for (size_t k = 0; k < n; k++) {
		const struct sbt_lane *L = ln[k]->lane;
		double top = p->mt + lh * (double)k + 2, bot = top + lh - 4;
		double dt = (L->t1 - L->t0) / SBT_LANE_COLS;
#define LX(c) (L->t1 > L->t0 ? sbt_plot_x(p, L->t0 + ((c) + 0.5) * dt) : \
	       (p->ml + p->w - p->mr) / 2.0)
#define LY(v) (bot - (bot - top) * fmin(1, fmax(0, ((v) - lo) / (hi - lo))))
/* the left edge of column c (c = SBT_LANE_COLS: the right edge) */
#define LX0(c) (L->t1 > L->t0 ? sbt_plot_x(p, L->t0 + (c) * dt) : \
		(p->ml + p->w - p->mr) / 2.0)
		if (k)
			fprintf(f, "<line class=\"gr\" x1=\"%d\" y1=\"%.0f\" "
				"x2=\"%d\" y2=\"%.0f\"/>\n", p->ml, top - 2,
				p->w - p->mr, top - 2);
		/* the band: a block per run of time slices with the same
		 * p10..p90 (a clock's ticks repeat), none where the thread
		 * had no sample; the median likewise, a level per run */
		fprintf(f, "<path class=\"ln%s\" d=\"", loud(ln[k]) ? " fl" :
			"");
		for (int c = 0, e; c < SBT_LANE_COLS; c = e) {
			const struct sbt_band *x = &L->col[c];
			for (e = c + 1; e < SBT_LANE_COLS && x->n &&
			     L->col[e].n && L->col[e].p10 == x->p10 &&
			     L->col[e].p90 == x->p90; e++)
				;
			if (x->n)
				fprintf(f, "M%.0f %.0fH%.0fV%.0fH%.0fZ", LX0(c),
					LY(x->p90) - 0.5, LX0(e), LY(x->p10) +
					0.5, LX0(c));
		}
		fputs("\"/><path class=\"med\" d=\"", f);
		for (int c = 0, e; c < SBT_LANE_COLS; c = e) {
			const struct sbt_band *x = &L->col[c];
			for (e = c + 1; e < SBT_LANE_COLS && x->n &&
			     L->col[e].n && L->col[e].p50 == x->p50; e++)
				;
			if (x->n)
				fprintf(f, "M%.0f %.0fH%.0f", LX0(c),
					LY(x->p50), LX0(e));
		}
		fputs("\"/><path class=\"dr\" d=\"", f);
		for (int c = 0; c < SBT_LANE_COLS; c++)
			if (L->col[c].ndropped)
				fprintf(f, "M%.0f %.0fh2v2h-2Z", LX(c) - 1,
					LY(L->col[c].dmax) - 1);
		fputs("\"/>\n", f);
		group_label(f, ln[k], p->ml - 4, (top + bot) / 2 + 4);
		fputc('\n', f);
#undef LX
#undef LX0
#undef LY
	}
}

static void time_plot(FILE *f, const struct sbt_report_in *in,
		      const struct sbt_group *g,
		      const struct sbt_region_fig *fig)
{
	const struct sbt_bands *bd = &fig->bands;
	const struct sbt_box *ln[SBT_LANES];
	struct sbt_plot p = { .xfmt = SBT_TICK_TIME, .yfmt = SBT_TICK_NS };
	double pad = g->quantum_ns > 0 ? g->quantum_ns : 1;
	size_t ngroups, n = lanes_of(in, g->region, ln, &ngroups);
	char title[128], html[640], a[32], b[32];
	double lo = INFINITY, hi = -INFINITY;

	p.x0 = bd->t0, p.x1 = bd->t1 > bd->t0 ? bd->t1 : bd->t0 + 1;
	if (n >= 2) {
		/* one scale for every lane: their p10 .. p90 */
		for (size_t k = 0; k < n; k++)
			for (int c = 0; c < SBT_LANE_COLS; c++)
				if (ln[k]->lane->col[c].n) {
					lo = fmin(lo, ln[k]->lane->col[c].p10);
					hi = fmax(hi, ln[k]->lane->col[c].p90);
				}
		if (!(hi > lo)) lo -= pad, hi += pad;
		p.ml = LANE_ML;
		sbt_plot_frame(&p);
		int lh = n <= 4 ? 44 : 26;
		p.h = p.mt + p.mb + lh * (int)n;
		snprintf(title, sizeof title, "Samples over time by %s%s",
			 sbt_by_name(in->o), ngroups > n ? " (flagged first)" :
			 "");
	} else {
		p.y0 = fig->kmin, p.y1 = fig->kmax;
		if (!(p.y1 > p.y0)) p.y0 -= pad, p.y1 += pad;
		p.y1 += (p.y1 - p.y0) * 0.08;   /* room for dropped markers */
		snprintf(title, sizeof title, "Samples over time%s",
			 g->phases.nphases ? "" : " (several processes: each "
			 "on its own clock)");
	}
	fputs("<figure>", f);
	sbt_plot_begin(&p, f, "time", title);
	if (n >= 2) {
		struct sbt_plot q = p;
		q.y0 = q.y1 = 0;                /* lanes: no duration ticks */
		sbt_plot_axes(&q, "time since the process started", "");
	} else {
		sbt_plot_axes(&p, "time since the process started",
			      "duration");
	}
	/* shaded warm-up and transient phases */
	for (int k = 0; k < g->phases.nphases; k++) {
		const struct sbt_phase *ph = &g->phases.ph[k];
		if (ph->kind == SBT_PH_LEVEL)
			continue;
		double xa = sbt_plot_x(&p, ph->t_begin_ns);
		double xb = sbt_plot_x(&p, ph->t_end_ns);
		fprintf(f, "<rect class=\"tr\" x=\"%.1f\" y=\"%d\" width=\"%.1f"
			"\" height=\"%d\"><title>%s</title></rect>\n", xa, p.mt,
			xb - xa > 1 ? xb - xa : 1, p.h - p.mt - p.mb,
			ph->kind == SBT_PH_WARMUP ? "warm-up" : "transient");
	}
	if (n >= 2)
		time_lanes(f, &p, ln, n, lo, hi);
	else
		time_band(f, &p, g, fig);
	/* where the region's level changes */
	for (int k = 1; k < g->phases.nphases; k++) {
		double xa = sbt_plot_x(&p, g->phases.ph[k].t_begin_ns);
		fprintf(f, "<line class=\"ph\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
			"y2=\"%d\"/>\n", xa, p.mt, xa, p.h - p.mb);
	}
	sbt_plot_end(&p);
	if (n >= 2) {
		fmt_ns(a, sizeof a, lo);
		fmt_ns(b, sizeof b, hi);
		snprintf(html, sizeof html, "a lane per %s%s, each from %s "
			 "(bottom) to %s (top): <span class=\"sw bq\"></span>"
			 "p10-p90 of a time slice <span class=\"sw med\"></span>"
			 "median <span class=\"sw dr\"></span>cut by the "
			 "OS filter <span class=\"sw flb\"></span>differs from "
			 "the others <span class=\"sw ph\"></span>the region's "
			 "level changes%s", sbt_by_name(in->o), ngroups > n ?
			 " (the others not shown)" : "", a, b,
			 ngroups > n ? "" : "");
	} else {
		snprintf(html, sizeof html, "per pixel column: <span class=\"sw "
			 "bmm\"></span>min-max <span class=\"sw bq\"></span>"
			 "p10-p90 <span class=\"sw med\"></span>median "
			 "<span class=\"sw dr\"></span>cut by the OS filter "
			 "<span class=\"sw lv\"></span>levels <span class=\"sw "
			 "ph\"></span>level changes <span class=\"sw tr\">"
			 "</span>warm-up, transient");
	}
	caption(f, html);
}

#define BOX_ROWS 40

static void box_plot(FILE *f, const struct sbt_report_in *in,
		     const struct sbt_group *g)
{
	const struct sbt_boxes *bx = in->boxes;
	const struct sbt_box *sel[BOX_ROWS];
	size_t n = 0, total = 0;
	struct sbt_plot p = { .xfmt = SBT_TICK_NS, .ml = LANE_ML };
	char title[128];

	/* flagged groups first, then the others in order */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; bx && i < bx->n; i++) {
			const struct sbt_box *b = &bx->b[i];
			if (b->region != g->region)
				continue;
			total += pass == 0;
			if (!b->kept || loud(b) != !pass || n == BOX_ROWS)
				continue;
			sel[n++] = b;
		}
	/* the margins first: the height is theirs plus the rows' */
	sbt_plot_frame(&p);
	p.h = p.mt + p.mb + 18 * (int)(n ? n : 1) + 8;
	if (p.h < 120) p.h = 120;
	p.x0 = INFINITY, p.x1 = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		if (sel[i]->p1 < p.x0) p.x0 = sel[i]->p1;
		if (sel[i]->p99 > p.x1) p.x1 = sel[i]->p99;
	}
	if (!n) p.x0 = 0, p.x1 = 1;
	if (!(p.x1 > p.x0)) {
		double pad = g->quantum_ns > 0 ? g->quantum_ns : 1;
		p.x0 -= pad, p.x1 += pad;
	}
	p.y0 = 0, p.y1 = 1;
	if (total > n)
		snprintf(title, sizeof title, "By %s: %zu of %zu (flagged "
			 "first)", sbt_by_name(in->o), n, total);
	else
		snprintf(title, sizeof title, "By %s", sbt_by_name(in->o));
	fputs("<figure>", f);
	sbt_plot_begin(&p, f, "groups", title);
	p.yfmt = SBT_TICK_FRAC;
	{
		/* no y ticks: rows are groups */
		struct sbt_plot q = p;
		q.y0 = q.y1 = 0;
		sbt_plot_axes(&q, "duration (t_e,std removed)", "");
	}
	for (size_t i = 0; i < n; i++) {
		const struct sbt_box *b = sel[i];
		double y = p.mt + 10 + 18.0 * (double)i;
		double xa = sbt_plot_x(&p, b->q1), xb = sbt_plot_x(&p, b->q3);
		char a[32];
		fprintf(f, "<g%s><line class=\"wh\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"/><rect class=\"bx%s\" x=\"%.1f\" "
			"y=\"%.1f\" width=\"%.1f\" height=\"12\"/><line class="
			"\"bm\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
			loud(b) ? " class=\"fl\"" : "",
			sbt_plot_x(&p, b->p1), y + 6, sbt_plot_x(&p, b->p99),
			y + 6, loud(b) ? " fl" : "", xa, y,
			xb - xa > 1 ? xb - xa : 1, sbt_plot_x(&p, b->median), y,
			sbt_plot_x(&p, b->median), y + 12);
		group_label(f, b, p.ml - 4, y + 10);
		fmt_ns(a, sizeof a, b->median);
		fprintf(f, "<title>median %s, %zu kept</title></g>\n", a,
			b->kept);
	}
	sbt_plot_end(&p);
	caption(f, "<span class=\"sw bx\"></span>quartiles "
		"<span class=\"sw bm\"></span>median <span class=\"sw wh\">"
		"</span>p1-p99 <span class=\"sw flb\"></span>differs from the "
		"others' median beyond what the samples resolve (by how much)");
}

/* ---- call sites ------------------------------------------------------------ */

static void frame_html(FILE *f, const struct sbt_symframe *fr)
{
	const char *b = strrchr(fr->file, '/');

	fputs("<code>", f);
	sbt_html_str(f, fr->function[0] ? fr->function : "??");
	fputs("</code>", f);
	if (fr->file[0]) {
		fputs(" <span title=\"", f);
		sbt_html_str(f, fr->file);
		fputs("\">", f);
		sbt_html_str(f, b ? b + 1 : fr->file);
		fprintf(f, ":%d</span>", fr->line);
	}
	if (fr->inlined)
		fputs(" <i>(inlined)</i>", f);
}

static int callsite_table(FILE *f, const struct sbt_report_in *in,
			  const struct sbt_group *g)
{
	struct sbt_sitecount *sc;
	long n;

	if (!in->o->cs)
		return 0;
	if ((n = sbt_group_sites(in->ds, in->res, g, in->o->cs, &sc)) < 0)
		return -1;
	fputs("<h3>Call sites</h3>", f);
	if (n == 0)
		fputs("<p>none recorded</p>\n", f);
	else
		fputs("<table><tr><th>samples</th><th>share</th><th>where START "
		      "was called, and the calling context (innermost first)"
		      "</th><th>module</th></tr>\n", f);
	for (long i = 0; i < n; i++) {
		const struct sbt_callsite *c = &in->o->cs->c[sc[i].site];
		fprintf(f, "<tr><td class=\"n\">%llu</td><td class=\"n\">%.1f "
			"%%</td><td><ol class=\"stack\">",
			(unsigned long long)sc[i].count,
			g->count ? 100.0 * (double)sc[i].count /
			(double)g->count : 0);
		for (int k = 0; k < c->nstack; k++) {
			fputs("<li>", f);
			frame_html(f, &c->stack[k]);
			fputs("</li>", f);
		}
		if (!c->nstack) {
			fputs("<li>", f);
			sbt_html_str(f, c->label);
			fputs("</li>", f);
		}
		fputs("</ol></td><td><code>", f);
		sbt_html_str(f, c->at.module);
		fprintf(f, "+0x%llx</code></td></tr>\n",
			(unsigned long long)c->at.offset);
	}
	if (n)
		fputs("</table>\n", f);
	free(sc);
	return 0;
}

static int region(FILE *f, const struct sbt_report_in *in, size_t i,
		  double *v, struct sbt_region_fig *fig)
{
	const struct sbt_group *g = &in->res->g[i];
	char a[32], b[32], t[32];

	if (sbt_fig_region(in->ds, in->res, g, in->o, v, fig) != 0)
		return -1;
	fprintf(f, "<section class=\"region\" id=\"r%zu\" data-plots=\"%d\">"
		"<h2>", i, SBT_HTML_PLOTS);
	sbt_html_str(f, in->ds->regions[g->region].name);
	fmt_ns(a, sizeof a, g->score.t_min_ns);
	fmt_ns(b, sizeof b, g->score.t_diff_ns);
	fprintf(f, "</h2>\n<ul class=\"findings\">\n");
	if (!findings(f, in, g, 0, 0))
		fputs("<li class=\"none\">no variation of 1 % or more of its "
		      "time</li>\n", f);
	fputs("</ul>\n", f);
	{
		/* the minor ones, after the others, in smaller print */
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);
		if (m) {
			int k = findings(m, in, g, 1, 0);
			if (fclose(m) == 0 && k)
				fprintf(f, "<p class=\"legend\">minor (under "
					"1 %% of its time):</p><ul class=\""
					"findings minor\">%s</ul>\n", buf);
			free(buf);
		}
	}
	fputs("<p class=\"verdict\">", f);
	verdict_words(f, g);
	evidence_words(f, g);
	sbt_plot_fmt(SBT_TICK_NS, g->total_ns, t, sizeof t);
	fprintf(f, "</p><p class=\"legend\">total %s", t);
	if (isfinite(g->share))
		fprintf(f, " (%.1f %% of its threads' time%s", 100 * g->share,
			g->nested ? "" : ")");
	if (g->nested && isfinite(g->excl_share))
		fprintf(f, "; %.1f %% without the regions nested in it)",
			100 * g->excl_share);
	fprintf(f, "; %zu %s, %zu kept, %zu cut by the OS filter; "
		"t<sub>min</sub> %s, t<sub>diff</sub> %s from ", g->count,
		sbt_plural(g->count, "sample", "samples"), g->kept, g->dropped,
		a, b);
	metric_source(f, &g->score);
	fputs("</p>\n<div class=\"grid\">\n", f);
	hist_plot(f, g, fig);
	cdf_plot(f, g, fig);
	time_plot(f, in, g, fig);
	box_plot(f, in, g);
	fputs("</div>\n", f);
	sbt_cnt_html_group(f, in->ds, in->res, g);
	if (callsite_table(f, in, g) != 0)
		return -1;
	fputs("</section>\n", f);
	return 0;
}

/* Which regions get plots: all, or the SBT_HTML_REGIONS with the most
 * samples.  detail[i] for res->g[i]. */
static char *choose(const struct sbt_result *res)
{
	char *d = calloc(res->ngroups + 1, 1);
	size_t *cnt;

	if (!d)
		return NULL;
	if (res->ngroups <= SBT_HTML_REGIONS) {
		memset(d, 1, res->ngroups);
		return d;
	}
	if (!(cnt = malloc(res->ngroups * sizeof *cnt))) {
		free(d);
		return NULL;
	}
	/* the threshold: the SBT_HTML_REGIONS-th largest count */
	for (size_t i = 0; i < res->ngroups; i++)
		cnt[i] = res->g[i].count;
	size_t k = 0;
	for (size_t i = 0; i < res->ngroups && k < SBT_HTML_REGIONS; i++) {
		size_t best = 0;
		for (size_t j = 0; j < res->ngroups; j++)
			if (!d[j] && (best == 0 || cnt[j] > cnt[best - 1]))
				best = j + 1;
		d[best - 1] = 1, k++;
	}
	free(cnt);
	return d;
}

static int write_html(FILE *f, const struct sbt_report_in *in)
{
	const struct sbt_result *res = in->res;
	struct sbt_region_fig *fig = malloc(sizeof *fig);
	size_t maxn = 1, ndetail = 0;
	char *detail = choose(res), when[64];
	double *v = NULL;
	struct sbt_result sorted = { 0 };
	size_t *perm = malloc((res->ngroups + 1) * sizeof *perm);
	time_t now = time(NULL);
	int rc = -1;

	for (size_t i = 0; i < res->ngroups; i++)
		if (res->g[i].n > maxn)
			maxn = res->g[i].n;
	if (!fig || !detail || !perm || !(v = malloc(maxn * sizeof *v)))
		goto out;
	for (size_t i = 0; i < res->ngroups; i++)
		ndetail += detail[i] != 0;
	strftime(when, sizeof when, "%Y-%m-%d %H:%M", localtime(&now));
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset="
		"\"utf-8\"><meta name=\"viewport\" content=\"width=device-"
		"width,initial-scale=1\"><title>sbtmark report</title><style>"
		"%s</style></head>\n<body data-regions=\"%zu\" data-plots="
		"\"%zu\">\n<h1>sbtmark report</h1><p class=\"cmd\">", css,
		ndetail, ndetail * SBT_HTML_PLOTS);
	for (int i = 0; i < in->argc; i++) {
		sbt_html_str(f, in->argv[i]);
		fputc(' ', f);
	}
	fprintf(f, "<br>written %s</p>\n", when);
	inputs(f, in);
	if (sbt_result_sorted(in->ds, res, in->o, &sorted, perm) != 0)
		goto out;
	/* the one-line verdicts first, as the text report; then the
	 * processor's shifts and the findings in words, then the plots */
	summary(f, in, &sorted, detail, perm);
	sbt_speed_html(f, in->ds, in->res);
	summary_findings(f, in, &sorted);
	machine(f, in);
	if (ndetail < res->ngroups)
		fprintf(f, "<p>Plots for the %zu regions with the most samples "
			"(of %zu).</p>\n", ndetail, res->ngroups);
	for (size_t k = 0; k < res->ngroups; k++)
		if (detail[perm[k]] && region(f, in, perm[k], v, fig) != 0)
			goto out;
	fprintf(f, "<p class=\"legend\">Durations are after filter_cost (the "
		"timer's own cost t<sub>e,std</sub> removed). Kept: samples the "
		"OS-noise filter kept; cut: the ones it left out of the "
		"statistics (in the totals with their time); lost "
		"by the recorder: samples it could not write (log full). t<sub>min"
		"</sub>: the shortest region one sample times to 1 %%; t<sub>"
		"diff</sub>: the smallest difference one sample tells apart."
		"</p>\n<script>%s</script>\n</body></html>\n", script);
	rc = ferror(f) ? -1 : 0;
out:
	free(sorted.g);
	free(perm);
	free(v);
	free(detail);
	free(fig);
	return rc;
}

const struct sbt_report_format sbt_format_html = {
	.name = "html", .per_region = 1, .write = write_html,
	.compare = sbt_compare_html,
};
