/*
 * iforest.c - isolation forest (Liu, Ting, Zhou 2008), fit and score.
 *
 * Each of ntrees trees is grown on psi points drawn without replacement,
 * to depth ceil(log2 psi): a node picks a feature at random (the other one
 * when the first is constant in the node, as scikit-learn does) and a
 * threshold uniform in [min, max) of that feature in the node; points with
 * v <= t go left.  A point's path length in a tree is the depth of the leaf
 * it reaches plus c(leaf size); its score is -2^(-mean path / c(psi)).
 *
 * Two evaluation strategies, both exact:
 *
 *  1-D  A tree cuts the line into intervals, one per leaf, and a point's
 *       path length depends only on its interval.  The union of all trees'
 *       thresholds cuts the line into at most ntrees*(psi-1)+1 intervals on
 *       each of which the *sum* over trees is constant; we tabulate the
 *       score per interval once and score a point with one binary search.
 *
 *  2-D  Trees are stored as complete binary trees of the full depth D (an
 *       early leaf is padded with +inf thresholds, so every descent takes
 *       exactly D branch-free steps and lands in a table of 2^D path
 *       lengths).  A node holds one threshold per feature, the unused one
 *       +inf, so "go right" is (x > tx) | (y > ty): no load depends on
 *       the feature.  Points are scored in cache-sized blocks, trees
 *       inner, eight descents interleaved.
 *
 * Memory: O(ntrees * psi) for the forest, no per-point allocation; the
 * caller owns the n floats of scores.
 */
#include "iforest.h"
#include "sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EULER_GAMMA 0.5772156649

/* ---- random numbers: splitmix64 seeds xoshiro256** ---------------------- */

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

struct rng { uint64_t s[4]; };

static void rng_seed(struct rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t sm = seed ^ (stream * 0xd1b54a32d192ed03ull);
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&sm);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
	s[2] ^= t; s[3] = rotl(s[3], 45);
	return out;
}

/* Uniform in [0, 1). */
static double rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1p-53;
}

/* Uniform in [0, bound) by multiply-shift; the bias is < bound/2^64. */
static uint64_t rng_below(struct rng *r, uint64_t bound)
{
	return (uint64_t)(((unsigned __int128)rng_next(r) * bound) >> 64);
}

double sbt_if_dither(uint64_t seed, size_t i, int f)
{
	/* A hash of (seed, i, f), not a stream: the offset of a point does
	 * not depend on which other points were drawn or in what order. */
	uint64_t s = seed ^ 0x5851f42d4c957f2dull;
	s += ((uint64_t)i * 2 + (uint64_t)f) * 0x9e3779b97f4a7c15ull;
	uint64_t z = splitmix64(&s);
	return ((double)(z >> 11) + 0.5) * 0x1p-53 - 0.5;   /* (-1/2, 1/2) */
}

double sbt_if_c(double n)
{
	if (n <= 1)
		return 0;
	if (n <= 2)
		return 1;
	return 2 * (log(n - 1) + EULER_GAMMA) - 2 * (n - 1) / n;
}

/* ---- the shared fitting context ----------------------------------------- */

struct fit {
	const double *x, *y;
	size_t n;
	int ntrees, psi, depth;    /* psi <= n here; depth = ceil(log2 psi) */
	uint64_t seed;
	double qx, qy;
	size_t *idx;               /* psi drawn indices                     */
	uint64_t *set;             /* Floyd's membership table, hsize slots */
	size_t hsize;
	double *vx, *vy;           /* the drawn points' (dithered) values   */
};

static inline double val(const struct fit *f, const double *v, double q,
			 size_t i, int feat)
{
	return q > 0 ? v[i] + q * sbt_if_dither(f->seed, i, feat) : v[i];
}

/* Insert i into the open-addressing set; 1 if it was already there. */
static int set_add(struct fit *f, uint64_t i)
{
	size_t m = f->hsize - 1, h = (size_t)((i * 0x9e3779b97f4a7c15ull) >> 20) & m;
	while (f->set[h]) {
		if (f->set[h] == i + 1)
			return 1;
		h = (h + 1) & m;
	}
	f->set[h] = i + 1;
	return 0;
}

/* Draw psi distinct indices of [0, n) (Floyd's algorithm: psi draws, no
 * O(n) state), then load their values. */
static void draw(struct fit *f, struct rng *r)
{
	size_t k = 0;
	if ((size_t)f->psi == f->n) {
		for (; k < f->n; k++)
			f->idx[k] = k;
	} else {
		memset(f->set, 0, f->hsize * sizeof *f->set);
		for (uint64_t j = f->n - (size_t)f->psi; j < f->n; j++) {
			uint64_t t = rng_below(r, j + 1);
			f->idx[k++] = set_add(f, t) ? (set_add(f, j), j) : t;
		}
	}
	for (k = 0; k < (size_t)f->psi; k++) {
		f->vx[k] = val(f, f->x, f->qx, f->idx[k], 0);
		if (f->y)
			f->vy[k] = val(f, f->y, f->qy, f->idx[k], 1);
	}
}

/* Threshold uniform in [lo, hi); hi can come out by rounding, and then
 * lo is used (as scikit-learn does), so both sides stay non-empty. */
static double threshold(struct rng *r, double lo, double hi)
{
	double t = lo + rng_unit(r) * (hi - lo);
	return t >= hi ? lo : t;
}

/* ---- 1-D: per-tree interval lists, merged into one score table ---------- */

struct tree1 {
	double *b;     /* nb ascending thresholds; leaf j is (b[j-1], b[j]] */
	double *h;     /* nb+1 leaf path lengths                            */
	size_t nb;
};

/* v[lo..hi) is sorted; emits leaves and thresholds in order. */
static void grow1(struct tree1 *t, struct rng *r, const double *v,
		  size_t lo, size_t hi, int depth, int maxd)
{
	size_t n = hi - lo;
	if (depth >= maxd || n <= 1 || v[lo] == v[hi - 1]) {
		t->h[t->nb] = depth + sbt_if_c((double)n);
		return;
	}
	double th = threshold(r, v[lo], v[hi - 1]);
	size_t a = lo, b = hi;                 /* first index with v > th */
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (v[m] <= th) a = m + 1; else b = m;
	}
	grow1(t, r, v, lo, a, depth + 1, maxd);
	t->b[t->nb++] = th;
	grow1(t, r, v, a, hi, depth + 1, maxd);
}

/* Number of T[0..k) strictly below v (branch-free lower bound). */
static inline size_t below(const double *T, size_t k, double v)
{
	const double *p = T;
	size_t len = k;
	while (len > 1) {
		size_t half = len / 2;
		p = p[half - 1] < v ? p + half : p;
		len -= half;
	}
	return (size_t)(p - T) + (len == 1 && p[0] < v);
}

/* The cell of x in a grid of g cells over [lo, hi] (scale g / (hi - lo)):
 * monotone in x, so a threshold in an earlier cell than a point's is
 * below it, and one in a later cell above it. */
static inline size_t cell(double x, double lo, double hi, double scale,
			  size_t g)
{
	if (!(x > lo))
		return 0;
	if (x >= hi)
		return g - 1;
	size_t c = (size_t)((x - lo) * scale);
	return c < g ? c : g - 1;
}

/* Thresholds T[0..K) (sorted, unique) with a grid of g cells over most
 * of them:
 * from[c], the first threshold in cell c or later (from[g] = K); NULL:
 * no grid (out of memory), a binary search of them all. */
struct grid {
	const double *T;
	size_t K, g, *from;
	double lo, hi, scale;
};

static void grid_make(struct grid *G, const double *T, size_t K)
{
	*G = (struct grid){ .T = T, .K = K, .g = K };
	if (!K)
		return;
	/* over the bulk: a few far thresholds (a stall's call) would leave
	 * every other in one cell; those beyond it share the end cells */
	G->lo = T[K / 64], G->hi = T[K - 1 - K / 64];
	G->scale = (double)G->g / (G->hi - G->lo);
	if (!(G->scale > 0 && isfinite(G->scale)))
		G->g = 1, G->scale = 0; /* one cell: a binary search */
	if (!(G->from = malloc((G->g + 1) * sizeof *G->from)))
		return;
	for (size_t c = 0, k = 0; c <= G->g; c++) {
		while (k < K && (c == G->g ||
				 cell(T[k], G->lo, G->hi, G->scale, G->g) < c))
			k++;
		G->from[c] = k;
	}
}

/* below(T, K, v), exactly: the thresholds of the cells before v's are
 * all below it, those of the cells after it none. */
static inline size_t grid_below(const struct grid *G, double v)
{
	if (!G->from || isnan(v))
		return below(G->T, G->K, v);
	size_t c = cell(v, G->lo, G->hi, G->scale, G->g);
	return G->from[c] + below(G->T + G->from[c],
				  G->from[c + 1] - G->from[c], v);
}

void sbt_if_below(const double *T, size_t K, const double *x, size_t n,
		  uint32_t *out)
{
	struct grid G;

	grid_make(&G, T, K);
	for (size_t i = 0; i < n; i++)
		out[i] = (uint32_t)grid_below(&G, x[i]);
	free(G.from);
}

/* score[i] = tab[below(T, K, x_i)] for every point, through a grid over
 * the thresholds: neither a binary search of the ~25,000 of them per
 * point nor a sort of the points. */
static void score_table(const struct fit *f, const double *T, size_t K,
			const float *tab, float *score)
{
	struct grid G;

	grid_make(&G, T, K);
	for (size_t i = 0; i < f->n; i++)
		score[i] = tab[grid_below(&G, val(f, f->x, f->qx, i, 0))];
	free(G.from);
}

static int score1(struct fit *f, float *score)
{
	size_t nt = (size_t)f->ntrees, ps = (size_t)f->psi;
	double *B = malloc(nt * ps * sizeof *B);      /* (psi-1) per tree + 1 */
	double *H = malloc(nt * ps * sizeof *H);
	struct tree1 *tr = malloc(nt * sizeof *tr);
	double *acc = NULL;
	float *tab = NULL;
	int rc = -1;
	if (!B || !H || !tr)
		goto out;

	size_t K = 0;
	for (size_t t = 0; t < nt; t++) {
		struct rng r;
		rng_seed(&r, f->seed, t + 1);
		draw(f, &r);
		qsort(f->vx, ps, sizeof *f->vx, sbt_cmp_double);
		tr[t] = (struct tree1){ B + t * ps, H + t * ps, 0 };
		grow1(&tr[t], &r, f->vx, 0, ps, 0, f->depth);
		K += tr[t].nb;
	}

	/* T: all thresholds, sorted, unique; interval k is (T[k-1], T[k]]. */
	double *T = malloc((K ? K : 1) * sizeof *T);
	if (!T)
		goto out;
	for (size_t t = 0, k = 0; t < nt; t++)
		for (size_t j = 0; j < tr[t].nb; j++)
			T[k++] = tr[t].b[j];
	qsort(T, K, sizeof *T, sbt_cmp_double);
	size_t u = 0;
	for (size_t k = 0; k < K; k++)
		if (u == 0 || T[k] != T[u - 1])
			T[u++] = T[k];
	K = u;

	acc = calloc(K + 1, sizeof *acc);
	tab = malloc((K + 1) * sizeof *tab);
	if (!acc || !tab) {
		free(T);
		goto out;
	}
	/* A tree's leaf on interval k is the number of its thresholds below
	 * T[k] (all of them on the last, unbounded interval). */
	for (size_t t = 0; t < nt; t++) {
		size_t j = 0;
		for (size_t k = 0; k <= K; k++) {
			while (j < tr[t].nb && (k == K || tr[t].b[j] < T[k]))
				j++;
			acc[k] += tr[t].h[j];
		}
	}
	double cn = sbt_if_c((double)f->psi) * (double)nt;
	for (size_t k = 0; k <= K; k++)
		tab[k] = (float)-exp2(-acc[k] / cn);

	score_table(f, T, K, tab, score);
	free(T);
	rc = 0;
out:
	free(B); free(H); free(tr); free(acc); free(tab);
	return rc;
}

/* ---- 2-D: padded complete trees ----------------------------------------- */

struct node2 { double t[2]; };     /* go right iff x > t[0] or y > t[1] */

struct forest2 {
	int depth;
	size_t ninner, nleaf;          /* 2^D - 1, 2^D per tree          */
	struct node2 *nd;              /* ntrees * ninner                */
	float *h;                      /* ntrees * nleaf                 */
};

/* Make node (at depth d) a leaf of path length h: every descent from it
 * goes left (v > +inf is false) and every leaf below it reads h. */
static void pad(struct node2 *nd, float *leaf, size_t ninner, size_t node,
		int d, int D, float h)
{
	if (d == D) {
		leaf[node - ninner] = h;
		return;
	}
	nd[node].t[0] = nd[node].t[1] = INFINITY;
	pad(nd, leaf, ninner, 2 * node + 1, d + 1, D, h);
	pad(nd, leaf, ninner, 2 * node + 2, d + 1, D, h);
}

static void grow2(const struct forest2 *F, struct node2 *nd, float *leaf,
		  struct rng *r, double *vx, double *vy, size_t lo,
		  size_t hi, size_t node, int d)
{
	size_t n = hi - lo;
	double mn[2] = { vx[lo], vy[lo] }, mx[2] = { vx[lo], vy[lo] };
	for (size_t i = lo + 1; i < hi; i++) {
		mn[0] = fmin(mn[0], vx[i]); mx[0] = fmax(mx[0], vx[i]);
		mn[1] = fmin(mn[1], vy[i]); mx[1] = fmax(mx[1], vy[i]);
	}
	int c0 = !(mx[0] > mn[0]), c1 = !(mx[1] > mn[1]);
	if (d >= F->depth || n <= 1 || (c0 && c1)) {
		pad(nd, leaf, F->ninner, node, d, F->depth,
		    (float)(d + sbt_if_c((double)n)));
		return;
	}
	int fe = (int)(rng_next(r) >> 63);
	if (fe ? c1 : c0)
		fe = !fe;
	double *v = fe ? vy : vx;
	double th = threshold(r, mn[fe], mx[fe]);
	size_t a = lo, b = hi;               /* partition: v <= th first */
	while (a < b) {
		if (v[a] <= th) {
			a++;
		} else {
			b--;
			double tx = vx[a]; vx[a] = vx[b]; vx[b] = tx;
			double ty = vy[a]; vy[a] = vy[b]; vy[b] = ty;
		}
	}
	nd[node].t[fe] = th;
	nd[node].t[!fe] = INFINITY;
	grow2(F, nd, leaf, r, vx, vy, lo, a, 2 * node + 1, d + 1);
	grow2(F, nd, leaf, r, vx, vy, a, hi, 2 * node + 2, d + 1);
}

#define BLOCK 1024
#define LANES 8

/* acc[i] += path length of point i in one tree, for m (a multiple of
 * LANES) points; LANES independent descents run side by side so their
 * load latencies overlap. */
static void descend(const struct forest2 *F, const struct node2 *nd,
		    const float *h, const double *px, const double *py,
		    double *acc, size_t m)
{
	/* Spelled out so the eight node indices stay in registers. */
#define STEP(l) k##l = 2 * k##l + 1 + (size_t)((px[i + l] > nd[k##l].t[0]) | \
					       (py[i + l] > nd[k##l].t[1]))
#define LEAF(l) acc[i + l] += h[k##l - F->ninner]
	for (size_t i = 0; i < m; i += LANES) {
		size_t k0 = 0, k1 = 0, k2 = 0, k3 = 0, k4 = 0, k5 = 0, k6 = 0,
		       k7 = 0;
		for (int d = 0; d < F->depth; d++) {
			STEP(0); STEP(1); STEP(2); STEP(3);
			STEP(4); STEP(5); STEP(6); STEP(7);
		}
		LEAF(0); LEAF(1); LEAF(2); LEAF(3);
		LEAF(4); LEAF(5); LEAF(6); LEAF(7);
	}
#undef STEP
#undef LEAF
}

static int score2(struct fit *f, float *score)
{
	struct forest2 F = { .depth = f->depth };
	size_t nt = (size_t)f->ntrees;
	F.nleaf = (size_t)1 << F.depth;
	F.ninner = F.nleaf - 1;
	F.nd = malloc(nt * F.ninner * sizeof *F.nd);
	F.h = malloc(nt * F.nleaf * sizeof *F.h);
	double *px = malloc(BLOCK * sizeof *px);
	double *py = malloc(BLOCK * sizeof *py);
	double *acc = malloc(BLOCK * sizeof *acc);
	int rc = -1;
	if (!F.nd || !F.h || !px || !py || !acc)
		goto out;

	for (size_t t = 0; t < nt; t++) {
		struct rng r;
		rng_seed(&r, f->seed, t + 1);
		draw(f, &r);
		grow2(&F, F.nd + t * F.ninner, F.h + t * F.nleaf, &r, f->vx,
		      f->vy, 0, (size_t)f->psi, 0, 0);
	}

	double cn = sbt_if_c((double)f->psi) * (double)nt;
	for (size_t i0 = 0; i0 < f->n; i0 += BLOCK) {
		size_t m = f->n - i0 < BLOCK ? f->n - i0 : BLOCK;
		size_t mp = (m + LANES - 1) / LANES * LANES;
		for (size_t i = 0; i < mp; i++) {   /* pad the last group */
			size_t j = i0 + (i < m ? i : 0);
			px[i] = val(f, f->x, f->qx, j, 0);
			py[i] = val(f, f->y, f->qy, j, 1);
			acc[i] = 0;
		}
		for (size_t t = 0; t < nt; t++)
			descend(&F, F.nd + t * F.ninner, F.h + t * F.nleaf, px,
				py, acc, mp);
		for (size_t i = 0; i < m; i++)
			score[i0 + i] = (float)-exp2(-acc[i] / cn);
	}
	rc = 0;
out:
	free(F.nd); free(F.h); free(px); free(py); free(acc);
	return rc;
}

/* ---- entry point --------------------------------------------------------- */

int sbt_if_score(const double *x, const double *y, size_t n,
		 const struct sbt_if_params *p, float *score)
{
	if (n == 0)
		return 0;
	if (n == 1) {          /* c(1) = 0: the score is undefined; neutral */
		score[0] = -0.5f;
		return 0;
	}
	struct fit f = { .x = x, .y = y, .n = n, .seed = p->seed,
			 .qx = p->qx > 0 ? p->qx : 0,
			 .qy = p->qy > 0 ? p->qy : 0 };
	f.ntrees = p->ntrees > 0 ? p->ntrees : SBT_IF_NTREES;
	if (f.ntrees > SBT_IF_MAX_TREES)
		f.ntrees = SBT_IF_MAX_TREES;
	f.psi = p->psi > 0 ? p->psi : SBT_IF_PSI;
	if (f.psi < 2)
		f.psi = 2;
	if (f.psi > SBT_IF_MAX_PSI)
		f.psi = SBT_IF_MAX_PSI;
	if ((size_t)f.psi > n)
		f.psi = (int)n;
	while ((1 << f.depth) < f.psi)
		f.depth++;
	for (f.hsize = 4; f.hsize < 2 * (size_t)f.psi; f.hsize *= 2)
		;
	f.idx = malloc((size_t)f.psi * sizeof *f.idx);
	f.set = malloc(f.hsize * sizeof *f.set);
	f.vx = malloc((size_t)f.psi * sizeof *f.vx);
	f.vy = malloc((size_t)f.psi * sizeof *f.vy);
	int rc = -1;
	if (f.idx && f.set && f.vx && f.vy)
		rc = y ? score2(&f, score) : score1(&f, score);
	free(f.idx); free(f.set); free(f.vx); free(f.vy);
	return rc;
}
