/*
 * plotsvg: the elements every picture of plot.h is drawn with, in plain
 * SVG (rect, line, circle, path, text) that any browser and rsvg-convert
 * draw.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plotsvg.h"
#include "util.h"

/* Base blue, head orange: vermilion and green are kept for regressed and improved. */
static const char *colour[] = { OI_BLUE, OI_ORANGE, OI_PURPLE, OI_SKY, OI_GREEN, OI_VERMILION };
#define NCOLOUR (sizeof colour / sizeof colour[0])

const char *
plot_colour(size_t side)
{
	return colour[side % NCOLOUR];
}

void
plot_xml(FILE *fp, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", fp); break;
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '"': fputs("&quot;", fp); break;
		/* XML 1.0 has no place for a control character, even escaped: a JSON string may hold one. */
		default: fputc((unsigned char)*s < 0x20 ? '?' : *s, fp);
		}
	}
}

void
plot_human(char *buf, size_t n, double v)
{
	static const struct { double f; const char *s; } si[] = {
		{ 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" }
	};
	size_t i;

	if (fabs(v) < 1e-12)
		v = 0;
	for (i = 0; i < sizeof si / sizeof si[0]; i++)
		if (fabs(v) >= si[i].f) {
			snprintf(buf, n, "%.4g%s", v / si[i].f, si[i].s);
			return;
		}
	snprintf(buf, n, "%.4g", v);
}

/* A round step for about five ticks over range: 1, 2 or 5 times a power of ten. */
static double
nicestep(double range, double many)
{
	double raw = range / many, p = pow(10, floor(log10(raw))), f = raw / p;

	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

static double
tr(const struct plot_axis *a, double v)
{
	return a->log ? log10(v) : v;
}

void
plot_axis_fit(struct plot_axis *a, double vmin, double vmax)
{
	double lo = tr(a, vmin), hi = tr(a, vmax), t, step;

	if (!(lo <= hi) || !isfinite(lo) || !isfinite(hi)) {
		lo = a->log ? -0.1 : 0;
		hi = a->log ? 0.1 : 1;
	}
	if (hi - lo <= fabs(hi) * 1e-9 + 1e-300) {
		t = a->log ? 0.02 : fabs(hi) > 0 ? fabs(hi) * 0.05 : 1;
		lo -= t;
		hi += t;
	}
	t = (hi - lo) * 0.05;
	lo -= t;
	hi += t;
	if (!a->log) {
		/* Whole steps at both ends, so that the grid's first and last lines are the frame. */
		step = nicestep(hi - lo, fmax(2, fmin(6, a->h / 30)));
		lo = floor(lo / step) * step;
		hi = ceil(hi / step) * step;
	}
	a->lo = lo;
	a->hi = hi;
}

int
plot_axis_off(const struct plot_axis *a, double v)
{
	double t;

	if (a->log && !(v > 0))
		return -1;
	t = tr(a, v);
	return t < a->lo ? -1 : t > a->hi ? 1 : isnan(t) ? 1 : 0;
}

double
plot_axis_y(const struct plot_axis *a, double v)
{
	double t;

	switch (plot_axis_off(a, v)) {
	case -1: t = a->lo; break;
	case 1: t = a->hi; break;
	default: t = tr(a, v);
	}
	return a->top + a->h - (t - a->lo) / (a->hi - a->lo) * a->h;
}

/*
 * The values of the ticks of a: on a log axis 1, 2 and 5 times powers of
 * ten, only the powers when those are many, and evenly spaced values when
 * the range holds fewer than four. Returns how many.
 */
static size_t
ticks(const struct plot_axis *a, double *tick, size_t max)
{
	static const double mult[] = { 1, 2, 5 };
	size_t n = 0, j, only = 0;
	double v, step, lo = a->log ? pow(10, a->lo) : a->lo, hi = a->log ? pow(10, a->hi) : a->hi;
	long k;

	for (; a->log;) {
		n = 0;
		for (k = (long)floor(a->lo); k <= (long)ceil(a->hi) && n < max; k++)
			for (j = 0; j < (only ? 1 : 3) && n < max; j++) {
				v = mult[j] * pow(10, (double)k);
				if (log10(v) >= a->lo && log10(v) <= a->hi)
					tick[n++] = v;
			}
		if (n <= 6 || only)
			break;
		only = 1;
	}
	if (n >= 4)
		return n;
	/* About a tick every 30 units of height, at least two. */
	step = nicestep(hi - lo, fmax(2, fmin(6, a->h / 30)));
	n = 0;
	for (v = ceil(lo / step - 1e-9) * step; v <= hi * (1 + 1e-12) + step * 1e-9 && n < max; v += step)
		tick[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	return n;
}

void
plot_axis_grid(FILE *fp, const struct plot_axis *a, double x0, double x1, int ratio)
{
	double tick[64], y;
	size_t i, n = ticks(a, tick, sizeof tick / sizeof tick[0]);
	char buf[64];

	for (i = 0; i < n; i++) {
		y = plot_axis_y(a, tick[i]);
		fprintf(fp, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n", x0, x1, y, y);
		if (ratio)
			snprintf(buf, sizeof buf, "%.3g", tick[i]);
		else
			plot_human(buf, sizeof buf, tick[i]);
		fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", x0 - 5, y + 4, buf);
	}
}

const char *
plot_marker(FILE *fp, size_t s, double x, double y)
{
	const char *c = plot_colour(s);

	switch (s % 4) {
	case 0:
		fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"", x, y, c);
		return "circle";
	case 1:
		fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\"%s\"", x - 3.5, y - 3.5, c);
		return "rect";
	case 2:
		fprintf(fp, "<path d=\"M%.1f %.1fl4 7h-8z\" fill=\"%s\"", x, y - 4, c);
		return "path";
	default:
		fprintf(fp, "<path d=\"M%.1f %.1fl4 4l-4 4l-4 -4z\" fill=\"%s\"", x, y - 4, c);
		return "path";
	}
}

void
plot_offmark(FILE *fp, const char *c, double x, double y, int way)
{
	if (way > 0)
		fprintf(fp, "<path class=\"off\" d=\"M%.1f %.1fl5 8h-10z\" fill=\"%s\"", x, y, c);
	else
		fprintf(fp, "<path class=\"off\" d=\"M%.1f %.1fl5 -8h-10z\" fill=\"%s\"", x, y, c);
}

static int
cmpdouble(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double
plot_quantile(const double *x, size_t n, double q, double *work)
{
	double at, f;
	size_t i;

	if (n == 0)
		return NAN;
	memcpy(work, x, n * sizeof *x);
	qsort(work, n, sizeof *work, cmpdouble);
	at = q * (double)(n - 1);
	i = (size_t)floor(at);
	f = at - (double)i;
	return i + 1 < n && f > 0 ? work[i] + f * (work[i + 1] - work[i]) : work[i];
}
