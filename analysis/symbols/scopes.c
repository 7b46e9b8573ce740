/*
 * scopes.c - one compile unit's functions indexed by address (scopes.h).
 *
 * Invariants of a built index:
 *   - scope[i] is a subprogram or inlined subroutine with code; its
 *     parent is the inlined subroutine or subprogram whose code holds it,
 *     -1 for a subprogram (an outlined or nested function is never inside
 *     another's code, whatever its DIE's place in the tree);
 *   - iv[] holds every scope's address ranges, sorted by (parent, lo);
 *     first[p + 1] .. first[p + 2] are the ranges of parent p's children;
 *   - fn[] lists every subprogram DIE in offset order (the walk is
 *     pre-order, which is offset order), with its innermost enclosing
 *     named scope in named[].
 */
#ifdef SBT_HAVE_LIBDW
#include "scopes.h"

#include <dwarf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ival { Dwarf_Addr lo, hi; int32_t scope, parent; };
struct named { const char *name; int32_t parent; int type; };
struct fnent { Dwarf_Off off; int32_t named; };

struct sbt_scopes {
	Dwarf_Die *scope; size_t nscope, capscope;
	struct ival *iv; size_t niv, capiv;
	size_t *first;                 /* nscope + 2 entries              */
	struct named *named; size_t nnamed, capnamed;
	struct fnent *fn; size_t nfn, capfn;
};

#define GROW(p, n, cap) \
	((n) < (cap) || grow((void **)&(p), &(cap), sizeof *(p)) == 0)

static int grow(void **p, size_t *cap, size_t size)
{
	size_t nc = *cap ? 2 * *cap : 64;
	void *q = realloc(*p, nc * size);

	if (!q)
		return -1;
	*p = q, *cap = nc;
	return 0;
}

/* The walk's position: the enclosing scope with code and named scope. */
struct level { Dwarf_Die die; int32_t scope, named; };

#define DEPTH_MAX 256                  /* deeper DIE trees: not indexed */

static int add_named(struct sbt_scopes *sc, const char *name, int type,
		     int32_t parent)
{
	if (!GROW(sc->named, sc->nnamed, sc->capnamed))
		return -1;
	sc->named[sc->nnamed] = (struct named){ name, parent, type };
	return (int)sc->nnamed++;
}

/* A function DIE: its ranges as a scope (when it has code) under
 * `parent`.  The scope's index, -1 without code, -2 out of memory. */
static int32_t add_scope(struct sbt_scopes *sc, Dwarf_Die *d, int32_t parent)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	int32_t s = -1;

	while ((off = dwarf_ranges(d, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo)
			continue;
		if (s < 0) {
			if (!GROW(sc->scope, sc->nscope, sc->capscope))
				return -2;
			s = (int32_t)sc->nscope;
			sc->scope[sc->nscope++] = *d;
		}
		if (!GROW(sc->iv, sc->niv, sc->capiv))
			return -2;
		sc->iv[sc->niv++] = (struct ival){ lo, hi, s, parent };
	}
	return s;
}

/* One DIE of the walk: index it; the level its children are at. */
static int visit(struct sbt_scopes *sc, Dwarf_Die *d, const struct level *up,
		 struct level *down)
{
	int tag = dwarf_tag(d);

	*down = (struct level){ .scope = up->scope, .named = up->named };
	switch (tag) {
	case DW_TAG_subprogram: {
		if (!GROW(sc->fn, sc->nfn, sc->capfn))
			return -1;
		sc->fn[sc->nfn++] = (struct fnent){ dwarf_dieoffset(d),
						    up->named };
		int32_t s = add_scope(sc, d, -1);
		if (s == -2)
			return -1;
		if (s >= 0)
			down->scope = s;
		const char *n = dwarf_diename(d);
		if (n && (down->named = add_named(sc, n, 0, up->named)) < 0)
			return -1;
		return 1;
	}
	case DW_TAG_inlined_subroutine: {
		int32_t s = add_scope(sc, d, up->scope);
		if (s == -2)
			return -1;
		if (s >= 0)
			down->scope = s;
		return 1;
	}
	case DW_TAG_namespace:
		if (dwarf_diename(d) &&
		    (down->named = add_named(sc, dwarf_diename(d), 0,
					     up->named)) < 0)
			return -1;
		return 1;
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		if ((down->named = add_named(sc, dwarf_diename(d), 1,
					     up->named)) < 0)
			return -1;
		return 1;
	case DW_TAG_lexical_block:
		return 1;
	default:
		return 0;               /* holds no function: not entered */
	}
}

static int cmp_iv(const void *a, const void *b)
{
	const struct ival *x = a, *y = b;

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return (x->lo > y->lo) - (x->lo < y->lo);
}

struct sbt_scopes *sbt_scopes_build(Dwarf_Die *cu)
{
	struct sbt_scopes *sc = calloc(1, sizeof *sc);
	struct level *st = malloc(DEPTH_MAX * sizeof *st);
	int depth = 0;

	if (!sc || !st)
		goto oom;
	st[0] = (struct level){ .scope = -1, .named = -1 };
	if (dwarf_child(cu, &st[0].die) != 0)
		goto done;
	depth = 1;
	/* Pre-order: visit st[depth-1].die, enter it or go to its sibling. */
	while (depth > 0) {
		struct level *cur = &st[depth - 1], down;
		const struct level *up = depth > 1 ? &st[depth - 2] : &(struct
			level){ .scope = -1, .named = -1 };
		int enter = visit(sc, &cur->die, up, &down);
		if (enter < 0)
			goto oom;
		if (enter && depth < DEPTH_MAX &&
		    dwarf_child(&cur->die, &st[depth].die) == 0) {
			/* the child's level carries what its parent opened */
			cur->scope = down.scope, cur->named = down.named;
			depth++;
			continue;
		}
		while (depth > 0 && dwarf_siblingof(&st[depth - 1].die,
						    &st[depth - 1].die) != 0)
			depth--;
	}
done:
	qsort(sc->iv, sc->niv, sizeof *sc->iv, cmp_iv);
	if (!(sc->first = calloc(sc->nscope + 3, sizeof *sc->first)))
		goto oom;
	for (size_t i = 0; i < sc->niv; i++)
		sc->first[sc->iv[i].parent + 2]++;
	for (size_t p = 1; p < sc->nscope + 3; p++)
		sc->first[p] += sc->first[p - 1];
	free(st);
	return sc;
oom:
	free(st);
	sbt_scopes_free(sc);
	return NULL;
}

void sbt_scopes_free(struct sbt_scopes *sc)
{
	if (!sc)
		return;
	free(sc->scope), free(sc->iv), free(sc->first);
	free(sc->named), free(sc->fn);
	free(sc);
}

/* The child of `parent` whose ranges hold pc, -1 none.  Siblings' ranges
 * do not overlap in sane DWARF; a few back are tried for those that do,
 * and of aliases (the same range twice) the first in the unit wins, as
 * in a walk of the tree. */
static int32_t child_at(const struct sbt_scopes *sc, int32_t parent,
			Dwarf_Addr pc)
{
	size_t lo = sc->first[parent + 1], hi = sc->first[parent + 2];
	size_t a = lo, b = hi;

	while (a < b) {                /* first range with lo > pc */
		size_t m = a + (b - a) / 2;
		if (sc->iv[m].lo <= pc)
			a = m + 1;
		else
			b = m;
	}
	for (size_t k = a, tries = 0; k > lo && tries < 8; k--, tries++) {
		const struct ival *v = &sc->iv[k - 1];
		if (pc >= v->hi)
			continue;
		int32_t best = v->scope;
		while (--k > lo && sc->iv[k - 1].lo == v->lo)
			if (pc < sc->iv[k - 1].hi && sc->iv[k - 1].scope < best)
				best = sc->iv[k - 1].scope;
		return best;
	}
	return -1;
}

int sbt_scopes_at(const struct sbt_scopes *sc, Dwarf_Addr pc, Dwarf_Die *out,
		  int max)
{
	int32_t chain[64];
	int n = 0;

	for (int32_t s = child_at(sc, -1, pc); s >= 0 && n < 64;
	     s = child_at(sc, s, pc))
		chain[n++] = s;
	for (int i = 0; i < n && i < max; i++)     /* innermost first */
		out[i] = sc->scope[chain[n - 1 - i]];
	return n < max ? n : max;
}

int sbt_scopes_prefix(const struct sbt_scopes *sc, Dwarf_Off off,
		      const char *name, char *buf, size_t len)
{
	size_t a = 0, b = sc->nfn, used = 0;
	int32_t up[32];
	int n = 0;

	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (sc->fn[m].off < off)
			a = m + 1;
		else
			b = m;
	}
	if (a == sc->nfn || sc->fn[a].off != off)
		return -1;
	for (int32_t k = sc->fn[a].named; k >= 0 && n < 32;
	     k = sc->named[k].parent)
		up[n++] = k;
	buf[0] = 0;
	for (int i = n - 1; i >= 0 && used < len; i--) {
		const struct named *q = &sc->named[up[i]];
		const char *pn = q->name;
		if (!pn)                /* a closure type has no name */
			pn = strcmp(name, "operator()") ? "<anonymous>"
							: "<lambda>";
		int w = snprintf(buf + used, len - used, "%s::", pn);
		used += w > 0 ? (size_t)w : 0;
	}
	return 0;
}

#endif
