/*
 * report_util.c - what the report formats share (report_util.h): the
 * vocabulary (APIs, counters, group keys, a log's warnings), a group's
 * sample values, the order of the tables, call sites as JSON.
 */
#include "report_util.h"
#include "sbtlog.h"
#include "threads.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Both tables come from format/sbtlog.h, the one definition. */
#define API_NAME(name, value, str) [value] = str,
static const char *const api_names[SBT_API__N] = { SBT_APIS(API_NAME) };
#undef API_NAME

#define COUNTER_KEY(name, key, msg) key,
const char *const sbt_counter_names[SBT_CNT__N] = { SBT_COUNTERS(COUNTER_KEY) };
#undef COUNTER_KEY

const char *sbt_os_state_name(uint32_t state)
{
	switch (state) {
	case SBT_OS_ON:          return "recorded";
	case SBT_OS_OFF:         return "off";
	case SBT_OS_UNAVAILABLE: return "unavailable";
	default:                 return "not recorded";
	}
}

const char *sbt_clock_read_name(uint32_t how)
{
	switch (how) {
	case SBT_READ_RDTSCP: return "rdtscp";
	case SBT_READ_RDTSC:  return "rdtsc";
	case SBT_READ_CNTVCT: return "cntvct";
	default:              return "not recorded";
	}
}

const char *sbt_api_name(unsigned api)
{
	return api < SBT_API__N ? api_names[api] : "?";
}

const char *sbt_by_name(const struct sbt_report_opts *o)
{
	static const char *n[] = { "", "thread", "cpu", "rank", "host" };

	if (o->by_site)
		return "site";
	return (unsigned)o->by < sizeof n / sizeof *n ? n[o->by] : "";
}

void sbt_group_key(const struct sbt_dataset *ds, const struct sbt_group *g,
		   const struct sbt_report_opts *o, char *out, size_t n)
{
	const struct sbt_source *src = &ds->sources[g->source];

	if (o->by_site) {
		const struct sbt_callsite *c = o->cs && g->key < o->cs->n ?
					    &o->cs->c[g->key] : NULL;
		if (!c) {
			snprintf(out, n, "-");
		} else if (c->at.nframes && c->at.f[0].file[0]) {
			const char *b = strrchr(c->at.f[0].file, '/');
			int w = snprintf(out, n, "%s:%d", b ? b + 1 :
					 c->at.f[0].file, c->at.f[0].line);
			/* another site of the region reads the same */
			if (c->twin && w > 0 && (size_t)w < n)
				snprintf(out + w, n - (size_t)w, " +0x%llx",
					 (unsigned long long)c->at.offset);
		} else {
			snprintf(out, n, "%s", c->label);
		}
		return;
	}
	switch (o->by) {
	case SBT_BY_THREAD: {
		char t[64];
		/* its OpenMP number, name or tid (META THREAD); the
		 * first-marker index only when the log has none */
		sbt_thread_label(ds, g->source, g->key, t, sizeof t);
		if (ds->nsources > 1)
			snprintf(out, n, "%d/%s", src->rank >= 0 ? src->rank :
				 src->pid, t);
		else
			snprintf(out, n, "%s", t);
		break;
	}
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

double sbt_sample_ns(const struct sbt_dataset *ds, const struct sbt_sample *s,
		     const struct sbt_report_opts *o)
{
	return s->ns - sbt_cost_ns(o->filters, o->cost_ns,
				   &ds->sources[s->source]);
}

size_t sbt_group_kept(const struct sbt_dataset *ds,
		      const struct sbt_result *res, const struct sbt_group *g,
		      const struct sbt_report_opts *o, double *v)
{
	size_t k = 0;

	for (size_t i = g->first; i < g->first + g->n; i++) {
		const struct sbt_sample *s = &ds->s[res->order[i]];
		if (!(s->flags & SBT_SF_PROBE) &&
		    !(res->mark[res->order[i]] & SBT_MK_DROPPED))
			v[k++] = sbt_sample_ns(ds, s, o);
	}
	return k;
}

/* The sort key of each region: the sum (or max) over its groups. */
static const struct sbt_dataset *sort_ds;
static const struct sbt_group *sort_g;
static const double *sort_key;

static int cmp_sorted(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct sbt_group *x = &sort_g[i], *y = &sort_g[j];
	double kx = sort_key ? sort_key[x->region] : 0;
	double ky = sort_key ? sort_key[y->region] : 0;
	int c;

	if (kx != ky)
		return kx > ky ? -1 : 1;        /* largest first */
	if ((c = strcmp(sort_ds->regions[x->region].name,
			sort_ds->regions[y->region].name)))
		return c;
	if (x->region != y->region)
		return x->region < y->region ? -1 : 1;
	return (i > j) - (i < j);           /* the analysis's order */
}

int sbt_result_sorted(const struct sbt_dataset *ds,
		      const struct sbt_result *res,
		      const struct sbt_report_opts *o, struct sbt_result *out,
		      size_t *perm)
{
	size_t n = res->ngroups ? res->ngroups : 1;
	double *key = calloc(ds->nregions + 1, sizeof *key);
	size_t *ix = malloc(n * sizeof *ix);

	*out = *res;
	out->g = malloc(n * sizeof *out->g);
	if (!key || !ix || !out->g) {
		free(key), free(ix), free(out->g);
		out->g = NULL;
		return -1;
	}
	for (size_t i = 0; i < res->ngroups; i++) {
		const struct sbt_group *g = &res->g[i];
		double *k = &key[g->region];
		ix[i] = i;
		switch (o->sort) {
		case SBT_SORT_TOTAL:  *k += g->total_ns; break;
		case SBT_SORT_CALLS:  *k += (double)g->calls; break;
		case SBT_SORT_COUNT:  *k += (double)g->count; break;
		case SBT_SORT_MEDIAN:
			if (isfinite(g->st.median) && g->st.median > *k)
				*k = g->st.median;
			break;
		default: break;
		}
	}
	sort_ds = ds, sort_g = res->g;
	sort_key = o->sort == SBT_SORT_NAME ? NULL : key;
	qsort(ix, res->ngroups, sizeof *ix, cmp_sorted);
	for (size_t i = 0; i < res->ngroups; i++) {
		out->g[i] = res->g[ix[i]];
		if (perm)
			perm[i] = ix[i];
	}
	sort_key = NULL;
	free(key), free(ix);
	return 0;
}

static void json_frame(FILE *f, const struct sbt_symframe *fr)
{
	fputs("{\"function\": ", f); sbt_json_str(f, fr->function);
	fputs(", \"file\": ", f);    sbt_json_str(f, fr->file);
	fprintf(f, ", \"line\": %d, \"inlined\": %s}", fr->line,
		fr->inlined ? "true" : "false");
}

void sbt_json_callsites(FILE *f, const struct sbt_dataset *ds,
			const struct sbt_result *res,
			const struct sbt_group *g,
			const struct sbt_report_opts *o)
{
	struct sbt_sitecount *sc = NULL;
	long n = o->cs ? sbt_group_sites(ds, res, g, o->cs, &sc) : 0;

	fputc('[', f);
	for (long i = 0; i < n; i++) {
		const struct sbt_callsite *c = &o->cs->c[sc[i].site];
		const struct sbt_symframe *top = c->at.nframes ? &c->at.f[0]
							       : NULL;
		fputs(i ? ", {" : "{", f);
		fputs("\"function\": ", f);
		sbt_json_str(f, top ? top->function : "");
		fputs(", \"file\": ", f);
		sbt_json_str(f, top ? top->file : "");
		fprintf(f, ", \"line\": %d, \"module\": ", top ? top->line : 0);
		sbt_json_str(f, c->at.module);
		fprintf(f, ", \"offset\": \"0x%llx\", \"count\": %llu, "
			"\"stack\": [", (unsigned long long)c->at.offset,
			(unsigned long long)sc[i].count);
		for (int k = 0; k < c->nstack; k++) {
			fputs(k ? ", " : "", f);
			json_frame(f, &c->stack[k]);
		}
		fputs("]}", f);
	}
	fputc(']', f);
	free(sc);
}
