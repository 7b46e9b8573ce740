/*
 * caliper_app.c - a Caliper-annotated app (macros and C calls of
 * cali_standin.h, as Caliper's headers define them), linked with the
 * stand-in library.  Two threads each run():
 *
 *   run (function) > main (phase) > loop/steps > STEPS x iteration#steps
 *     > compute, halo (comm region), byname (cali_begin_byname),
 *       kernel/k1 (cali_begin_string_byname)
 *
 * then the main thread: custom/x 3 times through the attribute API, and
 * the misuse: an end never begun, two regions ended crossed, a loop end
 * with no loop, a safe end naming the wrong value (refused), a NULL name.
 * cali_init() comes first, once (the loop macro would call it from both
 * threads at once).  Prints what the library's answers were (the ids and
 * names it handed out), which must not change under the preload.
 */
#include <pthread.h>
#include <stdio.h>
#include "cali_standin.h"

#define STEPS 40

static __thread volatile double sink;  /* per thread: no race */

static void *run(void *arg)
{
	(void)arg;
	CALI_MARK_FUNCTION_BEGIN;
	CALI_MARK_PHASE_BEGIN("main");
	CALI_MARK_LOOP_BEGIN(steps, "steps");
	for (int i = 0; i < STEPS; i++) {
		CALI_MARK_ITERATION_BEGIN(steps, i);
		CALI_MARK_BEGIN("compute");
		for (int k = 0; k < 1000; k++)
			sink += k * 0.5;
		CALI_MARK_END("compute");
		CALI_MARK_COMM_REGION_BEGIN("halo");
		CALI_MARK_COMM_REGION_END("halo");
		cali_begin_byname("byname");
		cali_end_byname("byname");
		cali_begin_string_byname("kernel", "k1");
		cali_end_byname("kernel");
		CALI_MARK_ITERATION_END(steps);
	}
	CALI_MARK_LOOP_END(steps);
	CALI_MARK_PHASE_END("main");
	CALI_MARK_FUNCTION_END;
	return NULL;
}

int main(void)
{
	pthread_t th[2];
	cali_id_t custom;
	const char *name;

	cali_init();
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, run, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);

	custom = cali_create_attribute("custom", CALI_TYPE_STRING,
				       CALI_ATTR_NESTED);
	if (cali_find_attribute("custom") != custom)
		puts("find_attribute disagrees");
	name = cali_attribute_name(custom);
	printf("custom: id %llu, name %s, loop id %llu\n",
	       (unsigned long long)custom, name ? name : "(none)",
	       (unsigned long long)cali_loop_attr_id);
	for (int i = 0; i < 3; i++) {
		cali_begin_string(custom, "x");
		if (i == 2)
			cali_safe_end_string(custom, "y");   /* misuse: refused */
		cali_safe_end_string(custom, "x");
	}

	CALI_MARK_END("never");                       /* misuse */
	CALI_MARK_BEGIN("a");
	CALI_MARK_BEGIN("b");
	CALI_MARK_END("a");                           /* misuse: crossed */
	CALI_MARK_END("b");
	cali_end(cali_loop_attr_id);                  /* misuse: no loop */
	cali_begin_region(NULL);                      /* misuse: bad name */
	puts("done");
	return 0;
}
