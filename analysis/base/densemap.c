/*
 * densemap.c - dense numbers for 64-bit keys: linear probing in a table
 * kept at most half full, grown by doubling.
 */
#include "densemap.h"

#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33; x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static int grow(struct sbt_densemap *m)
{
	size_t cap = m->cap ? 2 * m->cap : 1024;
	uint64_t *k = malloc(cap * sizeof *k);
	uint32_t *v = malloc(cap * sizeof *v);

	if (!k || !v) {
		free(k), free(v);
		return -1;
	}
	memset(v, 0xff, cap * sizeof *v);
	for (size_t i = 0; i < m->cap; i++) {
		if (m->val[i] == UINT32_MAX)
			continue;
		size_t j = mix(m->keys[i]) & (cap - 1);
		while (v[j] != UINT32_MAX)
			j = (j + 1) & (cap - 1);
		k[j] = m->keys[i], v[j] = m->val[i];
	}
	free(m->keys), free(m->val);
	m->keys = k, m->val = v, m->cap = cap;
	return 0;
}

long sbt_densemap_get(struct sbt_densemap *m, uint64_t key)
{
	size_t j;

	if ((m->n + 1) * 2 > m->cap && grow(m) != 0)
		return -1;
	for (j = mix(key) & (m->cap - 1); m->val[j] != UINT32_MAX;
	     j = (j + 1) & (m->cap - 1))
		if (m->keys[j] == key)
			return m->val[j];
	m->keys[j] = key;
	m->val[j] = (uint32_t)m->n;
	return (long)m->n++;
}

void sbt_densemap_free(struct sbt_densemap *m)
{
	free(m->keys), free(m->val);
	memset(m, 0, sizeof *m);
}
