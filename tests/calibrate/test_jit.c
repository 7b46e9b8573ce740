/*
 * test_jit.c - the generated chain executes exactly K adds.
 *
 * Calls the chain for K in {0, 1, 2, 7, 1000, max-1, max} with several
 * increments and checks the returned value x + K * inc.  Built natively
 * and, when a cross compiler and qemu exist, for Armv8 (test_jit_arm.sh).
 */
#include "jit.h"

#include <stdio.h>
#include <stdlib.h>
#include "../common/harness.h"

static void check(const struct sbt_chain *c, uint64_t k, uint64_t x,
		  uint64_t inc)
{
	uint64_t got = sbt_chain_entry(c, k)(x, inc);
	uint64_t want = x + k * inc;

	if (got != want) {
		printf("FAIL k=%llu x=%llu inc=%llu: got %llu want %llu\n",
		       (unsigned long long)k, (unsigned long long)x,
		       (unsigned long long)inc, (unsigned long long)got,
		       (unsigned long long)want);
		h_fail++;
	}
}

int main(void)
{
	struct sbt_chain c;
	const uint64_t max = 200000;
	const uint64_t ks[] = { 0, 1, 2, 7, 1000, 123457, max - 1, max };
	const uint64_t incs[] = { 1, 3, 0x100000001ull };

	if (sbt_chain_build(&c, max) != 0) {
		perror("sbt_chain_build");
		return 1;
	}
	if (c.max_k != max || (size_t)(c.end - c.code) != max * c.insn_size) {
		printf("FAIL: chain geometry\n");
		return 1;
	}
	for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
		for (size_t j = 0; j < sizeof incs / sizeof incs[0]; j++)
			check(&c, ks[i], 5, incs[j]);
	/* The result wraps like the hardware register does. */
	check(&c, 3, UINT64_MAX - 1, 1);
	sbt_chain_free(&c);
	if (sbt_chain_build(&c, (uint64_t)1 << 40) == 0) {
		printf("FAIL: absurd max_k accepted\n");
		h_fail++;
	}
	return h_done();
}
