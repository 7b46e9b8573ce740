/*
 * harness.c - a stand-in recorder for counting the inline pair's
 * instructions: it hands loop() a struct sbt_hot with room for every
 * event, so that all pairs but the first take the fast path, on the way
 * WAY says (rdtscp: clock 0; rseq: a cpu word's address).  N pairs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SBT_MARKER
#include "sbtmark.h"

void loop(long n);

static struct sbt_hot *hot;
static struct sbt__ev *first;
static uint32_t cpu_word = 1;

static void hand_out(const char *tag, struct sbt_csite *cs,
		     struct sbt_hot **to)
{
	if (!hot) {
		long n = atol(getenv("N")) * 2 + 16;
		const char *w = getenv("WAY");

		hot = calloc(1, sizeof *hot);
		hot->cur = first = calloc(n, sizeof(struct sbt__ev));
		hot->end = hot->cur + n;
#if SBT_HOT_ABI >= 2
		hot->clock = w && !strcmp(w, "rseq") ? (uintptr_t)&cpu_word : 0;
#else
		(void)w;
#endif
	}
	cs->way[0].word = SBT__START_WORD | 1;
	cs->way[0].region = 1;
	__atomic_store_n(&cs->way[0].tag, tag, __ATOMIC_RELEASE);
	*to = hot;
}

#ifdef SBT_HOT_ABI
int sbt_marker_start_hot(const char *tag, struct sbt_csite *cs,
			 struct sbt_hot **to, unsigned abi)
{
	(void)abi;
	hand_out(tag, cs, to);
	return 0;
}
#endif

int sbt_marker_start_at(const char *tag, struct sbt_csite *cs,
			struct sbt_hot **to)
{
	hand_out(tag, cs, to);
	return 0;
}

int sbt_marker_stop_at(const char *tag, uint64_t t1, uint32_t aux)
{
	(void)tag, (void)t1, (void)aux;
	return 0;
}

int main(void)
{
	long n = atol(getenv("N"));

	loop(n);
	printf("%ld events\n", hot ? (long)(hot->cur - first) : 0L);
	return 0;
}
