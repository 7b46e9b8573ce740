/*
 * callsites.c - symbolize each recorded call site once, count samples
 * per site.
 *
 * A site's frames are return addresses, innermost first: frames[0] is the
 * marker call, the rest its callers.  Each expands to one or more source
 * frames (inlining), so the stack a report shows can be longer than the
 * recorded depth.
 */
#include "callsites.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add_note(struct sbt_callsites *cs, const char *path,
		    const char *note)
{
	char buf[600];

	snprintf(buf, sizeof buf, "%s %s", path, note);
	for (size_t i = 0; i < cs->nnotes; i++)
		if (!strcmp(cs->notes[i], buf))
			return 0;
	char **n = realloc(cs->notes, (cs->nnotes + 1) * sizeof *n);
	if (!n)
		return -1;
	cs->notes = n;
	if (!(cs->notes[cs->nnotes] = strdup(buf)))
		return -1;
	cs->nnotes++;
	return 0;
}

/* Symbolize site `s` into c. */
static int build_one(const struct sbt_dataset *ds, const struct sbt_site *s,
		     int symbols, struct sbt_callsites *cs, struct sbt_csite *c)
{
	const struct sbt_source *src = &ds->sources[s->source];
	struct sbt_symaddr a;

	if (s->depth == 0) {
		snprintf(c->label, sizeof c->label, "?");
		return 0;
	}
	if (!(c->stack = calloc((size_t)s->depth * SBT_SYM_INLINE,
				sizeof *c->stack)))
		return -1;
	for (uint32_t d = 0; d < s->depth; d++) {
		if (symbols) {
			sbt_symbolize_addr(src, s->frames[d], &a);
		} else {
			/* module + offset only: no debug info is read */
			memset(&a, 0, sizeof a);
			for (size_t i = 0; i < src->nmodules; i++) {
				const struct sbt_module *m = &src->modules[i];
				if (s->frames[d] - 1 >= m->lo &&
				    s->frames[d] - 1 < m->hi) {
					snprintf(a.module, sizeof a.module,
						 "%s", m->path);
					a.offset = s->frames[d] - m->base;
					break;
				}
			}
		}
		if (d == 0)
			c->at = a;
		if (symbols && a.module[0]) {
			const char *note = sbt_symbolize_note(src, a.module);
			if (note[0] && add_note(cs, a.module, note) != 0)
				return -1;
		}
		for (int k = 0; k < a.nframes; k++)
			c->stack[c->nstack++] = a.f[k];
		if (a.nframes == 0) {
			/* keep the frame: module+offset in the function */
			struct sbt_symframe *f = &c->stack[c->nstack++];
			const char *m = strrchr(a.module, '/');
			snprintf(f->function, sizeof f->function, "%.200s+0x%llx",
				 m ? m + 1 : a.module[0] ? a.module : "?",
				 (unsigned long long)a.offset);
		}
	}
	sbt_symaddr_short(&c->at, c->label, sizeof c->label);
	return 0;
}

static const struct sbt_callsites *cmp_cs;

static int frames_cmp(const struct sbt_csite *x, const struct sbt_csite *y)
{
	int c;

	/* an address in no known module is not a location to share: those
	 * sort first, each on its own */
	if (!x->at.module[0] != !y->at.module[0])
		return x->at.module[0] ? 1 : -1;
	if (!x->at.module[0])
		return (x > y) - (x < y);
	if (x->at.offset != y->at.offset)
		return x->at.offset < y->at.offset ? -1 : 1;
	if ((c = strcmp(x->at.module, y->at.module)) != 0)
		return c;
	if (x->nstack != y->nstack)
		return x->nstack < y->nstack ? -1 : 1;
	for (int k = 0; k < x->nstack; k++) {
		const struct sbt_symframe *a = &x->stack[k], *b = &y->stack[k];
		if ((c = strcmp(a->function, b->function)) != 0 ||
		    (c = strcmp(a->file, b->file)) != 0)
			return c;
		if (a->line != b->line)
			return a->line < b->line ? -1 : 1;
	}
	return 0;
}

static int cmp_site(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	int c = frames_cmp(&cmp_cs->c[i], &cmp_cs->c[j]);

	return c ? c : (i > j) - (i < j);
}

/* cs->same: sort the sites by location, give each run its first index. */
static int merge_same(struct sbt_callsites *cs)
{
	uint32_t *ix = malloc((cs->n + 1) * sizeof *ix);

	if (!ix || !(cs->same = malloc((cs->n + 1) * sizeof *cs->same))) {
		free(ix);
		return -1;
	}
	for (size_t i = 0; i < cs->n; i++)
		ix[i] = (uint32_t)i;
	cmp_cs = cs;
	qsort(ix, cs->n, sizeof *ix, cmp_site);
	for (size_t i = 0, first = 0; i < cs->n; i++) {
		if (i && frames_cmp(&cs->c[ix[i]], &cs->c[ix[first]]) != 0)
			first = i;
		cs->same[ix[i]] = ix[first];   /* lowest index of the run */
	}
	free(ix);
	return 0;
}

int sbt_callsites_build(const struct sbt_dataset *ds, int symbols,
			struct sbt_callsites *cs)
{
	size_t nfb = 0;
	char *has = calloc(ds->nregions + 1, 1);

	memset(cs, 0, sizeof *cs);
	if (!has)
		return -1;
	for (size_t i = 0; i < ds->nsites; i++)
		if (ds->sites[i].region < ds->nregions)
			has[ds->sites[i].region] = 1;
	for (size_t r = 0; r < ds->nregions; r++)
		nfb += !has[r] && ds->regions[r].site &&
		       ds->regions[r].source < ds->nsources;
	cs->c = calloc(ds->nsites + nfb + 1, sizeof *cs->c);
	cs->fallback = malloc((ds->nregions + 1) * sizeof *cs->fallback);
	if (!cs->c || !cs->fallback)
		goto oom;
	memset(cs->fallback, 0xff, (ds->nregions + 1) * sizeof *cs->fallback);
	/* Sites come grouped by source: one symbolizer session each. */
	for (size_t i = 0; i < ds->nsites; i++, cs->n++)
		if (build_one(ds, &ds->sites[i], symbols, cs, &cs->c[i]) != 0)
			goto oom;
	for (size_t r = 0; r < ds->nregions; r++) {
		const struct sbt_region *rg = &ds->regions[r];
		if (has[r] || !rg->site || rg->source >= ds->nsources)
			continue;
		struct sbt_site one = { .region = (uint32_t)r,
					.source = rg->source, .depth = 1,
					.frames = (uint64_t *)&rg->site };
		if (build_one(ds, &one, symbols, cs, &cs->c[cs->n]) != 0)
			goto oom;
		cs->fallback[r] = (uint32_t)cs->n++;
	}
	free(has);
	sbt_symbolize_end();
	if (merge_same(cs) != 0) {
		sbt_callsites_free(cs);
		return -1;
	}
	return 0;
oom:
	free(has);
	sbt_symbolize_end();
	sbt_callsites_free(cs);
	return -1;
}

void sbt_callsites_free(struct sbt_callsites *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		free(cs->c[i].stack);
	for (size_t i = 0; i < cs->nnotes; i++)
		free(cs->notes[i]);
	free(cs->c);
	free(cs->fallback);
	free(cs->same);
	free(cs->notes);
	memset(cs, 0, sizeof *cs);
}

static int cmp_count(const void *a, const void *b)
{
	const struct sbt_sitecount *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return (x->site > y->site) - (x->site < y->site);
}

long sbt_group_sites(const struct sbt_dataset *ds, const struct sbt_result
		     *res, const struct sbt_group *g,
		     const struct sbt_callsites *cs, struct sbt_sitecount **out)
{
	struct sbt_sitecount *c = NULL;
	uint32_t *pos;                 /* site -> entry + 1 in c, 0 none */
	size_t n = 0, cap = 0;

	*out = NULL;
	if (!(pos = calloc(cs->n + 1, sizeof *pos)))
		return -1;
	for (size_t i = g->first; i < g->first + g->n; i++) {
		const struct sbt_sample *s = &ds->s[res->order[i]];
		uint32_t site = s->site < ds->nsites ? s->site :
				cs->fallback[s->region];
		if (site >= cs->n || (s->flags & SBT_SF_PROBE))
			continue;
		site = cs->same[site];
		if (!pos[site]) {
			if (n == cap) {
				size_t nc = cap ? 2 * cap : 8;
				void *p = realloc(c, nc * sizeof *c);
				if (!p) {
					free(c), free(pos);
					return -1;
				}
				c = p, cap = nc;
			}
			c[n].site = site, c[n].count = 0;
			pos[site] = (uint32_t)++n;
		}
		c[pos[site] - 1].count++;
	}
	free(pos);
	if (n > 1)
		qsort(c, n, sizeof *c, cmp_count);
	*out = c;
	return (long)n;
}
