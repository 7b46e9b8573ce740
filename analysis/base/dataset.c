/*
 * dataset.c - growing the dataset's three tables.
 *
 * Regions are found by (api, name) through an open-addressing index
 * (ds->rindex, slots hold region index + 1, 0 = empty), so merging thousands of logs with thousands of regions
 * stays linear.
 */
#include "dataset.h"
#include "bigmem.h"
#include "counters.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash(const char *s, size_t n, uint32_t api)
{
	uint64_t h = 0xcbf29ce484222325ull ^ api;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

static int reindex(struct sbt_dataset *ds, size_t cap)
{
	uint32_t *n = calloc(cap, sizeof *n);

	if (!n)
		return -1;
	for (size_t r = 0; r < ds->nregions; r++) {
		const struct sbt_region *g = &ds->regions[r];
		size_t j = hash(g->name, strlen(g->name), g->api) & (cap - 1);
		while (n[j])
			j = (j + 1) & (cap - 1);
		n[j] = (uint32_t)r + 1;
	}
	free(ds->rindex);
	ds->rindex = n, ds->rindex_cap = cap;
	return 0;
}

long sbt_ds_region(struct sbt_dataset *ds, const char *name, size_t len,
		   uint32_t api)
{
	uint32_t *idx;
	size_t j, idx_cap;

	/* a name is a C string: bytes after a NUL (a damaged log's) are
	 * none of it, or each lookup of it would make a new region */
	len = strnlen(name, len);
	if ((ds->nregions + 1) * 2 > ds->rindex_cap &&
	    reindex(ds, ds->rindex_cap ? ds->rindex_cap * 2 : 1024) != 0)
		return -1;
	idx = ds->rindex, idx_cap = ds->rindex_cap;
	for (j = hash(name, len, api) & (idx_cap - 1); idx[j];
	     j = (j + 1) & (idx_cap - 1)) {
		const struct sbt_region *g = &ds->regions[idx[j] - 1];
		if (g->api == api && strlen(g->name) == len &&
		    memcmp(g->name, name, len) == 0)
			return (long)idx[j] - 1;
	}
	if (ds->nregions == ds->cap_regions) {
		size_t cap = ds->cap_regions ? 2 * ds->cap_regions : 64;
		void *n = realloc(ds->regions, cap * sizeof *ds->regions);
		if (!n)
			return -1;
		ds->regions = n, ds->cap_regions = cap;
	}
	struct sbt_region *g = &ds->regions[ds->nregions];
	memset(g, 0, sizeof *g);
	if (!(g->name = malloc(len + 1)))
		return -1;
	memcpy(g->name, name, len);
	g->name[len] = 0;
	g->api = api;
	g->keep = 1;
	idx[j] = (uint32_t)++ds->nregions;
	return (long)ds->nregions - 1;
}

long sbt_ds_find(const struct sbt_dataset *ds, const char *name,
		 uint32_t api)
{
	size_t len = strlen(name);

	if (!ds->rindex_cap)
		return -1;
	for (size_t j = hash(name, len, api) & (ds->rindex_cap - 1);
	     ds->rindex[j]; j = (j + 1) & (ds->rindex_cap - 1)) {
		const struct sbt_region *h = &ds->regions[ds->rindex[j] - 1];
		if (h->api == api && !strcmp(h->name, name))
			return (long)ds->rindex[j] - 1;
	}
	return -1;
}

int sbt_ds_rename(struct sbt_dataset *ds, size_t r, const char *name)
{
	struct sbt_region *g = &ds->regions[r];
	char *n;

	if (sbt_ds_find(ds, name, g->api) >= 0)
		return 1;
	if (!(n = strdup(name)))
		return -1;
	free(g->name);
	g->name = n;
	return reindex(ds, ds->rindex_cap ? ds->rindex_cap : 1024);
}

struct sbt_sample *sbt_ds_push(struct sbt_dataset *ds)
{
	if (ds->n == ds->cap) {
		size_t cap = ds->cap ? ds->cap + ds->cap / 2 : 4096;
		void *n = realloc(ds->s, cap * sizeof *ds->s);
		if (!n)
			return NULL;
		ds->s = n, ds->cap = cap;
	}
	struct sbt_sample *s = &ds->s[ds->n++];
	memset(s, 0, sizeof *s);
	s->cpu_start = s->cpu_stop = 0xffff;
	s->site = SBT_SITE_NONE;
	return s;
}

int sbt_ds_reserve(struct sbt_dataset *ds, size_t more)
{
	size_t cap = ds->cap ? ds->cap : 4096;

	if (ds->n + more <= ds->cap)
		return 0;
	while (cap < ds->n + more)      /* geometric: linear total copying */
		cap += cap / 2;
	return sbt_ds_room(ds, cap);
}

int sbt_ds_room(struct sbt_dataset *ds, size_t cap)
{
	if (cap <= ds->cap)
		return 0;
	void *n = realloc(ds->s, cap * sizeof *ds->s);
	if (!n)
		return -1;
	ds->s = n, ds->cap = cap;
	/* touching tens of millions of samples page by page is a large
	 * share of the run time */
	big_huge(n, cap * sizeof *ds->s);
	return 0;
}

struct sbt_source *sbt_ds_source(struct sbt_dataset *ds, const char *path)
{
	if (ds->nsources == ds->cap_sources) {
		size_t cap = ds->cap_sources ? 2 * ds->cap_sources : 8;
		void *n = realloc(ds->sources, cap * sizeof *ds->sources);
		if (!n)
			return NULL;
		ds->sources = n, ds->cap_sources = cap;
	}
	struct sbt_source *src = &ds->sources[ds->nsources];
	memset(src, 0, sizeof *src);
	src->pid = -1, src->rank = -1;
	if (!(src->path = strdup(path ? path : "-")))
		return NULL;
	ds->nsources++;
	return src;
}

long sbt_ds_site(struct sbt_dataset *ds, uint32_t source,
		 const uint64_t *frames, uint32_t depth)
{
	if (ds->nsites == ds->cap_sites) {
		size_t cap = ds->cap_sites ? 2 * ds->cap_sites : 64;
		void *n = realloc(ds->sites, cap * sizeof *ds->sites);
		if (!n)
			return -1;
		ds->sites = n, ds->cap_sites = cap;
	}
	struct sbt_site *st = &ds->sites[ds->nsites];
	memset(st, 0, sizeof *st);
	st->source = source;
	if (depth && !(st->frames = malloc(depth * sizeof *frames)))
		return -1;
	if (depth)
		memcpy(st->frames, frames, depth * sizeof *frames);
	st->depth = depth;
	return (long)ds->nsites++;
}

int sbt_probe_push(struct sbt_probe **a, size_t *n, size_t *cap,
		   const struct sbt_probe *p)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 256;
		void *m = realloc(*a, c * sizeof **a);
		if (!m)
			return -1;
		*a = m, *cap = c;
	}
	(*a)[(*n)++] = *p;
	return 0;
}

int sbt_ds_probe(struct sbt_dataset *ds, const struct sbt_probe *p)
{
	return sbt_probe_push(&ds->probes, &ds->nprobes, &ds->cap_probes, p);
}

int sbt_ds_mprobe(struct sbt_dataset *ds, const struct sbt_probe *p)
{
	return sbt_probe_push(&ds->mprobes, &ds->nmprobes, &ds->cap_mprobes,
			      p);
}

int sbt_ds_detour(struct sbt_dataset *ds, const struct sbt_probe *p)
{
	return sbt_probe_push(&ds->detours, &ds->ndetours, &ds->cap_detours,
			      p);
}

int sbt_ds_append(struct sbt_dataset *ds, struct sbt_dataset *part)
{
	uint32_t *rmap = malloc((part->nregions + 1) * sizeof *rmap);
	uint32_t src0 = (uint32_t)ds->nsources;
	size_t site0 = ds->nsites;
	int rc = -1;

	if (!rmap)
		return -1;
	for (size_t r = 0; r < part->nregions; r++) {
		const struct sbt_region *g = &part->regions[r];
		long i = sbt_ds_region(ds, g->name, strlen(g->name), g->api);
		if (i < 0)
			goto out;
		rmap[r] = (uint32_t)i;
		struct sbt_region *d = &ds->regions[i];
		if (!d->site && g->site) {
			d->site = g->site;
			d->source = src0 + g->source;
		}
	}
	if (sbt_ds_reserve(ds, part->n) != 0)
		goto out;
	/* Sources and sites move (their strings and frames with them). */
	for (size_t i = 0; i < part->nsources; i++) {
		struct sbt_source *s = sbt_ds_source(ds, NULL);
		if (!s)
			goto out;
		free(s->path);
		*s = part->sources[i];
		memset(&part->sources[i], 0, sizeof part->sources[i]);
	}
	for (size_t i = 0; i < part->nsites; i++) {
		struct sbt_site *p = &part->sites[i];
		long k = sbt_ds_site(ds, src0 + p->source, NULL, 0);
		if (k < 0)
			goto out;
		struct sbt_site *d = &ds->sites[k];
		d->region = p->region < part->nregions ? rmap[p->region] : 0;
		d->count = p->count;
		d->depth = p->depth, d->frames = p->frames;
		p->frames = NULL, p->depth = 0;
	}
	size_t first = ds->n;
	for (size_t i = 0; i < part->n; i++) {
		struct sbt_sample *d = &ds->s[ds->n++];
		*d = part->s[i];
		d->region = rmap[d->region];
		d->source += src0;
		if (d->site != SBT_SITE_NONE)
			d->site += (uint32_t)site0;
	}
	if (sbt_cnt_append(ds, part, first, src0) != 0)
		goto out;
	for (size_t i = 0; i < part->nprobes; i++) {
		struct sbt_probe p = part->probes[i];
		p.source += src0;
		if (sbt_ds_probe(ds, &p) != 0)
			goto out;
	}
	for (size_t i = 0; i < part->nmprobes; i++) {
		struct sbt_probe p = part->mprobes[i];
		p.source += src0;
		if (sbt_ds_mprobe(ds, &p) != 0)
			goto out;
	}
	for (size_t i = 0; i < part->ndetours; i++) {
		struct sbt_probe p = part->detours[i];
		p.source += src0;
		if (sbt_ds_detour(ds, &p) != 0)
			goto out;
	}
	rc = 0;
out:
	free(rmap);
	sbt_ds_free(part);
	return rc;
}

void sbt_ds_free(struct sbt_dataset *ds)
{
	for (size_t i = 0; i < ds->nsites; i++)
		free(ds->sites[i].frames);
	free(ds->sites);
	for (size_t i = 0; i < ds->nregions; i++)
		free(ds->regions[i].name);
	for (size_t i = 0; i < ds->nsources; i++) {
		for (size_t m = 0; m < ds->sources[i].nmodules; m++)
			free(ds->sources[i].modules[m].path);
		free(ds->sources[i].modules);
		free(ds->sources[i].thr);
		free(ds->sources[i].thr_ix);
		free(ds->sources[i].names);
		free(ds->sources[i].path);
	}
	free(ds->s), free(ds->regions), free(ds->sources), free(ds->rindex);
	free(ds->probes);
	free(ds->mprobes);
	free(ds->detours);
	sbt_cnt_free(ds->cnt);
	memset(ds, 0, sizeof *ds);
}

int sbt_probe_cmp(const void *a, const void *b)
{
	const struct sbt_probe *x = a, *y = b;

	if (x->source != y->source)
		return x->source < y->source ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->t_ns > y->t_ns) - (x->t_ns < y->t_ns);
}

int sbt_ds_probes_sorted(const struct sbt_dataset *ds)
{
	for (size_t i = 1; i < ds->nprobes; i++)
		if (sbt_probe_cmp(&ds->probes[i - 1], &ds->probes[i]) > 0)
			return 0;
	return 1;
}

void sbt_ds_sort_probes(struct sbt_dataset *ds)
{
	if (!sbt_ds_probes_sorted(ds))
		qsort(ds->probes, ds->nprobes, sizeof *ds->probes,
		      sbt_probe_cmp);
	for (size_t i = 1; i < ds->nmprobes; i++)
		if (sbt_probe_cmp(&ds->mprobes[i - 1], &ds->mprobes[i]) > 0) {
			qsort(ds->mprobes, ds->nmprobes, sizeof *ds->mprobes,
			      sbt_probe_cmp);
			break;
		}
}
