/*
 * itt_app.c - an ITT-instrumented app, run with INTEL_LIBITTNOTIFY64
 * pointing at libsbtmark.so.
 *
 * "dom", "alpha" and "beta" are created before the collector is loaded
 * (the first task call loads it), "dom2" and "gamma" after.  Expected log
 * (one thread; region names prefixed "dom/" etc. when
 * SBT_ITT_DOMAIN_PREFIX=1):
 *   alpha 4 (3 + 1 in the interleaving case), beta 6, gamma 5;
 *   counters: stop_without_start 1 (an end with no task), bad_name 1
 *   (NULL name handle), crossed_nesting 1 (interleaved domains).
 */
#include <stdio.h>
#include "itt_static.h"

static volatile double sink;

int main(void)
{
	itt_domain *dom = itt_domain_create("dom");
	itt_string_handle *alpha = itt_string_handle_create("alpha");
	itt_string_handle *beta = itt_string_handle_create("beta");

	if (!dom || !alpha || !beta) {
		fprintf(stderr, "itt_app: static part made no handles "
			"(INTEL_LIBITTNOTIFY64 unset?)\n");
		return 1;
	}
	for (int i = 0; i < 3; i++) {
		itt_task_begin(dom, itt_null, itt_null, alpha);
		for (int j = 0; j < 2; j++) {
			itt_task_begin(dom, itt_null, itt_null, beta);
			sink += j;
			itt_task_end(dom);
		}
		itt_task_end(dom);
	}
	itt_pause();                         /* not ours: stays a no-op */

	/* Created through the collector; same name -> same handle. */
	itt_domain *dom2 = itt_domain_create("dom2");
	itt_string_handle *gamma = itt_string_handle_create("gamma");
	if (!dom2 || !gamma || itt_string_handle_create("gamma") != gamma ||
	    itt_domain_create("dom2") != dom2) {
		fprintf(stderr, "itt_app: collector handles wrong\n");
		return 1;
	}
	for (int i = 0; i < 4; i++) {
		itt_task_begin(dom2, itt_null, itt_null, gamma);
		sink += i;
		itt_task_end(dom2);
	}

	/* Interleaved domains: end(dom) ends alpha though gamma is inner. */
	itt_task_begin(dom, itt_null, itt_null, alpha);
	itt_task_begin(dom2, itt_null, itt_null, gamma);
	itt_task_end(dom);
	itt_task_end(dom2);

	/* Misuse: an end with nothing open, a task with no name (still
	 * paired with its end). */
	itt_task_end(dom);
	itt_task_begin(dom, itt_null, itt_null, NULL);
	itt_task_end(dom);
	return 0;
}
