/*
 * plot: the SVG picture of a gate's rounds that plotrounds(1) draws, one
 * panel a metric, apart from how the records are read.
 */
#ifndef PERFGATE_PLOT_H
#define PERFGATE_PLOT_H

#include <stddef.h>
#include <stdio.h>

/* A metric's panel: its name and, from the verdict, its judgement. */
struct plot_metric {
	char *name;
	char *verdict;		/* NULL without a verdict record */
	double base, budget, delta, bound;
	int hasbase, hasbudget, hasdelta, hasbound;
	int higher;		/* "better":"higher": the bound lies below */
};

/* One run: its side and round. */
struct plot_run {
	size_t side;
	long round;
};

/* One value: metric m of run r. */
struct plot_point {
	size_t run, metric;
	double v;
	char raw[48];		/* as read, for the tooltip */
};

/* What a picture shows: metrics (panels), sides, runs in run order, values. */
struct plot {
	struct plot_metric *metric;
	size_t nmetric;
	char **side;
	size_t nside;
	struct plot_run *run;
	size_t nrun;
	struct plot_point *point;
	size_t npoint;
	int logscale;		/* -l: the y axis is logarithmic, every value above 0 */
};

/* Write the SVG document of p to fp; the caller checks fp for errors. */
void plot_svg(FILE *fp, const struct plot *p);

#endif
