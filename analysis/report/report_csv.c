/*
 * report_csv.c - one CSV row per group with a header row.
 *
 * The last column, callsites, holds the group's call sites as the same
 * JSON array the JSON report gives (a CSV cell cannot nest; C++ names
 * contain every separator one could pick).
 */
#include "totals.h"
#include "report_compare.h"
#include "report_util.h"
#include "say.h"
#include "report_speed.h"
#include "report_counters.h"
#include "sbtlog.h"

#include <stdlib.h>
#include <string.h>

/* The JSON array of g's call sites as one quoted CSV cell. */
static void csv_callsites(FILE *f, const struct sbt_dataset *ds,
			  const struct sbt_result *res,
			  const struct sbt_group *g,
			  const struct sbt_report_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return;
	sbt_json_callsites(m, ds, res, g, o);
	if (fclose(m) == 0)
		sbt_csv_str(f, buf);
	free(buf);
}

static int write_csv(FILE *f, const struct sbt_report_in *in)
{
	const struct sbt_dataset *ds = in->ds;
	const struct sbt_result *res = in->res;
	const struct sbt_report_opts *o = in->o;
	char key[300];
	int by = o->by || o->by_site;

	fprintf(f, "region,api,%s%scount,kept,dropped,min_ns,median_ns,"
		"mean_ns,std_ns,cv,p99_ns,max_ns,migrated,probes,t_min_ns,"
		"t_diff_ns,metric_source,resolvable,variation_ns,"
		"variation_tdiff,modes,verdict,phases,t_min_paper_ns,"
		"t_diff_paper_ns,shift_resolution_ns,steps,warmup_n,"
		"transient_n,flagged,delta_ns,os_samples,os_interrupted,"
		"os_preempted,os_switches,os_faults,os_lost,os_left_out,"
		"callsites,calls,recorded,est_total_ns,est_total_se_ns,"
		"total_ns,excl_ns,share,excl_share,nested,findings,"
		"minor_findings,machine_samples,processor_samples,"
		"after_probe_samples",
		sbt_by_name(o), by ? "," : "");
	sbt_cnt_csv_header(f, ds);
	fputc('\n', f);
	for (size_t i = 0; i < res->ngroups; i++) {
		const struct sbt_group *g = &res->g[i];
		char src[48];
		sbt_csv_str(f, ds->regions[g->region].name);
		fprintf(f, ",%s,", sbt_api_name(ds->regions[g->region].api));
		if (by) {
			sbt_group_key(ds, g, o, key, sizeof key);
			sbt_csv_str(f, key);
			fputc(',', f);
		}
		fprintf(f, "%zu,%zu,%zu,%.3f,%.3f,%.3f,%.3f,%.6f,%.3f,%.3f,"
			"%zu,%zu,%.3f,%.3f,%s,%d,%.3f,%.3f,", g->count, g->kept,
			g->dropped, g->st.min, g->st.median, g->st.mean,
			g->st.std, g->st.cv, g->st.p99, g->st.max,
			g->migrated, g->probes, g->score.t_min_ns,
			g->score.t_diff_ns, sbt_metric_source_name(&g->score,
			src, sizeof src),
			g->score.resolvable, g->score.variation_ns,
			g->score.variation_tdiff);
		char modes[512] = "", line[256];
		for (int m = 0, n = 0; m < g->score.nmodes &&
		     (size_t)n < sizeof modes; m++)
			n += snprintf(modes + n, sizeof modes - (size_t)n,
				      "%s%.1f:%.3f", m ? ";" : "",
				      g->score.modes[m].center_ns,
				      g->score.modes[m].share);
		sbt_csv_str(f, modes);
		fputc(',', f);
		char verdict[SBT_SAY_VERDICT_LEN] = "";
		struct sbt_strbuf v = { verdict, sizeof verdict, 0 };
		sbt_say_verdict(&v, g);
		sbt_csv_str(f, verdict);
		fputc(',', f);
		sbt_phase_line(&g->phases, line, sizeof line);
		sbt_csv_str(f, line);
		fprintf(f, ",%.3f,%.3f,%.4f,%d,%zu,%zu,%d,%.3f,",
			g->score.insitu.t_min_paper_ns,
			g->score.insitu.t_diff_paper_ns,
			g->score.shift_resolution_ns, g->phases.nsteps,
			g->phases.warmup_n, g->phases.transient_n, g->flagged,
			g->delta_ns);
		fprintf(f, "%zu,%zu,%zu,%zu,%zu,%zu,%zu,", g->os.covered,
			g->os.interrupted, g->os.preempted, g->os.switches,
			g->os.faults, g->os.lost, g->os.left_out);
		csv_callsites(f, ds, res, g, o);
		double total, total_se;
		sbt_group_total(g, &total, &total_se);
		fprintf(f, ",%llu,%zu,%.3f,%.3f",
			(unsigned long long)g->calls, g->count, total, total_se);
		/* totals first: what LIKWID, PAPI-HL and Caliper lead with */
		fprintf(f, ",%.3f,%.3f,%.6f,%.6f,%d,%d,%d", g->total_ns,
			g->excl_ns, g->share, g->excl_share, g->nested,
			g->nfindings, g->nfind - g->nfindings);
		fprintf(f, ",%zu,%zu,%zu", g->machine_n, g->speed_n,
			g->after_n);
		sbt_cnt_csv_group(f, ds, res, g);
		fputc('\n', f);
	}
	return ferror(f) ? -1 : 0;
}

const struct sbt_report_format sbt_format_csv = {
	.name = "csv", .write = write_csv, .compare = sbt_compare_csv,
};
