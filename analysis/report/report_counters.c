/*
 * report_counters.c - SBT_EVENTS' counts per region (avg, p90, max, IPC,
 * the multiplexed share) and their place in every report format.
 */
#include "report_counters.h"
#include "plot.h"
#include "report_util.h"
#include "sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- per region ------------------------------------------------------------------- */

static int is_named(const struct sbt_counters *c, uint32_t k,
		    const char *a, const char *b)
{
	return !strcmp(c->name[k], a) || (b && !strcmp(c->name[k], b));
}

int sbt_cnt_group(const struct sbt_dataset *ds, const struct sbt_result *res,
		  const struct sbt_group *g, struct sbt_cnt_group *out)
{
	const struct sbt_counters *c = ds->cnt;
	const uint32_t *idx = res->order + g->first;
	double *v, share = 0, ins = 0, cyc = 0;
	size_t nshare = 0, nipc = 0;
	int ki = -1, kc = -1;

	memset(out, 0, sizeof *out);
	out->running = out->ipc = NAN;
	if (!c || !c->ncol || !c->v)
		return 0;
	if (!(v = malloc((g->n ? g->n : 1) * sizeof *v)))
		return -1;
	out->ncol = c->ncol;
	for (uint32_t k = 0; k < c->ncol; k++) {
		struct sbt_cnt_stat *st = &out->c[k];
		size_t m = 0;
		if (is_named(c, k, "instructions", NULL))
			ki = (int)k;
		if (is_named(c, k, "cycles", "cpu-cycles"))
			kc = (int)k;
		for (size_t i = 0; i < g->n; i++) {
			double x = sbt_cnt_get(ds, idx[i], k);
			if (!isnan(x) && !(ds->s[idx[i]].flags & SBT_SF_PROBE))
				v[m++] = x;
		}
		st->n = m;
		st->avg = st->p90 = st->max = NAN;
		if (!m)
			continue;
		if (sbt_sort_doubles(v, m) != 0) {
			free(v);
			return -1;
		}
		for (size_t i = 0; i < m; i++)
			st->sum += v[i];
		st->avg = st->sum / (double)m;
		st->max = v[m - 1];
		/* nearest rank: the smallest value with >= 90 % at or below */
		st->p90 = v[(size_t)ceil(0.9 * (double)m) - 1];
	}
	for (size_t i = 0; i < g->n; i++) {
		double sh = sbt_cnt_share(ds, idx[i]);
		if (ds->s[idx[i]].flags & SBT_SF_PROBE)
			continue;
		if (!isnan(sh))
			share += sh, nshare++;
		if (ki >= 0 && kc >= 0) {
			double a = sbt_cnt_get(ds, idx[i], (uint32_t)ki);
			double b = sbt_cnt_get(ds, idx[i], (uint32_t)kc);
			if (!isnan(a) && !isnan(b))
				ins += a, cyc += b, nipc++;
		}
	}
	if (nshare)
		out->running = share / (double)nshare;
	if (nipc && cyc > 0)
		out->ipc = ins / cyc;
	free(v);
	return 0;
}

/* ---- reports ----------------------------------------------------------------------- */

static const struct sbt_cnt_src *src_at(const struct sbt_dataset *ds,
					size_t i)
{
	return ds->cnt && i < ds->cnt->nsrc && ds->cnt->src[i].named ?
	       &ds->cnt->src[i] : NULL;
}

void sbt_cnt_text_source(FILE *f, const struct sbt_dataset *ds, size_t i,
			 const char *pre)
{
	const struct sbt_cnt_src *s = src_at(ds, i);
	int any = 0;

	if (!s)
		return;
	fprintf(f, "%sevents:", pre);
	for (uint32_t j = 0; j < s->n; j++)
		if (s->col[j] >= 0)
			fprintf(f, "%s %s%s", any++ ? "," : "",
				ds->cnt->name[s->col[j]], s->user[j] ?
				" (user mode only, the kernel's part refused: "
				"reads 0)"
				: "");
	if (!any)
		fputs(" none counted", f);
	/* what the markers themselves add to every sample's counts */
	for (uint32_t j = 0, k = 0; j < s->n; j++)
		if (s->col[j] >= 0 && !isnan(s->empty[j]))
			fprintf(f, "%s%s %.0f", k++ ? ", " :
				" (an empty pair: ", ds->cnt->name[s->col[j]],
				s->empty[j]);
	for (uint32_t j = 0; j < s->n; j++)
		if (s->col[j] >= 0 && !isnan(s->empty[j])) {
			fputc(')', f);
			break;
		}
	if (s->off[0])
		fprintf(f, "; unavailable: %s", s->off);
	fputc('\n', f);
}

void sbt_cnt_json_source(FILE *f, const struct sbt_dataset *ds, size_t i)
{
	const struct sbt_cnt_src *s = src_at(ds, i);
	int any = 0;

	fputs("\"events\": [", f);
	for (uint32_t j = 0; s && j < s->n; j++)
		if (s->col[j] >= 0) {
			fputs(any++ ? ", " : "", f);
			sbt_json_str(f, ds->cnt->name[s->col[j]]);
		}
	fputs("], \"events_user_only\": [", f);
	for (uint32_t j = 0, k = 0; s && j < s->n; j++)
		if (s->col[j] >= 0 && s->user[j]) {
			fputs(k++ ? ", " : "", f);
			sbt_json_str(f, ds->cnt->name[s->col[j]]);
		}
	fputs("], \"events_empty_pair\": {", f);
	for (uint32_t j = 0, k = 0; s && j < s->n; j++)
		if (s->col[j] >= 0 && !isnan(s->empty[j])) {
			fputs(k++ ? ", " : "", f);
			sbt_json_str(f, ds->cnt->name[s->col[j]]);
			fprintf(f, ": %.0f", s->empty[j]);
		}
	fputs("}, \"events_unavailable\": ", f);
	sbt_json_str(f, s ? s->off : "");
	fputs(", ", f);
}

void sbt_cnt_json_group(FILE *f, const struct sbt_dataset *ds,
			const struct sbt_result *res, const struct sbt_group *g)
{
	struct sbt_cnt_group cg;

	if (sbt_cnt_group(ds, res, g, &cg) != 0 || !cg.ncol) {
		fputs("\"counters\": null", f);
		return;
	}
	fputs("\"counters\": {", f);
	for (uint32_t k = 0; k < cg.ncol; k++) {
		const struct sbt_cnt_stat *st = &cg.c[k];
		sbt_json_str(f, ds->cnt->name[k]);
		fprintf(f, ": {\"n\": %zu, ", st->n);
		sbt_json_num(f, "avg", st->avg, 0);
		sbt_json_num(f, "p90", st->p90, 0);
		sbt_json_num(f, "max", st->max, 0);
		sbt_json_num(f, "total", st->n ? st->sum : NAN, 1);
		fputs("}, ", f);
	}
	sbt_json_num(f, "running", cg.running, 0);
	sbt_json_num(f, "ipc", cg.ipc, 1);
	fputs("}", f);
}

/* A count in a few columns: integers as such, large ones with k / M. */
static void count(FILE *f, double x)
{
	if (isnan(x))
		fputs("-", f);
	else if (fabs(x) >= 1e7)
		fprintf(f, "%.1fM", x / 1e6);
	else if (fabs(x) >= 1e5)
		fprintf(f, "%.1fk", x / 1e3);
	else if (x == floor(x))
		fprintf(f, "%.0f", x);
	else
		fprintf(f, "%.1f", x);
}

void sbt_cnt_text(FILE *f, const struct sbt_dataset *ds,
		  const struct sbt_result *res, const struct sbt_report_opts *o)
{
	char key[300], label[400];
	int w = 6;

	if (!ds->cnt || !ds->cnt->ncol || !ds->cnt->v)
		return;
	for (size_t i = 0; i < res->ngroups; i++) {
		int n = (int)strlen(ds->regions[res->g[i].region].name);
		if (o->by || o->by_site) {
			sbt_group_key(ds, &res->g[i], o, key, sizeof key);
			n += 1 + (int)strlen(key);
		}
		if (n > w)
			w = n < 40 ? n : 40;
	}
	fputs("\nevents per sample (SBT_EVENTS; avg / p90 / max):\n", f);
	for (size_t i = 0; i < res->ngroups; i++) {
		const struct sbt_group *g = &res->g[i];
		struct sbt_cnt_group cg;
		int any = 0;
		if (sbt_cnt_group(ds, res, g, &cg) != 0)
			return;
		for (uint32_t k = 0; k < cg.ncol; k++)
			any |= cg.c[k].n != 0;
		if (!any)
			continue;
		snprintf(label, sizeof label, "%s",
			 ds->regions[g->region].name);
		if (o->by || o->by_site) {
			sbt_group_key(ds, g, o, key, sizeof key);
			snprintf(label, sizeof label, "%s %s",
				 ds->regions[g->region].name, key);
		}
		fprintf(f, "  %-*.*s", w, w, label);
		for (uint32_t k = 0; k < cg.ncol; k++) {
			if (!cg.c[k].n)
				continue;
			fprintf(f, "  %s ", ds->cnt->name[k]);
			count(f, cg.c[k].avg);
			fputs(" / ", f);
			count(f, cg.c[k].p90);
			fputs(" / ", f);
			count(f, cg.c[k].max);
		}
		if (!isnan(cg.ipc))
			fprintf(f, "  IPC %.2f", cg.ipc);
		if (!isnan(cg.running) && cg.running < 0.9995)
			fprintf(f, "  (multiplexed: counted %.0f %% of the "
				"time, scaled)", 100 * cg.running);
		fputc('\n', f);
	}
}

void sbt_cnt_csv_header(FILE *f, const struct sbt_dataset *ds)
{
	if (!ds->cnt || !ds->cnt->ncol)
		return;
	for (uint32_t k = 0; k < ds->cnt->ncol; k++)
		fprintf(f, ",%s_avg,%s_p90,%s_max", ds->cnt->name[k],
			ds->cnt->name[k], ds->cnt->name[k]);
	fputs(",events_running,ipc", f);
}

static void cell(FILE *f, double x)
{
	if (isnan(x))
		fputs(",", f);
	else
		fprintf(f, ",%.10g", x);
}

void sbt_cnt_csv_group(FILE *f, const struct sbt_dataset *ds,
		       const struct sbt_result *res, const struct sbt_group *g)
{
	struct sbt_cnt_group cg;

	if (!ds->cnt || !ds->cnt->ncol)
		return;
	if (sbt_cnt_group(ds, res, g, &cg) != 0)
		cg.ncol = 0;
	for (uint32_t k = 0; k < ds->cnt->ncol; k++) {
		int have = k < cg.ncol && cg.c[k].n;
		cell(f, have ? cg.c[k].avg : NAN);
		cell(f, have ? cg.c[k].p90 : NAN);
		cell(f, have ? cg.c[k].max : NAN);
	}
	cell(f, cg.ncol ? cg.running : NAN);
	cell(f, cg.ncol ? cg.ipc : NAN);
}

void sbt_cnt_dump_header(FILE *f, const struct sbt_dataset *ds)
{
	if (!ds->cnt || !ds->cnt->ncol)
		return;
	for (uint32_t k = 0; k < ds->cnt->ncol; k++)
		fprintf(f, ",%s", ds->cnt->name[k]);
	fputs(",events_running", f);
}

void sbt_cnt_dump_sample(FILE *f, const struct sbt_dataset *ds, size_t i)
{
	double sh;

	if (!ds->cnt || !ds->cnt->ncol)
		return;
	for (uint32_t k = 0; k < ds->cnt->ncol; k++) {
		double x = sbt_cnt_get(ds, i, k);
		if (isnan(x))
			fputs(",-1", f);
		else
			fprintf(f, ",%.0f", x);
	}
	sh = sbt_cnt_share(ds, i);
	if (isnan(sh))
		fputs(",-1", f);
	else
		fprintf(f, ",%.4f", sh);
}

void sbt_cnt_html_group(FILE *f, const struct sbt_dataset *ds,
			const struct sbt_result *res, const struct sbt_group *g)
{
	struct sbt_cnt_group cg;

	if (sbt_cnt_group(ds, res, g, &cg) != 0 || !cg.ncol)
		return;
	fputs("<h3>Events per sample (SBT_EVENTS)</h3><table><tr><th>event"
	      "</th><th>avg</th><th>p90</th><th>max</th><th>samples</th>"
	      "</tr>\n", f);
	for (uint32_t k = 0; k < cg.ncol; k++) {
		const struct sbt_cnt_stat *st = &cg.c[k];
		fputs("<tr><td>", f);
		sbt_html_str(f, ds->cnt->name[k]);
		fputs("</td><td class=\"n\">", f);
		count(f, st->avg);
		fputs("</td><td class=\"n\">", f);
		count(f, st->p90);
		fputs("</td><td class=\"n\">", f);
		count(f, st->max);
		fprintf(f, "</td><td class=\"n\">%zu</td></tr>\n", st->n);
	}
	fputs("</table>", f);
	if (!isnan(cg.ipc) || (!isnan(cg.running) && cg.running < 1)) {
		fputs("<p class=\"legend\">", f);
		if (!isnan(cg.ipc))
			fprintf(f, "IPC %.2f. ", cg.ipc);
		if (!isnan(cg.running) && cg.running < 1)
			fprintf(f, "Multiplexed: counted %.0f %% of the time, "
				"counts scaled.", 100 * cg.running);
		fputs("</p>", f);
	}
	fputs("\n", f);
}
