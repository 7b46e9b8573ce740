/*
 * report.c - the three output formats of sbt-analyze.
 *
 * Text is for people: a short description of each input, then one table
 * row per region (or group).  CSV has one row per group and a header row.
 * JSON is {"sources": [...], "regions": [...]}, one object per group with
 * stable snake_case field names; NAN and infinities become null.
 */
#include "report.h"
#include "symbolize.h"
#include "../format/sbtlog.h"

#include <math.h>
#include <string.h>

static const char *api_names[SBT_API__N] = {
	"sbtmark", "likwid", "papi-hl", "itt", "nvtx", "internal"
};

const char *sbt_api_name(unsigned api)
{
	return api < SBT_API__N ? api_names[api] : "?";
}

static const char *by_name(enum sbt_by by)
{
	static const char *n[] = { "", "thread", "cpu", "rank", "host" };
	return n[by];
}

static void group_key(const struct sbt_dataset *ds, const struct sbt_group
		      *g, enum sbt_by by, char *out, size_t n)
{
	switch (by) {
	case SBT_BY_THREAD:
		if (ds->nsources > 1)
			snprintf(out, n, "%d/%u", ds->sources[g->source].rank
				 >= 0 ? ds->sources[g->source].rank :
				 ds->sources[g->source].pid, g->key);
		else
			snprintf(out, n, "%u", g->key);
		break;
	case SBT_BY_CPU:
		if (g->key == 0xffff)
			snprintf(out, n, "?");
		else
			snprintf(out, n, "%u", g->key);
		break;
	case SBT_BY_RANK: snprintf(out, n, "%u", g->key); break;
	case SBT_BY_HOST:
		snprintf(out, n, "%s", ds->sources[g->key].host);
		break;
	default: out[0] = 0;
	}
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_num(FILE *f, const char *k, double v, int last)
{
	fprintf(f, "\"%s\": ", k);
	if (isfinite(v))
		fprintf(f, "%.6g", v);
	else
		fputs("null", f);
	fputs(last ? "" : ", ", f);
}

static void csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static const char *counter_names[SBT_CNT__N] = {
	"stop_without_start", "start_of_open_region", "crossed_nesting",
	"bad_name", "too_deep", "too_many_regions", "dropped",
	"after_close", "signal_reentry", "open_at_thread_exit", "threads",
};

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
		fprintf(f, "#   clock: %.4f GHz wall, quantum %.1f ns, "
			"t_e,std %.1f ns (p50 %.1f, p99.9 %.1f); %s\n",
			1.0 / s->tick_ns, s->quantum_ns, s->te_ns,
			s->te_p50_ns, s->te_p999_ns,
			s->has_cycles ? "cycles recorded" :
			"wall clock only (no usable cycle counter)");
		for (int c = 0; c < SBT_CNT__N; c++)
			if (s->counters[c] && c != SBT_CNT_THREADS &&
			    counter_names[c])
				fprintf(f, "#   warning: %s: %llu\n",
					counter_names[c],
					(unsigned long long)s->counters[c]);
		if (s->warning[0])
			fprintf(f, "#   warning: %s\n", s->warning);
	}
}

/* "at 20.9 ms, 4 regions on cpu 1 slowed 3 %: the machine, not the code" */
static void text_machine(FILE *f, const struct sbt_dataset *ds,
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
		fprintf(f, "  ");
		if (ds->nsources > 1)
			fprintf(f, "%s: ", ds->sources[e->source].path);
		if (e->nregions == 2)
			fprintf(f, "at %.4g ms, both regions", e->t_ns / 1e6);
		else
			fprintf(f, "at %.4g ms, all %d regions", e->t_ns / 1e6,
				e->nregions);
		if (e->cpu != SBT_CPU_UNKNOWN)
			fprintf(f, " on cpu %u", e->cpu);
		fprintf(f, " %s %.0f %% (", e->change > 0 ? "slowed" :
			"sped up", 100 * fabs(e->change));
		for (int r = 0; r < e->nregions && r < SBT_MACHINE_MAX_REGIONS;
		     r++)
			fprintf(f, "%s%s", r ? ", " : "",
				ds->regions[e->regions[r]].name);
		fprintf(f, "%s): the machine, not the code\n",
			e->nregions > SBT_MACHINE_MAX_REGIONS ? ", ..." : "");
	}
}

static void text_report(FILE *f, const struct sbt_dataset *ds,
			const struct sbt_result *res,
			const struct sbt_report_opts *o)
{
	size_t w = 6;
	char key[96];

	text_sources(f, ds);
	for (size_t i = 0; i < res->ngroups; i++) {
		size_t l = strlen(ds->regions[res->g[i].region].name);
		if (l > w) w = l;
	}
	if (w > 40) w = 40;
	fprintf(f, "\n%-*s ", (int)w, "region");
	if (o->by)
		fprintf(f, "%8s ", by_name(o->by));
	fprintf(f, "%9s %9s %10s %10s %10s %9s %7s %10s %10s\n", "count",
		"kept", "min ns", "median ns", "mean ns", "std ns", "CV",
		"p99 ns", "max ns");
	for (size_t i = 0; i < res->ngroups; i++) {
		const struct sbt_group *g = &res->g[i];
		fprintf(f, "%-*.*s ", (int)w, (int)w,
			ds->regions[g->region].name);
		if (o->by) {
			group_key(ds, g, o->by, key, sizeof key);
			fprintf(f, "%8s ", key);
		}
		fprintf(f, "%9zu %9zu %10.1f %10.1f %10.1f %9.1f %7.4f "
			"%10.1f %10.1f\n", g->count, g->kept, g->st.min,
			g->st.median, g->st.mean, g->st.std, g->st.cv,
			g->st.p99, g->st.max);
	}
	text_machine(f, ds, res);
	fprintf(f, "\nverdicts (findings first; t_diff: the smallest difference "
		"one sample tells apart,\n  t_min: the shortest region one "
		"sample times to 1 %%):\n");
	for (size_t i = 0; i < res->ngroups; i++) {
		const struct sbt_group *g = &res->g[i];
		char a[32], b[32];
		fprintf(f, "  %-*.*s ", (int)w, (int)w,
			ds->regions[g->region].name);
		if (o->by) {
			group_key(ds, g, o->by, key, sizeof key);
			fprintf(f, "%8s ", key);
		}
		(void)a; (void)b;
		fprintf(f, "%s [%s]\n", g->verdict, g->score.metric_source);
	}
	if (o->symbols) {
		int any = 0;
		for (size_t r = 0; r < ds->nregions; r++) {
			const struct sbt_region *rg = &ds->regions[r];
			char sym[512];
			if (!rg->site || rg->source >= ds->nsources ||
			    sbt_symbolize(&ds->sources[rg->source], rg->site,
					  sym, sizeof sym) != 0)
				continue;
			if (!any++)
				fprintf(f, "\ncall sites:\n");
			fprintf(f, "  %-*s %s [%s]\n", (int)w, rg->name, sym,
				sbt_api_name(rg->api));
		}
		sbt_symbolize_end();
	}
}

static void csv_report(FILE *f, const struct sbt_dataset *ds,
		       const struct sbt_result *res,
		       const struct sbt_report_opts *o)
{
	char key[96];

	fprintf(f, "region,api,%s%scount,kept,dropped,min_ns,median_ns,"
		"mean_ns,std_ns,cv,p99_ns,max_ns,migrated,probes,t_min_ns,"
		"t_diff_ns,metric_source,resolvable,variation_ns,"
		"variation_tdiff,modes,verdict,phases,t_min_paper_ns,"
		"t_diff_paper_ns,shift_resolution_ns,steps,warmup_n,"
		"transient_n,flagged,delta_ns\n",
		by_name(o->by), o->by ? "," : "");
	for (size_t i = 0; i < res->ngroups; i++) {
		const struct sbt_group *g = &res->g[i];
		csv_str(f, ds->regions[g->region].name);
		fprintf(f, ",%s,", sbt_api_name(ds->regions[g->region].api));
		if (o->by) {
			group_key(ds, g, o->by, key, sizeof key);
			csv_str(f, key);
			fputc(',', f);
		}
		fprintf(f, "%zu,%zu,%zu,%.3f,%.3f,%.3f,%.3f,%.6f,%.3f,%.3f,"
			"%zu,%zu,%.3f,%.3f,%s,%d,%.3f,%.3f,", g->count, g->kept,
			g->dropped, g->st.min, g->st.median, g->st.mean,
			g->st.std, g->st.cv, g->st.p99, g->st.max,
			g->migrated, g->probes, g->score.t_min_ns,
			g->score.t_diff_ns, g->score.metric_source,
			g->score.resolvable, g->score.variation_ns,
			g->score.variation_tdiff);
		char modes[512] = "", line[256];
		for (int m = 0, n = 0; m < g->score.nmodes; m++)
			n += snprintf(modes + n, sizeof modes - (size_t)n,
				      "%s%.1f:%.3f", m ? ";" : "",
				      g->score.modes[m].center_ns,
				      g->score.modes[m].share);
		csv_str(f, modes);
		fputc(',', f);
		csv_str(f, g->verdict);
		fputc(',', f);
		sbt_phase_line(&g->phases, line, sizeof line);
		csv_str(f, line);
		fprintf(f, ",%.3f,%.3f,%.4f,%d,%zu,%zu,%d,%.3f\n",
			g->score.insitu.t_min_paper_ns,
			g->score.insitu.t_diff_paper_ns,
			g->score.shift_resolution_ns, g->phases.nsteps,
			g->phases.warmup_n, g->phases.transient_n, g->flagged,
			g->delta_ns);
	}
}

/* The findings and both resolutions of one group, as JSON members. */
static void json_findings(FILE *f, const struct sbt_group *g)
{
	const struct sbt_score *s = &g->score;
	const struct sbt_phases *p = &g->phases;

	json_num(f, "t_min_paper_ns", s->insitu.n ? s->insitu.t_min_paper_ns
						  : NAN, 0);
	json_num(f, "t_diff_paper_ns", s->insitu.n ?
		 s->insitu.t_diff_paper_ns : NAN, 0);
	json_num(f, "shift_resolution_ns", s->shift_resolution_ns, 0);
	json_num(f, "min_shift_ns", s->min_shift_ns, 0);
	json_num(f, "trimmed_mean_ns", s->trim_mean_ns, 0);
	json_num(f, "noise_spread_ns", s->noise_spread_ns, 0);
	json_num(f, "excess_spread_ns", s->excess_ns, 0);
	fprintf(f, "\"broad\": %s, \"findings\": %d, \"steps\": [",
		s->broad ? "true" : "false", g->nfindings);
	for (int k = 0; k < p->nsteps; k++) {
		const struct sbt_phase *ph = &p->ph[p->step[k]];
		fputs(k ? ", {" : "{", f);
		json_num(f, "t_ns", ph->t_begin_ns, 0);
		fprintf(f, "\"sample\": %zu, ", ph->first);
		json_num(f, "from_ns", p->step_from_ns[k], 0);
		json_num(f, "to_ns", ph->level_ns, 1);
		fputs("}", f);
	}
	fprintf(f, "], \"warmup_samples\": %zu, \"transients\": %d, "
		"\"transient_samples\": %zu, ", p->warmup_n, p->ntransients,
		p->transient_n);
	json_num(f, "transient_max_rel", p->ntransients ? p->transient_max :
		 NAN, 0);
	fprintf(f, "\"machine_changes\": %d, \"machine_samples\": %zu, ",
		g->machine_changes, g->machine_n);
	fprintf(f, "\"flagged\": %s, ", g->flagged ? "true" : "false");
	json_num(f, "delta_ns", g->delta_ns, 0);
	json_num(f, "delta_rel", g->delta_rel, 0);
	json_num(f, "delta_resolution_ns", g->delta_resolution_ns, 0);
}

static void json_report(FILE *f, const struct sbt_dataset *ds,
			const struct sbt_result *res,
			const struct sbt_report_opts *o)
{
	char key[96], sym[512];

	fputs("{\"sources\": [", f);
	for (size_t i = 0; i < ds->nsources; i++) {
		const struct sbt_source *s = &ds->sources[i];
		fputs(i ? ",\n  {" : "\n  {", f);
		fputs("\"path\": ", f); json_str(f, s->path);
		fprintf(f, ", \"csv\": %s, \"pid\": %d, \"rank\": %d, "
			"\"threads\": %u, \"truncated\": %s, \"cycles\": %s, ",
			s->is_csv ? "true" : "false", s->pid, s->rank,
			s->nthreads, s->truncated ? "true" : "false",
			s->has_cycles ? "true" : "false");
		fputs("\"host\": ", f); json_str(f, s->host);
		fputs(", \"exe\": ", f); json_str(f, s->exe);
		fputs(", \"cpu_model\": ", f); json_str(f, s->cpu_model);
		fputs(", \"warning\": ", f); json_str(f, s->warning);
		fputs(", ", f);
		json_num(f, "tick_ghz", s->tick_ns > 0 ? 1 / s->tick_ns : NAN,
			 0);
		json_num(f, "quantum_ns", s->quantum_ns, 0);
		json_num(f, "te_ns", s->te_ns, 0);
		json_num(f, "te_p50_ns", s->te_p50_ns, 0);
		json_num(f, "te_p999_ns", s->te_p999_ns, 0);
		json_num(f, "kernel_entry_ns", s->kernel_entry_ns, 0);
		fputs("\"counters\": {", f);
		for (int c = 0, first = 1; c < SBT_CNT__N; c++)
			if (counter_names[c]) {
				fprintf(f, "%s\"%s\": %llu", first ? "" : ", ",
					counter_names[c],
					(unsigned long long)s->counters[c]);
				first = 0;
			}
		fputs("}}", f);
	}
	fputs("\n],\n\"regions\": [", f);
	for (size_t i = 0; i < res->ngroups; i++) {
		const struct sbt_group *g = &res->g[i];
		const struct sbt_region *rg = &ds->regions[g->region];
		fputs(i ? ",\n  {" : "\n  {", f);
		fputs("\"name\": ", f); json_str(f, rg->name);
		fprintf(f, ", \"api\": \"%s\", ", sbt_api_name(rg->api));
		if (o->by) {
			group_key(ds, g, o->by, key, sizeof key);
			fprintf(f, "\"%s\": ", by_name(o->by));
			json_str(f, key);
			fputs(", ", f);
		}
		fprintf(f, "\"count\": %zu, \"kept\": %zu, \"dropped\": %zu, "
			"\"migrated\": %zu, \"probes\": %zu, ", g->count,
			g->kept, g->dropped, g->migrated, g->probes);
		json_num(f, "cut", g->cut, 0);
		json_num(f, "te_ns", g->te_ns, 0);
		json_num(f, "min_ns", g->st.min, 0);
		json_num(f, "median_ns", g->st.median, 0);
		json_num(f, "mean_ns", g->st.mean, 0);
		json_num(f, "std_ns", g->st.std, 0);
		json_num(f, "cv", g->st.cv, 0);
		json_num(f, "p99_ns", g->st.p99, 0);
		json_num(f, "max_ns", g->st.max, 0);
		json_num(f, "median_cycles", g->cycles_median, 0);
		json_num(f, "quantum_ns", g->quantum_ns, 0);
		json_num(f, "t_min_ns", g->score.t_min_ns, 0);
		json_num(f, "t_diff_ns", g->score.t_diff_ns, 0);
		fputs("\"metric_source\": ", f);
		json_str(f, g->score.metric_source);
		fprintf(f, ", \"resolvable\": %s, \"variation\": %s, ",
			g->score.resolvable < 0 ? "null" :
			g->score.resolvable ? "true" : "false",
			g->score.variation < 0 ? "null" :
			g->score.variation ? "true" : "false");
		json_num(f, "variation_ns", g->score.variation_ns, 0);
		json_num(f, "variation_tdiff", g->score.variation_tdiff, 0);
		fputs("\"modes\": [", f);
		for (int m = 0; m < g->score.nmodes; m++) {
			fputs(m ? ", {" : "{", f);
			json_num(f, "center_ns", g->score.modes[m].center_ns, 0);
			json_num(f, "share", g->score.modes[m].share, 1);
			fputs("}", f);
		}
		fputs("], ", f);
		json_num(f, "modes_assigned", g->score.assigned, 0);
		json_findings(f, g);
		fputs("\"verdict\": ", f);
		json_str(f, g->verdict);
		fprintf(f, ", \"insitu\": {\"n\": %zu, \"screened\": %zu, ",
			g->score.insitu.n, g->score.insitu.screened);
		json_num(f, "t_min_ns", g->score.insitu.t_min_ns, 0);
		json_num(f, "t_diff_ns", g->score.insitu.t_diff_ns, 0);
		json_num(f, "t_min_paper_ns", g->score.insitu.t_min_paper_ns, 0);
		json_num(f, "t_diff_paper_ns", g->score.insitu.t_diff_paper_ns,
			 0);
		json_num(f, "q_alpha_ns", g->score.insitu.q_alpha, 0);
		json_num(f, "q_hi_ns", g->score.insitu.q_hi, 0);
		json_num(f, "max_ns", g->score.insitu.max, 1);
		fputs("}, \"phases\": [", f);
		for (int p = 0; p < g->phases.nphases; p++) {
			const struct sbt_phase *ph = &g->phases.ph[p];
			fprintf(f, "%s{\"kind\": \"%s\", \"first\": %zu, "
				"\"n\": %zu, \"machine\": %s, ", p ? ", " : "",
				sbt_phase_kind_name(ph->kind), ph->first, ph->n,
				ph->machine ? "true" : "false");
			json_num(f, "t_begin_ns", ph->t_begin_ns, 0);
			json_num(f, "t_end_ns", ph->t_end_ns, 0);
			json_num(f, "level_ns", ph->level_ns, 0);
			json_num(f, "median_ns", ph->median_ns, 1);
			fputs("}", f);
		}
		{
			char line[256];
			sbt_phase_line(&g->phases, line, sizeof line);
			fputs("], \"phase_line\": ", f);
			json_str(f, line);
			fputs(", ", f);
		}
		sym[0] = 0;
		if (o->symbols && rg->site && rg->source < ds->nsources)
			sbt_symbolize(&ds->sources[rg->source], rg->site, sym,
				      sizeof sym);
		fputs("\"site\": ", f); json_str(f, sym);
		fputs("}", f);
	}
	fputs("\n], \"machine_events\": [", f);
	for (size_t i = 0; i < res->nev; i++) {
		const struct sbt_machine_event *e = &res->ev[i];
		fprintf(f, "%s{\"source\": %u, ", i ? ",\n  " : "\n  ",
			e->source);
		json_num(f, "t_ms", e->t_ns / 1e6, 0);
		if (e->cpu != SBT_CPU_UNKNOWN)
			fprintf(f, "\"cpu\": %u, ", e->cpu);
		else
			fputs("\"cpu\": null, ", f);
		json_num(f, "change", e->change, 0);
		fprintf(f, "\"nregions\": %d, \"regions\": [", e->nregions);
		for (int r = 0; r < e->nregions && r < SBT_MACHINE_MAX_REGIONS;
		     r++) {
			fputs(r ? ", " : "", f);
			json_str(f, ds->regions[e->regions[r]].name);
		}
		fputs("]}", f);
	}
	fputs("\n]}\n", f);
	sbt_symbolize_end();
}

void sbt_report(FILE *f, const struct sbt_dataset *ds,
		const struct sbt_result *res, const struct sbt_report_opts *o)
{
	switch (o->format) {
	case SBT_FMT_CSV:  csv_report(f, ds, res, o); break;
	case SBT_FMT_JSON: json_report(f, ds, res, o); break;
	default:           text_report(f, ds, res, o); break;
	}
}

int sbt_dump(FILE *f, const struct sbt_dataset *ds)
{
	fputs("source,pid,rank,thread,region,t_ns,ns,cycles,cpu_start,"
	      "cpu_stop,probe,migrated,score,kept\n", f);
	for (size_t i = 0; i < ds->n; i++) {
		const struct sbt_sample *s = &ds->s[i];
		const struct sbt_source *src = &ds->sources[s->source];
		fprintf(f, "%u,%d,%d,%u,", s->source, src->pid, src->rank,
			s->thread);
		csv_str(f, ds->regions[s->region].name);
		fprintf(f, ",%.1f,%.3f,%.0f,%d,%d,%d,%d,%.4f,%d\n", s->t_ns,
			s->ns, s->cycles,
			s->cpu_start == 0xffff ? -1 : s->cpu_start,
			s->cpu_stop == 0xffff ? -1 : s->cpu_stop,
			!!(s->flags & SBT_SF_PROBE),
			!!(s->flags & SBT_SF_MIGRATED), s->score,
			!(s->flags & (SBT_SF_DROPPED | SBT_SF_BEFORE_RESET |
				      SBT_SF_PROBE)));
	}
	return ferror(f) ? -1 : 0;
}
