/*
 * plotsvg: what every picture of plot.h is drawn with: escaped text,
 * tick values, axes linear and logarithmic, the sides' markers, and the
 * Okabe-Ito colours, which the colour-blind tell apart.
 */
#ifndef PERFGATE_PLOTSVG_H
#define PERFGATE_PLOTSVG_H

#include <stddef.h>
#include <stdio.h>

/* Okabe-Ito (2008), by use. */
#define OI_BLACK "#000000"
#define OI_ORANGE "#E69F00"
#define OI_SKY "#56B4E9"
#define OI_GREEN "#009E73"
#define OI_YELLOW "#F0E442"
#define OI_BLUE "#0072B2"
#define OI_VERMILION "#D55E00"
#define OI_PURPLE "#CC79A7"

/* A side's colour and marker shape, by its index: base blue circles, head orange squares. */
const char *plot_colour(size_t side);

/* Text for SVG: escape what XML reads as markup. */
void plot_xml(FILE *fp, const char *s);

/* A tick label: four significant digits with an SI prefix, 523k, 1.25M. */
void plot_human(char *buf, size_t n, double v);

/* A vertical axis: values lo .. hi (log10 units when log) over [top, top + h]. */
struct plot_axis {
	double lo, hi, top, h;
	int log;
};

/* Fit a to values vmin .. vmax, padded so that no marker sits on the frame. */
void plot_axis_fit(struct plot_axis *a, double vmin, double vmax);

/* Where value v sits, clamped to the axis (a value off it is drawn at its edge). */
double plot_axis_y(const struct plot_axis *a, double v);

/* Whether v lies off the axis: -1 below, 1 above, 0 on it. */
int plot_axis_off(const struct plot_axis *a, double v);

/* The axis's grid and tick labels from x0 to x1; ratio labels 0.95, 1, 2 rather than 523k. */
void plot_axis_grid(FILE *fp, const struct plot_axis *a, double x0, double x1, int ratio);

/*
 * Side s's marker at (x, y), open: the caller adds attributes or a
 * tooltip and closes it with the element plot_marker returns
 * ("circle", "rect" or "path").
 */
const char *plot_marker(FILE *fp, size_t s, double x, double y);

/* A value off the axis: a small triangle at its edge pointing the way it lies, open like plot_marker's. */
void plot_offmark(FILE *fp, const char *colour, double x, double y, int way);

/* The value at quantile q (0 .. 1) of x[0..n), sorted into work. */
double plot_quantile(const double *x, size_t n, double q, double *work);

#endif
