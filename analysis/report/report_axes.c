/*
 * report_axes.c - the memory-latency axis in words (report_axes.h).
 *
 * Said as the machine's, never the code's: a shift of the chase's time
 * is the caches past the L2 and memory, which every process on the
 * machine (and the host's) share.
 */
#include "report_axes.h"
#include "report_util.h"
#include "say.h"
#include "words.h"
#include "strbuf.h"

#include <math.h>

static void window(const struct sbt_speed_shift *h, double *a, double *b)
{
	*a = isfinite(h->t0_ns) && h->t0_ns > 0 ? h->t0_ns / 1e6 : 0;
	*b = (isfinite(h->t1_ns) ? h->t1_ns : h->last_ns) / 1e6;
}

static void shift_text(FILE *f, const struct sbt_dataset *ds,
		       const struct sbt_speed_shift *h)
{
	double a, b;

	window(h, &a, &b);
	fputs("memory: the machine's: ", f);
	if (ds->nsources > 1)
		fprintf(f, "%s: ", ds->sources[h->source].path);
	if (ds->sources[h->source].nthreads > 1)
		fprintf(f, "thread %u: ", h->thread);
	fprintf(f, "memory latency %+.0f %% from %.1f to %.1f ms (%zu probes",
		100 * h->rel, a, b, h->probes);
	if (h->nregions) {
		fputs(h->nregions > 1 ? "; regions " : "; region ", f);
		for (int r = 0; r < h->nregions; r++)
			fprintf(f, "%s%s", r ? ", " : "",
				ds->regions[h->regions[r]].name);
		fprintf(f, " moved with it: %zu %s left out", h->samples,
			sbt_plural(h->samples, "sample", "samples"));
	}
	fputs(")\n", f);
}

void sbt_axes_text(FILE *f, const struct sbt_dataset *ds,
		   const struct sbt_result *res)
{
	const struct sbt_speed *m = &res->mem;

	if (!res->mem_mark || !m->probes)
		return;
	for (size_t k = 0; k < m->nsh && k < 20; k++)
		shift_text(f, ds, &m->sh[k]);
	fputs(m->nsh ? "memory: otherwise steady" :
	      "memory: no shift of its latency", f);
	if (isfinite(m->resolution_rel))
		fprintf(f, " (%zu memory-latency %s; they resolve %.1f %%)\n",
			m->probes, sbt_plural(m->probes, "probe", "probes"),
			100 * m->resolution_rel);
	else
		fprintf(f, " (%zu memory-latency %s: %s)\n", m->probes,
			sbt_plural(m->probes, "probe", "probes"),
			m->unusable ? "none usable" : "too few for a timeline");
	if (m->ndisagree)
		fprintf(f, "memory: %zu shift%s of its latency the regions "
			"there did not follow: not theirs\n", m->ndisagree,
			m->ndisagree == 1 ? "" : "s");
}

void sbt_axes_json(FILE *f, const struct sbt_dataset *ds,
		   const struct sbt_result *res)
{
	const struct sbt_speed *m = &res->mem;

	if (!res->mem_mark)
		return;
	fprintf(f, ", \"memory\": {\"probes\": %zu, ", m->probes);
	sbt_json_num(f, "resolution_rel", m->resolution_rel, 0);
	fprintf(f, "\"disagree\": %zu, \"shifts\": [", m->ndisagree);
	for (size_t k = 0; k < m->nsh; k++) {
		const struct sbt_speed_shift *h = &m->sh[k];
		double a, b;
		window(h, &a, &b);
		fprintf(f, "%s{\"source\": %u, \"thread\": %u, ", k ? ", " : "",
			h->source, h->thread);
		sbt_json_num(f, "t_ms", a, 0);
		sbt_json_num(f, "dur_ms", b - a, 0);
		sbt_json_num(f, "rel", h->rel, 0);
		fprintf(f, "\"probes\": %zu, \"samples\": %zu, \"regions\": [",
			h->probes, h->samples);
		for (int r = 0; r < h->nregions; r++) {
			fputs(r ? ", " : "", f);
			sbt_json_str(f, ds->regions[h->regions[r]].name);
		}
		fputs("]}", f);
	}
	fputs("], \"threads\": [", f);
	for (size_t i = 0; i < m->nth; i++) {
		const struct sbt_speed_thread *t = &m->th[i];
		fprintf(f, "%s{\"source\": %u, \"thread\": %u, \"probes\": %zu, ",
			i ? ", " : "", t->source, t->thread, t->probes);
		sbt_json_num(f, "normal_ns", t->normal_ns, 0);
		sbt_json_num(f, "resolution_rel", t->resolution_rel, 0);
		fprintf(f, "\"levels\": %d}", t->nlevels);
	}
	fputs("]}", f);
}

int sbt_axes_context(char *buf, size_t n, const struct sbt_result *res)
{
	const struct sbt_speed *m = &res->mem;
	const struct sbt_speed_shift *h = NULL;
	struct sbt_strbuf b = { buf, n, 0 };
	char m0[32], m1[32];
	double a, z;

	if (!res->mem_mark)
		return 0;
	for (size_t k = 0; k < m->nsh; k++)
		if (!h || m->sh[k].samples > h->samples)
			h = &m->sh[k];
	if (!h)
		return 0;
	window(h, &a, &z);
	sbt_fmt_ms(m0, sizeof m0, a);
	sbt_fmt_ms(m1, sizeof m1, z);
	sbt_put(&b, "the machine's: ");
	if (m->nsh > 1)
		sbt_put(&b, "%zu shifts of memory latency, largest ", m->nsh);
	else
		sbt_put(&b, "memory latency ");
	sbt_put(&b, "%+.0f %% %s-%s ms: %zu %s out, not the code's",
		100 * h->rel, m0, m1, h->samples,
		sbt_plural(h->samples, "sample", "samples"));
	return 1;
}
