/*
 * report_compare.c - sbt-analyze --compare: the comparison (compare.c)
 * as a text table, CSV, JSON, or an HTML page with each region's two
 * histograms and two time series overlaid.  Only prints.
 */
#include "figures.h"
#include "plot.h"
#include "report_compare.h"
#include "fitname.h"
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

/* ---- the runs: wall time and the OS's share ---------------------------- */

static double pct_of(double part, double whole)
{
	return whole > 0 ? 100 * part / whole : 0;
}

/* A wall time: ms below a second, so that short runs do not read 0. */
static void fmt_wall(char *buf, size_t len, double ns)
{
	if (!isfinite(ns))
		snprintf(buf, len, "-");
	else if (fabs(ns) >= 1e9)
		snprintf(buf, len, "%.3f s", ns / 1e9);
	else if (fabs(ns) >= 1e6)
		snprintf(buf, len, "%.3f ms", ns / 1e6);
	else
		sbt_fmt_ns(buf, len, ns);
}

/* A side's wall time: one run's, or the runs' median and range. */
static void wall_words(struct sbt_strbuf *o, const struct sbt_cmp_runs *w)
{
	char a[32], b[32];

	fmt_wall(a, sizeof a, w->wall_ns);
	sbt_put(o, "%s", a);
	if (w->n > 1) {
		fmt_wall(a, sizeof a, w->wall_min_ns);
		fmt_wall(b, sizeof b, w->wall_max_ns);
		sbt_put(o, " (median of %d runs, %s to %s)", w->n, a, b);
	}
}

/* The first line: each side's wall time, how much longer the new one
 * took, and the threads' preempted share (the kernel's switch records). */
static void runs_line(char *buf, size_t len, const struct sbt_cmp *c)
{
	struct sbt_strbuf o = { buf, len, 0 };
	const struct sbt_cmp_runs *b = &c->wb, *n = &c->wn;

	buf[0] = 0;
	sbt_put(&o, "wall time: base ");
	wall_words(&o, b);
	sbt_put(&o, ", new ");
	wall_words(&o, n);
	if (b->wall_ns > 0 && n->wall_ns > 0) {
		double x = n->wall_ns / b->wall_ns;
		if (x >= 1.005 || x <= 0.995)
			sbt_put(&o, ": %.2fx as long", x);
		else
			sbt_put(&o, ": as long");
	}
	if (b->os && n->os)
		sbt_put(&o, "; threads preempted (the OS's, by the kernel's "
			"switch records) %.1f %% of their time in the base "
			"run, %.1f %% in the new", pct_of(b->preempt_ns,
			b->span_ns), pct_of(n->preempt_ns, n->span_ns));
	else
		sbt_put(&o, "; preempted share unknown: no switch records "
			"on %s", !b->os && !n->os ? "either side" : !b->os ?
			"the base side" : "the new side");
}

/* The threads' time on their cpus: their spans less the time the
 * records show them off (preempted or of their own accord). */
static double on_cpu(const struct sbt_cmp_runs *w)
{
	return fmax(0, w->span_ns - w->preempt_ns - w->sleep_ns);
}

/* What the records say of a change of wall time by 5 % or more, or ""
 * (no change, or no records).  The threads' time is on their cpus,
 * preempted, or off of their own accord; on a log scale the change of
 * the wall time splits into the change of the time on their cpus (the
 * code's, the processor's, or a thread spinning at a barrier for a
 * preempted one) and the rest (off their cpus).  When the time on their
 * cpus holds at most 1/4 of it, the change is the OS's. */
static void cause_line(char *buf, size_t len, const struct sbt_cmp *c)
{
	struct sbt_strbuf o = { buf, len, 0 };
	const struct sbt_cmp_runs *b = &c->wb, *n = &c->wn;
	double ob = on_cpu(b) / b->n, on = on_cpu(n) / n->n;
	char x[32], y[32], p[32], q[32];

	buf[0] = 0;
	if (!b->os || !n->os || !(b->wall_ns > 0) || !(n->wall_ns > 0) ||
	    !(ob > 0) || !(on > 0) ||
	    !(fabs(log(n->wall_ns / b->wall_ns)) >= log(1.05)))
		return;
	double lw = log(n->wall_ns / b->wall_ns), part = log(on / ob) / lw;
	fmt_wall(x, sizeof x, ob);
	fmt_wall(y, sizeof y, on);
	fmt_wall(p, sizeof p, b->preempt_ns / b->n);
	fmt_wall(q, sizeof q, n->preempt_ns / n->n);
	if (part <= 0.25)
		sbt_put(&o, "why: the OS: the threads were on their cpus %s "
			"in the base run, %s in the new, and preempted %s, %s"
			" (a run's threads together)", x, y, p, q);
	else    /* spinning waits count as on a cpu: no more is sure */
		sbt_put(&o, "why: not the OS's preemption alone: the threads "
			"were on their cpus %.2fx as long (%s in the base run, "
			"%s in the new; preempted %s, %s)", on / ob, x, y, p,
			q);
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
		char lb[100];
		if (!r->tripped)
			continue;
		sbt_say_label(&r->label, lb, sizeof lb);
		fprintf(f, "%s %s%s%s (+%.3g %%)", sep, r->name,
			lb[0] ? " " : "", lb, 100 * judged(c, r)->rel);
		sep = ",";
	}
	fputc('\n', f);
}

/* A ratio as a change in percent; beyond +999 % as a factor. */
static void fmt_ratio(char *buf, size_t len, double r)
{
	double p = 100 * (r - 1);

	if (!isfinite(r))
		snprintf(buf, len, "-");
	else if (p > 999)
		snprintf(buf, len, r < 9999.5 ? "%.3gx" : "%.0fx", r);
	else
		snprintf(buf, len, "%+.1f %%", p);
}

/* Row r's estimate in a word, as every format says it. */
static const char *est_word(const struct sbt_cmp *c,
			    const struct sbt_cmp_row *r)
{
	const struct sbt_cmp_ratio *e = &r->est;

	(void)c;
	if (r->side)
		return r->side < 0 ? "base only" : "new only";
	if (!e->have)
		return "too few samples";
	if (e->by_runs)
		return e->change > 0 ? "slower" : e->change < 0 ? "faster" :
		       "no change found";
	return e->change ? "apart" : "no change found";
}

/* Row r's estimate as a sentence (JSON, CSV, HTML). */
static void est_sentence(char *buf, size_t len, const struct sbt_cmp *c,
			 const struct sbt_cmp_row *r)
{
	const struct sbt_cmp_ratio *e = &r->est;
	char x[32], lo[32], hi[32];

	if (r->side) {
		snprintf(buf, len, "on the %s side only", r->side < 0 ?
			 "base" : "new");
		return;
	}
	if (!e->have) {
		snprintf(buf, len, "too few samples for an estimate (%zu base,"
			 " %zu new; %d a side wanted)", e->nb, e->nn,
			 SBT_CMP_MIN_N);
		return;
	}
	fmt_ratio(x, sizeof x, e->ratio);
	fmt_ratio(lo, sizeof lo, e->lo);
	fmt_ratio(hi, sizeof hi, e->hi);
	snprintf(buf, len, "median %s, interval %s .. %s (95 %% for all %zu "
		 "row%s together): %s%s", x, lo, hi, c->nest,
		 c->nest == 1 ? "" : "s", est_word(c, r),
		 e->by_runs ? "" : e->change ? " beyond its interval; one run "
		 "a side: the spread between runs is unknown" :
		 "; one run a side: the spread between runs is unknown");
}

/* The rows' names as the table says them: "REGION LABEL". */
#define ROW_NAME 300
static void row_name(char *b, const struct sbt_cmp_row *r)
{
	char lb[100];

	snprintf(b, ROW_NAME, "%s%s%s", r->name,
		 sbt_say_label(&r->label, lb, sizeof lb)[0] ? " " : "", lb);
}

static const char *row_at(const void *ctx, size_t i)
{
	return (const char *)ctx + i * ROW_NAME;
}

/* Row i's name in exactly w columns (fitname.h): whole, or whole words
 * that keep it apart from the other rows'. */
static void cmp_name(FILE *f, const struct sbt_fit_rows *all, size_t i, int w)
{
	char b[ROW_NAME];

	sbt_fit_name(b, sizeof b, all->at(all->ctx, i), w, all);
	fputs(b, f);
}

/* Row r: both medians, their ratio as a change, its interval and what
 * it says; a changed distribution (modes, steps) on the line under. */
static void row_text(FILE *f, const struct sbt_cmp *c,
		     const struct sbt_fit_rows *all, size_t i, int w)
{
	const struct sbt_cmp_row *r = &c->rows[i];
	const struct sbt_cmp_ratio *e = &r->est;
	char line[512], x[32], y[32], z[32], lo[32], hi[32], iv[80];

	cmp_name(f, all, i, w);
	if (r->side || !e->have) {
		struct said sd;
		say_row(&sd, c, r);
		if (r->side)
			fprintf(f, " %9s %9s %9s  %-21s  %s\n", "-", "-", "-",
				"", sd.verdict);
		else
			fprintf(f, " %9s %9s %9s  %-21s  too few samples "
				"(%zu base, %zu new)\n", "-", "-", "-", "",
				e->nb, e->nn);
		return;
	}
	sbt_fmt_ns(x, sizeof x, e->med_b_ns);
	sbt_fmt_ns(y, sizeof y, e->med_n_ns);
	fmt_ratio(z, sizeof z, e->ratio);
	fmt_ratio(lo, sizeof lo, e->lo);
	fmt_ratio(hi, sizeof hi, e->hi);
	snprintf(iv, sizeof iv, "%s .. %s", lo, hi);
	fprintf(f, " %9s %9s %9s  %-21s  %s%s\n", x, y, z, iv,
		est_word(c, r), r->tripped ? "; TRIPS the gate" : "");
	struct sbt_strbuf o = { line, sizeof line, 0 };
	line[0] = 0;
	sbt_words_cmp_dist(&o, r);
	if (line[0])
		fprintf(f, "%*s  %s\n", w, "", line);
}

/* What the columns mean, and the rows counted by what they say. */
static void legend_text(FILE *f, const struct sbt_cmp *c)
{
	size_t up = 0, down = 0, in = 0, few = 0, one = 0, apart = 0;

	for (size_t i = 0; i < c->nrows; i++) {
		const struct sbt_cmp_row *r = &c->rows[i];
		if (r->side) {
			one++;
			continue;
		}
		if (!r->est.have)
			few++;
		else if (!r->est.change)
			in++;
		else if (r->est.by_runs || !c->by_runs)
			*(r->est.change > 0 ? &up : &down) += 1;
		else    /* in one run of a side only: its batches */
			apart++;
	}
	if (!c->nrows)
		return;
	if (!c->nest) {
		fprintf(f, "\nno region has %d samples a side: no estimate\n",
			SBT_CMP_MIN_N);
		return;
	}
	fprintf(f, "\nnew/base: the ratio of the medians of every call "
		"(timing cost out); interval: 95 %% for all %zu row%s "
		"together (Bonferroni), from %s.\n", c->nest,
		c->nest == 1 ? "" : "s", c->by_runs ?
		"each run's median (the spread between runs)" :
		"batches of consecutive calls a side");
	if (c->by_runs)
		fprintf(f, "rows: %zu slower, %zu faster, %zu no change "
			"found", up, down, in);
	else
		fprintf(f, "one run %s: the spread between runs is unknown, "
			"so no row is called slower or faster; beyond its "
			"interval within these runs (apart): %zu up, %zu down; "
			"%zu no change found", c->runs_b < 2 && c->runs_n < 2 ?
			"a side" : "on a side", up, down, in);
	if (apart)
		fprintf(f, "; %zu apart (in one run of a side: the spread "
			"between runs unknown)", apart);
	fprintf(f, "; %zu with too few samples (%d a side wanted)", few,
		SBT_CMP_MIN_N);
	if (one)
		fprintf(f, "; %zu on one side only", one);
	fputc('\n', f);
}

/* One line per region: base and new typical times, the change, its
 * direction word and what bounds it; a changed distribution (modes,
 * steps) on the line under it. */
static int report_text(FILE *f, const struct sbt_cmp *c,
		       const struct sbt_cmp_side *b,
		       const struct sbt_cmp_side *n)
{
	char line[512];

	runs_line(line, sizeof line, c);
	fprintf(f, "%s\n", line);
	cause_line(line, sizeof line, c);
	if (line[0])
		fprintf(f, "%s\n", line);
	inputs_text(f, "base", b);
	inputs_text(f, "new", n);
	machine_line(line, sizeof line, c);
	fprintf(f, "machine: %s\n\n", line);
	char *names = malloc((c->nrows ? c->nrows : 1) * ROW_NAME);
	struct sbt_fit_rows all = { row_at, names, c->nrows };
	if (!names)
		return -1;
	for (size_t i = 0; i < c->nrows; i++)
		row_name(names + i * ROW_NAME, &c->rows[i]);
	/* the longest name, up to 40 columns */
	int w = sbt_fit_width(&all, 40, 40);
	if (w < 6)
		w = 6;
	if (c->nrows)
		fprintf(f, "%-*s %9s %9s %9s  %-21s  %s\n", w, "region",
			"base", "new", "new/base", "interval", "");
	for (size_t i = 0; i < c->nrows; i++)
		row_text(f, c, &all, i, w);
	free(names);
	legend_text(f, c);
	if (c->nrows == 0)
		fprintf(f, "no regions on either side\n");
	fputc('\n', f);
	gate_text(f, c);
	return 0;
}

static void csv_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, ",%.10g", v);
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

/* Row r's estimate: its medians, ratio and interval, and words. */
static void csv_est(FILE *f, const struct sbt_cmp *c,
		    const struct sbt_cmp_row *r)
{
	const struct sbt_cmp_ratio *e = &r->est;
	char line[512];
	int ok = !r->side && e->have;

	csv_num(f, ok ? e->med_b_ns : NAN);
	csv_num(f, ok ? e->med_n_ns : NAN);
	csv_num(f, ok ? e->ratio : NAN);
	csv_num(f, ok ? e->lo : NAN);
	csv_num(f, ok ? e->hi : NAN);
	fprintf(f, ",%s,%s,", !ok ? "" : e->by_runs ? "runs" : "batches",
		est_word(c, r));
	est_sentence(line, sizeof line, c, r);
	sbt_csv_str(f, line);
}

static void report_csv(FILE *f, const struct sbt_cmp *c)
{
	fputs("region,group,present,base_n,new_n,base_slow,new_slow,"
	      "base_runs,new_runs,base_ns,new_ns,base_se_ns,new_se_ns,"
	      "population_resolution_ns,runs_resolution_ns,floor_ns,"
	      "delta_ns,delta_pct,resolution_ns,bound,change,"
	      "norm_delta_ns,norm_delta_pct,norm_resolution_ns,norm_bound,"
	      "norm_change,speed_ratio,distribution,tripped,verdict,"
	      "base_median_ns,new_median_ns,ratio,ratio_lo,ratio_hi,"
	      "interval_units,estimate,estimate_said\n", f);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct sbt_cmp_row *r = &c->rows[i];
		struct said w;
		say_row(&w, c, r);
		sbt_csv_str(f, r->name);
		fputc(',', f);
		char lb[100];
		sbt_csv_str(f, sbt_say_label(&r->label, lb, sizeof lb));
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
		csv_est(f, c, r);
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

static void json_runs(FILE *f, const char *k, const struct sbt_cmp_runs *w)
{
	fprintf(f, "\"%s\":{\"runs\":%d,", k, w->n);
	/* to the ns, as --dump gives the samples' times */
	if (isfinite(w->wall_ns))
		fprintf(f, "\"wall_ns\":%.1f,", w->wall_ns);
	fputs("\"run_wall_ns\":[", f);
	for (int i = 0; i < w->n && w->run_wall_ns; i++)
		fprintf(f, "%s%.1f", i ? "," : "", w->run_wall_ns[i]);
	fputs("],", f);
	sbt_json_num(f, "wall_s", w->wall_ns / 1e9, 0);
	sbt_json_num(f, "wall_min_s", w->wall_min_ns / 1e9, 0);
	sbt_json_num(f, "wall_max_s", w->wall_max_ns / 1e9, 0);
	if (w->os) {
		sbt_json_num(f, "threads_s", w->span_ns / 1e9, 0);
		sbt_json_num(f, "preempted_s", w->preempt_ns / 1e9, 0);
		sbt_json_num(f, "preempted_pct", pct_of(w->preempt_ns,
			     w->span_ns), 0);
		sbt_json_num(f, "off_cpu_own_accord_s", w->sleep_ns / 1e9, 0);
		sbt_json_num(f, "most_preempted_thread_s",
			     w->preempt_max_ns / 1e9, 1);
	} else {
		fputs("\"preempted_pct\":null", f);
	}
	fputc('}', f);
}

static void json_estimate(FILE *f, const struct sbt_cmp *c,
			  const struct sbt_cmp_row *r)
{
	const struct sbt_cmp_ratio *e = &r->est;
	char line[512];

	fputs(",\"estimate\":", f);
	if (r->side || !e->have) {
		fputs("null", f);
		return;
	}
	fputc('{', f);
	sbt_json_num(f, "base_median_ns", e->med_b_ns, 0);
	sbt_json_num(f, "new_median_ns", e->med_n_ns, 0);
	sbt_json_num(f, "ratio", e->ratio, 0);
	sbt_json_num(f, "lo", e->lo, 0);
	sbt_json_num(f, "hi", e->hi, 0);
	sbt_json_num(f, "df", e->df, 0);
	fprintf(f, "\"units\":\"%s\",\"base_units\":%d,\"new_units\":%d,"
		"\"change\":\"%s\",\"said\":", e->by_runs ? "runs" :
		"batches", e->units_b, e->units_n, est_word(c, r));
	est_sentence(line, sizeof line, c, r);
	sbt_json_str(f, line);
	fputc('}', f);
}

static void report_json(FILE *f, const struct sbt_cmp *c,
			const struct sbt_cmp_side *b,
			const struct sbt_cmp_side *n)
{
	char line[512];

	fputs("{\"compare\":{\n", f);
	json_side(f, "base", b, &c->sb);
	json_side(f, "new", n, &c->sn);
	fputs("\"runs\":{", f);
	json_runs(f, "base", &c->wb);
	fputc(',', f);
	json_runs(f, "new", &c->wn);
	runs_line(line, sizeof line, c);
	fputs(",\"note\":", f);
	sbt_json_str(f, line);
	cause_line(line, sizeof line, c);
	fputs(",\"why\":", f);
	sbt_json_str(f, line);
	fprintf(f, ",\"estimated\":%zu,\"by_runs\":%s},\n", c->nest,
		c->by_runs ? "true" : "false");
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
		char lb[100];
		sbt_json_str(f, sbt_say_label(&r->label, lb, sizeof lb));
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
		json_estimate(f, c, r);
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
	runs_line(line, sizeof line, c);
	fputs("</p>\n<p>", f);
	sbt_html_str(f, line);
	cause_line(line, sizeof line, c);
	if (line[0]) {
		fputs("<br>", f);
		sbt_html_str(f, line);
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
		char lb[100];
		if (sbt_say_label(&r->label, lb, sizeof lb)[0]) {
			fputc(' ', f);
			sbt_html_str(f, lb);
		}
		struct said w;
		say_row(&w, c, r);
		fprintf(f, "</h2>\n<p class=\"verdict%s\">",
			r->tripped ? " trip" : "");
		est_sentence(line, sizeof line, c, r);
		sbt_html_str(f, line);
		fputs("<br><small>steady samples' trimmed means (the gate's): ",
		      f);
		sbt_html_str(f, w.verdict);
		fputs("</small></p>\n", f);
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
	return report_text(f, in->c, in->b, in->n) || ferror(f) ? -1 : 0;
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
