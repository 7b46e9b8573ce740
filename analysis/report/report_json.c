/*
 * report_json.c - the analysis as JSON: {"sources": [...], "regions":
 * [...]}, one object per group with stable snake_case names; NAN and
 * infinities become null.
 *
 * Call sites: "callsites" lists every site of the group, most samples
 * first: {function, file, line, module, offset, count, stack}.  function,
 * file and line are the innermost source frame at the marker call (an
 * inlined function when it was inlined); stack is the whole calling
 * context, innermost first, starting with that same frame, inlined
 * frames expanded ("inlined": true: inlined into the next frame).
 */
#include "totals.h"
#include "report_compare.h"
#include "report_util.h"
#include "clause.h"
#include "say.h"
#include "words.h"
#include "report_speed.h"
#include "report_axes.h"
#include "report_counters.h"
#include "sbtlog.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

static void json_sources(FILE *f, const struct sbt_dataset *ds)
{
	fputs("{\"sources\": [", f);
	for (size_t i = 0; i < ds->nsources; i++) {
		const struct sbt_source *s = &ds->sources[i];
		fputs(i ? ",\n  {" : "\n  {", f);
		fputs("\"path\": ", f); sbt_json_str(f, s->path);
		fprintf(f, ", \"csv\": %s, \"pid\": %d, \"rank\": %d, "
			"\"threads\": %u, \"truncated\": %s, \"cycles\": %s, ",
			s->is_csv ? "true" : "false", s->pid, s->rank,
			s->nthreads, s->truncated ? "true" : "false",
			s->has_cycles ? "true" : "false");
		fputs("\"host\": ", f); sbt_json_str(f, s->host);
		fputs(", \"exe\": ", f); sbt_json_str(f, s->exe);
		fputs(", \"cpu_model\": ", f); sbt_json_str(f, s->cpu_model);
		fputs(", \"warning\": ", f); sbt_json_str(f, s->warning);
		fputs(", ", f);
		sbt_json_num(f, "tick_ghz", s->tick_ns > 0 ? 1 / s->tick_ns :
			     NAN, 0);
		sbt_json_num(f, "quantum_ns", s->quantum_ns, 0);
		sbt_json_num(f, "te_ns", s->te_ns, 0);
		sbt_json_num(f, "te_p50_ns", s->te_p50_ns, 0);
		sbt_json_num(f, "te_p999_ns", s->te_p999_ns, 0);
		sbt_json_num(f, "kernel_entry_ns", s->kernel_entry_ns, 0);
		fprintf(f, "\"os_events\": \"%s\", \"os_note\": ",
			sbt_os_state_name(s->os_state));
		sbt_json_str(f, s->os_note);
		fprintf(f, ", \"os_lost\": %llu, ",
			(unsigned long long)s->os_lost);
		fprintf(f, "\"clock_read\": \"%s\", \"cpu_from\": [%s%s%s%s"
			"%s], \"ncpus\": %u, \"log_wait_ns\": %llu, "
			"\"log_late_bytes\": %llu, \"fault_ns\": %.0f, "
			"\"fault_record_ns\": %u, \"fault_rate_max\": %u, "
			"\"os_fault_k\": %u, \"os_faults_sampled\": %llu, ",
			sbt_clock_read_name(s->clock_read),
			s->cpu_from & SBT_CPU_FROM_AUX ? "\"tsc_aux\"" : "",
			s->cpu_from & SBT_CPU_FROM_AUX &&
			s->cpu_from & ~SBT_CPU_FROM_AUX ? ", " : "",
			s->cpu_from & SBT_CPU_FROM_RSEQ ? "\"rseq\"" : "",
			s->cpu_from & SBT_CPU_FROM_RSEQ &&
			s->cpu_from & SBT_CPU_FROM_NONE ? ", " : "",
			s->cpu_from & SBT_CPU_FROM_NONE ? "\"unknown\"" : "",
			s->ncpus, (unsigned long long)s->log_wait_ns,
			(unsigned long long)s->log_late_bytes, s->fault_ns,
			s->fault_record_ns, s->fault_rate_max, s->os_fault_k,
			(unsigned long long)s->os_faults_sampled);
		fprintf(f, "\"max_mb\": %u, \"thin_level\": %u, "
			"\"thin_events\": [", s->max_mb, s->thin_level);
		for (uint32_t k = 1; k <= s->thin_level; k++)
			fprintf(f, "%s{\"t_ms\": %.6f, \"level\": %u}",
				k > 1 ? ", " : "", s->thin_at_ns[k] < 1e299 ?
				s->thin_at_ns[k] * 1e-6 : -1.0, k);
		fputs("], ", f);
		sbt_cnt_json_source(f, ds, i);
		fputs("\"counters\": {", f);
		for (int c = 0, first = 1; c < SBT_CNT__N; c++)
			if (sbt_counter_names[c]) {
				fprintf(f, "%s\"%s\": %llu", first ? "" : ", ",
					sbt_counter_names[c],
					(unsigned long long)s->counters[c]);
				first = 0;
			}
		fputs("}}", f);
	}
	fputs("\n],\n", f);
}

/* A finding's data beyond its size (result.h, FINDINGS.md), as JSON
 * members; the unknown ones left out. */
/* The class word and its size, as the text table's row says them: one
 * renderer (words.c) for every view. */
static void json_class(FILE *f, const struct sbt_group *g)
{
	char size[512];
	struct sbt_strbuf sb = { size, sizeof size, 0 };
	int cl = g->cls;

	size[0] = 0;
	sbt_words_size(&sb, g, cl);
	fputs("\"class\": ", f);
	sbt_json_str(f, sbt_class_word(cl));
	fputs(", \"size\": ", f);
	sbt_json_str(f, size);
	fputs(", ", f);
}

static void json_finding_data(FILE *f, const struct sbt_finding *x)
{
	static const struct { const char *name; size_t off; } num[] = {
		{ "time_share", offsetof(struct sbt_finding, time_share) },
		{ "run_share", offsetof(struct sbt_finding, run_share) },
		{ "var_share", offsetof(struct sbt_finding, var_share) },
		{ "t_ns", offsetof(struct sbt_finding, t_ns) },
		{ "per_event_ns", offsetof(struct sbt_finding, per_event_ns) },
		{ "events", offsetof(struct sbt_finding, events) },
		{ "per_switch_ns", offsetof(struct sbt_finding,
					    per_switch_ns) },
		{ "switches", offsetof(struct sbt_finding, switches) },
		{ "resolution_ns", offsetof(struct sbt_finding,
					    resolution_ns) },
	};

	for (size_t i = 0; i < sizeof num / sizeof num[0]; i++) {
		double v = *(const double *)(const void *)
			   ((const char *)x + num[i].off);
		if (isfinite(v))
			sbt_json_num(f, num[i].name, v, 0);
	}
	if (x->key != SBT_FIND_NOKEY)
		fprintf(f, "\"key\": %u, ", x->key);
	if (x->kind == SBT_FIND_WAIT) {
		/* what the wait is set against, and whose it is */
		if (isfinite(x->extra_ns))
			sbt_json_num(f, "extra_ns", x->extra_ns, 0);
		fprintf(f, "\"cause\": \"%s\", \"long_waits\": %zu, "
			"\"os_waits\": %zu, ", x->flags & SBT_FX_WAIT_OS ?
			"os" : x->flags & SBT_FX_WAIT_UNEXPL ? "unexplained" :
			isfinite(x->extra_ns) ? "share" : "unknown",
			x->long_waits, x->os_waits);
	}
	if (x->kind == SBT_FIND_LEVELS) {
		/* from the lowest level, and whose they are */
		sbt_json_num(f, "from_ns", x->extra_ns, 0);
		fprintf(f, "\"steps\": %s, \"cause\": \"%s\", ",
			x->flags & SBT_FX_STEPS ? "true" : "false",
			x->flags & SBT_FX_BY_OS ? "os" :
			x->flags & SBT_FX_BY_SPEED ? "speed" :
			x->flags & SBT_FX_BY_MEMORY ? "memory" : "unexplained");
	}
	fprintf(f, "\"count\": %zu, \"parts\": %d, \"alarm\": %s, ",
		x->count, x->parts, x->alarm ? "true" : "false");
}

/* The findings and both resolutions of one group, as JSON members. */
static void json_findings(FILE *f, const struct sbt_group *g)
{
	const struct sbt_score *s = &g->score;
	const struct sbt_phases *p = &g->phases;

	sbt_json_num(f, "t_min_paper_ns", s->insitu.n ?
		     s->insitu.t_min_paper_ns : NAN, 0);
	sbt_json_num(f, "t_diff_paper_ns", s->insitu.n ?
		     s->insitu.t_diff_paper_ns : NAN, 0);
	sbt_json_num(f, "shift_resolution_ns", s->shift_resolution_ns, 0);
	sbt_json_num(f, "min_shift_ns", s->min_shift_ns, 0);
	sbt_json_num(f, "trimmed_mean_ns", s->trim_mean_ns, 0);
	sbt_json_num(f, "noise_spread_ns", s->noise_spread_ns, 0);
	sbt_json_num(f, "excess_spread_ns", s->excess_ns, 0);
	sbt_json_num(f, "outside_share", s->outside, 0);
	/* every finding, largest first, the minor ones (under 1 % of the
	 * typical time) after the others and flagged */
	fprintf(f, "\"broad\": %s, \"findings\": %d, \"minor_findings\": "
		"%d, \"finding_list\": [", s->broad ? "true" : "false",
		g->nfindings, g->nfind - g->nfindings);
	for (int k = 0; k < g->nfind; k++) {
		const struct sbt_finding *x = &g->find[k];
		fprintf(f, "%s{\"kind\": \"%s\", ", k ? ", " : "",
			sbt_finding_kind_name(x->kind));
		sbt_json_num(f, "size_ns", x->size_ns, 0);
		sbt_json_num(f, "rel", x->rel, 0);
		json_finding_data(f, x);
		fprintf(f, "\"minor\": %s, \"text\": ", x->minor ? "true" :
			"false");
		char text[SBT_SAY_FINDING_LEN] = "";
		struct sbt_strbuf t = { text, sizeof text, 0 };
		sbt_say_finding(&t, g, x, SBT_SHORT, NULL);
		sbt_json_str(f, text);
		fputc('}', f);
	}
	fputs("], \"steps\": [", f);
	for (int k = 0; k < p->nsteps; k++) {
		const struct sbt_phase *ph = &p->ph[p->step[k]];
		fputs(k ? ", {" : "{", f);
		sbt_json_num(f, "t_ns", ph->t_begin_ns, 0);
		fprintf(f, "\"sample\": %zu, ", ph->first);
		sbt_json_num(f, "from_ns", p->step_from_ns[k], 0);
		sbt_json_num(f, "to_ns", ph->level_ns, 1);
		fputs("}", f);
	}
	fprintf(f, "], \"warmup_samples\": %zu, \"transients\": %d, "
		"\"transient_samples\": %zu, ", p->warmup_n, p->ntransients,
		p->transient_n);
	sbt_json_num(f, "transient_max_rel", p->ntransients ?
		     p->transient_max : NAN, 0);
	fprintf(f, "\"machine_changes\": %d, \"machine_samples\": %zu, "
		"\"processor_samples\": %zu, \"after_probe_samples\": %zu, ",
		g->machine_changes, g->machine_n, g->speed_n, g->after_n);
	fprintf(f, "\"flagged\": %s, ", g->flagged ? "true" : "false");
	sbt_json_num(f, "delta_ns", g->delta_ns, 0);
	sbt_json_num(f, "delta_rel", g->delta_rel, 0);
	sbt_json_num(f, "delta_resolution_ns", g->delta_resolution_ns, 0);
	/* OpenMP, --by thread: the others' wait at the closing barrier */
	if (g->omp_thread >= 0)
		fprintf(f, "\"omp_thread\": %d, ", g->omp_thread);
	if (isfinite(g->others_wait_ns)) {
		sbt_json_num(f, "others_wait_ns", g->others_wait_ns, 0);
		sbt_json_num(f, "others_wait_rel", g->others_wait_rel, 0);
	}
}

/* What the kernel saw of the group's samples, and how the OS-noise
 * filter's cut compares with it; null when no log of it had OS events. */
static void json_os(FILE *f, const struct sbt_group *g, int filter_on)
{
	const struct sbt_group_os *t = &g->os;

	fputs("\"os\": ", f);
	if (!t->covered) {
		fputs("null", f);
		return;
	}
	fprintf(f, "{\"samples\": %zu, \"interrupted\": %zu, \"preempted\": "
		"%zu, \"switches\": %zu, \"faults\": %zu, \"lost\": %zu, "
		"\"left_out\": %zu, \"preempted_own\": %s, "
		"\"filter_agreement\": ", t->covered, t->interrupted,
		t->preempted, t->switches, t->faults, t->lost, t->left_out,
		t->preempted_own ? "true" : "false");
	if (!filter_on) {
		fputs("null}", f);
		return;
	}
	fprintf(f, "{\"cut\": %zu, \"cut_interrupted\": %zu, "
		"\"interrupted_kept\": %zu, \"preempted_kept\": %zu, ",
		t->cut, t->cut_interrupted, t->interrupted_kept,
		t->preempted_kept);
	sbt_json_num(f, "kept_excess_ns", t->kept_excess_ns, 1);
	fputs("}}", f);
}

static void json_phases(FILE *f, const struct sbt_phases *ps)
{
	char line[256];

	fputs("\"phases\": [", f);
	for (int p = 0; p < ps->nphases; p++) {
		const struct sbt_phase *ph = &ps->ph[p];
		fprintf(f, "%s{\"kind\": \"%s\", \"first\": %zu, \"n\": %zu, "
			"\"machine\": %s, ", p ? ", " : "",
			sbt_phase_kind_name(ph->kind), ph->first, ph->n,
			ph->machine ? "true" : "false");
		sbt_json_num(f, "t_begin_ns", ph->t_begin_ns, 0);
		sbt_json_num(f, "t_end_ns", ph->t_end_ns, 0);
		sbt_json_num(f, "level_ns", ph->level_ns, 0);
		sbt_json_num(f, "median_ns", ph->median_ns, 1);
		fputs("}", f);
	}
	sbt_phase_line(ps, line, sizeof line);
	fputs("], \"phase_line\": ", f);
	sbt_json_str(f, line);
}

static void json_group(FILE *f, const struct sbt_dataset *ds,
		       const struct sbt_result *res, const struct sbt_group *g,
		       const struct sbt_report_opts *o)
{
	const struct sbt_region *rg = &ds->regions[g->region];
	const struct sbt_score *s = &g->score;
	char src[48];
	char key[300];

	fputs("\"name\": ", f); sbt_json_str(f, rg->name);
	fprintf(f, ", \"api\": \"%s\", ", sbt_api_name(rg->api));
	if (o->by || o->by_site) {
		sbt_group_key(ds, g, o, key, sizeof key);
		fprintf(f, "\"%s\": ", sbt_by_name(o));
		sbt_json_str(f, key);
		fputs(", ", f);
	}
	fprintf(f, "\"count\": %zu, \"kept\": %zu, \"dropped\": %zu, "
		"\"migrated\": %zu, \"probes\": %zu, ", g->count, g->kept,
		g->dropped, g->migrated, g->probes);
	fputs("\"dropped_by\": {", f);
	for (int i = 0; i < SBT_NDROP; i++)
		fprintf(f, "%s\"%s\": %zu", i ? ", " : "",
			sbt_drop_filters[i]->name, g->dropped_by[i]);
	fputs("}, ", f);
	/* Sparse recording: exact calls, the share recorded, and what the
	 * samples tell about all calls, with its standard error. */
	double total, total_se;
	sbt_group_total(g, &total, &total_se);
	fprintf(f, "\"calls\": %llu, \"recorded\": %zu, ",
		(unsigned long long)g->calls, g->count);
	sbt_json_num(f, "sampled_share", g->calls ? (double)g->count /
		     (double)g->calls : NAN, 0);
	/* the analyzer's own share, beyond its sample budget (thin.h) */
	sbt_json_num(f, "held_share", ds->regions[g->region].keep, 0);
	sbt_json_num(f, "est_total_ns", total, 0);
	sbt_json_num(f, "est_total_se_ns", total_se, 0);
	/* how much of the run: inclusive, without nested regions, and as
	 * a share of the time of the threads it ran on (totals.c) */
	sbt_json_num(f, "total_ns", g->total_ns, 0);
	/* what the verdict judged: the samples the OS filter kept */
	sbt_json_num(f, "kept_ns", g->kept_ns, 0);
	sbt_json_num(f, "excl_ns", g->excl_ns, 0);
	sbt_json_num(f, "thread_ns", g->thread_ns, 0);
	sbt_json_num(f, "share", g->share, 0);
	sbt_json_num(f, "excl_share", g->excl_share, 0);
	fprintf(f, "\"nested\": %s, ", g->nested ? "true" : "false");
	sbt_json_num(f, "cut", g->cut, 0);
	sbt_json_num(f, "te_ns", g->te_ns, 0);
	sbt_json_num(f, "min_ns", g->st.min, 0);
	sbt_json_num(f, "median_ns", g->st.median, 0);
	sbt_json_num(f, "mean_ns", g->st.mean, 0);
	sbt_json_num(f, "std_ns", g->st.std, 0);
	sbt_json_num(f, "cv", g->st.cv, 0);
	sbt_json_num(f, "p99_ns", g->st.p99, 0);
	sbt_json_num(f, "max_ns", g->st.max, 0);
	sbt_json_num(f, "median_cycles", g->cycles_median, 0);
	sbt_json_num(f, "quantum_ns", g->quantum_ns, 0);
	sbt_json_num(f, "t_min_ns", s->t_min_ns, 0);
	sbt_json_num(f, "t_diff_ns", s->t_diff_ns, 0);
	fputs("\"metric_source\": ", f);
	sbt_json_str(f, sbt_metric_source_name(s, src, sizeof src));
	fprintf(f, ", \"resolvable\": %s, \"variation\": %s, ",
		s->resolvable < 0 ? "null" : s->resolvable ? "true" : "false",
		s->variation < 0 ? "null" : s->variation ? "true" : "false");
	sbt_json_num(f, "variation_ns", s->variation_ns, 0);
	sbt_json_num(f, "variation_tdiff", s->variation_tdiff, 0);
	fputs("\"modes\": [", f);
	for (int m = 0; m < s->nmodes; m++) {
		fputs(m ? ", {" : "{", f);
		sbt_json_num(f, "center_ns", s->modes[m].center_ns, 0);
		sbt_json_num(f, "share", s->modes[m].share, 1);
		fputs("}", f);
	}
	fputs("], ", f);
	sbt_json_num(f, "modes_assigned", s->assigned, 0);
	json_findings(f, g);
	json_class(f, g);
	fputs("\"verdict\": ", f);
	char verdict[SBT_SAY_VERDICT_LEN] = "";
	struct sbt_strbuf v = { verdict, sizeof verdict, 0 };
	sbt_say_verdict(&v, g);
	sbt_json_str(f, verdict);
	fprintf(f, ", \"insitu\": {\"n\": %zu, \"screened\": %zu, ",
		s->insitu.n, s->insitu.screened);
	sbt_json_num(f, "t_min_ns", s->insitu.t_min_ns, 0);
	sbt_json_num(f, "t_diff_ns", s->insitu.t_diff_ns, 0);
	sbt_json_num(f, "t_min_paper_ns", s->insitu.t_min_paper_ns, 0);
	sbt_json_num(f, "t_diff_paper_ns", s->insitu.t_diff_paper_ns, 0);
	sbt_json_num(f, "q_alpha_ns", s->insitu.q_alpha, 0);
	sbt_json_num(f, "q_hi_ns", s->insitu.q_hi, 0);
	sbt_json_num(f, "max_ns", s->insitu.max, 1);
	fputs("}, ", f);
	json_os(f, g, (o->filters & SBT_F_OS) != 0);
	fputs(", ", f);
	sbt_cnt_json_group(f, ds, res, g);
	fputs(", ", f);
	json_phases(f, &g->phases);
	fputs(", \"callsites\": ", f);
	sbt_json_callsites(f, ds, res, g, o);
}

/* Shifts shared by several regions at one instant (machine.c). */
static void json_machine(FILE *f, const struct sbt_dataset *ds,
			 const struct sbt_result *res)
{
	for (size_t i = 0; i < res->nev; i++) {
		const struct sbt_machine_event *e = &res->ev[i];
		fprintf(f, "%s{\"source\": %u, ", i ? ",\n  " : "\n  ",
			e->source);
		sbt_json_num(f, "t_ms", e->t_ns / 1e6, 0);
		if (e->cpu != SBT_CPU_UNKNOWN)
			fprintf(f, "\"cpu\": %u, ", e->cpu);
		else
			fputs("\"cpu\": null, ", f);
		sbt_json_num(f, "change", e->change, 0);
		/* the kernel's record: preempted, the OS's */
		fprintf(f, "\"os\": %s, ", e->os ? "true" : "false");
		sbt_json_num(f, "preempted_share", e->pre_slow, 0);
		sbt_json_num(f, "preempted_share_fast", e->pre_fast, 0);
		if (isfinite(e->slow_t0))
			fprintf(f, "\"slow_ms\": [%.9g, %.9g], \"fast_ms\": "
				"[%.9g, %.9g], ", e->slow_t0 / 1e6,
				e->slow_t1 / 1e6, e->fast_t0 / 1e6,
				e->fast_t1 / 1e6);
		/* the second witness: did the speed probes see it? */
		fprintf(f, "\"speed_probes\": %s, ", !res->ev_probes ||
			res->ev_probes[i] < 0 ? "null" : res->ev_probes[i] ?
			"\"agree\"" : "\"held\"");
		fprintf(f, "\"nregions\": %d, \"regions\": [", e->nregions);
		for (int r = 0; r < e->nregions && r < SBT_MACHINE_MAX_REGIONS;
		     r++) {
			fputs(r ? ", " : "", f);
			sbt_json_str(f, ds->regions[e->regions[r]].name);
		}
		fputs("]}", f);
	}
}

static int write_json(FILE *f, const struct sbt_report_in *in)
{
	const struct sbt_dataset *ds = in->ds;
	const struct sbt_result *res = in->res;
	const struct sbt_report_opts *o = in->o;

	json_sources(f, ds);
	fputs("\"callsite_notes\": [", f);
	for (size_t i = 0; o->cs && i < o->cs->nnotes; i++) {
		fputs(i ? ", " : "", f);
		sbt_json_str(f, o->cs->notes[i]);
	}
	fputs("],\n\"regions\": [", f);
	for (size_t i = 0; i < res->ngroups; i++) {
		fputs(i ? ",\n  {" : "\n  {", f);
		json_group(f, ds, res, &res->g[i], o);
		fputs("}", f);
	}
	fputs("\n],\n\"machine_events\": [", f);
	json_machine(f, ds, res);
	fputs("\n],\n", f);
	sbt_speed_json(f, ds, res);
	sbt_axes_json(f, ds, res);
	fputs("}\n", f);
	return ferror(f) ? -1 : 0;
}

const struct sbt_report_format sbt_format_json = {
	.name = "json", .write = write_json, .compare = sbt_compare_json,
};
