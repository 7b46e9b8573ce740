/*
 * test_sort.c - the analyzer's sorts (analysis/base/sort.c) against a
 * stable comparison sort, on each of their ways: keys already in order,
 * few distinct keys (counted into place), many (radix), small arrays;
 * with -0, +0, infinities and NaNs among them, and a payload that shows
 * any reordering of equal keys.
 */
#include "sort.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return rng;
}

/* the sorts' order: the IEEE-754 bits made order-preserving */
static uint64_t bits_of(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof u);
	return (u >> 63) ? ~u : u | (1ull << 63);
}

struct pair { uint64_t b; uint32_t i; };

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);   /* stable */
}

static int fails;

static void check(const char *what, const double *in, size_t n)
{
	double *k = malloc(n * sizeof *k), *d = malloc(n * sizeof *d);
	uint32_t *v = malloc(n * sizeof *v);
	struct pair *p = malloc(n * sizeof *p);

	memcpy(k, in, n * sizeof *k);
	memcpy(d, in, n * sizeof *d);
	for (size_t i = 0; i < n; i++) {
		v[i] = (uint32_t)i;
		p[i] = (struct pair){ bits_of(in[i]), (uint32_t)i };
	}
	qsort(p, n, sizeof *p, cmp_pair);
	if (sbt_sort_keyed(k, v, n) != 0 || sbt_sort_doubles(d, n) != 0) {
		printf("FAIL %s: out of memory\n", what);
		fails++;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (v[i] != p[i].i || memcmp(&k[i], &in[p[i].i], sizeof *k) ||
		    memcmp(&d[i], &in[p[i].i], sizeof *d)) {
			printf("FAIL %s: n %zu, at %zu payload %u, want %u\n",
			       what, n, i, v[i], p[i].i);
			fails++;
			goto out;
		}
	}
	printf("ok %s (n %zu)\n", what, n);
out:
	free(k), free(d), free(v), free(p);
}

int main(void)
{
	static const double odd[] = { -0.0, 0.0, INFINITY, -INFINITY, NAN };
	size_t sizes[] = { 5, 63, 64, 1000, 300000 };

	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		size_t n = sizes[s];
		double *x = malloc(n * sizeof *x);
		char name[64];
		/* few distinct: a clock's ticks, and the odd values */
		for (size_t i = 0; i < n; i++)
			x[i] = next() % 50 == 0 ? odd[next() % 5] :
			       (double)(next() % 40) * 0.3846 - 2;
		check("few distinct", x, n);
		/* exactly at the bound of the counted way, and one past */
		for (size_t i = 0; i < n; i++)
			x[i] = (double)(i % 4096) * 1.5;
		check("4096 distinct", x, n);
		for (size_t i = 0; i < n; i++)
			x[i] = (double)(i % 4097) * -1.5;
		check("4097 distinct", x, n);
		/* many distinct, with the odd values */
		for (size_t i = 0; i < n; i++) {
			double u = (double)(next() >> 11) * 0x1p-53;
			x[i] = next() % 100 == 0 ? odd[next() % 5] :
			       (u - 0.5) * 1e6;
		}
		check("many distinct", x, n);
		/* in order already, with ties */
		for (size_t i = 0; i < n; i++)
			x[i] = (double)(i / 3);
		check("sorted", x, n);
		/* in order but for the last */
		x[n - 1] = -1;
		snprintf(name, sizeof name, "sorted but the last");
		check(name, x, n);
		free(x);
	}
	return fails ? 1 : 0;
}
