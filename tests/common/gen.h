/*
 * gen.h - deterministic synthetic timing data for the tests and benchmarks.
 *
 * Everything derives from one xorshift-style generator seeded by the test,
 * so a failing case reproduces exactly.  Values are in ns.
 */
#ifndef SBT_TEST_GEN_H
#define SBT_TEST_GEN_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

struct gen { uint64_t s; };

static inline uint64_t gen_u64(struct gen *g)
{
	uint64_t z = (g->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in (0, 1). */
static inline double gen_unit(struct gen *g)
{
	return ((double)(gen_u64(g) >> 11) + 0.5) * 0x1p-53;
}

/* Uniform in [0, 1). */
static inline double gen_unif(struct gen *g)
{
	return (double)(gen_u64(g) >> 11) * 0x1p-53;
}

/* Standard normal (Box-Muller, one of the pair). */
static inline double gen_norm(struct gen *g)
{
	double u = gen_unif(g), v = gen_unif(g);
	return sqrt(-2 * log(1 - u)) * cos(6.283185307179586 * v);
}

/* What a clock of quantum q reads for a true duration d: the difference
 * of two tick readings, the start at a random phase. */
static inline double gen_read(struct gen *g, double d, double q)
{
	double ph = gen_unif(g) * q;
	return q * (floor((ph + d) / q) - floor(ph / q));
}

static inline double gen_exp(struct gen *g, double mean)
{
	return -mean * log(gen_unit(g));
}

/* Small skewed jitter: base + Gamma(2, scale) (sum of two exponentials). */
static inline double gen_jitter(struct gen *g, double base, double scale)
{
	return base + gen_exp(g, scale) + gen_exp(g, scale);
}

/* Fill x[n] with jitter around base; inject OS spikes (+lo..+hi ns) into
 * a fraction p of the points, marking them in spike[] (may be NULL).
 * Returns the number of spikes. */
static inline size_t gen_spiky(struct gen *g, double *x, uint8_t *spike,
			       size_t n, double base, double scale, double p,
			       double lo, double hi)
{
	size_t ns = 0;
	for (size_t i = 0; i < n; i++) {
		x[i] = gen_jitter(g, base, scale);
		int hit = gen_unit(g) < p;
		if (hit) {
			x[i] += lo + (hi - lo) * gen_unit(g);
			ns++;
		}
		if (spike)
			spike[i] = (uint8_t)hit;
	}
	return ns;
}

/* A second clock correlated with the first: cycles at ghz plus noise. */
static inline void gen_cycles(struct gen *g, const double *x, double *y,
			      size_t n, double ghz)
{
	for (size_t i = 0; i < n; i++)
		y[i] = x[i] * ghz + gen_exp(g, 4.0);
}

#endif
