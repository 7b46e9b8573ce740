/*
 * poly.c - the bundled before/after example for sbt-analyze --compare:
 * a real optimization of one region, the other left alone.
 *
 *   cc -O2 -DSBT_MARKER -I markers markers/examples/poly.c -o before -lm
 *   cc -O2 -DSBT_MARKER -DHORNER -I markers markers/examples/poly.c -o after -lm
 *   sbt-run -o before.log -- ./before; sbt-run -o after.log -- ./after
 *   sbt-analyze --compare before.log -- after.log
 *
 * Regions (ITER iterations):
 *   eval    a degree-12 polynomial at 64 points: pow() per term, or, with
 *           -DHORNER, Horner's rule (the optimization)
 *   mix     a fixed dependent-arithmetic chain: unchanged, the control
 */
#include <math.h>
#include <stdio.h>
#include <sbtmark.h>

#define ITER   20000
#define DEGREE 12
#define POINTS 64

static double eval(const double *c, double x)
{
#ifdef HORNER
	double y = c[DEGREE];
	for (int k = DEGREE - 1; k >= 0; k--)
		y = y * x + c[k];
	return y;
#else
	double y = 0;
	for (int k = 0; k <= DEGREE; k++)
		y += c[k] * pow(x, k);
	return y;
#endif
}

static unsigned long chain(unsigned long x, int n)
{
	for (int i = 0; i < n; i++) {
		x = x * 6364136223846793005ul + 1442695040888963407ul;
		__asm__ __volatile__("" : "+r"(x));
	}
	return x;
}

int main(void)
{
	double c[DEGREE + 1], sum = 0;
	unsigned long x = 1;

	for (int k = 0; k <= DEGREE; k++)
		c[k] = 1.0 / (k + 1);
	SBT_MARKER_INIT;
	for (int i = 0; i < ITER; i++) {
		SBT_MARKER_START("eval");
		for (int p = 0; p < POINTS; p++)
			sum += eval(c, 0.5 + p / (double)POINTS + i * 1e-9);
		SBT_MARKER_STOP("eval");

		SBT_MARKER_START("mix");
		x = chain(x, 500);
		SBT_MARKER_STOP("mix");
	}
	SBT_MARKER_CLOSE;
	printf("%g %lu\n", sum, x & 1);
	return 0;
}
