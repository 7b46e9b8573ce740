/*
 * search.h - the paper's Algorithm 1 (t_min) and Algorithm 2 (t_diff),
 * and the empty-pair noise sample behind the model check.
 *
 * A batch is N samples of one K, each preceded by the level's flush,
 * then filter_cost (subtract t_e,std) and filter_os (analysis/filter/filter.h,
 * the default method, quantum = the method's clock step).
 *
 * Algorithm 1: decade search on K with steps 10000, 1000, 100, 10, 1.
 * Within a decade K grows by step until a batch has CV < eps and p more
 * fresh batches at that K all do too; that K ends the decade and the next
 * decade restarts from the last failing K with step / 10.  t_min is the
 * K that ends the step-1 decade.
 *
 * Algorithm 2: decade search on Delta with steps 100, 10, 1.  Delta
 * passes when for every i = 1..q the batches at t_min + (i-1) Delta and
 * t_min + i Delta overlap in at most alpha (sbt_overlap).
 *
 * Non-convergence: a decade that needs more than `cap` candidates, or a
 * K beyond the chain, ends the search with status "nc" and the reason.
 */
#ifndef SBT_CAL_SEARCH_H
#define SBT_CAL_SEARCH_H

#include <stddef.h>
#include <stdint.h>
#include "cache.h"
#include "jit.h"
#include "methods.h"

struct sbt_search_cfg {
	double   eps, alpha;
	unsigned n, p, q;
	unsigned cap;              /* candidates per decade before "nc"  */
	uint64_t seed;             /* isolation forest seed              */
	int      verbose;          /* print every batch decision (stderr) */
};

/* Progress callback: what is being measured right now. */
struct sbt_progress_info {
	const char *what;          /* "t_min", "t_diff", "noise"         */
	uint64_t step, cand;       /* decade step, candidate K or Delta  */
	unsigned sub, nsub;        /* confirmation i / p, or pair i / q  */
	double   frac;             /* rough share of this search done    */
};

struct sbt_bench {
	struct sbt_method *m;
	struct sbt_flush *flush;
	const struct sbt_chain *chain;
	const struct sbt_search_cfg *cfg;
	void (*progress)(void *arg, const struct sbt_progress_info *pi);
	void *arg;
	double  *x, *y;            /* n raw / n kept samples              */
	uint8_t *keep;
	uint64_t samples;          /* taken so far (for the ETA)          */
	uint64_t retakes;          /* samples the method could not deliver */
};

struct sbt_result {
	int      ok;               /* 1 converged                        */
	char     why[160];         /* when not                           */
	uint64_t adds;             /* t_min (K) or t_diff (Delta)         */
	double   median_ns;        /* t_min: median kept time at K        */
	double   cv;               /* t_min: CV of that batch             */
	unsigned candidates;       /* batches judged                      */
};

int  sbt_bench_init(struct sbt_bench *b, struct sbt_method *m,
		    struct sbt_flush *flush, const struct sbt_chain *chain,
		    const struct sbt_search_cfg *cfg);
void sbt_bench_free(struct sbt_bench *b);

/* One batch at K (K == UINT64_MAX: empty pairs).  Returns the number of
 * kept samples, which are in b->y. */
size_t sbt_batch(struct sbt_bench *b, uint64_t k);

void sbt_search_tmin(struct sbt_bench *b, struct sbt_result *r);
void sbt_search_tdiff(struct sbt_bench *b, uint64_t tmin,
		      struct sbt_result *r);

/* The model check: tau_e = kept empty-pair times after filter_cost at
 * this level; fills the analytic estimates (ns) and tau's moments. */
struct sbt_model {
	double t_min_ns, t_diff_ns;
	double mean, std, max, q_alpha;
	size_t kept;
};
void sbt_model_check(struct sbt_bench *b, struct sbt_model *mo);

#endif
