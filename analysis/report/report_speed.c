/*
 * report_speed.c - the processor's own speed, in every format.
 *
 * First in each report, because it changes how everything after it
 * reads: the samples a processor shift covers are not the code's, and
 * each region's verdict left them out (score/speed.c).
 */
#include "report_speed.h"
#include "plot.h"
#include "report_util.h"
#include "words.h"
#include "sbtlog.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The shift's window as people read it: ms from the log's start. */
static void window(const struct sbt_speed_shift *h, double *a, double *b)
{
	*a = isfinite(h->t0_ns) ? h->t0_ns / 1e6 : 0;
	*b = (isfinite(h->t1_ns) ? h->t1_ns : h->last_ns) / 1e6;
	if (*a < 0)
		*a = 0;
}

static void shift_text(FILE *f, const struct sbt_dataset *ds,
		       const struct sbt_speed_shift *h, int os)
{
	const struct sbt_source *src = &ds->sources[h->source];
	double a, b;

	window(h, &a, &b);
	fputs(os ? "OS, not the processor: " : "processor: ", f);
	if (ds->nsources > 1)
		fprintf(f, "%s: ", src->path);
	if (h->thread == SBT_SPEED_ALL_THREADS)
		fprintf(f, "cpu %u (the probes of %u thread%s there) ", h->cpu,
			h->nthreads, h->nthreads == 1 ? "" : "s");
	else if (src->nthreads > 1)
		fprintf(f, "thread %u%s", h->thread,
			h->cpu != SBT_CPU_UNKNOWN ? " on " : " ");
	if (h->thread != SBT_SPEED_ALL_THREADS && h->cpu != SBT_CPU_UNKNOWN)
		fprintf(f, "cpu %u ", h->cpu);
	fprintf(f, "ran %.0f %% %s from %.1f to %.1f ms (%zu probes",
		100 * fabs(h->rel), h->rel > 0 ? "slower" : "faster", a, b,
		h->probes);
	if (os) {
		fprintf(f, "; %.0f %% of the samples there preempted or "
			"waiting on a preempted thread: another task shared "
			"the cpu)\n", 100 * h->os_share);
		return;
	}
	if (h->nregions) {
		fputs("; region", f);
		fputs(h->nregions > 1 ? "s " : " ", f);
		for (int r = 0; r < h->nregions; r++)
			fprintf(f, "%s%s", r ? ", " : "",
				ds->regions[h->regions[r]].name);
		fprintf(f, ": %zu %s left out", h->samples,
			sbt_plural(h->samples, "sample", "samples"));
	}
	/* a shift they denied is not shown: "probes disagree", once */
	if (h->regions_agree > 0)
		fputs("; the regions moved together: they agree", f);
	fputs(")\n", f);
}

void sbt_speed_text(FILE *f, const struct sbt_dataset *ds,
		    const struct sbt_result *res)
{
	const struct sbt_speed *sp = &res->speed;
	size_t shown = 0;

	if (!sp->probes)
		return;
	fputc('\n', f);
	for (size_t k = 0; k < sp->nsh + sp->ncsh; k++) {
		if (shown++ == 20) {
			fprintf(f, "processor: ... %zu more shifts\n",
				sp->nsh + sp->ncsh - k);
			break;
		}
		shift_text(f, ds, k < sp->nsh ? &sp->sh[k] :
			   &sp->csh[k - sp->nsh], 0);
	}
	for (size_t k = 0; k < sp->nosh && k < 20; k++)
		shift_text(f, ds, &sp->osh[k], 1);
	if (!sp->nsh && !sp->ncsh && sp->nosh)
		fprintf(f, "processor: no shift of its own");
	else if (!sp->nsh && !sp->ncsh)
		fprintf(f, "processor: no shift of its speed");
	else
		fputs("processor: otherwise steady", f);
	if (isfinite(sp->resolution_rel))
		fprintf(f, " (%zu speed %s every %.0f us; they resolve "
			"%.1f %%)\n", sp->probes,
			sbt_plural(sp->probes, "probe", "probes"), sp->cadence_us,
			100 * sp->resolution_rel);
	else
		fprintf(f, " (%zu speed %s: %s)\n", sp->probes,
			sbt_plural(sp->probes, "probe", "probes"),
			sp->unusable ? "none usable" :
			"too few for a timeline");
	if (sp->unusable)
		fprintf(f, "processor: %zu probe timeline%s unusable for this "
			"run: they resolve only %.0f %% (%s)\n", sp->unusable,
			sp->unusable == 1 ? "" : "s", 100 * sp->unusable_rel,
			sp->unusable_cause == SBT_SPEED_COARSE ?
			"a probe lasts too few clock ticks" : "the probes "
			"vary: timed on a busy memory system or a shared "
			"core");
	if (sp->ndisagree)
		fprintf(f, "processor: probes disagree: %zu shift%s of the "
			"probes left out, the regions there did not move "
			"with them\n", sp->ndisagree,
			sp->ndisagree == 1 ? "" : "s");
	for (size_t u = 0; u < sp->nun; u++) {
		const struct sbt_speed_unit *x = &sp->un[u];
		if (!isfinite(x->delta_rel))
			continue;
		fprintf(f, "processor: %s ", sp->by == 1 ? "cpu" : "host");
		if (sp->by == 1)
			fprintf(f, "%u", x->key);
		else
			fputs(ds->sources[x->key].host, f);
		fprintf(f, " probes %.1f %% %s than the others' median "
			"(%zu %s; resolution %.1f %%)%s\n",
			100 * fabs(x->delta_rel), x->delta_rel > 0 ? "slower" :
			"faster", x->probes, sbt_plural(x->probes, "probe",
			"probes"), 100 * x->resolution_rel,
			x->flagged ? ": a slower processor" : "");
	}
}

/* A list of shifts, "key": [...]; a cpu's has "thread": null and the
 * number of threads whose probes it holds. */
static void shifts_json(FILE *f, const struct sbt_dataset *ds,
			const char *key, const struct sbt_speed_shift *sh,
			size_t n)
{
	fprintf(f, "\"%s\": [", key);
	for (size_t k = 0; k < n; k++) {
		const struct sbt_speed_shift *h = &sh[k];
		double a, b;
		window(h, &a, &b);
		fprintf(f, "%s{\"source\": %u, ", k ? ", " : "", h->source);
		sbt_json_num(f, "t_ms", a, 0);
		sbt_json_num(f, "dur_ms", b - a, 0);
		if (h->thread == SBT_SPEED_ALL_THREADS)
			fputs("\"thread\": null, ", f);
		else
			fprintf(f, "\"thread\": %u, ", h->thread);
		fprintf(f, "\"threads\": %u, ", h->nthreads);
		if (h->cpu != SBT_CPU_UNKNOWN)
			fprintf(f, "\"cpu\": %u, ", h->cpu);
		else
			fputs("\"cpu\": null, ", f);
		sbt_json_num(f, "rel", h->rel, 0);
		sbt_json_num(f, "os_share", h->os_share, 0);
		fprintf(f, "\"probes\": %zu, \"samples\": %zu, "
			"\"coincidence\": %s, \"regions\": [", h->probes,
			h->samples, h->regions_agree < 0 ? "null" :
			h->regions_agree ? "\"agree\"" : "\"disagree\"");
		for (int r = 0; r < h->nregions; r++) {
			fputs(r ? ", " : "", f);
			sbt_json_str(f, ds->regions[h->regions[r]].name);
		}
		fputs("]}", f);
	}
	fputs("]", f);
}

void sbt_speed_json(FILE *f, const struct sbt_dataset *ds,
		    const struct sbt_result *res)
{
	const struct sbt_speed *sp = &res->speed;

	fprintf(f, "\"processor\": {\"probes\": %zu, ", sp->probes);
	sbt_json_num(f, "cadence_us", sp->probes ? sp->cadence_us : NAN, 0);
	sbt_json_num(f, "resolution_rel", sp->resolution_rel, 0);
	shifts_json(f, ds, "shifts", sp->sh, sp->nsh);
	fputs(", ", f);
	shifts_json(f, ds, "cpu_shifts", sp->csh, sp->ncsh);
	fputs(", ", f);
	shifts_json(f, ds, "os_shifts", sp->osh, sp->nosh);
	fputs(", \"cpus\": [", f);
	for (size_t i = 0; i < sp->nct; i++) {
		const struct sbt_speed_thread *t = &sp->ct[i];
		fprintf(f, "%s{\"source\": %u, \"cpu\": %u, \"probes\": %zu, ",
			i ? ", " : "", t->source, t->cpu, t->probes);
		sbt_json_num(f, "normal_ns", t->normal_ns, 0);
		sbt_json_num(f, "resolution_rel", t->resolution_rel, 0);
		fprintf(f, "\"levels\": %d}", t->nlevels);
	}
	fputs("], \"threads\": [", f);
	for (size_t i = 0; i < sp->nth; i++) {
		const struct sbt_speed_thread *t = &sp->th[i];
		fprintf(f, "%s{\"source\": %u, \"thread\": %u, \"probes\": %zu, ",
			i ? ", " : "", t->source, t->thread, t->probes);
		sbt_json_num(f, "normal_ns", t->normal_ns, 0);
		sbt_json_num(f, "resolution_rel", t->resolution_rel, 0);
		fprintf(f, "\"levels\": %d}", t->nlevels);
	}
	fprintf(f, "], \"by\": %s, \"units\": [", sp->by == 1 ? "\"cpu\"" :
		sp->by == 2 ? "\"host\"" : "null");
	for (size_t u = 0; u < sp->nun; u++) {
		const struct sbt_speed_unit *x = &sp->un[u];
		fputs(u ? ", {" : "{", f);
		if (sp->by == 1) {
			fprintf(f, "\"cpu\": %u, ", x->key);
		} else {
			fputs("\"host\": ", f);
			sbt_json_str(f, ds->sources[x->key].host);
			fputs(", ", f);
		}
		fprintf(f, "\"probes\": %zu, ", x->probes);
		sbt_json_num(f, "level_ns", x->level_ns, 0);
		sbt_json_num(f, "delta_rel", x->delta_rel, 0);
		sbt_json_num(f, "resolution_rel", x->resolution_rel, 0);
		fprintf(f, "\"flagged\": %s}", x->flagged ? "true" : "false");
	}
	fputs("]}", f);
}

const char *sbt_speed_state(const struct sbt_sample *s, unsigned mark)
{
	if (s->flags & SBT_SF_PROBE)
		return "probe";
	if ((s->flags & SBT_SF_BEFORE_RESET) || (mark & SBT_MK_DROPPED))
		return "dropped";
	if (mark & SBT_MK_SPEED)
		return "processor";
	if (mark & SBT_MK_MACHINE)
		return "machine";
	if (mark & SBT_MK_AFTER_PROBE)
		return "after_probe";
	if (mark & SBT_MK_TRANSIENT)
		return "transient";
	return "own";
}

/* ---- HTML ------------------------------------------------------------ */

#define FIG_W 640
#define FIG_H 90

/* One thread's probes p[0..n) (time order) as relative speed over time,
 * its shifts shaded. */
static void thread_figure(FILE *f, const struct sbt_dataset *ds,
			  const struct sbt_speed *sp,
			  const struct sbt_speed_thread *th,
			  const struct sbt_probe *p, size_t n)
{
	double t0 = p[0].t_ns, t1 = p[n - 1].t_ns, span = t1 > t0 ? t1 - t0 : 1;
	double lo = 0.5, hi = 1.5;     /* speed relative to normal */

	fprintf(f, "<figure><figcaption>thread %u", th->thread);
	if (ds->nsources > 1)
		fprintf(f, " of %s", ds->sources[th->source].path);
	/* the strip spans the page's width whatever it is: stretched
	 * along x only, its lines kept one pixel wide */
	fprintf(f, ": speed (normal probe / probe), %zu probes, resolution "
		"%.1f %%</figcaption>\n<svg viewBox=\"0 0 %d %d\" "
		"preserveAspectRatio=\"none\" class=\"speed\" style=\""
		"display:block;width:100%%;height:%dpx\">", th->probes,
		100 * th->resolution_rel, FIG_W, FIG_H, FIG_H);
	for (size_t k = 0; k < sp->nsh; k++) {
		const struct sbt_speed_shift *h = &sp->sh[k];
		if (h->source != th->source || h->thread != th->thread)
			continue;
		double a = isfinite(h->t0_ns) ? h->t0_ns : t0;
		double b = isfinite(h->t1_ns) ? h->t1_ns : t1;
		fprintf(f, "<rect x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"%d\" "
			"fill=\"#fbb\"><title>%.0f %% %s</title></rect>",
			(a - t0) / span * FIG_W, (b - a) / span * FIG_W + 1,
			FIG_H, 100 * fabs(h->rel), h->rel > 0 ? "slower" :
			"faster");
	}
	fprintf(f, "<line x1=\"0\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"#888\" vector-effect=\"non-scaling-stroke\"/>",
		FIG_W, FIG_H / 2.0, FIG_H / 2.0);
	fputs("<path fill=\"none\" stroke=\"#246\" "
	      "vector-effect=\"non-scaling-stroke\" d=\"", f);
	/* a pause in the thread's marking (no probes for 4 cadences)
	 * breaks the line: no slope drawn across it */
	double pause = 4e3 * (sp->cadence_us > 0 ? sp->cadence_us :
			     SBT_SPEED_US_DEFAULT);
	for (size_t i = 0; i < n; i++) {
		double s = th->normal_ns / p[i].ns;
		s = s < lo ? lo : s > hi ? hi : s;
		fprintf(f, "%c%.1f %.1f", i && p[i].t_ns - p[i - 1].t_ns <=
			pause ? 'L' : 'M',
			(p[i].t_ns - t0) / span * FIG_W,
			(hi - s) / (hi - lo) * FIG_H);
	}
	fprintf(f, "\"/></svg><small style=\"display:block\">%.1f ms to "
		"%.1f ms; middle line: the "
		"normal speed, top 1.5x, bottom 0.5x</small></figure>\n",
		t0 / 1e6, t1 / 1e6);
}

void sbt_speed_html(FILE *f, const struct sbt_dataset *ds,
		    const struct sbt_result *res)
{
	const struct sbt_speed *sp = &res->speed;

	if (!sp->probes)
		return;
	fputs("<section id=\"processor\"><h2>Processor</h2><p>The speed "
	      "probes: a fixed register-only workload timed every ", f);
	fprintf(f, "%.0f us of each thread's marking. Shaded: the processor "
		"ran off its normal speed; the regions' samples then are the "
		"processor's, left out of their verdicts.</p>\n",
		sp->cadence_us);
	/* the shifts in words first, as the text report gives them */
	size_t nall = sp->nsh + sp->ncsh + sp->nosh;
	if (nall) {
		fputs("<ul class=\"findings\">\n", f);
		for (size_t i = 0; i < nall && i < 20; i++) {
			char *line = NULL;
			size_t len = 0;
			FILE *m = open_memstream(&line, &len);
			if (!m)
				break;
			size_t c = i - sp->nsh, o = c - sp->ncsh;
			shift_text(m, ds, i < sp->nsh ? &sp->sh[i] :
				   c < sp->ncsh ? &sp->csh[c] : &sp->osh[o],
				   i >= sp->nsh + sp->ncsh);
			fclose(m);
			fputs("<li class=\"slow\">", f);
			sbt_html_str(f, line);
			fputs("</li>\n", f);
			free(line);
		}
		if (nall > 20)
			fprintf(f, "<li>and %zu more shifts</li>\n",
				nall - 20);
		fputs("</ul>\n", f);
	} else {
		fputs("<p>No shift of the processor's speed beyond the probes' "
		      "resolution.</p>\n", f);
	}
	for (size_t i = 0, a = 0; i < sp->nth; i++) {
		const struct sbt_speed_thread *th = &sp->th[i];
		/* ds->probes are sorted by source, thread (speed.c) */
		while (a < ds->nprobes && (ds->probes[a].source != th->source ||
		       ds->probes[a].thread != th->thread))
			a++;
		size_t b = a;
		while (b < ds->nprobes && ds->probes[b].source == th->source &&
		       ds->probes[b].thread == th->thread)
			b++;
		if (b > a && isfinite(th->normal_ns))
			thread_figure(f, ds, sp, th, ds->probes + a, b - a);
		a = b;
	}
	fputs("</section>\n", f);
}
