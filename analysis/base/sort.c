/*
 * sort.c - LSD radix sort of doubles (and of doubles carrying a payload);
 * before it, keys already in order are left as they are, and keys of
 * few distinct values are counted into place.
 */
#include "sort.h"
#include "bigmem.h"

#include <stdlib.h>
#include <string.h>

#define BITS   11
#define DIGITS 6                /* 6 x 11 bits cover 64 */
#define RADIX  (1u << BITS)
#define MASK   (RADIX - 1)

/* Order-preserving map of a double's bits to an unsigned integer. */
static uint64_t key_bits(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof u);
	return (u >> 63) ? ~u : u | (1ull << 63);
}

static double from_bits(uint64_t u)
{
	double d;

	u = (u >> 63) ? u & ~(1ull << 63) : ~u;
	memcpy(&d, &u, sizeof d);
	return d;
}

/* Sort k[] (with optional payload p[]) using scratch k2[], p2[].
 * Returns 1 when the result ended in the scratch arrays, else 0. */
static int radix(uint64_t *k, uint32_t *p, uint64_t *k2, uint32_t *p2,
		 size_t n, size_t (*cnt)[RADIX])
{
	int swapped = 0;

	memset(cnt, 0, DIGITS * sizeof *cnt);
	for (size_t i = 0; i < n; i++)
		for (int d = 0; d < DIGITS; d++)
			cnt[d][(k[i] >> (BITS * d)) & MASK]++;
	for (int d = 0; d < DIGITS; d++) {
		size_t sum = 0, *c = cnt[d];
		if (c[(k[0] >> (BITS * d)) & MASK] == n)
			continue;       /* every key has this digit */
		for (unsigned b = 0; b < RADIX; b++) {
			size_t t = c[b];
			c[b] = sum;
			sum += t;
		}
		for (size_t i = 0; i < n; i++) {
			size_t at = c[(k[i] >> (BITS * d)) & MASK]++;
			k2[at] = k[i];
			if (p)
				p2[at] = p[i];
		}
		uint64_t *tk = k; k = k2; k2 = tk;
		uint32_t *tp = p; p = p2; p2 = tp;
		swapped ^= 1;
	}
	return swapped;
}

/* In order already (as the sort orders: by key_bits)?  Start times
 * come sorted, and one pass costs less than the sort's first. */
static int sorted(const double *key, size_t n)
{
	uint64_t prev = key_bits(key[0]);

	for (size_t i = 1; i < n; i++) {
		uint64_t b = key_bits(key[i]);
		if (b < prev)
			return 0;
		prev = b;
	}
	return 1;
}

/* Few distinct keys (timings on a clock of a few ticks): a counting
 * sort by their rank, two passes instead of the radix sort's six. */
#define FEW     4096            /* distinct keys it takes at most      */
#define FEW_CAP 8192            /* their table: a power of two, 2 FEW  */

struct distinct { uint64_t bits; size_t slot; };

static int cmp_distinct(const void *a, const void *b)
{
	uint64_t x = ((const struct distinct *)a)->bits,
		 y = ((const struct distinct *)b)->bits;

	return (x > y) - (x < y);       /* distinct: never equal */
}

/* 1 when sorted so, 0 when the keys are too many for it (nothing
 * moved), -1 out of memory.  Stable, as the radix sort: equal keys keep
 * their order. */
static int sort_few(double *key, uint32_t *val, size_t n)
{
	uint64_t *bits = malloc(FEW_CAP * sizeof *bits);
	size_t *at = calloc(FEW_CAP, sizeof *at);       /* count, then start */
	struct distinct *ord = malloc(FEW * sizeof *ord);
	uint16_t *slot = big_alloc(n * sizeof *slot);
	uint32_t *p2 = NULL;
	size_t nd = 0, sum = 0;
	int rc = -1;

	if (!bits || !at || !ord || !slot)
		goto out;
	rc = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t b = key_bits(key[i]);
		size_t h = (size_t)((b * 0x9e3779b97f4a7c15ull) >> 51);
		while (at[h] && bits[h] != b)
			h = (h + 1) & (FEW_CAP - 1);
		if (!at[h]) {
			if (nd == FEW)
				goto out;       /* too many: the radix sort's */
			bits[h] = b;
			nd++;
		}
		at[h]++;
		slot[i] = (uint16_t)h;
	}
	rc = -1;
	if (val && !(p2 = big_alloc(n * sizeof *p2)))
		goto out;
	nd = 0;
	for (size_t h = 0; h < FEW_CAP; h++)
		if (at[h])
			ord[nd++] = (struct distinct){ bits[h], h };
	qsort(ord, nd, sizeof *ord, cmp_distinct);
	for (size_t i = 0; i < nd; i++) {       /* each key's run, in order */
		size_t h = ord[i].slot, c = at[h];
		double d = from_bits(bits[h]);
		for (size_t j = sum; j < sum + c; j++)
			key[j] = d;
		at[h] = sum;
		sum += c;
	}
	if (val) {
		for (size_t i = 0; i < n; i++)
			p2[at[slot[i]]++] = val[i];
		memcpy(val, p2, n * sizeof *val);
	}
	rc = 1;
out:
	free(bits), free(at), free(ord);
	big_free(slot, n * sizeof *slot);
	big_free(p2, n * sizeof *p2);
	return rc;
}

static int sort_impl(double *key, uint32_t *val, size_t n)
{
	uint64_t *k, *k2;
	uint32_t *p2 = NULL;
	size_t (*cnt)[RADIX];

	if (n < 64) {           /* insertion sort: stable, no allocation */
		for (size_t i = 1; i < n; i++) {
			double x = key[i];
			uint64_t bx = key_bits(x);
			uint32_t y = val ? val[i] : 0;
			size_t j = i;
			for (; j > 0 && key_bits(key[j - 1]) > bx; j--) {
				key[j] = key[j - 1];
				if (val)
					val[j] = val[j - 1];
			}
			key[j] = x;
			if (val)
				val[j] = y;
		}
		return 0;
	}
	if (sorted(key, n))     /* a stable sort leaves it as it is */
		return 0;
	if (sort_few(key, val, n) > 0)
		return 0;
	k = big_alloc(n * sizeof *k);
	k2 = big_alloc(n * sizeof *k2);
	cnt = malloc(DIGITS * sizeof *cnt);
	if (val)
		p2 = big_alloc(n * sizeof *p2);
	if (!k || !k2 || !cnt || (val && !p2)) {
		big_free(k, n * sizeof *k), big_free(k2, n * sizeof *k2);
		big_free(p2, n * sizeof *p2), free(cnt);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		k[i] = key_bits(key[i]);
	int in_scratch = radix(k, val, k2, p2, n, cnt);
	const uint64_t *rk = in_scratch ? k2 : k;
	for (size_t i = 0; i < n; i++)
		key[i] = from_bits(rk[i]);
	if (val && in_scratch)
		memcpy(val, p2, n * sizeof *val);
	big_free(k, n * sizeof *k), big_free(k2, n * sizeof *k2);
	big_free(p2, n * sizeof *p2), free(cnt);
	return 0;
}

int sbt_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int sbt_sort_doubles(double *v, size_t n)
{
	return sort_impl(v, NULL, n);
}

int sbt_sort_keyed(double *key, uint32_t *val, size_t n)
{
	return sort_impl(key, val, n);
}
