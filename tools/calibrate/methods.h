/*
 * methods.h - the timing methods sbt-calibrate compares.
 *
 * Every method times one call into the ADD chain: read a clock, call,
 * read a clock.  The call and the chain's epilogue are inside every
 * window, for every K and every method alike, so they are part of
 * t_a,std and cancel in every difference (t_diff); for t_min they add a
 * few constant cycles to the workload.
 *
 *   sbtmark        the recorder's marker path: sbt_marker_start/stop from
 *                  libsbtmark.so (preloaded by re-exec), read back with
 *                  sbt_marker_last - exactly what a marked region records
 *   bare           inline serialized reads (sbt_clock_start/stop)
 *   clock_gettime  CLOCK_MONOTONIC (vDSO)
 *   papi           PAPI_get_real_nsec
 *   likwid         LIKWID marker regions, only under likwid-perfctr -m
 */
#ifndef SBT_CAL_METHODS_H
#define SBT_CAL_METHODS_H

#include <stddef.h>
#include <stdint.h>
#include "jit.h"

enum sbt_method_id { SBT_M_SBTMARK, SBT_M_BARE, SBT_M_CGT, SBT_M_PAPI,
		     SBT_M_LIKWID, SBT_NMETHODS };

struct sbt_method {
	enum sbt_method_id id;
	const char *name;
	int    available;
	char   why[320];          /* why not available                  */
	double unit_ns;           /* ns per native unit                 */
	double quantum_ns;        /* smallest non-zero step of its clock */
	double te_std_ns;         /* min of hot empty pairs: t_e,std     */
	/* One timed call into f; duration in ns, NAN when the method
	 * could not deliver this sample (caller retakes it). */
	double (*sample)(struct sbt_method *m, sbt_chain_fn f);
	double (*empty)(struct sbt_method *m);
	/* The recorder's own startup t_e,std (ticks), when it says. */
};

struct sbt_method_env {
	uint64_t tick_hz;          /* TSC / cntvct frequency            */
	uint32_t tick_quantum;     /* in ticks                          */
	const char *lib;           /* --lib, or NULL                    */
	const char *argv0;
};

extern const char *const sbt_method_name[SBT_NMETHODS];

/* Set up method id; afterwards m->available says whether it runs, and
 * m->why why not.  Measures quantum and t_e,std when available. */
void sbt_method_init(struct sbt_method *m, enum sbt_method_id id,
		     const struct sbt_method_env *env);
void sbt_method_fini(struct sbt_method *m);

/* The t_e,std burst: min over n hot empty pairs. */
double sbt_method_te_std(struct sbt_method *m, unsigned n);

/* For the sbtmark method: make sure libsbtmark.so is preloaded, by
 * re-executing argv with LD_PRELOAD set when it is not (does not return
 * then).  Returns 0 when it is loaded, -1 with the reason in why. */
int sbt_method_preload(const struct sbt_method_env *env, char **argv,
		       char *why, size_t wlen);

/* Path of the recorder log the sbtmark method writes to (for cleanup). */
const char *sbt_method_logdir(void);

#endif
