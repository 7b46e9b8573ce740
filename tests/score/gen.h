/*
 * gen.h - deterministic sample generators for the score and phase tests:
 * a splitmix64 stream, uniform and normal deviates, a clock quantizer.
 */
#ifndef SBT_TEST_GEN_H
#define SBT_TEST_GEN_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

static uint64_t gen_state = 0x5b7a11;

static void gen_seed(uint64_t s) { gen_state = s; }

static uint64_t gen_u64(void)
{
	uint64_t z = (gen_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* uniform in [0, 1) */
static double gen_unif(void)
{
	return (double)(gen_u64() >> 11) * 0x1.0p-53;
}

/* standard normal (Box-Muller, one of the pair) */
static double gen_norm(void)
{
	double u = gen_unif(), v = gen_unif();
	return sqrt(-2 * log(1 - u)) * cos(6.283185307179586 * v);
}

/* what a clock of quantum q reads for a true duration d: the difference
 * of two tick readings, the start at a random phase */
static double gen_read(double d, double q)
{
	double ph = gen_unif() * q;
	return q * (floor((ph + d) / q) - floor(ph / q));
}

static int fails;

#define CHECK(cond, ...) do {                                          \
	if (!(cond)) {                                                 \
		fails++;                                               \
		printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		printf(__VA_ARGS__);                                   \
		printf("\n");                                          \
	}                                                              \
} while (0)

#endif
