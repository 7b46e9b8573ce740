/*
 * plot.c - SVG frames, scales and ticks.
 *
 * Ticks: linear axes get 1-2-5 steps, about five per axis; log axes get
 * the decades, with 2 and 5 between them when the axis spans few
 * decades.  Coordinates are written with one decimal: pixel precision is
 * all a reader can see, and it keeps the file small.
 */
#include "plot.h"

#include <math.h>
#include <string.h>

void sbt_html_str(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			/* control bytes have no place in a page */
			if ((unsigned char)*s >= 0x20 || *s == '\n' ||
			    *s == '\t')
				fputc(*s, f);
		}
}

void sbt_plot_fmt(enum sbt_tick_fmt fmt, double v, char *buf, size_t len)
{
	double a = fabs(v);

	switch (fmt) {
	case SBT_TICK_COUNT:
		if (a >= 1e6)
			snprintf(buf, len, "%gM", v / 1e6);
		else if (a >= 1e3)
			snprintf(buf, len, "%gk", v / 1e3);
		else
			snprintf(buf, len, "%g", v);
		return;
	case SBT_TICK_FRAC:
		snprintf(buf, len, "%g", v);
		return;
	case SBT_TICK_TIME:             /* ns since the start */
		if (a >= 1e9)
			snprintf(buf, len, "%g s", v / 1e9);
		else if (a >= 1e6)
			snprintf(buf, len, "%g ms", v / 1e6);
		else if (a >= 1e3)
			snprintf(buf, len, "%g us", v / 1e3);
		else
			snprintf(buf, len, "%g ns", v);
		return;
	case SBT_TICK_NS:
		if (a >= 1e9)
			snprintf(buf, len, "%.4g s", v / 1e9);
		else if (a >= 1e6)
			snprintf(buf, len, "%.4g ms", v / 1e6);
		else if (a >= 1e4)
			snprintf(buf, len, "%.4g us", v / 1e3);
		else
			snprintf(buf, len, "%.4g ns", v);
		return;
	}
}

void sbt_plot_frame(struct sbt_plot *p)
{
	if (!p->w) p->w = 560;
	if (!p->h) p->h = 240;
	if (!p->ml) p->ml = 64;
	if (!p->mr) p->mr = 16;
	if (!p->mt) p->mt = 26;
	if (!p->mb) p->mb = 40;
}

void sbt_plot_begin(struct sbt_plot *p, FILE *f, const char *kind,
		    const char *title)
{
	p->f = f;
	sbt_plot_frame(p);
	fprintf(f, "<svg class=\"plot %s\" viewBox=\"0 0 %d %d\" "
		"role=\"img\" xmlns=\"http://www.w3.org/2000/svg\"><title>",
		kind, p->w, p->h);
	sbt_html_str(f, title);
	fputs("</title><text class=\"pt\" x=\"8\" y=\"16\">", f);
	sbt_html_str(f, title);
	fputs("</text>\n", f);
}

void sbt_plot_end(const struct sbt_plot *p)
{
	fputs("</svg>\n", p->f);
}

static double to_axis(int lg, double v)
{
	return lg ? log10(v > 0 ? v : 1e-300) : v;
}

double sbt_plot_x(const struct sbt_plot *p, double x)
{
	double a = to_axis(p->xlog, p->x0), b = to_axis(p->xlog, p->x1);
	double r = b > a ? (to_axis(p->xlog, x) - a) / (b - a) : 0.5;

	if (r < 0) r = 0;
	if (r > 1) r = 1;
	return p->ml + r * (p->w - p->ml - p->mr);
}

double sbt_plot_y(const struct sbt_plot *p, double y)
{
	double a = to_axis(p->ylog, p->y0), b = to_axis(p->ylog, p->y1);
	double r = b > a ? (to_axis(p->ylog, y) - a) / (b - a) : 0.5;

	if (r < 0) r = 0;
	if (r > 1) r = 1;
	return p->h - p->mb - r * (p->h - p->mt - p->mb);
}

/* Tick values of one axis into t[], how many. */
static int ticks(double lo, double hi, int lg, double *t, int max)
{
	int n = 0;

	if (!(hi > lo))
		return 0;
	if (lg) {
		int d0 = (int)floor(log10(lo)), d1 = (int)ceil(log10(hi));
		static const double sub[] = { 1, 2, 5 };
		int nsub = d1 - d0 <= 3 ? 3 : 1;
		for (int d = d0; d <= d1 && n < max; d++)
			for (int s = 0; s < nsub && n < max; s++) {
				double v = sub[s] * pow(10, d);
				if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9))
					t[n++] = v;
			}
		return n;
	}
	double raw = (hi - lo) / 5, mag = pow(10, floor(log10(raw)));
	double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag :
		      raw / mag < 7.5 ? 5 * mag : 10 * mag;
	for (double v = ceil(lo / step) * step; v <= hi + step * 1e-9 &&
	     n < max; v += step)
		t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	return n;
}

void sbt_plot_axes(const struct sbt_plot *p, const char *xlabel,
		   const char *ylabel)
{
	FILE *f = p->f;
	double t[40], x0 = p->ml, x1 = p->w - p->mr;
	double y0 = p->h - p->mb, y1 = p->mt;
	char b[32];
	int n;

	fprintf(f, "<rect class=\"fr\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		"height=\"%.1f\"/>\n", x0, y1, x1 - x0, y0 - y1);
	n = ticks(p->x0, p->x1, p->xlog, t, 40);
	for (int i = 0; i < n; i++) {
		double x = sbt_plot_x(p, t[i]);
		sbt_plot_fmt(p->xfmt, t[i], b, sizeof b);
		/* a label centred on its tick, but kept inside the viewBox
		 * (SBT_PLOT_CHAR_W a character, generously) */
		double half = strlen(b) * SBT_PLOT_CHAR_W / 2;
		const char *anchor = "";
		double tx = x;
		if (x + half > p->w - 2)
			anchor = " style=\"text-anchor:end\"", tx = p->w - 2;
		else if (x - half < 2)
			anchor = " style=\"text-anchor:start\"", tx = 2;
		fprintf(f, "<line class=\"gr\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"/><text class=\"tx\"%s x=\"%.1f\""
			" y=\"%.1f\">%s</text>\n", x, y1, x, y0, anchor, tx,
			y0 + 13, b);
	}
	n = ticks(p->y0, p->y1, p->ylog, t, 40);
	for (int i = 0; i < n; i++) {
		double y = sbt_plot_y(p, t[i]);
		sbt_plot_fmt(p->yfmt, t[i], b, sizeof b);
		fprintf(f, "<line class=\"gr\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"/><text class=\"ty\" x=\"%.1f\" "
			"y=\"%.1f\">%s</text>\n", x0, y, x1, y, x0 - 4, y + 4, b);
	}
	fprintf(f, "<text class=\"xl\" x=\"%.1f\" y=\"%d\">", (x0 + x1) / 2,
		p->h - 6);
	sbt_html_str(f, xlabel);
	fprintf(f, "</text><text class=\"yl\" transform=\"translate(12 %.1f) "
		"rotate(-90)\">", (y0 + y1) / 2);
	sbt_html_str(f, ylabel);
	fputs("</text>\n", f);
}
