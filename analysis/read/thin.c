/*
 * thin.c - which samples the analyzer holds when there are too many.
 * The reasoning is in thin.h; here: the key and the water-filling plan.
 */
#include "thin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define mix sbt_thin_mix

static uint64_t fnv(const char *s, uint64_t h)
{
	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

uint64_t sbt_thin_key_base(const struct sbt_source *src,
			   const char *name, uint32_t api)
{
	uint64_t h = fnv(src->host, 0xcbf29ce484222325ull);
	h = mix(h ^ (uint32_t)src->pid ^ (uint64_t)(uint32_t)src->rank << 32);
	return mix(h ^ fnv(name, 0xcbf29ce484222325ull) ^ api);
}

uint64_t sbt_thin_key(const struct sbt_source *src, uint32_t thread,
		      const struct sbt_region *r, double t_ns)
{
	return sbt_thin_key_at(sbt_thin_key_base(src, r->name, r->api),
			       thread, t_ns);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

uint64_t sbt_thin_plan(struct sbt_dataset *ds, uint64_t budget)
{
	size_t n = ds->nregions;
	uint64_t sum = 0;

	for (size_t r = 0; r < n; r++)
		sum += ds->regions[r].total;
	if (!budget || sum <= budget || n == 0)
		return sum;
	/* The level L with sum(min(total_r, L)) = budget: regions under L
	 * keep all, the rest keep L samples each on average. */
	uint64_t *t = malloc(n * sizeof *t);
	if (!t) {                       /* plan without sorting: equal p */
		for (size_t r = 0; r < n; r++)
			if ((double)budget / (double)sum < ds->regions[r].keep)
				ds->regions[r].keep = (double)budget /
						      (double)sum;
		return budget;
	}
	for (size_t r = 0; r < n; r++)
		t[r] = ds->regions[r].total;
	qsort(t, n, sizeof *t, cmp_u64);
	double left = (double)budget, level = 0;
	size_t i;
	for (i = 0; i < n; i++) {
		level = left / (double)(n - i);
		if ((double)t[i] > level)
			break;
		left -= (double)t[i];
	}
	free(t);
	uint64_t kept = 0;
	for (size_t r = 0; r < n; r++) {
		struct sbt_region *g = &ds->regions[r];
		if ((double)g->total > level &&
		    level / (double)g->total < g->keep)
			g->keep = level / (double)g->total;
		kept += (double)g->total > level ? (uint64_t)level : g->total;
	}
	return kept;
}

double sbt_thin_level_share(const struct sbt_source *s, double t_ns)
{
	uint32_t k = s->thin_level;

	if (!k)
		return 1;
	while (k > 0 && t_ns < s->thin_at_ns[k])
		k--;
	return ldexp(1, -(int)(s->thin_level - k));
}

int sbt_thin_held(const struct sbt_source *src, const struct sbt_region *g,
		  uint32_t thread, double t_ns)
{
	double share = g->keep * sbt_thin_level_share(src, t_ns);

	return share >= 1 ||
	       sbt_thin_keep(sbt_thin_key(src, thread, g, t_ns), share);
}
