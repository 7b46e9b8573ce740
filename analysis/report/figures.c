/*
 * figures.c - reduce a region's samples to what its plots draw.
 *
 * Every reduction is one or two linear passes: histograms and CDF columns
 * count, time bands scatter the kept values by column (a counting sort)
 * and take order statistics per column.  Nothing is sorted whole.
 */
#include "figures.h"
#include "report_util.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sbt_fig_hist(const double *v, size_t n, double lo, double hi,
		  double quantum, struct sbt_hist *h)
{
	double span = hi - lo, w;

	memset(h, 0, sizeof *h);
	h->lo = lo;
	if (!(span > 0)) {
		h->nbins = 1;
		h->width = quantum > 0 ? quantum : 1;
		h->count[0] = n;
		h->max = n;
		return;
	}
	w = span / SBT_FIG_BINS;
	if (quantum > 0) {
		/* whole quanta, centred on the ticks the clock can give */
		w = quantum * ceil(w / quantum * (1 - 1e-9));
		h->lo = lo - w / 2;
	}
	h->width = w;
	h->nbins = (int)ceil((hi - h->lo) / w * (1 - 1e-12));
	if (h->nbins < 1) h->nbins = 1;
	if (h->nbins > SBT_FIG_BINS) h->nbins = SBT_FIG_BINS;
	for (size_t i = 0; i < n; i++) {
		long b = (long)((v[i] - h->lo) / w);
		if (b < 0) b = 0;
		if (b >= h->nbins) b = h->nbins - 1;
		h->count[b]++;
	}
	for (int b = 0; b < h->nbins; b++)
		if (h->count[b] > h->max)
			h->max = h->count[b];
}

int sbt_cdf_col(const struct sbt_cdf *c, double x)
{
	double r;

	if (!(x > c->lo))
		return 0;
	r = c->log ? log(x / c->lo) / log(c->hi / c->lo)
		   : (x - c->lo) / (c->hi - c->lo);
	long k = (long)(r * SBT_FIG_COLS);
	return k >= SBT_FIG_COLS ? SBT_FIG_COLS - 1 : (int)k;
}

double sbt_cdf_edge(const struct sbt_cdf *c, int j)
{
	double r = (double)j / SBT_FIG_COLS;

	return c->log ? c->lo * pow(c->hi / c->lo, r)
		      : c->lo + r * (c->hi - c->lo);
}

/* Order statistics of one column's values (reorders them). */
static void band_stats(double *v, size_t n, struct sbt_band *b)
{
	double mn = v[0], mx = v[0];

	for (size_t i = 1; i < n; i++) {
		if (v[i] < mn) mn = v[i];
		if (v[i] > mx) mx = v[i];
	}
	b->min = (float)mn, b->max = (float)mx;
	if (n < 3) {
		b->p10 = b->min, b->p90 = b->max;
		b->p50 = (float)((mn + mx) / 2);
		return;
	}
	b->p50 = (float)sbt_quantile(v, n, 0.5);
	b->p10 = (float)sbt_quantile(v, n, 0.1);
	b->p90 = (float)sbt_quantile(v, n, 0.9);
}

/* The column, of n, of time t: scale columns per ns from t0. */
static size_t column_of(double t, double t0, double scale, size_t n)
{
	size_t c;

	if (!(t > t0))
		return 0;
	c = (size_t)((t - t0) * scale);
	return c < n ? c : n - 1;
}

/* Group g's samples in n time columns col[] (zeroed by the caller): the
 * kept ones' band statistics, the dropped ones' count and range.  v:
 * scratch for g->n values. */
static void columns(const struct sbt_dataset *ds, const struct sbt_result
		    *res, const struct sbt_group *g,
		    const struct sbt_report_opts *o, double t0, double scale,
		    size_t n, struct sbt_band *col, double *v)
{
	size_t start[(SBT_FIG_COLS > SBT_LANE_COLS ? SBT_FIG_COLS :
		      SBT_LANE_COLS) + 1] = { 0 };

	for (size_t i = g->first; i < g->first + g->n; i++) {
		const struct sbt_sample *s = &ds->s[res->order[i]];
		if (s->flags & SBT_SF_PROBE)
			continue;
		struct sbt_band *b = &col[column_of(s->t_ns, t0, scale, n)];
		if (res->mark[res->order[i]] & SBT_MK_DROPPED) {
			float x = (float)sbt_sample_ns(ds, s, o);
			if (!b->ndropped++ || x < b->dmin) b->dmin = x;
			if (b->ndropped == 1 || x > b->dmax) b->dmax = x;
		} else {
			b->n++;
		}
	}
	for (size_t c = 0; c < n; c++)
		start[c + 1] = start[c] + col[c].n;
	for (size_t i = g->first; i < g->first + g->n; i++) {
		const struct sbt_sample *s = &ds->s[res->order[i]];
		if (!(s->flags & SBT_SF_PROBE) &&
		    !(res->mark[res->order[i]] & SBT_MK_DROPPED))
			v[start[column_of(s->t_ns, t0, scale, n)]++] =
				sbt_sample_ns(ds, s, o);
	}
	for (size_t c = 0; c < n; c++)
		if (col[c].n)
			band_stats(v + start[c] - col[c].n, col[c].n, &col[c]);
}

static int fig_bands(const struct sbt_dataset *ds, const struct sbt_result
		     *res, const struct sbt_group *g,
		     const struct sbt_report_opts *o, double *v,
		     struct sbt_bands *bd)
{
	double t0 = INFINITY, t1 = -INFINITY, scale;

	memset(bd, 0, sizeof *bd);
	for (size_t i = g->first; i < g->first + g->n; i++) {
		const struct sbt_sample *s = &ds->s[res->order[i]];
		if (s->flags & SBT_SF_PROBE)
			continue;
		if (s->t_ns < t0) t0 = s->t_ns;
		if (s->t_ns > t1) t1 = s->t_ns;
	}
	if (!(t1 >= t0))
		return 0;
	bd->t0 = t0, bd->t1 = t1;
	scale = t1 > t0 ? SBT_FIG_COLS / (t1 - t0) : 0;
	columns(ds, res, g, o, t0, scale, SBT_FIG_COLS, bd->col, v);
	return 0;
}

int sbt_fig_region(const struct sbt_dataset *ds, const struct sbt_result
		   *res, const struct sbt_group *g,
		   const struct sbt_report_opts *o, double *v,
		   struct sbt_region_fig *fig)
{
	struct sbt_cdf *c = &fig->cdf;
	size_t k = 0;

	memset(fig, 0, sizeof *fig);
	fig->kmin = fig->amin = INFINITY;
	fig->kmax = fig->amax = -INFINITY;
	for (size_t i = g->first; i < g->first + g->n; i++) {
		const struct sbt_sample *s = &ds->s[res->order[i]];
		if (s->flags & SBT_SF_PROBE)
			continue;
		double x = sbt_sample_ns(ds, s, o);
		if (x < fig->amin) fig->amin = x;
		if (x > fig->amax) fig->amax = x;
		if (res->mark[res->order[i]] & SBT_MK_DROPPED) {
			fig->ndropped++;
			continue;
		}
		if (x < fig->kmin) fig->kmin = x;
		if (x > fig->kmax) fig->kmax = x;
		v[k++] = x;
	}
	fig->nkept = k;
	if (k == 0 && fig->ndropped == 0)
		return 0;
	if (k)
		sbt_fig_hist(v, k, fig->kmin, fig->kmax, g->quantum_ns,
			     &fig->hist);

	/* CDF axis: the kept samples' range, half a quantum either side
	 * (a cost-corrected duration can be 0); log when it spans more
	 * than a decade.  Cut samples beyond it: counted apart. */
	double q = g->quantum_ns > 0 ? g->quantum_ns : 1;
	double klo = k ? fig->kmin : fig->amin, khi = k ? fig->kmax : fig->amax;
	c->lo = klo - q / 2, c->hi = khi + q / 2;
	c->log = klo > 0 && khi / klo > 10;
	if (c->log)
		c->lo = klo * 0.97, c->hi = khi * 1.03;
	c->clo = INFINITY, c->chi = -INFINITY;
	for (size_t i = 0; i < k; i++)
		c->kept[sbt_cdf_col(c, v[i])]++;
	for (size_t i = g->first; i < g->first + g->n; i++) {
		const struct sbt_sample *s = &ds->s[res->order[i]];
		if ((s->flags & SBT_SF_PROBE) ||
		    !(res->mark[res->order[i]] & SBT_MK_DROPPED))
			continue;
		double x = sbt_sample_ns(ds, s, o);
		if (k && x > c->hi) {
			c->ncut++;
			if (x < c->clo) c->clo = x;
			if (x > c->chi) c->chi = x;
		} else {
			c->dropped[sbt_cdf_col(c, x)]++;
		}
	}
	/* the cut samples' own columns, log-spaced over their range */
	double cr = c->chi > c->clo ? log(c->chi / c->clo) : 0;
	for (size_t i = g->first; c->ncut && i < g->first + g->n; i++) {
		const struct sbt_sample *s = &ds->s[res->order[i]];
		if ((s->flags & SBT_SF_PROBE) ||
		    !(res->mark[res->order[i]] & SBT_MK_DROPPED))
			continue;
		double x = sbt_sample_ns(ds, s, o);
		if (!(x > c->hi))
			continue;
		long j = cr > 0 && x > c->clo ? (long)(log(x / c->clo) / cr *
						       SBT_CUT_COLS) : 0;
		c->cut[j >= SBT_CUT_COLS ? SBT_CUT_COLS - 1 : j]++;
	}
	c->nkept = k, c->ndropped = fig->ndropped;
	return fig_bands(ds, res, g, o, v, &fig->bands);
}

/* Group g's kept samples (and dropped ones' range) in lane columns over
 * [t0, t1]; v scratch for g->n values. */
static void fig_lane(const struct sbt_dataset *ds, const struct sbt_result
		     *res, const struct sbt_group *g,
		     const struct sbt_report_opts *o, double *v,
		     struct sbt_lane *ln)
{
	double scale = ln->t1 > ln->t0 ? SBT_LANE_COLS / (ln->t1 - ln->t0) : 0;

	columns(ds, res, g, o, ln->t0, scale, SBT_LANE_COLS, ln->col, v);
}

/* Which boxes of the region starting at b[0] (m of them) get lanes:
 * flagged ones by |delta| (those of a major finding first), then the
 * rest in order. */
static void choose_lanes(struct sbt_box *b, size_t m, size_t *pick,
			 size_t *npick)
{
	*npick = 0;
	for (size_t k = 0; k < m && *npick < SBT_LANES; k++) {
		size_t best = m;
		for (size_t i = 0; i < m; i++) {
			int taken = 0;
			for (size_t j = 0; j < *npick; j++)
				taken |= pick[j] == i;
			if (taken || !b[i].flagged || !b[i].kept)
				continue;
			if (best == m || b[i].minor < b[best].minor ||
			    (b[i].minor == b[best].minor &&
			     fabs(b[i].delta_rel) > fabs(b[best].delta_rel)))
				best = i;
		}
		if (best == m)
			break;
		pick[(*npick)++] = best;
	}
	for (size_t i = 0; i < m && *npick < SBT_LANES; i++)
		if (!b[i].flagged && b[i].kept)
			pick[(*npick)++] = i;
}

int sbt_boxes_capture(const struct sbt_dataset *ds,
		      const struct sbt_result *res,
		      const struct sbt_report_opts *o, struct sbt_boxes *out)
{
	size_t maxn = 1;
	double *v;

	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < res->ngroups; i++)
		if (res->g[i].n > maxn)
			maxn = res->g[i].n;
	if (!(v = malloc(maxn * sizeof *v)) ||
	    !(out->b = calloc(res->ngroups ? res->ngroups : 1,
			      sizeof *out->b))) {
		free(v);
		return -1;
	}
	for (size_t i = 0; i < res->ngroups; i++) {
		const struct sbt_group *g = &res->g[i];
		struct sbt_box *b = &out->b[out->n++];
		size_t k = sbt_group_kept(ds, res, g, o, v);
		b->region = g->region;
		sbt_group_key(ds, g, o, b->key, sizeof b->key);
		b->kept = k;
		b->flagged = g->flagged;
		b->delta_rel = g->delta_rel;
		b->delta_ns = g->delta_ns;
		b->resolution_ns = g->delta_resolution_ns;
		for (int f = 0; f < g->nfind; f++)
			if (g->find[f].kind == SBT_FIND_GROUP)
				b->minor = g->find[f].minor;
		b->p1 = b->q1 = b->median = b->q3 = b->p99 = NAN;
		if (!k)
			continue;
		/* each quantile call reorders v; all read the same values */
		b->median = sbt_quantile(v, k, 0.5);
		b->q1 = sbt_quantile(v, k, 0.25);
		b->q3 = sbt_quantile(v, k, 0.75);
		b->p1 = sbt_quantile(v, k, 0.01);
		b->p99 = sbt_quantile(v, k, 0.99);
	}
	/* lanes: a region's groups are consecutive in res->g */
	for (size_t i = 0; i < res->ngroups;) {
		size_t j = i, pick[SBT_LANES], np;
		double t0 = INFINITY, t1 = -INFINITY;
		while (j < res->ngroups && res->g[j].region == res->g[i].region)
			j++;
		for (size_t k = i; k < j; k++)
			for (size_t x = res->g[k].first;
			     x < res->g[k].first + res->g[k].n; x++) {
				const struct sbt_sample *s =
					&ds->s[res->order[x]];
				if (s->flags & SBT_SF_PROBE)
					continue;
				if (s->t_ns < t0) t0 = s->t_ns;
				if (s->t_ns > t1) t1 = s->t_ns;
			}
		choose_lanes(out->b + i, j - i, pick, &np);
		for (size_t k = 0; k < np && t1 >= t0; k++) {
			struct sbt_lane *ln = calloc(1, sizeof *ln);
			if (!ln) {
				free(v);
				sbt_boxes_free(out);
				return -1;
			}
			ln->t0 = t0, ln->t1 = t1;
			fig_lane(ds, res, &res->g[i + pick[k]], o, v, ln);
			out->b[i + pick[k]].lane = ln;
			out->b[i + pick[k]].lane_rank = (int)k;
		}
		i = j;
	}
	free(v);
	return 0;
}

void sbt_boxes_free(struct sbt_boxes *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->b[i].lane);
	free(b->b);
	memset(b, 0, sizeof *b);
}
