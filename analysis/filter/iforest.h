/*
 * iforest.h - isolation forest scoring (Liu, Ting, Zhou 2008) in 1-D and 2-D.
 *
 * One call fits the forest on subsamples of the data and scores every
 * point.  The score is the negated standard score, -2^(-E[h(x)]/c(psi)),
 * in (-1, 0): lower means more anomalous - the same quantity as
 * scikit-learn's IsolationForest.score_samples.  Deterministic for a seed.
 */
#ifndef SBT_IFOREST_H
#define SBT_IFOREST_H

#include <stddef.h>
#include <stdint.h>

#define SBT_IF_NTREES   100
#define SBT_IF_PSI      256
#define SBT_IF_MAX_PSI  4096     /* depth 12: keeps one 2-D tree < 64 KiB */
#define SBT_IF_MAX_TREES 10000

struct sbt_if_params {
	int      ntrees;     /* 0: SBT_IF_NTREES; clamped to MAX_TREES     */
	int      psi;        /* 0: SBT_IF_PSI; clamped to [2, MAX_PSI], n  */
	uint64_t seed;
	/* Dither widths (see sbt_if_dither): each value v of point i is
	 * scored as v + q*(u(seed, i) - 1/2).  0 = no dither. */
	double   qx, qy;
};

/* Score the n points (x[i]) or (x[i], y[i]) when y != NULL into score[i].
 * n == 1 gets -0.5 (no evidence either way).  Returns 0, -1 on OOM. */
int sbt_if_score(const double *x, const double *y, size_t n,
		 const struct sbt_if_params *p, float *score);

/* out[i] = how many of the thresholds T[0..K) (ascending, distinct) lie
 * strictly below x[i] (0 for a NaN), for the n points: the 1-D scores'
 * lookup, exposed for its test against a plain count. */
void sbt_if_below(const double *T, size_t K, const double *x, size_t n,
		  uint32_t *out);

/* c(n): average path length of an unsuccessful BST search among n points,
 * the correction for a leaf still holding n points. */
double sbt_if_c(double n);

/* The deterministic dither offset in (-1/2, 1/2) of point i, feature f. */
double sbt_if_dither(uint64_t seed, size_t i, int f);

#endif
