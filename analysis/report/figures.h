/*
 * figures.h - the numbers each plot of the HTML report draws, reduced
 * from any number of samples to a bounded few (per bin, per pixel
 * column, per group), so a report of 10^7 samples is as small as one of
 * 10^3.  Reductions keep what matters in a timing distribution: every
 * non-empty bin stays non-empty (tails, rare modes), every column keeps
 * its extremes.
 */
#ifndef SBT_FIGURES_H
#define SBT_FIGURES_H

#include "report.h"

#define SBT_FIG_BINS 160       /* histogram bins, at most               */
#define SBT_FIG_COLS 480       /* CDF and time-series columns           */

struct sbt_hist {
	double lo, width;      /* bin b covers [lo + b w, lo + (b+1) w)  */
	int nbins;
	uint64_t count[SBT_FIG_BINS];
	uint64_t max;
};

/* Bins over [lo, hi]; on a clock with quantum q a bin is a whole number
 * of quanta wide, so no bin is empty by aliasing. */
void sbt_fig_hist(const double *v, size_t n, double lo, double hi,
		  double quantum, struct sbt_hist *h);

/* Counts on SBT_FIG_COLS columns over [lo, hi], the kept samples' range
 * (log-spaced when it spans more than a decade): the CDF before and
 * after the OS filter, at pixel resolution.  The OS filter's cut samples
 * lie beyond every kept one: they are counted apart, on SBT_CUT_COLS
 * log-spaced columns over their own range [clo, chi], so that a far
 * outlier does not press the kept ones against the axis. */
#define SBT_CUT_COLS 40

struct sbt_cdf {
	double lo, hi;
	int log;
	uint64_t kept[SBT_FIG_COLS], dropped[SBT_FIG_COLS];
	uint64_t nkept, ndropped;
	double clo, chi;       /* cut samples above hi: their range     */
	uint64_t ncut, cut[SBT_CUT_COLS];
};

/* The column of x on c's axis (clamped). */
int sbt_cdf_col(const struct sbt_cdf *c, double x);
/* The left edge of column j (j = SBT_FIG_COLS: hi). */
double sbt_cdf_edge(const struct sbt_cdf *c, int j);

/* One pixel column of samples over time: the kept samples' extremes and
 * quantiles, and the dropped samples' range. */
struct sbt_band {
	uint32_t n, ndropped;
	float min, p10, p50, p90, max;
	float dmin, dmax;
};

struct sbt_bands {
	double t0, t1;         /* start times covered (ns)              */
	struct sbt_band col[SBT_FIG_COLS];
};

/* One region (group g of res): its kept values (cost removed) into v
 * (room for g->n) and how many; the CDF columns and time bands over
 * them.  v is reordered by the bands.  0, or -1 when out of memory. */
struct sbt_region_fig {
	size_t nkept, ndropped;
	double kmin, kmax;     /* kept range                            */
	double amin, amax;     /* all samples' range                    */
	struct sbt_hist hist;
	struct sbt_cdf cdf;
	struct sbt_bands bands;
};

int sbt_fig_region(const struct sbt_dataset *ds, const struct sbt_result
		   *res, const struct sbt_group *g,
		   const struct sbt_report_opts *o, double *v,
		   struct sbt_region_fig *fig);

/* One group's samples over time, coarser than a region's bands: a lane
 * of the time plot.  Columns span the region's time range (the same for
 * every lane of a region). */
#define SBT_LANE_COLS 120
#define SBT_LANES     8        /* lanes drawn per region, at most       */

struct sbt_lane {
	double t0, t1;         /* the region's start times (ns)         */
	struct sbt_band col[SBT_LANE_COLS];
};

/* A group of a region (thread, cpu, rank, host or site) as a box. */
struct sbt_box {
	uint32_t region;
	char key[48];
	size_t kept;
	double p1, q1, median, q3, p99;
	int flagged;
	double delta_rel, delta_ns, resolution_ns;
	int minor;             /* its flag is a minor finding           */
	int lane_rank;         /* its lane's place, from 0 (with lane)  */
	struct sbt_lane *lane; /* NULL: not among the region's lanes    */
};

struct sbt_boxes { struct sbt_box *b; size_t n; };

/* One box per group of res (o says how res is grouped); lanes for the
 * SBT_LANES groups of each region a person should see first: the flagged
 * ones, largest difference first, then the others in key order. */
int sbt_boxes_capture(const struct sbt_dataset *ds,
		      const struct sbt_result *res,
		      const struct sbt_report_opts *o, struct sbt_boxes *out);
void sbt_boxes_free(struct sbt_boxes *b);

#endif
