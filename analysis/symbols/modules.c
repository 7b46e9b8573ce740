/*
 * modules.c - sorted, disjoint module ranges for address lookup.
 */
#include "modules.h"

#include <stdlib.h>

static int by_lo(const void *a, const void *b, void *src)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct sbt_module *mx = &((struct sbt_source *)src)->modules[x];
	const struct sbt_module *my = &((struct sbt_source *)src)->modules[y];

	if (mx->lo != my->lo)
		return mx->lo < my->lo ? -1 : 1;
	return x < y ? -1 : x > y;
}

int sbt_modindex_build(struct sbt_modindex *mi, const struct sbt_source *src)
{
	size_t n = 0;
	uint64_t end = 0;

	mi->src = src, mi->n = 0;
	if (!(mi->at = malloc((src->nmodules ? src->nmodules : 1) *
			      sizeof *mi->at)))
		return -1;
	for (size_t i = 0; i < src->nmodules; i++)
		if (src->modules[i].lo < src->modules[i].hi)
			mi->at[n++] = (uint32_t)i;
	qsort_r(mi->at, n, sizeof *mi->at, by_lo, (void *)src);
	/* keep a range only if it starts past every kept one's end */
	for (size_t i = 0; i < n; i++) {
		const struct sbt_module *m = &src->modules[mi->at[i]];
		if (mi->n && m->lo < end)
			continue;
		mi->at[mi->n++] = mi->at[i];
		end = m->hi;
	}
	return 0;
}

void sbt_modindex_free(struct sbt_modindex *mi)
{
	free(mi->at);
	mi->at = NULL, mi->n = 0;
}

long sbt_modindex_find(const struct sbt_modindex *mi, uint64_t pc)
{
	size_t lo = 0, hi = mi->n;

	/* the last range starting at or below pc */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (mi->src->modules[mi->at[mid]].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	const struct sbt_module *m = &mi->src->modules[mi->at[lo - 1]];
	return pc < m->hi ? (long)mi->at[lo - 1] : -1;
}
