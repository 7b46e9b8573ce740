/*
 * gen_class.c - one synthetic log per class word of the text report
 * (report/words.h), each a region "r" whose every sample is known, for
 * class_test.py's golden outputs.
 *
 * Clock 1 GHz, quantum 10 ns, no timer cost; one call every 1 us on
 * thread 0, cpu 0, read through the 10 ns clock at a random phase.
 *
 *   steady     20000 calls of 500 ns (+ a 2 ns exponential jitter)
 *   modes      75 % of 400 ns, 25 % of 560 ns, at random
 *   step       400 ns, then 520 ns from call 10000 on
 *   dip        480 ns, 400 ns for calls 8000 to 11999, then 480 ns again
 *   group      two threads, thread 1's calls 30 % longer (--by thread)
 *   processor  500 ns, a speed probe every 100 calls; probes and calls
 *              40 % slower over calls 8000 to 11999
 *   unresolved 40 calls of 15 ns: the clock's quantum (10 ns) is most of
 *              it, and 40 samples cannot tell 10 % of it
 *   few        5 calls
 *   tiny       20000 calls of 3 ns: under the clock's step, still steady
 *
 * usage: gen_class DIR   (writes DIR/<class>.log for each)
 */
#include "../common/logbuild.h"
#include "../common/gen.h"

#include <stdio.h>

#define N 20000

struct plan {
	const char *name;
	int threads, probes, calls;
};

/* The work of call i of thread th, in ns, before the clock reads it. */
static double work(const char *c, int th, int i, struct gen *g)
{
	if (!strcmp(c, "modes"))
		return gen_unit(g) < 0.25 ? 560 : 400;
	if (!strcmp(c, "step"))
		return i >= N / 2 ? 520 : 400;
	if (!strcmp(c, "dip"))
		return i >= 8000 && i < 12000 ? 400 : 480;
	if (!strcmp(c, "group"))
		return th ? 520 : 400;
	if (!strcmp(c, "unresolved"))
		return 15;
	if (!strcmp(c, "tiny"))
		return 3;
	if (!strcmp(c, "processor"))
		return i >= 8000 && i < 12000 ? 700 : 500;
	return 500;
}

static void one(const char *dir, const struct plan *p)
{
	struct synlog L;
	struct gen g = { 7 };
	char path[4096];

	syn_begin(&L, 1e9);
	L.h.tick_quantum = 10;
	syn_region(&L, 1, "r");
	if (p->probes)
		syn_speed_meta(&L, 200, 100);
	for (int th = 0; th < p->threads; th++)
		for (int i = 0; i < p->calls; i++) {
			uint64_t t = 1000ull * (uint64_t)i + 100;
			double d = work(p->name, th, i, &g) + gen_exp(&g, 2);
			uint64_t len = (uint64_t)gen_read(&g, d, 10);
			syn_pair(&L, (uint32_t)th, 1, t, t + len, 0);
			if (p->probes && i % 100 == 0) {
				double f = i >= 8000 && i < 12000 ? 1.4 : 1;
				syn_speed(&L, (uint32_t)th, t + 700,
					  (uint64_t)gen_read(&g, 60 * f +
					  gen_exp(&g, 1), 10), 0, 0);
			}
		}
	snprintf(path, sizeof path, "%s/%s.log", dir, p->name);
	syn_write(&L, path);
}

int main(int argc, char **argv)
{
	static const struct plan plans[] = {
		{ "steady", 1, 0, N }, { "modes", 1, 0, N },
		{ "step", 1, 0, N }, { "dip", 1, 0, N },
		{ "group", 2, 0, N }, { "processor", 1, 1, N },
		{ "unresolved", 1, 0, 40 }, { "few", 1, 0, 5 },
		{ "tiny", 1, 0, N },
	};

	if (argc != 2) {
		fprintf(stderr, "usage: gen_class DIR\n");
		return 2;
	}
	for (size_t k = 0; k < sizeof plans / sizeof *plans; k++)
		one(argv[1], &plans[k]);
	return 0;
}
