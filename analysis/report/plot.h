/*
 * plot.h - just enough SVG for the report's plots: a frame with linear
 * or log axes and tick labels, data-to-pixel scales, and escaping.
 * Everything is written inline (no script, no font files, no network).
 */
#ifndef SBT_PLOT_H
#define SBT_PLOT_H

#include <stdio.h>

/* The widest a character of the plots' 11 px text gets, in px: what
 * labels near an edge are kept inside the viewBox by. */
#define SBT_PLOT_CHAR_W 6.5

enum sbt_tick_fmt { SBT_TICK_NS, SBT_TICK_COUNT, SBT_TICK_FRAC,
		    SBT_TICK_TIME };

struct sbt_plot {
	FILE *f;
	int w, h;                     /* viewBox, px                    */
	int ml, mr, mt, mb;           /* margins around the data area   */
	double x0, x1, y0, y1;        /* data range shown               */
	int xlog, ylog;               /* log10 axes                     */
	/* The widest a character of the plots' 11 px text gets, in px: what
 * labels near an edge are kept inside the viewBox by. */
#define SBT_PLOT_CHAR_W 6.5

enum sbt_tick_fmt xfmt, yfmt;
};

/* The frame's default size and margins, where p leaves them 0: what a
 * plot whose height depends on its margins calls first. */
void sbt_plot_frame(struct sbt_plot *p);
/* <svg class="plot ..."> with a <title>; sets the frame's geometry
 * (sbt_plot_frame). */
void sbt_plot_begin(struct sbt_plot *p, FILE *f, const char *kind,
		    const char *title);
/* Axes, grid, ticks and the two axis labels. */
void sbt_plot_axes(const struct sbt_plot *p, const char *xlabel,
		   const char *ylabel);
void sbt_plot_end(const struct sbt_plot *p);

/* Data to pixel (clamped to the frame). */
double sbt_plot_x(const struct sbt_plot *p, double x);
double sbt_plot_y(const struct sbt_plot *p, double y);

/* A duration, a count, a time as people read them on an axis. */
void sbt_plot_fmt(/* The widest a character of the plots' 11 px text gets, in px: what
 * labels near an edge are kept inside the viewBox by. */
#define SBT_PLOT_CHAR_W 6.5

enum sbt_tick_fmt fmt, double v, char *buf, size_t len);

/* Text for HTML/SVG content and attributes. */
void sbt_html_str(FILE *f, const char *s);

#endif
