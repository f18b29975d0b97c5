/*
 * plot: the SVG picture of a gate's rounds, written by hand in plain
 * elements (rect, line, circle, path, text) that any browser and
 * rsvg-convert draw. plotrounds(1) reads the records; this draws them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"
#include "util.h"
#include "version.h"

/* The picture's geometry, in SVG user units (pixels). */
enum {
	WIDTH = 760, LEFT = 72, RIGHT = 150, PLOTH = 170,
	TITLEH = 34, AXISH = 38, LEGENDH = 40
};

/* Okabe-Ito colours, told apart by the colour-blind; base blue, head vermilion. */
static const char *colour[] = { "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9" };
#define NCOLOUR (sizeof colour / sizeof colour[0])
#define BOUNDCOLOUR "#B00020"

/* The picture being drawn: set by plot_svg, read by its helpers. */
static const struct plot *P;

/*
 * The points of metric m are ORD[FIRST[m]] .. ORD[FIRST[m + 1] - 1], in
 * the order of P->point: a panel visits its own points only, so that a
 * picture of thousands of metrics is not drawn in time squared (issue 20).
 */
static size_t *ORD, *FIRST;
#define EACHPOINT(k, i, m) for ((k) = FIRST[m]; (k) < FIRST[(m) + 1] && ((i) = ORD[k], 1); (k)++)

/* Text for SVG: escape what XML reads as markup. */
static void
xml(FILE *fp, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", fp); break;
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '"': fputs("&quot;", fp); break;
		default: fputc(*s, fp);
		}
	}
}

/* A tick label: four significant digits with an SI prefix, 523k, 1.25M. */
static void
human(char *buf, size_t n, double v)
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
nicestep(double range)
{
	double raw = range / 5, p = pow(10, floor(log10(raw))), f = raw / p;

	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

/* The unit of a metric, from its suffix: matmul_ns is in ns. */
static const char *
unit(const char *name)
{
	const char *u = strrchr(name, '_');

	return u && u[1] ? u + 1 : "";
}

/* Where the p-th of np runs of a panel sits. */
static double
xof(size_t p, size_t np)
{
	return LEFT + (p + 0.5) * (double)(WIDTH - LEFT - RIGHT) / (double)np;
}

static double
tr(double v)
{
	return P->logscale ? log10(v) : v;
}

/*
 * The values of a log axis's ticks over [lo, hi] (log10 units): 1, 2 and 5
 * times powers of ten, only the powers when those are many, and linear
 * ticks when the range holds fewer than two. Returns how many.
 */
static size_t
logticks(double lo, double hi, double *tick, size_t max)
{
	static const double mult[] = { 1, 2, 5 };
	size_t n = 0, j, only = 0;
	double v, step;
	long k;

	for (;;) {
		n = 0;
		for (k = (long)floor(lo); k <= (long)ceil(hi) && n < max; k++)
			for (j = 0; j < (only ? 1 : 3) && n < max; j++) {
				v = mult[j] * pow(10, (double)k);
				if (log10(v) >= lo && log10(v) <= hi)
					tick[n++] = v;
			}
		if (n <= 8 || only)
			break;
		only = 1;
	}
	if (n >= 2)
		return n;
	step = nicestep(pow(10, hi) - pow(10, lo));
	n = 0;
	for (v = ceil(pow(10, lo) / step) * step; v <= pow(10, hi) && n < max; v += step)
		tick[n++] = v;
	return n;
}

/* A side's marker: circle, square, triangle, diamond, by side. */
static void
marker(FILE *fp, size_t side, double x, double y)
{
	const char *c = colour[side % NCOLOUR];

	switch (side % 4) {
	case 0:
		fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"", x, y, c);
		break;
	case 1:
		fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\"%s\"", x - 3.5, y - 3.5, c);
		break;
	case 2:
		fprintf(fp, "<path d=\"M%.1f %.1fl4 7h-8z\" fill=\"%s\"", x, y - 4, c);
		break;
	default:
		fprintf(fp, "<path d=\"M%.1f %.1fl4 4l-4 4l-4 -4z\" fill=\"%s\"", x, y - 4, c);
	}
}

/* A horizontal line across the plot, with its label at the right. */
static void
hline(FILE *fp, double y, const char *stroke, const char *dash, int offset, const char *label, double ly)
{
	/* Offset dashes let two equal minima show both colours. */
	fprintf(fp, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\""
	    " stroke-dasharray=\"%s\" stroke-dashoffset=\"%d\"/>\n",
	    LEFT, WIDTH - RIGHT, y, y, stroke, dash, offset);
	fprintf(fp, "<text x=\"%d\" y=\"%.1f\" fill=\"%s\">", WIDTH - RIGHT + 6, ly + 4, stroke);
	xml(fp, label);
	fputs("</text>\n", fp);
}

/* The panel title: the metric, and the verdict with its change and budget. */
static void
title(FILE *fp, const struct plot_metric *m, double top)
{
	char buf[128];
	int bad = m->verdict && strcmp(m->verdict, "ok") != 0;

	fprintf(fp, "<text x=\"%d\" y=\"%.1f\" font-weight=\"bold\"%s>", LEFT, top + 20,
	    bad ? " fill=\"" BOUNDCOLOUR "\"" : "");
	xml(fp, m->name);
	if (m->higher)
		fputs(" (higher is better)", fp);
	if (m->verdict) {
		fputs(": ", fp);
		xml(fp, m->verdict);
		if (m->hasdelta) {
			snprintf(buf, sizeof buf, ", %+.1f %%", m->delta * 100);
			fputs(buf, fp);
		}
		if (m->hasbudget) {
			snprintf(buf, sizeof buf, " (budget %.4g %%)", m->budget * 100);
			fputs(buf, fp);
		}
	}
	fputs("</text>\n", fp);
}

/* The minimum of side s for metric m over the runs, or 0 when it has none. */
static int
sidemin(size_t s, size_t m, double *min)
{
	size_t i, k;
	int have = 0;

	EACHPOINT(k, i, m)
		if (P->run[P->point[i].run].side == s && (!have || P->point[i].v < *min)) {
			*min = P->point[i].v;
			have = 1;
		}
	return have;
}

/* A line across the plot: a side's minimum (side >= 0) or the bound (-1). */
struct across {
	double y, ly;		/* where the line is, where its label is */
	long side;
};

/* Labels at the right may not overlap: sorted top down, each at least 13 units below the last. */
static void
spread(struct across *a, size_t n)
{
	struct across t;
	size_t i, j;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && a[j - 1].y > a[j].y; j--) {
			t = a[j];
			a[j] = a[j - 1];
			a[j - 1] = t;
		}
	for (i = 0; i < n; i++)
		a[i].ly = i > 0 && a[i].y < a[i - 1].ly + 13 ? a[i - 1].ly + 13 : a[i].y;
}

static void
panel(FILE *fp, size_t m, double top)
{
	const struct plot_metric *mt = &P->metric[m];
	double lo = INFINITY, hi = -INFINITY, step, y0 = top + TITLEH, v, x, t;
	double mins[NCOLOUR], tick[64];
	struct across ac[NCOLOUR + 1];
	size_t i, j, k, s, nl, nt, every, np, ngroups, g, last, *pos;
	long lastround;
	char buf[64], label[128];
	/* A bound at or below 0 has no place on a log scale. */
	int bound = mt->hasbound && !(P->logscale && mt->bound <= 0);

	title(fp, mt, top);
	EACHPOINT(k, i, m) {
		lo = fmin(lo, P->point[i].v);
		hi = fmax(hi, P->point[i].v);
	}
	if (bound) {
		lo = fmin(lo, mt->bound);
		hi = fmax(hi, mt->bound);
	}
	fprintf(fp, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n",
	    LEFT, y0, WIDTH - LEFT - RIGHT, PLOTH);
	if (!(lo <= hi)) {
		fprintf(fp, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"middle\">no values</text>\n",
		    (WIDTH - RIGHT + LEFT) / 2, y0 + PLOTH / 2.0);
		return;
	}
	lo = tr(lo);
	hi = tr(hi);
	if (hi - lo <= fabs(hi) * 1e-9) {
		t = P->logscale ? 0.02 : fabs(hi) > 0 ? fabs(hi) * 0.05 : 1;
		lo -= t;
		hi += t;
	}
	/* Room above and below, so that no marker sits on the frame. */
	t = (hi - lo) * 0.04;
	lo -= t;
	hi += t;
	if (P->logscale) {
		nt = logticks(lo, hi, tick, sizeof tick / sizeof tick[0]);
	} else {
		step = nicestep(hi - lo);
		lo = floor(lo / step) * step;
		hi = ceil(hi / step) * step;
		for (nt = 0, v = lo; v <= hi + step / 2 && nt < sizeof tick / sizeof tick[0]; v += step)
			tick[nt++] = v;
	}
#define YOF(v) (y0 + PLOTH - (tr(v) - lo) / (hi - lo) * PLOTH)
	/* The value grid and its labels. */
	for (i = 0; i < nt; i++) {
		fprintf(fp, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n",
		    LEFT, WIDTH - RIGHT, YOF(tick[i]), YOF(tick[i]));
		human(buf, sizeof buf, tick[i]);
		fprintf(fp, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", LEFT - 6, YOF(tick[i]) + 4, buf);
	}
	fprintf(fp, "<text transform=\"translate(16 %.1f) rotate(-90)\" text-anchor=\"middle\">", y0 + PLOTH / 2.0);
	xml(fp, unit(mt->name));
	fputs(P->logscale ? ", log scale</text>\n" : "</text>\n", fp);
	/*
	 * The runs that have this metric, in run order, spread over the panel:
	 * rows of a comparison, or shards, each fill their own panel.
	 */
	pos = xmalloc(P->nrun * sizeof *pos);
	for (i = 0; i < P->nrun; i++)
		pos[i] = (size_t)-1;
	np = 0;
	EACHPOINT(k, i, m)
		if (pos[P->point[i].run] == (size_t)-1)
			pos[P->point[i].run] = 0;
	for (i = 0; i < P->nrun; i++)
		if (pos[i] != (size_t)-1)
			pos[i] = np++;
	/* The rounds: a light line where a round begins, its number below its runs. */
	for (i = ngroups = 0, lastround = -2; i < P->nrun; i++)
		if (pos[i] != (size_t)-1 && P->run[i].round != lastround) {
			lastround = P->run[i].round;
			ngroups++;
		}
	every = ngroups > 20 ? (ngroups + 19) / 20 : 1;
	for (i = g = 0; i < P->nrun; i = j) {
		if (pos[i] == (size_t)-1) {
			j = i + 1;
			continue;
		}
		/* The round's last run of this panel. */
		for (j = i + 1, last = i; j < P->nrun && (pos[j] == (size_t)-1 || P->run[j].round == P->run[i].round); j++)
			if (pos[j] != (size_t)-1)
				last = j;
		x = xof(pos[i], np) - (double)(WIDTH - LEFT - RIGHT) / (double)np / 2;
		if (pos[i] > 0)
			fprintf(fp, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n",
			    x, x, y0, y0 + PLOTH);
		if (P->run[i].round >= 0 && g % every == 0)
			fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%ld</text>\n",
			    (xof(pos[i], np) + xof(pos[last], np)) / 2, y0 + PLOTH + 16, P->run[i].round);
		g++;
	}
	fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#555\">round, in run order</text>\n",
	    (LEFT + WIDTH - RIGHT) / 2.0, y0 + PLOTH + 32);
	/* Each side's minimum and the budget's bound, labels kept apart. */
	nl = 0;
	for (s = 0; s < P->nside && s < NCOLOUR; s++)
		if (sidemin(s, m, &mins[s])) {
			ac[nl].y = YOF(mins[s]);
			ac[nl++].side = (long)s;
		}
	if (bound) {
		ac[nl].y = YOF(mt->bound);
		ac[nl++].side = -1;
	}
	spread(ac, nl);
	for (i = 0; i < nl; i++) {
		if (ac[i].side < 0) {
			snprintf(label, sizeof label, "bound %s%.4g %%", mt->higher ? "-" : "+", mt->budget * 100);
			hline(fp, ac[i].y, BOUNDCOLOUR, "8 3 2 3", 0, label, ac[i].ly);
			continue;
		}
		s = (size_t)ac[i].side;
		human(buf, sizeof buf, mins[s]);
		snprintf(label, sizeof label, "%s min %s", P->side[s], buf);
		hline(fp, ac[i].y, colour[s], "4 4", 4 * (int)s, label, ac[i].ly);
	}
	/* Every run's value, with its exact figure as a tooltip. */
	EACHPOINT(k, i, m) {
		s = P->run[P->point[i].run].side;
		marker(fp, s, xof(pos[P->point[i].run], np), YOF(P->point[i].v));
		fputs("><title>", fp);
		xml(fp, P->side[s]);
		fprintf(fp, ", round %ld: %s</title></", P->run[P->point[i].run].round, P->point[i].raw);
		fputs(s % 4 == 0 ? "circle>\n" : s % 4 == 1 ? "rect>\n" : "path>\n", fp);
	}
	free(pos);
#undef YOF
}

static void
legend(FILE *fp)
{
	double x = LEFT;
	size_t s, m;
	int anybound = 0;

	for (s = 0; s < P->nside; s++) {
		marker(fp, s, x + 4, 22);
		fputs("/>\n", fp);
		fprintf(fp, "<text x=\"%.1f\" y=\"26\">", x + 12);
		xml(fp, P->side[s]);
		fputs("</text>\n", fp);
		x += 24 + 8 * strlen(P->side[s]);
	}
	fprintf(fp, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"22\" y2=\"22\" stroke=\"#555\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>\n",
	    x, x + 24);
	fprintf(fp, "<text x=\"%.1f\" y=\"26\">each side's minimum</text>\n", x + 30);
	x += 30 + 150;
	for (m = 0; m < P->nmetric; m++)
		anybound |= P->metric[m].hasbound;
	if (!anybound)
		return;
	fprintf(fp, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"22\" y2=\"22\" stroke=\"" BOUNDCOLOUR "\" stroke-width=\"1.5\" stroke-dasharray=\"8 3 2 3\"/>\n",
	    x, x + 24);
	fprintf(fp, "<text x=\"%.1f\" y=\"26\">budget's bound</text>\n", x + 30);
}

void
plot_svg(FILE *fp, const struct plot *p)
{
	size_t m, i;
	int h;

	P = p;
	/* A counting sort of the points by metric, stable. */
	FIRST = xmalloc((P->nmetric + 2) * sizeof *FIRST);
	ORD = xmalloc((P->npoint ? P->npoint : 1) * sizeof *ORD);
	memset(FIRST, 0, (P->nmetric + 2) * sizeof *FIRST);
	for (i = 0; i < P->npoint; i++)
		FIRST[P->point[i].metric + 2]++;
	for (m = 0; m < P->nmetric; m++)
		FIRST[m + 2] += FIRST[m + 1];
	for (i = 0; i < P->npoint; i++)
		ORD[FIRST[P->point[i].metric + 1]++] = i;
	h = LEGENDH + (int)P->nmetric * (TITLEH + PLOTH + AXISH) + 10;

	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
	    " font-family=\"sans-serif\" font-size=\"12\">\n"
	    "<title>perfgate: every round of base and head</title>\n"
	    "<desc>drawn by plotrounds %s</desc>\n"
	    "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", WIDTH, h, WIDTH, h, perfgate_version());
	legend(fp);
	for (m = 0; m < P->nmetric; m++)
		panel(fp, m, LEGENDH + m * (double)(TITLEH + PLOTH + AXISH));
	fputs("</svg>\n", fp);
	free(ORD);
	free(FIRST);
	ORD = FIRST = NULL;
}

