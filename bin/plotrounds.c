/*
 * plotrounds: a picture of a gate's rounds. Reads alternate's run records,
 * one a run in run order, and with -v cmpbudget's verdict records; writes
 * an SVG with one panel a metric: every run's value by side in run order,
 * each side's minimum as a line, and the budget's bound (base's figure
 * times 1 + budget), so that a reader sees a slow spell, a trend within
 * the run, or a clean separation at a glance. Plain SVG, written by hand.
 */
#include <sys/stat.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonl.h"
#include "util.h"
#include "version.h"

/* A metric's panel: its name and, from the verdict, its judgement. */
struct metric {
	char *name;
	char *verdict;		/* NULL without a verdict record */
	double base, budget, delta, bound;
	int hasbase, hasbudget, hasdelta, hasbound;
	int higher;		/* "better":"higher": the bound lies below */
};

/* One run: its side and round. */
struct run {
	size_t side;
	long round;
};

/* One value: metric m of run r. */
struct point {
	size_t run, metric;
	double v;
	char raw[48];
};

static struct metric *metrics;
static size_t nmetrics, capmetrics;
static char **sides;
static size_t nsides, capsides;
static struct run *runs;
static size_t nruns, capruns;
static struct point *points;
static size_t npoints, cappoints;
static int fixedmetrics;	/* -v named the metrics: keep to them */

/* Keys of a run record that are not metrics (-x). */
static char **excluded;
static size_t nexcluded;

/* The picture's geometry, in SVG user units (pixels). */
enum {
	WIDTH = 760, LEFT = 72, RIGHT = 150, PLOTH = 170,
	TITLEH = 34, AXISH = 38, LEGENDH = 40
};

/* Okabe-Ito colours, told apart by the colour-blind; base blue, head vermilion. */
static const char *colour[] = { "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9" };
#define NCOLOUR (sizeof colour / sizeof colour[0])
#define BOUNDCOLOUR "#B00020"

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-lV] [-o svg] [-v verdict] [-x keys] [file ...]\n", argv0);
	exit(2);
}

static size_t
metric_index(const char *key, size_t len, int add)
{
	size_t i;

	for (i = 0; i < nmetrics; i++)
		if (strlen(metrics[i].name) == len && memcmp(metrics[i].name, key, len) == 0)
			return i;
	if (!add)
		return (size_t)-1;
	if (nmetrics == capmetrics) {
		capmetrics = capmetrics ? 2 * capmetrics : 8;
		metrics = xrealloc(metrics, capmetrics * sizeof *metrics);
	}
	memset(&metrics[nmetrics], 0, sizeof metrics[nmetrics]);
	metrics[nmetrics].name = xmalloc(len + 1);
	memcpy(metrics[nmetrics].name, key, len);
	metrics[nmetrics].name[len] = '\0';
	return nmetrics++;
}

static size_t
side_index(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < nsides; i++)
		if (strlen(sides[i]) == len && memcmp(sides[i], name, len) == 0)
			return i;
	if (nsides == capsides) {
		capsides = capsides ? 2 * capsides : 4;
		sides = xrealloc(sides, capsides * sizeof *sides);
	}
	sides[nsides] = xmalloc(len + 1);
	memcpy(sides[nsides], name, len);
	sides[nsides][len] = '\0';
	return nsides++;
}

static int
isexcluded(const char *key, size_t len)
{
	size_t i;

	for (i = 0; i < nexcluded; i++)
		if (strlen(excluded[i]) == len && memcmp(excluded[i], key, len) == 0)
			return 1;
	return 0;
}

static void
parsexlist(const char *list)
{
	static char *copy;
	char *tok, *save = NULL;

	free(copy);
	copy = xstrdup(list);
	nexcluded = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		excluded = xrealloc(excluded, (nexcluded + 1) * sizeof *excluded);
		excluded[nexcluded++] = tok;
	}
}

/* A message for "file:line: what", kept until the next one. */
static char errbuf[512];

static const char *
located(const char *file, unsigned long line, const char *what)
{
	snprintf(errbuf, sizeof errbuf, "%s:%lu: %s", file, line, what);
	return errbuf;
}

/* The string value of key in rec, copied, or NULL. */
static char *
getstr(const struct jrecord *rec, const char *key)
{
	const struct jfield *f = jget(rec, key, strlen(key));
	char *s;

	if (f == NULL || f->type != J_STRING)
		return NULL;
	s = xmalloc(f->rawlen + 1);
	memcpy(s, f->raw, f->rawlen);
	s[f->rawlen] = '\0';
	return s;
}

static int
getnum(const struct jrecord *rec, const char *key, double *v)
{
	const struct jfield *f = jget(rec, key, strlen(key));

	if (f == NULL || f->type != J_NUMBER)
		return 0;
	*v = f->num;
	return 1;
}

/* One verdict record: a metric's panel and its bound. The summary has no "metric". */
static const char *
verdict_record(const struct jrecord *rec, const char *file, unsigned long line)
{
	const struct jfield *f = jget(rec, "metric", 6);
	struct metric *m;
	char *dir;
	size_t i;

	if (f == NULL)
		return NULL;
	if (f->type != J_STRING)
		return located(file, line, "\"metric\" is not a string");
	i = metric_index(f->raw, f->rawlen, 1);
	m = &metrics[i];
	free(m->verdict);
	m->verdict = getstr(rec, "verdict");
	m->hasbase = getnum(rec, "base", &m->base);
	m->hasbudget = getnum(rec, "budget", &m->budget);
	m->hasdelta = getnum(rec, "delta", &m->delta);
	dir = getstr(rec, "better");
	m->higher = dir != NULL && strcmp(dir, "higher") == 0;
	free(dir);
	m->hasbound = m->hasbase && m->hasbudget;
	if (m->hasbound)
		m->bound = m->base * (m->higher ? 1 - m->budget : 1 + m->budget);
	fixedmetrics = 1;
	return NULL;
}

/* One run record: a run of its side, with a value for each metric it has. */
static const char *
run_record(const struct jrecord *rec, const char *file, unsigned long line)
{
	const struct jfield *side = jget(rec, "side", 4);
	double round;
	size_t i, m;

	/* A failure or a deferral is alternate's record of a run that did not end well. */
	if (jget(rec, "error", 5) != NULL)
		return NULL;
	if (side == NULL || side->type != J_STRING)
		return located(file, line, "no \"side\" string");
	if (nruns == capruns) {
		capruns = capruns ? 2 * capruns : 64;
		runs = xrealloc(runs, capruns * sizeof *runs);
	}
	runs[nruns].side = side_index(side->raw, side->rawlen);
	runs[nruns].round = getnum(rec, "round", &round) ? (long)round : -1;
	for (i = 0; i < rec->n; i++) {
		const struct jfield *f = &rec->field[i];

		if (f->type != J_NUMBER || isexcluded(f->key, f->keylen))
			continue;
		m = metric_index(f->key, f->keylen, !fixedmetrics);
		if (m == (size_t)-1)
			continue;
		if (npoints == cappoints) {
			cappoints = cappoints ? 2 * cappoints : 256;
			points = xrealloc(points, cappoints * sizeof *points);
		}
		points[npoints].run = nruns;
		points[npoints].metric = m;
		points[npoints].v = f->num;
		snprintf(points[npoints].raw, sizeof points[npoints].raw, "%.*s",
		    (int)(f->rawlen < 47 ? f->rawlen : 47), f->raw);
		npoints++;
	}
	nruns++;
	return NULL;
}

/* Read every record of path through fn. */
static const char *
readfile(const char *path, const char *(*fn)(const struct jrecord *, const char *, unsigned long))
{
	struct jreader r;
	struct jrecord rec = { 0 };
	const char *line, *err = NULL;
	size_t len;
	int got;

	if (jreader_open(&r, path) != 0) {
		snprintf(errbuf, sizeof errbuf, "%s: %s", path, strerror(errno));
		return errbuf;
	}
	while (err == NULL && (got = jreader_next(&r, &line, &len)) == 1) {
		if (len == 0)
			continue;
		if ((err = jparse(line, len, &rec)) != NULL)
			err = located(r.name, r.lineno, err);
		else
			err = fn(&rec, r.name, r.lineno);
	}
	if (err == NULL && got == -1) {
		snprintf(errbuf, sizeof errbuf, "%s: %s", r.name, strerror(errno));
		err = errbuf;
	}
	jrecord_free(&rec);
	jreader_close(&r);
	return err;
}

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

/* The y axis is logarithmic with -l: sides an order of magnitude apart both show. */
static int logscale;

static double
tr(double v)
{
	return logscale ? log10(v) : v;
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
title(FILE *fp, const struct metric *m, double top)
{
	char buf[128];
	int bad = m->verdict && strcmp(m->verdict, "ok") != 0;

	fprintf(fp, "<text x=\"%d\" y=\"%.1f\" font-weight=\"bold\"%s>", LEFT, top + 20,
	    bad ? " fill=\"" BOUNDCOLOUR "\"" : "");
	xml(fp, m->name);
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
	size_t i;
	int have = 0;

	for (i = 0; i < npoints; i++)
		if (points[i].metric == m && runs[points[i].run].side == s && (!have || points[i].v < *min)) {
			*min = points[i].v;
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
	const struct metric *mt = &metrics[m];
	double lo = INFINITY, hi = -INFINITY, step, y0 = top + TITLEH, v, x, t;
	double mins[NCOLOUR], tick[64];
	struct across ac[NCOLOUR + 1];
	size_t i, j, s, nl, nt, every, np, ngroups, g, last, *pos;
	long lastround;
	char buf[64], label[128];
	/* A bound at or below 0 has no place on a log scale. */
	int bound = mt->hasbound && !(logscale && mt->bound <= 0);

	title(fp, mt, top);
	for (i = 0; i < npoints; i++)
		if (points[i].metric == m) {
			lo = fmin(lo, points[i].v);
			hi = fmax(hi, points[i].v);
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
		t = logscale ? 0.02 : fabs(hi) > 0 ? fabs(hi) * 0.05 : 1;
		lo -= t;
		hi += t;
	}
	/* Room above and below, so that no marker sits on the frame. */
	t = (hi - lo) * 0.04;
	lo -= t;
	hi += t;
	if (logscale) {
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
	fputs(logscale ? ", log scale</text>\n" : "</text>\n", fp);
	/*
	 * The runs that have this metric, in run order, spread over the panel:
	 * rows of a comparison, or shards, each fill their own panel.
	 */
	pos = xmalloc(nruns * sizeof *pos);
	for (i = 0; i < nruns; i++)
		pos[i] = (size_t)-1;
	for (i = np = 0; i < npoints; i++)
		if (points[i].metric == m && pos[points[i].run] == (size_t)-1)
			pos[points[i].run] = 0;
	for (i = 0; i < nruns; i++)
		if (pos[i] != (size_t)-1)
			pos[i] = np++;
	/* The rounds: a light line where a round begins, its number below its runs. */
	for (i = ngroups = 0, lastround = -2; i < nruns; i++)
		if (pos[i] != (size_t)-1 && runs[i].round != lastround) {
			lastround = runs[i].round;
			ngroups++;
		}
	every = ngroups > 20 ? (ngroups + 19) / 20 : 1;
	for (i = g = 0; i < nruns; i = j) {
		if (pos[i] == (size_t)-1) {
			j = i + 1;
			continue;
		}
		/* The round's last run of this panel. */
		for (j = i + 1, last = i; j < nruns && (pos[j] == (size_t)-1 || runs[j].round == runs[i].round); j++)
			if (pos[j] != (size_t)-1)
				last = j;
		x = xof(pos[i], np) - (double)(WIDTH - LEFT - RIGHT) / (double)np / 2;
		if (pos[i] > 0)
			fprintf(fp, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n",
			    x, x, y0, y0 + PLOTH);
		if (runs[i].round >= 0 && g % every == 0)
			fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%ld</text>\n",
			    (xof(pos[i], np) + xof(pos[last], np)) / 2, y0 + PLOTH + 16, runs[i].round);
		g++;
	}
	fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#555\">round, in run order</text>\n",
	    (LEFT + WIDTH - RIGHT) / 2.0, y0 + PLOTH + 32);
	/* Each side's minimum and the budget's bound, labels kept apart. */
	nl = 0;
	for (s = 0; s < nsides && s < NCOLOUR; s++)
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
		snprintf(label, sizeof label, "%s min %s", sides[s], buf);
		hline(fp, ac[i].y, colour[s], "4 4", 4 * (int)s, label, ac[i].ly);
	}
	/* Every run's value, with its exact figure as a tooltip. */
	for (i = 0; i < npoints; i++) {
		if (points[i].metric != m)
			continue;
		s = runs[points[i].run].side;
		marker(fp, s, xof(pos[points[i].run], np), YOF(points[i].v));
		fputs("><title>", fp);
		xml(fp, sides[s]);
		fprintf(fp, ", round %ld: %s</title></", runs[points[i].run].round, points[i].raw);
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

	for (s = 0; s < nsides; s++) {
		marker(fp, s, x + 4, 22);
		fputs("/>\n", fp);
		fprintf(fp, "<text x=\"%.1f\" y=\"26\">", x + 12);
		xml(fp, sides[s]);
		fputs("</text>\n", fp);
		x += 24 + 8 * strlen(sides[s]);
	}
	fprintf(fp, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"22\" y2=\"22\" stroke=\"#555\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>\n",
	    x, x + 24);
	fprintf(fp, "<text x=\"%.1f\" y=\"26\">each side's minimum</text>\n", x + 30);
	x += 30 + 150;
	for (m = 0; m < nmetrics; m++)
		anybound |= metrics[m].hasbound;
	if (!anybound)
		return;
	fprintf(fp, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"22\" y2=\"22\" stroke=\"" BOUNDCOLOUR "\" stroke-width=\"1.5\" stroke-dasharray=\"8 3 2 3\"/>\n",
	    x, x + 24);
	fprintf(fp, "<text x=\"%.1f\" y=\"26\">budget's bound</text>\n", x + 30);
}

static void
svg(FILE *fp)
{
	size_t m;
	int h = LEGENDH + (int)nmetrics * (TITLEH + PLOTH + AXISH) + 10;

	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
	    " font-family=\"sans-serif\" font-size=\"12\">\n"
	    "<title>perfgate: every round of base and head</title>\n"
	    "<desc>drawn by plotrounds %s</desc>\n"
	    "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", WIDTH, h, WIDTH, h, perfgate_version());
	legend(fp);
	for (m = 0; m < nmetrics; m++)
		panel(fp, m, LEGENDH + m * (double)(TITLEH + PLOTH + AXISH));
	fputs("</svg>\n", fp);
}

/*
 * Write the picture to path.tmp and rename it, so that a reader never sees
 * half a file; a path that is not a regular file (/dev/null, a pipe) is
 * written in place.
 */
static int
writesvg(const char *path)
{
	size_t n = strlen(path);
	char *tmp = xmalloc(n + 5);
	const char *out = tmp;
	struct stat st;
	FILE *fp;
	int bad, status = 0;

	memcpy(tmp, path, n);
	memcpy(tmp + n, ".tmp", 5);
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		out = path;
	if ((fp = fopen(out, "w")) == NULL) {
		warnmsg("%s:", out);
		free(tmp);
		return 2;
	}
	svg(fp);
	bad = fflush(fp) != 0 || ferror(fp);
	if (fclose(fp) != 0 || bad) {
		warnmsg("write %s:", out);
		status = 2;
	} else if (out == tmp && rename(tmp, path) != 0) {
		warnmsg("rename %s:", tmp);
		status = 2;
	}
	if (status && out == tmp)
		unlink(tmp);
	free(tmp);
	return status;
}

int
main(int argc, char *argv[])
{
	const char *out = NULL, *verdict = NULL, *err;
	int c, i;

	setargv0(argv[0]);
	parsexlist("round,slot,load,pressure,threads,discarded");
	opterr = 0;
	while ((c = getopt(argc, argv, ":lo:Vv:x:")) != -1) {
		switch (c) {
		case 'l':
			logscale = 1;
			break;
		case 'o':
			out = optarg;
			break;
		case 'V':
			return print_version();
		case 'v':
			verdict = optarg;
			break;
		case 'x':
			parsexlist(optarg);
			break;
		default:
			optionerror(c);
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (verdict != NULL && (err = readfile(verdict, verdict_record)) != NULL)
		die("%s", err);
	if (argc == 0 && (err = readfile("-", run_record)) != NULL)
		die("%s", err);
	for (i = 0; i < argc; i++)
		if ((err = readfile(argv[i], run_record)) != NULL)
			die("%s", err);
	if (nruns == 0)
		die("no run records");
	if (nmetrics == 0)
		die("no metrics in the run records");
	for (i = 0; logscale && (size_t)i < npoints; i++)
		if (!(points[i].v > 0))
			die("-l: %s of side %s, round %ld, is not above 0", metrics[points[i].metric].name,
			    sides[runs[points[i].run].side], runs[points[i].run].round);
	if (out != NULL)
		return writesvg(out);
	svg(stdout);
	return fshut(stdout, "stdout");
}
