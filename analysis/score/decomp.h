/*
 * decomp.h - whose is a region's time and its spread (decomp.c): the OS's
 * part of a call's time, and its variance taken apart into the OS's, the
 * processor's, time's, the threads', the modes of its own work, and what
 * nothing recorded explains.
 */
#ifndef SBT_DECOMP_H
#define SBT_DECOMP_H

#include "result.h"

/* Decompose every region of res (sorted as sbt_analyze leaves it, after
 * the groups are scored), each on all its samples, and copy the result
 * into every group of the region (g->decomp).  The same whatever --by.
 * 0, or -1 when out of memory. */
int sbt_decomp_run(const struct sbt_dataset *ds, const struct sbt_options *o,
		   struct sbt_result *res);

/* Decompose one region's samples: y[i] their times (cost taken out),
 * f[i] / sw[i] their faults and switches (NULL: the kernel's record
 * unused), sp[i] nonzero in a processor shift (NULL: none), t[i] their
 * start (NULL: no common clock), key[i] their thread (NULL: one),
 * cnt[i * ncol + k] their counts of event k (NULL: none), n of them; probes[0..np) the region's in-situ probes; in: the clock's
 * quantum and the metrics' sources as sbt_score_group takes them.  Into
 * d (whose pooled fault cost, if any, the caller applies: sbt_decomp_cost).
 * 0, or -1 when out of memory. */
struct sbt_decomp_in {
	const double *y, *f, *sw, *t;
	const double *cnt;            /* n x ncol counts, NAN: none; NULL */
	uint32_t ncol;
	uint8_t use[SBT_CNT_COLS];    /* a column that is no clock      */
	const uint8_t *sp;
	const uint64_t *key;
	size_t n;
	const double *probes;
	size_t np;
	int faults_sampled;           /* f holds estimates (a fault storm's
					 sampled records, spread): their
					 cost is the recorder's measure,
					 never a fit                       */
	struct sbt_score_in score;
};
int sbt_decomp_region(const struct sbt_decomp_in *in, struct sbt_decomp *d);

/* The fault cost pooled over regions d[0..n) (within each region, where
 * its counts vary): a region whose own counts cannot tell its cost gets
 * this one (fault_cost_from SBT_COST_RUN), else the recorder's measure
 * at start, `measured_ns` (> 0; SBT_COST_RECORDER), and its OS time. */
void sbt_decomp_cost(struct sbt_decomp *d, size_t n, double measured_ns);

#endif
