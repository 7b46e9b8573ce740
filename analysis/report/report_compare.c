/*
 * report_compare.c - sbt-analyze --compare: the comparison (compare.c)
 * as a text table, CSV, JSON, or an HTML page with each region's two
 * histograms and two time series overlaid.  Only prints.
 */
#include "figures.h"
#include "plot.h"
#include "report_compare.h"
#include "report_util.h"
#include "say.h"
#include "words.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Row r's verdict and its distribution's changes (say.h), as every
 * format prints them. */
struct said { char verdict[SBT_SAY_CMP_LEN], dist[SBT_SAY_DIST_LEN]; };

static void say_row(struct said *w, const struct sbt_cmp *c,
		    const struct sbt_cmp_row *r)
{
	struct sbt_strbuf v = { w->verdict, sizeof w->verdict, 0 };
	struct sbt_strbuf d = { w->dist, sizeof w->dist, 0 };

	w->verdict[0] = w->dist[0] = 0;
	sbt_say_cmp(&v, c, r);
	sbt_say_cmp_dist(&d, r);
}

static const char *change_name(int change)
{
	return change > 0 ? "slower" : change < 0 ? "faster" : "none";
}

static const struct sbt_cmp_change *judged(const struct sbt_cmp *c,
					   const struct sbt_cmp_row *r)
{
	return c->speed ? &r->norm : &r->raw;
}

/* The machine, as one sentence: the speed ratio, or what is assumed. */
static void machine_line(char *buf, size_t len, const struct sbt_cmp *c)
{
	if (c->speed) {
		double p = 100 * (c->speed_ratio - 1);
		size_t w = fabs(p) > 100 * c->speed_res ?
			(size_t)snprintf(buf, len, "the processor ran %.3g %% "
					 "%s in the new run", fabs(p),
					 p > 0 ? "slower" : "faster") :
			(size_t)snprintf(buf, len, "the processor ran at the "
					 "same speed in both");
		if (w < len)
			snprintf(buf + w, len - w, " (speed probes %zu base, "
				 "%zu new; resolves %.2g %%; %zu and %zu in "
				 "slow windows: their samples left out)",
				 c->sb.probes, c->sn.probes,
				 100 * c->speed_res, c->sb.slow_probes,
				 c->sn.slow_probes);
		return;
	}
	snprintf(buf, len, "%s: the comparison assumes an equal machine",
		 c->probes_b && c->probes_n ? "the two sides' speed probes "
		 "time different workloads" : c->probes_b ?
		 "no speed probes in the new run" : c->probes_n ?
		 "no speed probes in the base run" :
		 "no speed probes on either side");
}

static void inputs_text(FILE *f, const char *what,
			const struct sbt_cmp_side *s)
{
	fprintf(f, "%-5s %d run%s:", what, s->runs, s->runs == 1 ? "" : "s");
	for (size_t i = 0; i < s->ds->nsources && i < 8; i++)
		fprintf(f, " %s", s->ds->sources[i].path ?
			s->ds->sources[i].path : "?");
	if (s->ds->nsources > 8)
		fprintf(f, " ...");
	fputc('\n', f);
}

static void gate_text(FILE *f, const struct sbt_cmp *c)
{
	const char *sep = "";

	if (!isfinite(c->co.fail_pct))
		return;
	fprintf(f, "gate: --fail-if-slower %g %%%s%s: ", c->co.fail_pct,
		c->co.regions ? " --regions " : "",
		c->co.regions ? c->co.regions : "");
	if (!c->ntripped) {
		fprintf(f, "passed\n");
		return;
	}
	fprintf(f, "TRIPPED by");
	for (size_t i = 0; i < c->nrows; i++) {
		const struct sbt_cmp_row *r = &c->rows[i];
		if (!r->tripped)
			continue;
		fprintf(f, "%s %s%s%s (+%.3g %%)", sep, r->name,
			r->label[0] ? " " : "", r->label,
			100 * judged(c, r)->rel);
		sep = ",";
	}
	fputc('\n', f);
}

/* A comparison's direction in one word: slower or faster beyond what
 * bounds it; else "no change" (beyond that bound, said beside it), or
 * "not resolved" (compare.c: ch->unresolved). */
static const char *direction(const struct sbt_cmp_change *ch)
{
	if (!isfinite(ch->delta_ns))
		return "no samples";
	if (ch->change)
		return ch->change > 0 ? "slower" : "faster";
	return ch->unresolved ? "not resolved" : "no change";
}

/* Name in exactly w columns, its middle cut to '~' when longer. */
static void cmp_name(FILE *f, const struct sbt_cmp_row *r, int w)
{
	char b[300];
	int n = snprintf(b, sizeof b, "%s%s%s", r->name,
			 r->label[0] ? " " : "", r->label);

	if (n <= w)
		fprintf(f, "%-*s", w, b);
	else
		fprintf(f, "%.*s~%s", w / 2, b, b + n - (w - 1 - w / 2));
}

/* One line per region: base and new typical times, the change, its
 * direction word and what bounds it; a changed distribution (modes,
 * steps) on the line under it. */
static void report_text(FILE *f, const struct sbt_cmp *c,
			const struct sbt_cmp_side *b,
			const struct sbt_cmp_side *n)
{
	char line[512], x[32], y[32], z[32];
	int w = 6;

	inputs_text(f, "base", b);
	inputs_text(f, "new", n);
	machine_line(line, sizeof line, c);
	fprintf(f, "machine: %s\n\n", line);
	for (size_t i = 0; i < c->nrows; i++) {
		int k = (int)strlen(c->rows[i].name) + (c->rows[i].label[0] ?
			(int)strlen(c->rows[i].label) + 1 : 0);
		if (k > w)
			w = k;
	}
	if (w > 30)
		w = 30;
	if (c->nrows)
		fprintf(f, "%-*s %9s %9s %8s  %-12s  %s\n", w, "region", "base",
			"new", "change", "", c->speed ? "bound (normalized by "
			"the processor's speed)" : "bound");
	for (size_t i = 0; i < c->nrows; i++) {
		const struct sbt_cmp_row *r = &c->rows[i];
		const struct sbt_cmp_change *ch = judged(c, r);
		double base = r->b.tm_ns;
		cmp_name(f, r, w);
		if (r->side || !r->b.n || !r->n.n) {
			struct said w;
			say_row(&w, c, r);
			fprintf(f, " %9s %9s %8s  %s\n", "-", "-", "-",
				w.verdict);
			continue;
		}
		sbt_fmt_ns(x, sizeof x, r->b.tm_ns);
		sbt_fmt_ns(y, sizeof y, r->n.tm_ns);
		fprintf(f, " %9s %9s %+7.1f%%  %-12s  ", x, y, 100 * ch->rel,
			direction(ch));
		sbt_fmt_ns(z, sizeof z, ch->change ? ch->resolution_ns :
			   ch->threshold_ns);
		if (ch->change)
			fprintf(f, "resolves %s", z);
		else
			fprintf(f, "within %s", z);
		if (base > 0)
			fprintf(f, " (%.2g %%)", 100 * (ch->change ?
				ch->resolution_ns : ch->threshold_ns) / base);
		fprintf(f, ", %s%s\n", sbt_cmp_bound_name(ch->bound),
			r->tripped ? "; TRIPS the gate" : "");
		struct sbt_strbuf o = { line, sizeof line, 0 };
		line[0] = 0;
		sbt_words_cmp_dist(&o, r);
		if (line[0])
			fprintf(f, "%*s  %s\n", w, "", line);
	}
	if (c->nrows == 0)
		fprintf(f, "no regions on either side\n");
	fputc('\n', f);
	gate_text(f, c);
}

static void csv_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, ",%.6g", v);
	else
		fputs(",", f);
}

static void csv_change(FILE *f, const struct sbt_cmp_change *ch, int valid)
{
	if (!valid || !isfinite(ch->delta_ns)) {
		fputs(",,,,,", f);
		return;
	}
	csv_num(f, ch->delta_ns);
	csv_num(f, 100 * ch->rel);
	csv_num(f, ch->resolution_ns);
	fprintf(f, ",%s,%s", sbt_cmp_bound_name(ch->bound),
		change_name(ch->change));
}

static void report_csv(FILE *f, const struct sbt_cmp *c)
{
	fputs("region,group,present,base_n,new_n,base_slow,new_slow,"
	      "base_runs,new_runs,base_ns,new_ns,base_se_ns,new_se_ns,"
	      "population_resolution_ns,runs_resolution_ns,floor_ns,"
	      "delta_ns,delta_pct,resolution_ns,bound,change,"
	      "norm_delta_ns,norm_delta_pct,norm_resolution_ns,norm_bound,"
	      "norm_change,speed_ratio,distribution,tripped,verdict\n", f);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct sbt_cmp_row *r = &c->rows[i];
		struct said w;
		say_row(&w, c, r);
		sbt_csv_str(f, r->name);
		fputc(',', f);
		sbt_csv_str(f, r->label);
		fprintf(f, ",%s,%zu,%zu,%zu,%zu,%d,%d", r->side < 0 ? "base" :
			r->side > 0 ? "new" : "both", r->b.n, r->n.n,
			r->b.slow, r->n.slow, r->b.runs, r->n.runs);
		csv_num(f, r->b.tm_ns), csv_num(f, r->n.tm_ns);
		csv_num(f, r->b.se_ns), csv_num(f, r->n.se_ns);
		csv_num(f, r->side ? NAN : r->pop_res_ns);
		csv_num(f, r->side ? NAN : r->runs_res_ns);
		csv_num(f, r->side ? NAN : r->floor_ns);
		csv_change(f, &r->raw, r->side == 0);
		csv_change(f, &r->norm, r->side == 0 && c->speed);
		csv_num(f, c->speed ? c->speed_ratio : NAN);
		fputc(',', f);
		sbt_csv_str(f, w.dist);
		fprintf(f, ",%d,", r->tripped);
		sbt_csv_str(f, w.verdict);
		fputc('\n', f);
	}
}

static void json_est(FILE *f, const char *k, const struct sbt_cmp_est *e)
{
	fprintf(f, "\"%s\":{\"n\":%zu,\"slow_left_out\":%zu,\"runs\":%d,"
		"\"all_kept\":%s,", k, e->n, e->slow, e->runs,
		e->all_kept ? "true" : "false");
	sbt_json_num(f, "trimmed_mean_ns", e->tm_ns, 0);
	sbt_json_num(f, "se_ns", e->se_ns, 0);
	sbt_json_num(f, "resolution_ns", e->res_ns, 0);
	sbt_json_num(f, "run_sd_ns", e->run_sd_ns, 1);
	fputc('}', f);
}

static void json_change(FILE *f, const char *k,
			const struct sbt_cmp_change *ch, int valid)
{
	fprintf(f, "\"%s\":", k);
	if (!valid || !isfinite(ch->delta_ns)) {
		fputs("null", f);
		return;
	}
	fputc('{', f);
	sbt_json_num(f, "delta_ns", ch->delta_ns, 0);
	sbt_json_num(f, "delta_pct", 100 * ch->rel, 0);
	sbt_json_num(f, "resolution_ns", ch->resolution_ns, 0);
	sbt_json_num(f, "threshold_ns", ch->threshold_ns, 0);
	fprintf(f, "\"bound\":\"%s\",\"change\":\"%s\"}",
		sbt_cmp_bound_name(ch->bound), change_name(ch->change));
}

static void json_side(FILE *f, const char *k, const struct sbt_cmp_side *s,
		      const struct sbt_cmp_speed *sp)
{
	fprintf(f, "\"%s\":{\"runs\":%d,\"inputs\":[", k, s->runs);
	for (size_t i = 0; i < s->ds->nsources; i++) {
		fputs(i ? "," : "", f);
		sbt_json_str(f, s->ds->sources[i].path ?
			     s->ds->sources[i].path : "");
	}
	fprintf(f, "],\"speed_probes\":%zu,\"slow_probes\":%zu,",
		sp->probes, sp->slow_probes);
	sbt_json_num(f, "probe_ns_per_op", sp->per_op_ns, 1);
	fputs("},\n", f);
}

static void report_json(FILE *f, const struct sbt_cmp *c,
			const struct sbt_cmp_side *b,
			const struct sbt_cmp_side *n)
{
	char line[512];

	fputs("{\"compare\":{\n", f);
	json_side(f, "base", b, &c->sb);
	json_side(f, "new", n, &c->sn);
	machine_line(line, sizeof line, c);
	fprintf(f, "\"machine\":{\"speed\":%s,", c->speed ? "true" : "false");
	sbt_json_num(f, "speed_ratio", c->speed ? c->speed_ratio : NAN, 0);
	sbt_json_num(f, "speed_resolution", c->speed ? c->speed_res : NAN, 0);
	fputs("\"note\":", f);
	sbt_json_str(f, line);
	fputs("},\n\"gate\":", f);
	if (!isfinite(c->co.fail_pct)) {
		fputs("null", f);
	} else {
		fputc('{', f);
		sbt_json_num(f, "fail_if_slower_pct", c->co.fail_pct, 0);
		fputs("\"regions\":", f);
		if (c->co.regions)
			sbt_json_str(f, c->co.regions);
		else
			fputs("null", f);
		fputs(",\"tripped\":[", f);
		const char *sep = "";
		for (size_t i = 0; i < c->nrows; i++)
			if (c->rows[i].tripped) {
				fputs(sep, f);
				sbt_json_str(f, c->rows[i].name);
				sep = ",";
			}
		fputs("]}", f);
	}
	fputs(",\n\"regions\":[\n", f);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct sbt_cmp_row *r = &c->rows[i];
		struct said w;
		say_row(&w, c, r);
		fputs(i ? ",\n{\"name\":" : "{\"name\":", f);
		sbt_json_str(f, r->name);
		fputs(",\"group\":", f);
		sbt_json_str(f, r->label);
		fprintf(f, ",\"present\":\"%s\",", r->side < 0 ? "base" :
			r->side > 0 ? "new" : "both");
		json_est(f, "base", &r->b);
		fputc(',', f);
		json_est(f, "new", &r->n);
		fputc(',', f);
		sbt_json_num(f, "population_resolution_ns",
			     r->side ? NAN : r->pop_res_ns, 0);
		sbt_json_num(f, "runs_resolution_ns",
			     r->side ? NAN : r->runs_res_ns, 0);
		sbt_json_num(f, "floor_ns", r->side ? NAN : r->floor_ns, 0);
		json_change(f, "raw", &r->raw, r->side == 0);
		fputc(',', f);
		json_change(f, "normalized", &r->norm, r->side == 0 && c->speed);
		fputs(",\"distribution\":", f);
		sbt_json_str(f, w.dist);
		fprintf(f, ",\"tripped\":%s,\"verdict\":",
			r->tripped ? "true" : "false");
		sbt_json_str(f, w.verdict);
		fputc('}', f);
	}
	fputs("]}}\n", f);
}

/* ---- HTML --------------------------------------------------------------- */

static const char css[] =
"body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:1200px;"
"padding:0 16px;color:#222}h1{font-size:22px}h2{font-size:17px;"
"border-bottom:1px solid #ccc}.verdict{background:#f7f7fb;border-left:3px "
"solid #66c;padding:4px 8px}.trip{border-color:#d62728}"
".grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(440px,"
"1fr));gap:8px}svg.plot{width:100%;height:auto}"
"svg text{font:11px system-ui,sans-serif;fill:#333}svg .pt{font-size:12px;"
"font-weight:600}svg .tx,svg .xl{text-anchor:middle}svg .ty{text-anchor:"
"end}svg .yl{text-anchor:middle}svg .fr{fill:none;stroke:#999}"
"svg .gr{stroke:#eee}svg .sb{fill:none;stroke:#4878b0;stroke-width:1.5}"
"svg .sn{fill:none;stroke:#d62728;stroke-width:1.5}"
"svg .ab{fill:#4878b0;opacity:.15}svg .an{fill:#d62728;opacity:.15}"
".lb{color:#4878b0}.ln{color:#d62728}";

/* A group's figures: its kept values, histogram range and time bands. */
struct fig {
	double *v;
	struct sbt_region_fig f;
	double q;
};

static int fig_of(const struct sbt_cmp_side *s, const struct sbt_group *g,
		  const struct sbt_report_opts *o, struct fig *x)
{
	x->v = malloc((g->n ? g->n : 1) * sizeof *x->v);
	x->q = g->quantum_ns;
	if (!x->v)
		return -1;
	return sbt_fig_region(s->ds, s->res, g, o, x->v, &x->f);
}

/* Both sides' histograms on one range, as shares of their samples. */
static void hist_overlay(FILE *f, struct fig *b, struct fig *n)
{
	struct sbt_hist hb, hn;
	struct sbt_plot p = { .xfmt = SBT_TICK_NS, .yfmt = SBT_TICK_FRAC };
	double lo = fmin(b->f.kmin, n->f.kmin), hi = fmax(b->f.kmax,
							   n->f.kmax);
	double q = fmax(b->q, n->q), ymax = 0;

	/* values of v past nkept are not kept: bins over the kept only */
	sbt_fig_hist(b->v, b->f.nkept, lo, hi, q, &hb);
	sbt_fig_hist(n->v, n->f.nkept, lo, hi, q, &hn);
	for (int i = 0; i < hb.nbins; i++)
		ymax = fmax(ymax, (double)hb.count[i] / (double)b->f.nkept);
	for (int i = 0; i < hn.nbins; i++)
		ymax = fmax(ymax, (double)hn.count[i] / (double)n->f.nkept);
	p.x0 = hb.lo, p.x1 = hb.lo + hb.nbins * hb.width;
	if (!(p.x1 > p.x0))
		p.x0 -= 1, p.x1 += 1;
	p.y0 = 0, p.y1 = ymax > 0 ? 1.1 * ymax : 1;
	sbt_plot_begin(&p, f, "hist", "Histograms: base (blue), new (red)");
	sbt_plot_axes(&p, "duration (t_e,std removed)", "share of samples");
	for (int s = 0; s < 2; s++) {
		const struct sbt_hist *h = s ? &hn : &hb;
		double tot = (double)(s ? n->f.nkept : b->f.nkept);
		fprintf(f, "<path class=\"%s\" d=\"M%.1f %.1f", s ? "sn" : "sb",
			sbt_plot_x(&p, h->lo), sbt_plot_y(&p, 0));
		for (int i = 0; i < h->nbins; i++) {
			double y = sbt_plot_y(&p, (double)h->count[i] / tot);
			fprintf(f, "V%.1fH%.1f", y,
				sbt_plot_x(&p, h->lo + (i + 1) * h->width));
		}
		fprintf(f, "V%.1f\"/>\n", sbt_plot_y(&p, 0));
	}
	sbt_plot_end(&p);
}

/* Both sides' samples over their runs' time: p10..p90 and the median of
 * each pixel column. */
static void time_overlay(FILE *f, const struct fig *b, const struct fig *n)
{
	struct sbt_plot p = { .xfmt = SBT_TICK_TIME, .yfmt = SBT_TICK_NS };
	double lo = INFINITY, hi = -INFINITY;

	for (int s = 0; s < 2; s++) {
		const struct sbt_bands *bd = s ? &n->f.bands : &b->f.bands;
		for (int i = 0; i < SBT_FIG_COLS; i++)
			if (bd->col[i].n) {
				lo = fmin(lo, bd->col[i].p10);
				hi = fmax(hi, bd->col[i].p90);
			}
	}
	if (!(hi >= lo))
		return;
	p.x0 = 0;
	p.x1 = fmax(b->f.bands.t1, n->f.bands.t1);
	if (!(p.x1 > 0))
		p.x1 = 1;
	p.y0 = lo - 0.05 * (hi - lo + 1), p.y1 = hi + 0.05 * (hi - lo + 1);
	sbt_plot_begin(&p, f, "time", "Over each run: base (blue), new (red)"
		       " - median and p10..p90");
	sbt_plot_axes(&p, "time since the run's start", "duration");
	for (int s = 0; s < 2; s++) {
		const struct sbt_bands *bd = s ? &n->f.bands : &b->f.bands;
		double w = (bd->t1 - bd->t0) / SBT_FIG_COLS;
		for (int i = 0; i < SBT_FIG_COLS; i++) {
			const struct sbt_band *c = &bd->col[i];
			if (!c->n)
				continue;
			double x0 = sbt_plot_x(&p, bd->t0 + i * w);
			double x1 = sbt_plot_x(&p, bd->t0 + (i + 1) * w);
			double y0 = sbt_plot_y(&p, c->p90);
			double y1 = sbt_plot_y(&p, c->p10);
			fprintf(f, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" "
				"width=\"%.1f\" height=\"%.1f\"/>", s ? "an" :
				"ab", x0, y0, fmax(x1 - x0, 0.5),
				fmax(y1 - y0, 0.5));
		}
		fprintf(f, "\n<path class=\"%s\" d=\"", s ? "sn" : "sb");
		const char *cmd = "M";
		for (int i = 0; i < SBT_FIG_COLS; i++) {
			const struct sbt_band *c = &bd->col[i];
			if (!c->n)
				continue;
			fprintf(f, "%s%.1f %.1f", cmd,
				sbt_plot_x(&p, bd->t0 + (i + 0.5) * w),
				sbt_plot_y(&p, c->p50));
			cmd = "L";
		}
		fputs("\"/>\n", f);
	}
	sbt_plot_end(&p);
}

static int html_compare(FILE *f, const struct sbt_cmp *c,
		     const struct sbt_cmp_side *b,
		     const struct sbt_cmp_side *n,
		     const struct sbt_report_opts *o)
{
	char line[512];
	int rc = 0;

	fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
		"<title>sbtmark comparison</title><style>%s</style></head>"
		"<body>\n<h1>sbtmark: <span class=\"lb\">base</span> against "
		"<span class=\"ln\">new</span></h1>\n<p>", css);
	for (int s = 0; s < 2; s++) {
		const struct sbt_cmp_side *x = s ? n : b;
		fprintf(f, "%s <b>%s</b> (%d run%s):", s ? "<br>" : "",
			s ? "new" : "base", x->runs, x->runs == 1 ? "" : "s");
		for (size_t i = 0; i < x->ds->nsources && i < 16; i++) {
			fputc(' ', f);
			sbt_html_str(f, x->ds->sources[i].path ?
				     x->ds->sources[i].path : "?");
		}
	}
	machine_line(line, sizeof line, c);
	fputs("</p>\n<p>Machine: ", f);
	sbt_html_str(f, line);
	fputs("</p>\n", f);
	if (isfinite(c->co.fail_pct))
		fprintf(f, "<p class=\"verdict%s\">Gate --fail-if-slower %g %%:"
			" %s</p>\n", c->ntripped ? " trip" : "",
			c->co.fail_pct, c->ntripped ? "tripped" : "passed");
	for (size_t i = 0; i < c->nrows && rc == 0; i++) {
		const struct sbt_cmp_row *r = &c->rows[i];
		fputs("<section><h2>", f);
		sbt_html_str(f, r->name);
		if (r->label[0]) {
			fputc(' ', f);
			sbt_html_str(f, r->label);
		}
		struct said w;
		say_row(&w, c, r);
		fprintf(f, "</h2>\n<p class=\"verdict%s\">",
			r->tripped ? " trip" : "");
		sbt_html_str(f, w.verdict);
		fputs("</p>\n", f);
		if (r->side || !r->b.g || !r->n.g || !r->b.n || !r->n.n) {
			fputs("</section>\n", f);
			continue;
		}
		struct fig fb = { 0 }, fn = { 0 };
		if (fig_of(b, r->b.g, o, &fb) != 0 ||
		    fig_of(n, r->n.g, o, &fn) != 0) {
			rc = -1;
		} else if (fb.f.nkept && fn.f.nkept) {
			fputs("<div class=\"grid\">\n", f);
			hist_overlay(f, &fb, &fn);
			time_overlay(f, &fb, &fn);
			fputs("</div>\n", f);
		}
		free(fb.v), free(fn.v);
		fputs("</section>\n", f);
	}
	fputs("</body></html>\n", f);
	return rc || ferror(f) ? -1 : 0;
}

/* ---- the formats' entries (report.h: sbt_report_format.compare) ------ */

int sbt_compare_text(FILE *f, const struct sbt_compare_in *in)
{
	report_text(f, in->c, in->b, in->n);
	return ferror(f) ? -1 : 0;
}

int sbt_compare_csv(FILE *f, const struct sbt_compare_in *in)
{
	report_csv(f, in->c);
	return ferror(f) ? -1 : 0;
}

int sbt_compare_json(FILE *f, const struct sbt_compare_in *in)
{
	report_json(f, in->c, in->b, in->n);
	return ferror(f) ? -1 : 0;
}

int sbt_compare_html(FILE *f, const struct sbt_compare_in *in)
{
	return html_compare(f, in->c, in->b, in->n, in->o);
}
