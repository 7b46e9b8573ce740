/*
 * test_beta.c - the beta search on hand-made scores (white box).
 *
 * Includes filter.c to reach its static decide(): each case pins one of
 * the paper's open points as resolved in filter.c's header comment.
 */
#include "filter.c"

#include <stdio.h>
#include "../common/harness.h"


#define N 200

static double x[N];
static float sc[N];
static uint8_t keep[N];
static size_t n;

static void add(size_t count, float s, double v)
{
	for (size_t i = 0; i < count && n < N; i++, n++) {
		sc[n] = s;
		x[n] = v;
	}
}

static struct sbt_os_result run(int paper, double floor)
{
	struct sbt_os_result r = { .cut = NAN, .kept = n,
				   .max_kept = INFINITY, .floor = floor };
	memset(keep, 1, n);
	decide(x, sc, n, paper, 0, keep, &r);
	return r;
}

static size_t dropped_where(float s)
{
	size_t d = 0;
	for (size_t i = 0; i < n; i++)
		d += !keep[i] && sc[i] == s;
	return d;
}

int main(void)
{
	struct sbt_os_result r;

	/* No score below -0.6: one cut, no difference, nothing dropped. */
	n = 0; add(100, -0.5f, 100); add(5, -0.6f, 30000);
	r = run(1, 0);
	CHECK(r.dropped == 0 && isnan(r.cut), "dropped %zu", r.dropped);

	/* The cut is the one before the jump: the far point (score -0.805,
	 * kept from the cut -0.81 on) is dropped at the cut -0.80, the
	 * -0.65 ones (a small step) are kept. */
	n = 0; add(100, -0.5f, 100); add(10, -0.65f, 110);
	add(1, -0.805f, 20000);
	r = run(1, 0);
	CHECK(fabs(r.cut - -0.80) < 1e-12 && r.dropped == 1 &&
	      dropped_where(-0.805f) == 1, "cut %g dropped %zu", r.cut,
	      r.dropped);
	/* ... and the floor: a 19.9 us jump does not clear a 30 us floor. */
	r = run(0, 30000);
	CHECK(r.dropped == 0, "floor ignored: dropped %zu", r.dropped);
	r = run(0, 500);
	CHECK(r.dropped == 1 && r.max_kept == 110, "dropped %zu max %g",
	      r.dropped, r.max_kept);

	/* A score equal to the cut is kept (-0.75 is exact in float and
	 * double); the point entering at -0.76 makes the jump. */
	n = 0; add(100, -0.5f, 100); add(1, -0.75f, 100.5);
	add(1, -0.76f, 20000);
	r = run(1, 0);
	CHECK(r.cut == -0.75 && r.dropped == 1 && dropped_where(-0.75f) == 0,
	      "cut %g dropped %zu", r.cut, r.dropped);

	/* Equal differences: none above the mean, nothing dropped. */
	n = 0; add(100, -0.5f, 100);
	for (int k = 1; k <= 5; k++)
		add(1, (float)cut_value(k) + 0.001f, 100 + 10 * k);
	r = run(1, 0);
	CHECK(r.dropped == 0, "dropped %zu", r.dropped);

	/* Equal jumps above the mean: the first one wins. */
	n = 0; add(100, -0.5f, 100); add(1, -0.7f, 1100);
	add(1, -0.8f, 2100); add(1, -0.9f, 2100);
	r = run(1, 0);
	CHECK(fabs(r.cut - -0.69) < 1e-12 && r.dropped == 3,
	      "cut %g dropped %zu", r.cut, r.dropped);

	/* No point at or above -0.6: the empty cuts are skipped. */
	n = 0; add(50, -0.7f, 100); add(1, -0.9f, 20000);
	r = run(1, 0);
	CHECK(fabs(r.cut - -0.89) < 1e-12 && r.dropped == 1,
	      "cut %g dropped %zu", r.cut, r.dropped);

	/* A fast point below the cut: the paper drops it, the default keeps
	 * it (OS noise only adds time). */
	n = 0; add(100, -0.5f, 100); add(1, -0.9f, 20000); add(1, -0.95f, 3);
	r = run(1, 0);
	CHECK(r.dropped == 2, "paper dropped %zu", r.dropped);
	r = run(0, 500);
	CHECK(r.dropped == 1 && dropped_where(-0.95f) == 0,
	      "default dropped %zu", r.dropped);

	/* NaN scores count as not anomalous; NaN values never win a max. */
	n = 0; add(100, -0.5f, 100); add(2, NAN, 100); add(1, -0.7f, NAN);
	add(1, -0.9f, 20000);
	r = run(1, 0);
	CHECK(r.dropped == 1 && dropped_where(-0.9f) == 1,
	      "dropped %zu", r.dropped);

	/* Tiny N: below SBT_OS_MIN_N nothing is dropped. */
	n = 0; add(SBT_OS_MIN_N - 2, -0.5f, 100); add(1, -0.9f, 20000);
	r = run(1, 0);
	CHECK(r.dropped == 0, "n %zu dropped %zu", n, r.dropped);
	add(1, -0.5f, 100);
	r = run(1, 0);
	CHECK(n == SBT_OS_MIN_N && r.dropped == 1, "n %zu dropped %zu", n,
	      r.dropped);

	return h_done();
}
