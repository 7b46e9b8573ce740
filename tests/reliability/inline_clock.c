/*
 * inline_clock.c - the inline markers' fast path, its state in sight.
 *
 *   inline_clock THREADS PAIRS
 *
 * Each of THREADS threads runs PAIRS empty pairs of region "inline"
 * through sbtmark.h's inline START (a call-site slot of its own, which
 * SBT_MARKER_START keeps hidden) and STOP, and counts the pairs whose
 * START and STOP found what the header's fast path needs: the thread's
 * state handed out (sbt__tls.hot), the slot holding a START word, room
 * in the chunk, the region innermost at STOP; and the pair appended
 * two events through that state.  Each thread prints "fast N".
 *
 * Then the main thread asks the entry point that binaries of an older
 * header call (sbt_marker_start_at) for region "older", with a slot
 * and thread-state pair of its own, and prints "older K H": the kind of
 * the slot's word (0: left unfilled) and 1 if the state was handed out.
 */
#define SBT_MARKER
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "sbtmark.h"

static const char tag[] = "inline";
static const char older[] = "older";
static long pairs;

static int start_ready(const struct sbt_csite *cs)
{
	const struct sbt_hot *t = sbt__tls.hot;

	return t && __atomic_load_n(&cs->way[0].tag, __ATOMIC_ACQUIRE) == tag &&
	       cs->way[0].word >> 28 == 1 && !t->busy && t->depth == 0 &&
	       t->end && t->cur + 2 <= t->end;
}

static void *marking(void *arg)
{
	static __thread struct sbt_csite cs;   /* a slot per thread */
	long fast = 0;

	(void)arg;
	SBT_MARKER_THREADINIT;
	for (long i = 0; i < pairs; i++) {
		struct sbt_hot *t = sbt__tls.hot;
		int ready = start_ready(&cs);
		struct sbt__ev *at = ready ? t->cur : NULL;

		sbt__start(tag, &cs);
		ready = ready && t->depth == 1 && t->stack[0].tag == tag &&
			t->cur == at + 1;
		SBT_MARKER_STOP(tag);
		if (ready && t->depth == 0 && t->cur == at + 2)
			fast++;
	}
	printf("fast %ld\n", fast);
	fflush(stdout);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 2;
	pthread_t th[16];
	/* static: the recorder clears a handed-out pair at thread exit */
	static struct sbt_csite cs;
	static struct sbt_hot *pair[2];

	pairs = argc > 2 ? atol(argv[2]) : 1000;
	if (threads < 1 || threads > 16 || pairs < 1)
		return 2;
	SBT_MARKER_INIT;
	for (int i = 1; i < threads; i++)
		if (pthread_create(&th[i], NULL, marking, NULL) != 0)
			return 1;
	marking(NULL);
	for (int i = 1; i < threads; i++)
		pthread_join(th[i], NULL);
	if (!sbt_marker_start_at)
		return 1;
	(void)sbt_marker_start_at(older, &cs, pair);
	SBT_MARKER_STOP(older);
	printf("older %u %d\n",
	       __atomic_load_n(&cs.way[0].word, __ATOMIC_RELAXED) >> 28,
	       pair[0] != NULL);
	SBT_MARKER_CLOSE;
	return 0;
}
