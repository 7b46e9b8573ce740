/*
 * decomp_parts.h - the decomposition's estimators (decomp_*.c), behind
 * decomp.h: what decomp.c's passes hand each component (the residuals
 * and scratch, struct work), and each component's function, called in
 * this order, each fitted on what the ones before left in k->r and
 * returning the residuals' new sum of squares.  Only decomp*.c include
 * this.  sbt_dc_: the decomposition's.
 */
#ifndef SBT_DECOMP_PARTS_H
#define SBT_DECOMP_PARTS_H

#include "decomp.h"

#define MAX_GROUPS 256

/* What a pass finds from the calls alone, whichever the spread's shares
 * are taken over (the median, the metrics and the OS fit are of every
 * call): found once, the second pass (decompose) takes it from the
 * first. */
struct again {
	int metrics;                  /* 1: median and m set            */
	double median;
	struct sbt_score m;
	int os;                       /* 1: os_m, os_b, os_se set       */
	int os_m;                     /* sbt_dc_os's columns after huber */
	double os_b[3], os_se[3];
	/* sbt_dc_rest's median and robust sd of the final residuals: what
	 * mark_wild needs, of the same residuals (rest 1: set) */
	int rest;
	double rest_med, rest_sd;
};

struct work {
	double *r, *w, *e, *u;        /* residuals and scratch, n each */
	double *ts;                   /* times, sorted with ix          */
	uint32_t *ix;
	/* The calls the spread's shares are taken over: all (keep NULL),
	 * or those not wild (far out of what every component left: see
	 * mark_wild), n each. */
	uint8_t *tame;
	const uint8_t *keep;
	struct again *ag;             /* NULL: nothing kept across passes */
};

/* decomp_fit.c: the statistics the estimators share */
double sbt_dc_med(double *v, size_t n);
double sbt_dc_ss_mean(const double *r, size_t n, const uint8_t *keep);
double sbt_dc_med_sorted(const double *v, size_t n);
double sbt_dc_mad_about(const double *r, size_t n, double m, double *w);
double sbt_dc_mad_sd(const double *r, size_t n, double *w);
void sbt_dc_tmean(double *w, size_t n, double *m, double *se);
int sbt_dc_huber(const double *y, const double *const *x, int k, size_t n,
		 double *b, double *se, double *w, double *e, double *scr);
double sbt_dc_take_out(struct work *k, size_t n, const double *off, double ss,
		       struct sbt_comp_est *c, double ss0);
double sbt_dc_on_lattice(double x, double q);

/* decomp_os.c */
void sbt_dc_os(const struct sbt_decomp_in *in, struct sbt_decomp *d,
	       struct work *k, double ss0);

/* decomp_counters.c */
int sbt_dc_is_clock(const char *name);
double sbt_dc_counters(const struct sbt_decomp_in *in,
		       struct sbt_decomp *d, struct work *k, double ss,
		       double ss0);

/* decomp_levels.c */
double sbt_dc_proc(const struct sbt_decomp_in *in, struct sbt_decomp *d,
		   struct work *k, double min_shift, double ss, double ss0);
double sbt_dc_time(const struct sbt_decomp_in *in, struct sbt_decomp *d,
		   struct work *k, double min_shift, double q, double ss,
		   double ss0);
int sbt_dc_by_group(const struct sbt_decomp_in *in, struct work *k,
		    size_t *from, int *ng);
double sbt_dc_groups(const struct sbt_decomp_in *in, struct sbt_decomp *d,
		     struct work *k, double min_shift, double q, double ss,
		     double ss0);

/* decomp_modes.c */
int sbt_dc_modes(const struct sbt_decomp_in *in, struct sbt_decomp *d,
		 struct work *k, double min_shift, double q, double *ss,
		 double ss0, double *t_diff);
void sbt_dc_rest(struct sbt_decomp *d, struct work *k, size_t n,
		 double ss0, double t_diff, double q);

#endif
