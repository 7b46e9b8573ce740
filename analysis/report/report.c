/*
 * report.c - the vocabulary every output format shares, and the choice
 * of format.
 *
 * Text is for people (report_text.c), CSV (report_csv.c) and JSON
 * (report_json.c) for programs; the HTML page (report_html.c) has its
 * own entry point since it needs more than one grouping.
 */
#include "report_util.h"
#include "sbtlog.h"

#include <math.h>
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
			snprintf(out, n, "%s:%d", b ? b + 1 : c->at.f[0].file,
				 c->at.f[0].line);
		} else {
			snprintf(out, n, "%s", c->label);
		}
		return;
	}
	switch (o->by) {
	case SBT_BY_THREAD:
		if (ds->nsources > 1)
			snprintf(out, n, "%d/%u", src->rank >= 0 ? src->rank :
				 src->pid, g->key);
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

double sbt_sample_ns(const struct sbt_dataset *ds, const struct sbt_sample *s,
		     const struct sbt_report_opts *o)
{
	if (!(o->filters & SBT_F_COST))
		return s->ns;
	return s->ns - (o->cost_ns >= 0 ? o->cost_ns :
			ds->sources[s->source].te_ns);
}

size_t sbt_group_kept(const struct sbt_dataset *ds,
		      const struct sbt_result *res, const struct sbt_group *g,
		      const struct sbt_report_opts *o, double *v)
{
	size_t k = 0;

	for (size_t i = g->first; i < g->first + g->n; i++) {
		const struct sbt_sample *s = &ds->s[res->order[i]];
		if (!(s->flags & (SBT_SF_PROBE | SBT_SF_DROPPED)))
			v[k++] = sbt_sample_ns(ds, s, o);
	}
	return k;
}

void sbt_report(FILE *f, const struct sbt_dataset *ds,
		const struct sbt_result *res, const struct sbt_report_opts *o)
{
	switch (o->format) {
	case SBT_FMT_CSV:  sbt_report_csv(f, ds, res, o); break;
	case SBT_FMT_JSON: sbt_report_json(f, ds, res, o); break;
	default:           sbt_report_text(f, ds, res, o); break;
	}
}
