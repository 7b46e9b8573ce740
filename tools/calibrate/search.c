/*
 * search.c - Algorithms 1 and 2 and the noise sample (see search.h).
 */
#include "search.h"
#include "filter.h"
#include "stat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EMPTY_K UINT64_MAX

int sbt_bench_init(struct sbt_bench *b, struct sbt_method *m,
		   struct sbt_flush *flush, const struct sbt_chain *chain,
		   const struct sbt_search_cfg *cfg)
{
	memset(b, 0, sizeof *b);
	b->m = m;
	b->flush = flush;
	b->chain = chain;
	b->cfg = cfg;
	b->x = malloc(cfg->n * sizeof *b->x);
	b->y = malloc(cfg->n * sizeof *b->y);
	b->keep = malloc(cfg->n);
	if (!b->x || !b->y || !b->keep) {
		sbt_bench_free(b);
		return -1;
	}
	return 0;
}

void sbt_bench_free(struct sbt_bench *b)
{
	free(b->x);
	free(b->y);
	free(b->keep);
	b->x = b->y = NULL;
	b->keep = NULL;
}

static void tell(struct sbt_bench *b, const char *what, uint64_t step,
		 uint64_t cand, unsigned sub, unsigned nsub, double frac)
{
	struct sbt_progress_info pi = { what, step, cand, sub, nsub, frac };

	if (b->progress)
		b->progress(b->arg, &pi);
}

size_t sbt_batch(struct sbt_bench *b, uint64_t k)
{
	struct sbt_method *m = b->m;
	const unsigned n = b->cfg->n;
	sbt_chain_fn f = k == EMPTY_K ? NULL : sbt_chain_entry(b->chain, k);
	struct sbt_os_opts o = { .method = SBT_OS_DEFAULT,
				 .seed = b->cfg->seed,
				 .quantum = m->quantum_ns };
	struct sbt_os_result res;
	size_t kept = 0;

	sbt_flush_refresh(b->flush);
	for (unsigned i = 0; i < n; i++) {
		double d;
		unsigned tries = 0;

		do {    /* a method may miss a sample (recorder chunk switch) */
			sbt_flush_run(b->flush);
			d = f ? m->sample(m, f) : m->empty(m);
		} while (isnan(d) && ++tries < 8);
		b->retakes += tries;
		b->x[i] = isnan(d) ? 0 : d;
	}
	b->samples += n;
	sbt_filter_cost(b->x, NULL, n, m->te_std_ns, 0);
	if (sbt_filter_os(b->x, NULL, n, &o, b->keep, NULL, &res) != 0)
		memset(b->keep, 1, n);
	for (unsigned i = 0; i < n; i++)
		if (b->keep[i])
			b->y[kept++] = b->x[i];
	return kept;
}

/* CV of a fresh batch at k below eps?  *med gets its median. */
static int cv_passes(struct sbt_bench *b, uint64_t k, double *cv,
		     double *med)
{
	size_t kept = sbt_batch(b, k);

	*cv = sbt_cv(b->y, kept);
	if (med) {
		sbt_sort(b->y, kept);
		*med = sbt_median_sorted(b->y, kept);
	}
	if (b->cfg->verbose)
		fprintf(stderr, "  %s t_min K=%llu kept %zu/%u cv %.5f %s\n",
			b->m->name, (unsigned long long)k, kept, b->cfg->n,
			*cv, *cv < b->cfg->eps ? "pass" : "fail");
	return kept > 1 && *cv < b->cfg->eps;
}

/* The chain must hold `need` ADDs; cand is the candidate K or Delta. */
static int too_far(struct sbt_bench *b, uint64_t need, uint64_t k,
		   unsigned tries, uint64_t step, struct sbt_result *r)
{
	if (tries > b->cfg->cap) {
		snprintf(r->why, sizeof r->why, "no pass within %u steps "
			 "of %llu ADDs (up to %llu)", b->cfg->cap,
			 (unsigned long long)step, (unsigned long long)(k - step));
		return 1;
	}
	if (need > b->chain->max_k) {
		snprintf(r->why, sizeof r->why, "needs more than %llu ADDs "
			 "(the chain's length)",
			 (unsigned long long)b->chain->max_k);
		return 1;
	}
	return 0;
}

void sbt_search_tmin(struct sbt_bench *b, struct sbt_result *r)
{
	uint64_t k = 0, start = 0, end = 0;
	double cv, med = NAN;
	int decade = 0;

	memset(r, 0, sizeof *r);
	for (uint64_t step = 10000; step >= 1; step /= 10, decade++) {
		unsigned tries = 0;
		int found = 0;

		while (!found) {
			k += step;
			if (too_far(b, k, k, ++tries, step, r))
				return;
			tell(b, "t_min", step, k, 0, b->cfg->p,
			     (decade + tries / (b->cfg->cap + 1.0)) / 5);
			r->candidates++;
			if (!cv_passes(b, k, &cv, &med)) {
				start = k;
				continue;
			}
			r->cv = cv;
			r->median_ns = med;
			found = 1;
			for (unsigned i = 1; i <= b->cfg->p; i++) {
				double c2;
				tell(b, "t_min", step, k, i, b->cfg->p,
				     (decade + tries / (b->cfg->cap + 1.0)) /
				     5);
				if (!cv_passes(b, k, &c2, NULL)) {
					found = 0;
					start = k;
					break;
				}
			}
		}
		end = k;
		k = start;
	}
	r->ok = 1;
	r->adds = end;
}

/* Do the q pairs at delta all overlap in at most alpha? */
static int pairs_pass(struct sbt_bench *b, uint64_t tmin, uint64_t delta,
		      uint64_t step, double frac)
{
	const unsigned n = b->cfg->n;
	double *a0 = malloc(n * sizeof *a0);
	int pass = a0 != NULL;

	for (unsigned i = 1; pass && i <= b->cfg->q; i++) {
		tell(b, "t_diff", step, delta, i, b->cfg->q, frac);
		size_t n0 = sbt_batch(b, tmin + (i - 1) * delta);
		memcpy(a0, b->y, n0 * sizeof *a0);
		size_t n1 = sbt_batch(b, tmin + i * delta);
		double ov = sbt_overlap(a0, n0, b->y, n1);
		if (b->cfg->verbose)
			fprintf(stderr, "  %s t_diff delta=%llu pair %u: "
				"kept %zu/%zu overlap %.3f %s\n", b->m->name,
				(unsigned long long)delta, i, n0, n1, ov,
				ov <= b->cfg->alpha ? "pass" : "fail");
		if (!(ov <= b->cfg->alpha))
			pass = 0;
	}
	free(a0);
	return pass;
}

void sbt_search_tdiff(struct sbt_bench *b, uint64_t tmin,
		      struct sbt_result *r)
{
	uint64_t d = 0, start = 0, end = 0;
	int decade = 0;

	memset(r, 0, sizeof *r);
	for (uint64_t step = 100; step >= 1; step /= 10, decade++) {
		unsigned tries = 0;

		for (;;) {
			d += step;
			if (too_far(b, tmin + b->cfg->q * d, d, ++tries,
				    step, r))
				return;
			r->candidates++;
			if (pairs_pass(b, tmin, d, step,
				       (decade + tries / (b->cfg->cap + 1.0)) /
				       3))
				break;
			start = d;
		}
		end = d;
		d = start;
	}
	r->ok = 1;
	r->adds = end;
}

void sbt_model_check(struct sbt_bench *b, struct sbt_model *mo)
{
	size_t kept;
	struct sbt_moments mm;
	size_t k;

	tell(b, "noise", 0, 0, 0, 0, 0);
	kept = sbt_batch(b, EMPTY_K);
	mm = sbt_moments(b->y, kept);
	mo->kept = kept;
	mo->mean = mm.mean;
	mo->std = mm.std;
	mo->max = mm.max;
	mo->t_min_ns = sbt_model_t_min(b->y, kept, b->cfg->eps);
	mo->t_diff_ns = sbt_model_t_diff(b->y, kept, b->cfg->alpha);
	k = (size_t)floor(b->cfg->alpha * (double)kept);
	mo->q_alpha = kept ? b->y[k < kept ? k : kept - 1] : NAN;
}
