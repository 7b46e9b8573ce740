/*
 * callsites.c - symbolize each recorded call site once, count samples
 * per site.
 *
 * A site's frames are return addresses, innermost first: frames[0] is the
 * marker call, the rest its callers.  Each expands to one or more source
 * frames (inlining), so the stack a report shows can be longer than the
 * recorded depth.
 *
 * Thousands of sites share few addresses (a region name built per
 * iteration at one call: every site has the same frames), so the
 * distinct (source, address) pairs of all sites are resolved first, each
 * once, by -j threads with a symbolizer session each; the sites are then
 * put together from those answers, in site order, the same for any -j.
 */
#include "jobs.h"
#include "callsites.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Frames of a site looked at: the recorder writes at most 12; more is a
 * damaged entry, not worth symbolizing. */
#define FRAMES_MAX 32

/* One distinct return address of a source, and what it resolved to. */
struct addr {
	uint32_t source;
	uint64_t addr;
	struct sbt_symaddr a;
	const char *note;              /* its module's note, "" none       */
};

struct resolver {
	const struct sbt_dataset *ds;
	struct addr *u;
	size_t n;
	atomic_size_t next;
	atomic_int failed;
};

/* What putting the sites together needs besides the answers. */
struct build {
	const struct sbt_dataset *ds;
	const struct resolver *r;      /* NULL: module+offset only      */
	struct sbt_modindex *mix;      /* r NULL: one per source        */
	unsigned char **noted;         /* per source, per module: 1 seen */
	size_t capnotes;
};

/* Module m's note, once per (source, module): duplicates of the same
 * text (one binary in several logs) are merged by dedupe_notes.  The
 * recorder's own library gets none: its frames are ours, not the
 * user's code, and how it was built tells the user nothing. */
static int add_note(struct build *b, struct sbt_callsites *cs, uint32_t src,
		    long m, const char *path, const char *note)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char buf[600];

	if (m < 0 || (size_t)m >= b->ds->sources[src].nmodules ||
	    !strncmp(base, "libsbtmark.so", 13))
		return 0;
	if (!b->noted[src] &&
	    !(b->noted[src] = calloc(b->ds->sources[src].nmodules, 1)))
		return -1;
	if (b->noted[src][m])
		return 0;
	b->noted[src][m] = 1;
	if (cs->nnotes == b->capnotes) {
		size_t cap = b->capnotes ? 2 * b->capnotes : 8;
		char **n = realloc(cs->notes, cap * sizeof *n);
		if (!n)
			return -1;
		cs->notes = n, b->capnotes = cap;
	}
	snprintf(buf, sizeof buf, "%s %s", path, note);
	if (!(cs->notes[cs->nnotes] = strdup(buf)))
		return -1;
	cs->nnotes++;
	return 0;
}

/* Source src's note on its names section ("LOG has a names section
 * ...: left out"). */
static int add_source_note(struct build *b, struct sbt_callsites *cs,
			   uint32_t src)
{
	const struct sbt_source *s = &b->ds->sources[src];
	char buf[800];

	if (cs->nnotes == b->capnotes) {
		size_t cap = b->capnotes ? 2 * b->capnotes : 8;
		char **n = realloc(cs->notes, cap * sizeof *n);
		if (!n)
			return -1;
		cs->notes = n, b->capnotes = cap;
	}
	snprintf(buf, sizeof buf, "%s %s", s->path, s->names_note);
	if (!(cs->notes[cs->nnotes] = strdup(buf)))
		return -1;
	cs->nnotes++;
	return 0;
}

static int cmp_note(const void *x, const void *y, void *notes)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	int c = strcmp(((char **)notes)[a], ((char **)notes)[b]);

	return c ? c : (a > b) - (a < b);
}

/* Each note text once, where it first appeared. */
static int dedupe_notes(struct sbt_callsites *cs)
{
	size_t *ix = malloc((cs->nnotes + 1) * sizeof *ix), k = 0;

	if (!ix)
		return -1;
	for (size_t i = 0; i < cs->nnotes; i++)
		ix[i] = i;
	qsort_r(ix, cs->nnotes, sizeof *ix, cmp_note, cs->notes);
	/* sorted by text, then by place: the first of each run stays */
	for (size_t i = 1, keep = 0; i < cs->nnotes; i++) {
		if (strcmp(cs->notes[ix[i]], cs->notes[ix[keep]])) {
			keep = i;
			continue;
		}
		free(cs->notes[ix[i]]);
		cs->notes[ix[i]] = NULL;
	}
	for (size_t i = 0; i < cs->nnotes; i++)
		if (cs->notes[i])
			cs->notes[k++] = cs->notes[i];
	cs->nnotes = k;
	free(ix);
	return 0;
}

static int cmp_addr(const void *x, const void *y)
{
	const struct addr *a = x, *b = y;

	if (a->source != b->source)
		return a->source < b->source ? -1 : 1;
	return (a->addr > b->addr) - (a->addr < b->addr);
}

/* A frame to resolve; sorted like struct addr. */
struct key { uint32_t source; uint64_t addr; };

static int cmp_key(const void *x, const void *y)
{
	const struct key *a = x, *b = y;

	if (a->source != b->source)
		return a->source < b->source ? -1 : 1;
	return (a->addr > b->addr) - (a->addr < b->addr);
}

/* The resolved address (source, addr) among r->u. */
static const struct addr *find_addr(const struct resolver *r, uint32_t source,
				    uint64_t addr)
{
	struct addr key = { .source = source, .addr = addr };

	return bsearch(&key, r->u, r->n, sizeof key, cmp_addr);
}

/* Resolver thread: takes the next addresses in order; they come grouped
 * by source, so a session is opened once per source it meets. */
static void *resolve(void *arg)
{
	struct resolver *r = arg;
	struct sbt_symsess *ss = NULL;
	uint32_t cur = UINT32_MAX;

	for (;;) {
		size_t i = atomic_fetch_add(&r->next, 1);
		if (i >= r->n || atomic_load(&r->failed))
			break;
		struct addr *u = &r->u[i];
		if (u->source != cur) {
			sbt_symsess_close(ss);
			cur = u->source;
			if (!(ss = sbt_symsess_open(&r->ds->sources[cur]))) {
				atomic_store(&r->failed, 1);
				break;
			}
		}
		sbt_symbolize_addr(ss, u->addr, &u->a);
		/* a note lives as long as its session: copied */
		const char *note = sbt_symbolize_note(ss, u->a.module_no);
		char *copy = note[0] ? strdup(note) : NULL;
		if (note[0] && !copy) {
			atomic_store(&r->failed, 1);
			break;
		}
		u->note = copy ? copy : "";
	}
	sbt_symsess_close(ss);
	return NULL;
}

/* Every distinct (source, frame) of the sites, resolved by `jobs`
 * threads.  0, or -1 when out of memory. */
static int resolve_all(struct resolver *r, const struct sbt_site *extra,
		       size_t nextra, int jobs)
{
	const struct sbt_dataset *ds = r->ds;
	size_t n = 0, k = 0;

	struct key *key;
	for (size_t i = 0; i < ds->nsites; i++)
		n += ds->sites[i].depth < FRAMES_MAX ? ds->sites[i].depth
						     : FRAMES_MAX;
	n += nextra;
	/* the keys first, small; the answers only for distinct ones */
	if (!(key = malloc((n + 1) * sizeof *key)))
		return -1;
	for (size_t i = 0; i < ds->nsites + nextra; i++) {
		const struct sbt_site *s = i < ds->nsites ? &ds->sites[i] :
					   &extra[i - ds->nsites];
		for (uint32_t d = 0; d < s->depth && d < FRAMES_MAX; d++)
			key[k++] = (struct key){ s->source, s->frames[d] };
	}
	qsort(key, k, sizeof *key, cmp_key);
	size_t nu = 0;
	for (size_t i = 0; i < k; i++)
		if (!nu || cmp_key(&key[nu - 1], &key[i]) != 0)
			key[nu++] = key[i];
	if (!(r->u = calloc(nu + 1, sizeof *r->u))) {
		free(key);
		return -1;
	}
	for (size_t i = 0; i < nu; i++)
		r->u[i] = (struct addr){ .source = key[i].source,
					 .addr = key[i].addr, .note = "" };
	r->n = nu;
	free(key);
	atomic_store(&r->next, 0);
	atomic_store(&r->failed, 0);

	pthread_t t[SBT_JOBS_MAX];
	int nt = 0;
	jobs = sbt_jobs(jobs);
	for (int i = 1; i < jobs && (size_t)i < r->n; i++) {
		if (pthread_create(&t[nt], NULL, resolve, r) != 0)
			break;          /* fewer threads: still correct */
		nt++;
	}
	resolve(r);
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	return atomic_load(&r->failed) ? -1 : 0;
}

static void resolver_free(struct resolver *r)
{
	for (size_t i = 0; r->u && i < r->n; i++)
		if (r->u[i].note[0])
			free((char *)r->u[i].note);
	free(r->u);
}

/* Site `s` into c, from the resolved addresses (b->r NULL: module+offset
 * only, no debug info read). */
static int build_one(struct build *b, const struct sbt_site *s,
		     struct sbt_callsites *cs, struct sbt_callsite *c)
{
	const struct sbt_source *src = &b->ds->sources[s->source];
	uint32_t depth = s->depth < FRAMES_MAX ? s->depth : FRAMES_MAX;
	struct sbt_symaddr a, first;

	if (depth == 0) {
		snprintf(c->label, sizeof c->label, "?");
		return 0;
	}
	if (!(c->stack = calloc((size_t)depth * SBT_SYM_INLINE,
				sizeof *c->stack)))
		return -1;
	for (uint32_t d = 0; d < depth; d++) {
		const struct addr *u = b->r ? find_addr(b->r, s->source,
							s->frames[d]) : NULL;
		if (u) {
			a = u->a;
		} else {
			/* module + offset only: no debug info is read */
			long m = b->mix ? sbt_modindex_find(&b->mix[s->source],
							    s->frames[d] - 1)
					: -1;
			memset(&a, 0, sizeof a);
			a.module_no = m;
			if (m >= 0) {
				snprintf(a.module, sizeof a.module, "%s",
					 src->modules[m].path);
				a.offset = s->frames[d] - src->modules[m].base;
			}
		}
		if (d == 0) {
			first = a;
			memcpy(c->at.module, a.module, sizeof c->at.module);
			c->at.offset = a.offset;
			c->at.module_state = a.module_state;
			c->at.nframes = a.nframes > 0;
			if (a.nframes)
				c->at.f[0] = a.f[0];
		}
		if (u && u->note[0] &&
		    add_note(b, cs, s->source, a.module_no, a.module,
			     u->note) != 0)
			return -1;
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
	/* the stack as long as it is, not as long as it could be */
	void *fit = realloc(c->stack, (size_t)(c->nstack ? c->nstack : 1) *
			    sizeof *c->stack);
	if (fit)
		c->stack = fit;
	sbt_symaddr_short(&first, c->label, sizeof c->label);
	return 0;
}

static const struct sbt_callsites *cmp_cs;

static int frames_cmp(const struct sbt_callsite *x, const struct sbt_callsite *y)
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

/* Sort order of twins(): region, then innermost file (its base name,
 * as reports show it) and line; sites without a line last. */
static int cmp_line(const void *a, const void *b)
{
	const struct sbt_callsite *x = &cmp_cs->c[*(const uint32_t *)a];
	const struct sbt_callsite *y = &cmp_cs->c[*(const uint32_t *)b];
	int hx = x->at.nframes && x->at.f[0].file[0];
	int hy = y->at.nframes && y->at.f[0].file[0];
	int c;

	if (x->region != y->region)
		return x->region < y->region ? -1 : 1;
	if (hx != hy)
		return hx ? -1 : 1;
	if (!hx)
		return 0;
	const char *fx = strrchr(x->at.f[0].file, '/');
	const char *fy = strrchr(y->at.f[0].file, '/');
	if ((c = strcmp(fx ? fx + 1 : x->at.f[0].file,
			fy ? fy + 1 : y->at.f[0].file)) != 0)
		return c;
	return (x->at.f[0].line > y->at.f[0].line) -
	       (x->at.f[0].line < y->at.f[0].line);
}

/* Mark the sites of one region that read the same file:line but are
 * different locations (a call GCC duplicated, a loop peeled): a report
 * that shows sites by file:line must add their offsets. */
static int twins(struct sbt_callsites *cs)
{
	uint32_t *ix = malloc((cs->n + 1) * sizeof *ix);
	size_t k = 0;

	if (!ix)
		return -1;
	for (size_t i = 0; i < cs->n; i++)
		if (cs->same[i] == i)
			ix[k++] = (uint32_t)i;
	cmp_cs = cs;
	qsort(ix, k, sizeof *ix, cmp_line);
	for (size_t i = 0, first = 0; i <= k; i++) {
		if (i < k && i > first && cmp_line(&ix[i], &ix[first]) == 0)
			continue;
		for (size_t j = first; i - first > 1 && j < i; j++)
			if (cs->c[ix[j]].at.nframes &&
			    cs->c[ix[j]].at.f[0].file[0])
				cs->c[ix[j]].twin = 1;
		first = i;
	}
	for (size_t i = 0; i < cs->n; i++)
		cs->c[i].twin = cs->c[cs->same[i]].twin;
	free(ix);
	return 0;
}

int sbt_callsites_build(const struct sbt_dataset *ds, int symbols, int jobs,
			struct sbt_callsites *cs)
{
	size_t nfb = 0;
	char *has = calloc(ds->nregions + 1, 1);
	struct sbt_site *fb = NULL;
	struct resolver r = { .ds = ds };
	struct build b = { .ds = ds, .r = symbols ? &r : NULL };
	int rc = -1;

	memset(cs, 0, sizeof *cs);
	b.noted = calloc(ds->nsources + 1, sizeof *b.noted);
	if (!symbols && (b.mix = calloc(ds->nsources + 1, sizeof *b.mix)))
		for (size_t i = 0; i < ds->nsources; i++)
			if (sbt_modindex_build(&b.mix[i], &ds->sources[i]))
				goto out;
	if (!has || !b.noted || (!symbols && !b.mix))
		goto out;
	for (size_t i = 0; i < ds->nsites; i++)
		if (ds->sites[i].region < ds->nregions)
			has[ds->sites[i].region] = 1;
	for (size_t g = 0; g < ds->nregions; g++)
		nfb += !has[g] && ds->regions[g].site &&
		       ds->regions[g].source < ds->nsources;
	cs->c = calloc(ds->nsites + nfb + 1, sizeof *cs->c);
	cs->fallback = malloc((ds->nregions + 1) * sizeof *cs->fallback);
	fb = calloc(nfb + 1, sizeof *fb);
	if (!cs->c || !cs->fallback || !fb)
		goto out;
	memset(cs->fallback, 0xff, (ds->nregions + 1) * sizeof *cs->fallback);
	nfb = 0;
	for (size_t g = 0; g < ds->nregions; g++) {
		const struct sbt_region *rg = &ds->regions[g];
		if (!has[g] && rg->site && rg->source < ds->nsources)
			fb[nfb++] = (struct sbt_site){ .region = (uint32_t)g,
				.source = rg->source, .depth = 1,
				.frames = (uint64_t *)&rg->site };
	}
	if (symbols && resolve_all(&r, fb, nfb, jobs) != 0)
		goto out;
	/* a names section left out: said before the modules' notes */
	for (uint32_t i = 0; symbols && i < ds->nsources; i++)
		if (ds->sources[i].names_note[0] &&
		    add_source_note(&b, cs, i) != 0)
			goto out;
	for (size_t i = 0; i < ds->nsites; i++, cs->n++) {
		if (build_one(&b, &ds->sites[i], cs, &cs->c[i]) != 0)
			goto out;
		cs->c[i].region = ds->sites[i].region;
	}
	for (size_t i = 0; i < nfb; i++) {
		if (build_one(&b, &fb[i], cs, &cs->c[cs->n]) != 0)
			goto out;
		cs->c[cs->n].region = fb[i].region;
		cs->fallback[fb[i].region] = (uint32_t)cs->n++;
	}
	rc = dedupe_notes(cs) == 0 && merge_same(cs) == 0 &&
	     twins(cs) == 0 ? 0 : -1;
out:
	for (size_t i = 0; b.noted && i < ds->nsources; i++)
		free(b.noted[i]);
	for (size_t i = 0; b.mix && i < ds->nsources; i++)
		sbt_modindex_free(&b.mix[i]);
	free(b.noted), free(b.mix), free(has), free(fb);
	resolver_free(&r);
	if (rc != 0)
		sbt_callsites_free(cs);
	return rc;
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
