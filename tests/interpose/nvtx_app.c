/*
 * nvtx_app.c - an app using NVTX directly (library a) and through a
 * library with its own NVTX instance (library b), run with
 * NVTX_INJECTION64_PATH pointing at libsbtmark.so.
 *
 * Expected log (regions "net/send", "net/recv" when
 * SBT_NVTX_DOMAIN_PREFIX=1): main thread solve 3, kernel 6, ex 2,
 * send 5, recv 2, phase 3, x 1; no "xthread" samples; counters:
 * crossed_nesting 2 (interleaved domains; a range ended on another
 * thread).  Exits non-zero when a value the app sees is wrong.
 */
#include <pthread.h>
#include <stdio.h>
#include "nvtx_instance.h"
#include "../common/harness.h"


static const struct nvtx_api *a, *b;
static uint64_t xid;

static void *ender(void *arg)
{
	(void)arg;
	b->end(xid);                 /* ends a range main started */
	return NULL;
}

int main(void)
{
	pthread_t th;

	a = nvtx_lib_a();
	b = nvtx_lib_b();

	for (int i = 0; i < 3; i++) {
		CHECK_TRUE(a->push_a("solve") == 0);
		for (int j = 0; j < 2; j++) {
			CHECK_TRUE(b->push_a("kernel") == 1);
			CHECK_TRUE(b->pop() == 1);
		}
		CHECK_TRUE(a->pop() == 0);
	}
	CHECK_TRUE(a->init_calls() == 1 && b->init_calls() == 1);
	for (int i = 0; i < 2; i++) {
		a->push_ex_ascii("ex");
		a->pop();
	}
	a->mark_a("a mark");             /* not injected: a no-op */

	/* Domains: one handle for one name, whichever instance asks. */
	void *da = a->domain_create("net"), *db = b->domain_create("net");
	CHECK_TRUE(da && da == db);
	void *send = a->register_string(da, "send");
	CHECK_TRUE(send && send == b->register_string(db, "send"));
	for (int i = 0; i < 4; i++) {
		a->domain_push_registered(da, send);
		b->domain_pop(db);
	}
	for (int i = 0; i < 2; i++) {
		b->domain_push_ascii(db, "recv");
		a->domain_pop(da);
	}

	/* Start/end on one thread, across instances. */
	for (int i = 0; i < 3; i++) {
		uint64_t id = a->start_a("phase");
		CHECK_TRUE(id != 0);
		b->end(id);
	}

	/* Interleaved domains: pop(net) ends send although x is inner. */
	a->domain_push_registered(da, send);
	a->push_a("x");
	a->domain_pop(da);
	a->pop();

	/* A range ended on another thread: counted, not recorded. */
	xid = a->start_a("xthread");
	pthread_create(&th, NULL, ender, NULL);
	pthread_join(th, NULL);

	return h_status("nvtx_app");
}
