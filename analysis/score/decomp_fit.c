/*
 * decomp_fit.c - the robust statistics the decomposition's estimators
 * share: medians, MADs, trimmed means, sums of squares about the mean,
 * a Huber fit, and an offset taken out of the residuals only where it
 * lowers their sum of squares.
 */
#include "decomp_parts.h"
#include "sort.h"
#include "stats.h"

#include <math.h>
#include <string.h>

#define HUBER_K     1.345   /* 95 % efficiency at the normal          */
#define IRLS_ROUNDS 8

/* Median of v[0..n), which it sorts; NAN when empty. */
double sbt_dc_med(double *v, size_t n)
{
	if (!n || sbt_sort_doubles(v, n) != 0)
		return NAN;
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Sum of squares of r[0..n) about their mean, over the calls `keep`
 * marks (all: NULL): what taking a group's offset out always lowers (the
 * analysis of variance's identity), where about the median a skewed
 * region's would rise. */
double sbt_dc_ss_mean(const double *r, size_t n, const uint8_t *keep)
{
	double m = 0, ss = 0;
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		if (!keep || keep[i])
			m += r[i], c++;
	if (!c)
		return 0;
	m /= (double)c;
	for (size_t i = 0; i < n; i++)
		if (!keep || keep[i])
			ss += (r[i] - m) * (r[i] - m);
	return ss;
}

/* Median of v[0..n) sorted (sbt_dc_med()'s, without the sort). */
double sbt_dc_med_sorted(const double *v, size_t n)
{
	if (!n)
		return NAN;
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* 1.4826 MAD of r[0..n) about m, their median; w scratch. */
double sbt_dc_mad_about(const double *r, size_t n, double m, double *w)
{
	for (size_t i = 0; i < n; i++)
		w[i] = fabs(r[i] - m);
	return 1.4826 * sbt_dc_med(w, n);
}

/* 1.4826 MAD of r[0..n) about their median; w scratch. */
double sbt_dc_mad_sd(const double *r, size_t n, double *w)
{
	memcpy(w, r, n * sizeof *w);
	return sbt_dc_mad_about(r, n, sbt_dc_med(w, n), w);
}

/* Trimmed mean and its standard error of w[0..n) (sorted here). */
void sbt_dc_tmean(double *w, size_t n, double *m, double *se)
{
	*m = *se = NAN;
	if (n && sbt_sort_doubles(w, n) == 0)
		sbt_trimmed_mean(w, n, m, se);
}

/* Invert the m x m matrix a (m <= 3) into v.  0, or -1 when singular. */
static int invert(int m, double a[3][3], double v[3][3])
{
	double t[3][6];

	for (int i = 0; i < m; i++)
		for (int j = 0; j < 2 * m; j++)
			t[i][j] = j < m ? a[i][j] : (j - m == i);
	for (int c = 0; c < m; c++) {
		int p = c;
		for (int r = c + 1; r < m; r++)
			if (fabs(t[r][c]) > fabs(t[p][c]))
				p = r;
		if (!(fabs(t[p][c]) > 1e-12 * (fabs(a[c][c]) + 1e-300)))
			return -1;
		for (int j = 0; j < 2 * m; j++) {
			double x = t[c][j];
			t[c][j] = t[p][j], t[p][j] = x;
		}
		double d = t[c][c];
		for (int j = 0; j < 2 * m; j++)
			t[c][j] /= d;
		for (int r = 0; r < m; r++) {
			double f = t[r][c];
			if (r == c || f == 0)
				continue;
			for (int j = 0; j < 2 * m; j++)
				t[r][j] -= f * t[c][j];
		}
	}
	for (int i = 0; i < m; i++)
		for (int j = 0; j < m; j++)
			v[i][j] = t[i][m + j];
	return 0;
}

/* Huber fit of y on an intercept and the k <= 2 columns x[]: b[0] the
 * intercept, b[1..k] the slopes, se[] their standard errors (the robust
 * scale times the weighted design's inverse).  w, e: scratch of n.  0,
 * or -1 when the columns are collinear. */
int sbt_dc_huber(const double *y, const double *const *x, int k, size_t n,
		 double *b, double *se, double *w, double *e, double *scr)
{
	double a[3][3], v[3][3], sigma = 0;
	int m = k + 1;

	for (size_t i = 0; i < n; i++)
		w[i] = 1;
	for (int round = 0; round < IRLS_ROUNDS; round++) {
		double xy[3] = { 0 };
		memset(a, 0, sizeof a);
		for (size_t i = 0; i < n; i++) {
			double row[3] = { 1, k > 0 ? x[0][i] : 0,
					  k > 1 ? x[1][i] : 0 };
			for (int p = 0; p < m; p++) {
				xy[p] += w[i] * row[p] * y[i];
				for (int q = 0; q < m; q++)
					a[p][q] += w[i] * row[p] * row[q];
			}
		}
		if (invert(m, a, v) != 0)
			return -1;
		for (int p = 0; p < m; p++) {
			b[p] = 0;
			for (int q = 0; q < m; q++)
				b[p] += v[p][q] * xy[q];
		}
		for (size_t i = 0; i < n; i++)
			e[i] = y[i] - b[0] - (k > 0 ? b[1] * x[0][i] : 0) -
			       (k > 1 ? b[2] * x[1][i] : 0);
		sigma = sbt_dc_mad_sd(e, n, scr);
		if (!(sigma > 0)) {
			double s2 = 0;
			for (size_t i = 0; i < n; i++)
				s2 += e[i] * e[i];
			sigma = sqrt(s2 / (double)n);
		}
		if (!(sigma > 0))
			break;          /* an exact fit */
		for (size_t i = 0; i < n; i++)
			w[i] = fabs(e[i]) <= HUBER_K * sigma ? 1 :
			       HUBER_K * sigma / fabs(e[i]);
	}
	/* (X'WX)^-1 scaled by the robust variance, for a weighted design
	 * whose weights sum to about n */
	double sw = 0;
	for (size_t i = 0; i < n; i++)
		sw += w[i];
	for (int p = 0; p < m; p++)
		se[p] = sigma * sqrt(fmax(0, v[p][p]) * sw / (double)n);
	return 0;
}

/* Take a resolved offset out: r[i] -= off[i]; kept only when the sum of
 * squares falls.  Returns the new sum of squares, or ss when not kept
 * (r restored). */
double sbt_dc_take_out(struct work *k, size_t n, const double *off, double ss,
		       struct sbt_comp_est *c, double ss0)
{
	for (size_t i = 0; i < n; i++)
		k->r[i] -= off[i];
	double s1 = sbt_dc_ss_mean(k->r, n, k->keep);
	if (!(s1 < ss)) {
		for (size_t i = 0; i < n; i++)
			k->r[i] += off[i];
		c->resolved = 0;
		return ss;
	}
	c->var_share = (ss - s1) / ss0;
	return s1;
}

/* A shift rounded to the clock's quantum: an offset taken out keeps the
 * readings on their lattice (the mode finder reads ticks). */
double sbt_dc_on_lattice(double x, double q)
{
	return q > 0 ? q * round(x / q) : x;
}
