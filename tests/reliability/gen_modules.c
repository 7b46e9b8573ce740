/*
 * gen_modules.c - a synthetic log (tests/common/logbuild.h) listing many
 * modules, for the analyzer's module lookup (analysis/symbols/modules.c).
 *
 * MODULES modules "/nonexistent/mK.so", K = 0..MODULES-1, each 32 KiB at
 * 0x10000000 + K * 64 KiB (load bias = its start).  REGIONS regions
 * "rJ", each at its own call site 0x40 bytes into module (J * 7919) %
 * MODULES, with 20 samples of 100 ns each.  With "overlap", two more
 * modules cover region r0's site: "/nonexistent/late.so", listed first
 * and starting 16 bytes below it, and "/nonexistent/low.so", listed
 * after it and starting 64 KiB lower - the range starting lower is the
 * one a damaged log's overlap is read as.  With PATH, every module
 * names that file instead (a real ELF file makes each one costly to
 * open: what a damaged log's repeated entries would do).
 *
 * usage: gen_modules FILE MODULES REGIONS [overlap|plain [PATH]]
 */
#include "../common/logbuild.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK (64u * 1024)
#define LO(k) (0x10000000ull + (uint64_t)(k) * 0x10000)

/* a META chunk with room for one more entry, a new one when full */
static struct sbt_chunk *meta_room(struct lb *b, struct sbt_chunk *c)
{
	return c->size - sizeof *c - c->used < 256 ?
	       lb_chunk(b, SBT_CHUNK_META, 0) : c;
}

int main(int argc, char **argv)
{
	if (argc < 4 || argc > 6) {
		fprintf(stderr, "usage: gen_modules FILE MODULES REGIONS "
			"[overlap|plain [PATH]]\n");
		return 2;
	}
	const char *same = argc == 6 ? argv[5] : NULL;
	uint32_t nm = (uint32_t)atol(argv[2]), nr = (uint32_t)atol(argv[3]);
	int overlap = argc >= 5 && !strcmp(argv[4], "overlap");
	size_t meta = (size_t)nm * 80 + (size_t)nr * 120 + 4096;
	size_t nev = (size_t)nr * 40;
	struct lb b;

	if (nm == 0 || nr == 0) {
		fprintf(stderr, "gen_modules: MODULES and REGIONS > 0\n");
		return 2;
	}
	lb_begin(&b, SBT_HEADER_SIZE + (meta / (CHUNK - 256) + nev / 4000 + 4) *
		 (size_t)CHUNK, CHUNK);
	struct sbt_file_header *h = lb_hdr(&b);
	h->flags = SBT_HF_CLOSED;
	h->tick_quantum = 10;
	strcpy(h->tick_source, "perf");
	h->te_min_ticks = 20;
	h->te_p50_ticks = 20;
	h->te_p999_ticks = 30;
	h->te_samples = 1000;
	h->pid = 4243;
	h->start_unix_ns = 1700000000000000000ull;
	strcpy(h->host, "synth");
	strcpy(h->exe, "/nonexistent/m0.so");
	h->counters[SBT_CNT_THREADS] = 1;

	struct sbt_chunk *m = lb_chunk(&b, SBT_CHUNK_META, 0);
	uint64_t site0 = LO(0) + 0x40;
	if (overlap)
		lb_module(m, site0 - 16, site0 - 16, site0 + 0x1000,
			  "/nonexistent/late.so");
	for (uint32_t k = 0; k < nm; k++) {
		char path[64];
		m = meta_room(&b, m);
		if (same)
			snprintf(path, sizeof path, "%s", same);
		else
			snprintf(path, sizeof path, "/nonexistent/m%u.so", k);
		lb_module(m, LO(k), LO(k), LO(k) + 0x8000, path);
	}
	m = meta_room(&b, m);
	if (overlap)
		lb_module(m, LO(0) - 0x10000, LO(0) - 0x10000, LO(0) + 0x100,
			  "/nonexistent/low.so");
	for (uint32_t r = 0; r < nr; r++) {
		char name[32];
		/* a return address: the call is the byte before it */
		uint64_t site = LO((uint64_t)r * 7919 % nm) + 0x40 + 1;
		m = meta_room(&b, m);
		snprintf(name, sizeof name, "r%u", r);
		lb_region(m, r + 1, SBT_API_SBTMARK, site, name);
		lb_site(m, r + 1, r + 1, &site, 1);
	}
	uint64_t t = 1000;
	for (uint32_t r = 0; r < nr; r++)
		for (int i = 0; i < 20; i++, t += 300) {
			lb_event(&b, 0, SBT_EV_START, 0, r + 1, t, 0);
			lb_event(&b, 0, SBT_EV_STOP, 0, r + 1, t + 100 + 20, 0);
		}
	if (lb_save(&b, argv[1]) != 0) {
		perror(argv[1]);
		return 1;
	}
	lb_free(&b);
	return 0;
}
