/*
 * report_html.c - the HTML report: inputs, a summary of every region,
 * then per region four plots and its call sites.
 *
 * The page is one file with no outside reference: SVG and CSS inline,
 * system fonts.  Plots are drawn from figures.c's reductions, so their
 * size does not grow with the number of samples.  One small script
 * checks, once the page is laid out, that every plot was drawn, and
 * records the count on <body data-rendered> (says so on the page when
 * one was not).  Printing puts each region on its own page.
 */
#include "html.h"
#include "report_counters.h"
#include "plot.h"
#include "report_util.h"
#include "score.h"
#include "sbtlog.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

static void inputs(FILE *f, const struct sbt_html_in *in)
{
	const struct sbt_dataset *ds = in->ds;
	char a[32], b[32], c[32];

	fputs("<section id=\"inputs\"><h2>Inputs</h2><table><tr><th>log</th>"
	      "<th>program</th><th>host</th><th>pid / rank</th><th>cpu</th>"
	      "<th>clock</th><th>quantum</th><th>t<sub>e,std</sub> "
	      "(p50, p99.9)</th><th>threads</th><th>dropped</th>"
	      "<th>misuse and warnings</th></tr>\n", f);
	for (size_t i = 0; i < ds->nsources; i++) {
		const struct sbt_source *s = &ds->sources[i];
		fputs("<tr><td><code>", f);
		sbt_html_str(f, s->path);
		fputs("</code></td><td><code>", f);
		sbt_html_str(f, s->is_csv ? "(CSV samples)" : s->exe);
		fputs("</code></td><td>", f);
		sbt_html_str(f, s->host);
		fprintf(f, "</td><td class=\"n\">%d / %d</td><td>", s->pid,
			s->rank);
		sbt_html_str(f, s->cpu_model);
		fmt_ns(a, sizeof a, s->te_ns);
		fmt_ns(b, sizeof b, s->te_p50_ns);
		fmt_ns(c, sizeof c, s->te_p999_ns);
		fprintf(f, "</td><td>%.4f GHz wall%s</td><td class=\"n\">%.1f "
			"ns</td><td class=\"n\">%s (%s, %s)</td><td class="
			"\"n\">%u</td><td class=\"n\">%llu</td><td>",
			s->tick_ns > 0 ? 1 / s->tick_ns : 0,
			s->has_cycles ? ", cycles" : "", s->quantum_ns, a, b, c,
			s->nthreads,
			(unsigned long long)s->counters[SBT_CNT_DROPPED]);
		for (int k = 0; k < SBT_CNT__N; k++)
			if (s->counters[k] && k != SBT_CNT_THREADS &&
			    k != SBT_CNT_DROPPED && sbt_counter_names[k])
				fprintf(f, "<span class=\"warn\">%s: %llu</span> ",
					sbt_counter_names[k],
					(unsigned long long)s->counters[k]);
		if (s->truncated)
			fputs("<span class=\"warn\">not closed cleanly</span> ",
			      f);
		if (s->warning[0]) {
			fputs("<span class=\"warn\">", f);
			sbt_html_str(f, s->warning);
			fputs("</span>", f);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	for (size_t i = 0; in->o->cs && i < in->o->cs->nnotes; i++) {
		fputs("<p class=\"warn\">call sites: ", f);
		sbt_html_str(f, in->o->cs->notes[i]);
		fputs("</p>\n", f);
	}
	fputs("</section>\n", f);
}

/* Shifts shared by several regions at one instant: the machine's. */
static void machine(FILE *f, const struct sbt_html_in *in)
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
		fprintf(f, "</td><td class=\"n\">%.4g ms</td><td class=\"n\">",
			e->t_ns / 1e6);
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
	if (!strcmp(s->metric_source, "in-situ"))
		fprintf(f, "in-situ probes (%zu used, %zu screened out)",
			s->insitu.n, s->insitu.screened);
	else if (!strncmp(s->metric_source, "profile:", 8)) {
		fputs("calibration profile, level ", f);
		sbt_html_str(f, s->metric_source + 8);
	} else if (!strcmp(s->metric_source, "quantum"))
		fputs("clock quantum only (too few probes, no profile)", f);
	else
		sbt_html_str(f, s->metric_source);
}

static void summary(FILE *f, const struct sbt_html_in *in, const char *detail)
{
	const struct sbt_dataset *ds = in->ds;
	char a[32], b[32], c[32], d[32];

	fputs("<section id=\"summary\"><h2>Regions</h2><table><tr><th>region"
	      "</th><th>api</th><th>samples</th><th>kept</th><th>dropped</th>"
	      "<th>median</th><th>p99</th><th>t<sub>min</sub></th><th>t<sub>"
	      "diff</sub></th><th>t<sub>min</sub>, t<sub>diff</sub> from</th>"
	      "<th>verdict</th></tr>\n", f);
	for (size_t i = 0; i < in->res->ngroups; i++) {
		const struct sbt_group *g = &in->res->g[i];
		fmt_ns(a, sizeof a, g->st.median);
		fmt_ns(b, sizeof b, g->st.p99);
		fmt_ns(c, sizeof c, g->score.t_min_ns);
		fmt_ns(d, sizeof d, g->score.t_diff_ns);
		fputs("<tr><td>", f);
		if (detail[i])
			fprintf(f, "<a href=\"#r%zu\">", i);
		sbt_html_str(f, ds->regions[g->region].name);
		fprintf(f, "%s</td><td>%s</td><td class=\"n\">%zu</td><td "
			"class=\"n\">%zu</td><td class=\"n\">%zu</td><td class="
			"\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s"
			"</td><td class=\"n\">%s</td><td>", detail[i] ? "</a>"
			: "", sbt_api_name(ds->regions[g->region].api),
			g->count, g->kept, g->dropped, a, b, c, d);
		metric_source(f, &g->score);
		fputs("</td><td>", f);
		sbt_html_str(f, g->verdict);
		fputs("</td></tr>\n", f);
	}
	fputs("</table></section>\n", f);
}

/* ---- the four plots ------------------------------------------------------ */

static void hist_plot(FILE *f, const struct sbt_group *g,
		      const struct sbt_region_fig *fig)
{
	const struct sbt_hist *h = &fig->hist;
	struct sbt_plot p = { .xfmt = SBT_TICK_NS, .yfmt = SBT_TICK_COUNT,
			      .ylog = 1 };
	char a[32], b[32];
	double pad = g->quantum_ns > 0 ? g->quantum_ns : 1;

	p.x0 = h->lo, p.x1 = h->lo + h->nbins * h->width;
	if (!(p.x1 > p.x0)) p.x0 -= pad, p.x1 += pad;
	p.y0 = 0.7, p.y1 = h->max > 0 ? h->max * 2.0 : 10;
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
	/* modes: where, how much */
	for (int m = 0; m < g->score.nmodes; m++) {
		double x = sbt_plot_x(&p, g->score.modes[m].center_ns);
		fmt_ns(a, sizeof a, g->score.modes[m].center_ns);
		int right = x > p.ml + 0.7 * (p.w - p.ml - p.mr);
		fprintf(f, "<line class=\"mode\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f"
			"\" y2=\"%d\"/><text class=\"ml\"%s x=\"%.1f\" y=\"%d\">"
			"%s %.0f%%</text>\n", x, p.mt + 12 * (m % 3) + 4, x,
			p.h - p.mb, right ? " text-anchor=\"end\"" : "",
			right ? x - 3 : x + 3, p.mt + 12 * (m % 3) + 12, a,
			100 * g->score.modes[m].share);
	}
	/* t_diff as a bar from the first mode (or the median) */
	double t0 = g->score.nmodes ? g->score.modes[0].center_ns
				    : g->st.median;
	if (isfinite(g->score.t_diff_ns) && isfinite(t0)) {
		double xa = sbt_plot_x(&p, t0);
		double xb = sbt_plot_x(&p, t0 + g->score.t_diff_ns);
		int y = p.h - p.mb - 10;
		fmt_ns(b, sizeof b, g->score.t_diff_ns);
		fprintf(f, "<path class=\"td\" d=\"M%.1f %dv-6v12v-6H%.1fv-6v12"
			"\"/><text class=\"tdl\" x=\"%.1f\" y=\"%d\">t_diff %s"
			"</text>\n", xa, y, xb > xa + 2 ? xb : xa + 2, xa + 2,
			y - 8, b);
	}
	sbt_plot_end(&p);
}

static void cdf_path(FILE *f, const struct sbt_plot *p, const struct sbt_cdf
		     *c, const uint64_t *a, const uint64_t *b, uint64_t n,
		     const char *cls)
{
	double r = log(c->hi / c->lo) / SBT_FIG_COLS;
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
		fprintf(f, "H%.1fV%.1f", sbt_plot_x(p, c->lo * exp(j * r)),
			sbt_plot_y(p, y));
		prev = y;
	}
	fprintf(f, "H%.1f\"/>\n", sbt_plot_x(p, c->hi));
}

static void cdf_plot(FILE *f, const struct sbt_group *g,
		     const struct sbt_region_fig *fig)
{
	const struct sbt_cdf *c = &fig->cdf;
	struct sbt_plot p = { .xfmt = SBT_TICK_NS, .yfmt = SBT_TICK_FRAC,
			      .xlog = 1, .y0 = 0, .y1 = 1 };
	double r = log(c->hi / c->lo) / SBT_FIG_COLS;

	p.x0 = c->lo, p.x1 = c->hi;
	sbt_plot_begin(&p, f, "cdf", "CDF before and after the OS filter");
	sbt_plot_axes(&p, "duration (log scale)", "fraction below");
	if (c->nkept + c->ndropped)
		cdf_path(f, &p, c, c->kept, c->dropped, c->nkept + c->ndropped,
			 "al");
	if (c->nkept)
		cdf_path(f, &p, c, c->kept, NULL, c->nkept, "kl");
	/* dropped samples: a red tick per column that holds any */
	fputs("<path class=\"dr\" d=\"", f);
	for (int j = 0; j < SBT_FIG_COLS; j++)
		if (c->dropped[j])
			fprintf(f, "M%.1f %dv-8", sbt_plot_x(&p, c->lo *
				exp((j + 0.5) * r)), p.h - p.mb);
	fputs("\"/>\n", f);
	fprintf(f, "<text x=\"%d\" y=\"%d\"><tspan class=\"ml\" style=\"fill:"
		"#4878b0\">&#9473; kept %zu</tspan>  <tspan style=\"fill:#888\">"
		"&#9476; before filter %zu</tspan>  <tspan style=\"fill:#d62728\">"
		"| dropped %zu</tspan></text>\n", p.ml + 6, p.mt + 14, g->kept,
		g->count, g->dropped);
	sbt_plot_end(&p);
}

static void time_plot(FILE *f, const struct sbt_group *g,
		      const struct sbt_region_fig *fig)
{
	const struct sbt_bands *bd = &fig->bands;
	struct sbt_plot p = { .xfmt = SBT_TICK_TIME, .yfmt = SBT_TICK_NS };
	double pad = g->quantum_ns > 0 ? g->quantum_ns : 1, cw;
	int c;

	p.x0 = bd->t0, p.x1 = bd->t1 > bd->t0 ? bd->t1 : bd->t0 + 1;
	p.y0 = fig->kmin, p.y1 = fig->kmax;
	if (!(p.y1 > p.y0)) p.y0 -= pad, p.y1 += pad;
	p.y1 += (p.y1 - p.y0) * 0.08;       /* room for dropped markers */
	sbt_plot_begin(&p, f, "time", g->phases.nphases ? "Samples over time "
		       "(per pixel: min-max, p10-p90, median)" : "Samples over "
		       "time (several processes: each on its own clock)");
	sbt_plot_axes(&p, "time since the process started", "duration");
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
	cw = (double)(p.w - p.ml - p.mr) / SBT_FIG_COLS;
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
	/* levels and where they change */
	for (int k = 0; k < g->phases.nphases; k++) {
		const struct sbt_phase *ph = &g->phases.ph[k];
		double xa = sbt_plot_x(&p, ph->t_begin_ns);
		double xb = sbt_plot_x(&p, ph->t_end_ns);
		if (ph->kind == SBT_PH_LEVEL && g->phases.nphases > 1)
			fprintf(f, "<line class=\"lv\" x1=\"%.1f\" y1=\"%.1f\" "
				"x2=\"%.1f\" y2=\"%.1f\"/>\n", xa,
				sbt_plot_y(&p, ph->level_ns), xb,
				sbt_plot_y(&p, ph->level_ns));
		if (k > 0)
			fprintf(f, "<line class=\"ph\" x1=\"%.1f\" y1=\"%d\" "
				"x2=\"%.1f\" y2=\"%d\"/>\n", xa, p.mt, xa,
				p.h - p.mb);
	}
	sbt_plot_end(&p);
}

#define BOX_ROWS 40

static void box_plot(FILE *f, const struct sbt_html_in *in,
		     const struct sbt_group *g)
{
	const struct sbt_boxes *bx = in->boxes;
	const struct sbt_box *sel[BOX_ROWS];
	size_t n = 0, total = 0;
	struct sbt_plot p = { .xfmt = SBT_TICK_NS, .ml = 110 };
	char title[96], a[32];

	/* flagged groups first, then the others in order */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < bx->n; i++) {
			const struct sbt_box *b = &bx->b[i];
			if (b->region != g->region)
				continue;
			total += pass == 0;
			if (!b->kept || !!b->flagged != !pass || n == BOX_ROWS)
				continue;
			sel[n++] = b;
		}
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
	snprintf(title, sizeof title, "By %s: p1, quartiles, median, p99%s",
		 sbt_by_name(in->o), total > n ? " (flagged first)" : "");
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
		fprintf(f, "<g%s><line class=\"wh\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"/><rect class=\"bx%s\" x=\"%.1f\" "
			"y=\"%.1f\" width=\"%.1f\" height=\"12\"/><line class="
			"\"bm\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"ty\" x=\"%d\" y=\"%.1f\">",
			b->flagged ? " class=\"fl\"" : "",
			sbt_plot_x(&p, b->p1), y + 6, sbt_plot_x(&p, b->p99),
			y + 6, b->flagged ? " fl" : "", xa, y,
			xb - xa > 1 ? xb - xa : 1, sbt_plot_x(&p, b->median), y,
			sbt_plot_x(&p, b->median), y + 12, p.ml - 4, y + 10);
		sbt_html_str(f, b->key);
		if (b->flagged)
			fprintf(f, " %+.1f%%", 100 * b->delta_rel);
		fmt_ns(a, sizeof a, b->median);
		fprintf(f, "<title>median %s, %zu kept</title></text></g>\n", a,
			b->kept);
	}
	if (total > n)
		fprintf(f, "<text x=\"%d\" y=\"%d\">%zu more not shown</text>\n",
			p.ml, p.h - 22, total - n);
	sbt_plot_end(&p);
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

static int callsite_table(FILE *f, const struct sbt_html_in *in,
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

static int region(FILE *f, const struct sbt_html_in *in, size_t i,
		  double *v, struct sbt_region_fig *fig)
{
	const struct sbt_group *g = &in->res->g[i];
	char a[32], b[32];

	if (sbt_fig_region(in->ds, in->res, g, in->o, v, fig) != 0)
		return -1;
	fprintf(f, "<section class=\"region\" id=\"r%zu\" data-plots=\"%d\">"
		"<h2>", i, SBT_HTML_PLOTS);
	sbt_html_str(f, in->ds->regions[g->region].name);
	fmt_ns(a, sizeof a, g->score.t_min_ns);
	fmt_ns(b, sizeof b, g->score.t_diff_ns);
	fprintf(f, "</h2><p class=\"verdict\">");
	sbt_html_str(f, g->verdict);
	fprintf(f, "</p><p class=\"legend\">%zu samples, %zu kept, %zu dropped "
		"by the OS filter; t<sub>min</sub> %s, t<sub>diff</sub> %s from ",
		g->count, g->kept, g->dropped, a, b);
	metric_source(f, &g->score);
	fputs("</p>\n<div class=\"grid\">\n", f);
	hist_plot(f, g, fig);
	cdf_plot(f, g, fig);
	time_plot(f, g, fig);
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

int sbt_html_write(FILE *f, const struct sbt_html_in *in)
{
	const struct sbt_result *res = in->res;
	struct sbt_region_fig *fig = malloc(sizeof *fig);
	size_t maxn = 1, ndetail = 0;
	char *detail = choose(res), when[64];
	double *v = NULL;
	time_t now = time(NULL);
	int rc = -1;

	for (size_t i = 0; i < res->ngroups; i++)
		if (res->g[i].n > maxn)
			maxn = res->g[i].n;
	if (!fig || !detail || !(v = malloc(maxn * sizeof *v)))
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
	machine(f, in);
	summary(f, in, detail);
	if (ndetail < res->ngroups)
		fprintf(f, "<p>Plots for the %zu regions with the most samples "
			"(of %zu).</p>\n", ndetail, res->ngroups);
	for (size_t i = 0; i < res->ngroups; i++)
		if (detail[i] && region(f, in, i, v, fig) != 0)
			goto out;
	fprintf(f, "<p class=\"legend\">Durations are after filter_cost (the "
		"timer's own cost t<sub>e,std</sub> removed). Kept: samples the "
		"OS-noise filter kept; dropped: the ones it removed. t<sub>min"
		"</sub>: the shortest region one sample times to 1 %%; t<sub>"
		"diff</sub>: the smallest difference one sample tells apart."
		"</p>\n<script>%s</script>\n</body></html>\n", script);
	rc = ferror(f) ? -1 : 0;
out:
	free(v);
	free(detail);
	free(fig);
	return rc;
}
