/*
 * plot: the SVG pictures plotrounds(1) draws, apart from how the records
 * are read: a gate's evidence (plot_svg), one panel pair a metric, and
 * make compare's rows (plot_compare_svg), one panel a row.
 */
#ifndef PERFGATE_PLOT_H
#define PERFGATE_PLOT_H

#include <stddef.h>
#include <stdio.h>

#include "judge.h"

/* The rule's view after one more round: its interval and its verdict then. */
struct plot_look {
	double lo, hi;		/* NAN (or not above 0, or infinite) where it has none yet */
	enum verdict verdict;
};

/* A metric's panels: its name, its judgement from the verdict, its evidence. */
struct plot_metric {
	char *name;
	char *verdict;		/* NULL without a verdict record */
	double base, budget, delta, confidence, ratio, lo, hi;
	int hasbase, hasbudget, hasdelta, hasconf, hasratio, hasinterval;
	long rounds;		/* the verdict's "rounds", -1 without */
	int higher;		/* "better":"higher": a throughput */
	/* Filled by plot_prepare: */
	size_t nslot;		/* the x positions: one a round of the metric */
	long *slotround;	/* each slot's round (-1: none, a count) */
	size_t npair;		/* the paired rounds, in round order */
	double *ratio_k;	/* head / base of each; INFINITY where base is 0 and head not */
	size_t *pairslot;	/* where each sits */
	struct plot_look *look;	/* the rule after each pair, NULL without a rule */
	size_t decided;		/* the 1-based look the rule first decided at, 0: none */
};

/* One run: its side, round, file and place among its side's runs of no round. */
struct plot_run {
	size_t side;
	long round;		/* -1 without: a count, run once */
	size_t file;
	size_t seq;		/* the how-manieth run of its side without a round */
};

/* One value: metric m of run r. */
struct plot_point {
	size_t run, metric;
	double v;
	char raw[48];		/* as read, for the tooltip */
	size_t slot;		/* filled by plot_prepare; (size_t)-1: not drawn (another shard's) */
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
	int logscale;		/* -l: the raw values' axis is logarithmic, every value above 0 */
	int counts;		/* a counts gate: one run a side, no interval */
	double confidence;	/* the summary's, for metrics whose record has none; 0: none */
	char *verdict;		/* the summary's, the gate's verdict; NULL without */
	char *why;		/* the summary's "reason" (undecided) or "error", else NULL */
	char *machine;		/* the summary's account of the machine, or NULL */
	long rounds;		/* the summary's rounds, -1 without */
	/* Filled by plot_prepare: */
	size_t base, head;	/* the paired sides; (size_t)-1 when there are none */
	size_t *ord, *first;	/* the points of metric m: ord[first[m]] .. ord[first[m + 1] - 1] */
};

/* One reference of a comparison's row: the implementation's time over its. */
struct plot_ref {
	char *name, *verdict;
	double ratio, lo, hi;	/* the median ratio; the quartile band, q1 / q3 to q3 / q1 */
	int hasband;
};

/* A row of make compare: a case, its references. */
struct plot_row {
	char *name, *metric, *note;	/* note: why the row has no ratios (deferred), or NULL */
	struct plot_ref *ref;
	size_t nref;
};

struct plot_compare {
	char *implementation, *commit, *date;
	struct plot_row *row;
	size_t nrow;
};

/*
 * Pair base and head round by round, each metric in the file that holds
 * its verdict's rounds, and run the rule over the ratios as they came in.
 */
void plot_prepare(struct plot *p);

/*
 * The rule after each of the n ratios, at confidence conf: out[k] is its
 * view after look k + 1. Returns the 1-based look first decided, 0 if none.
 * The one place the picture asks the rule.
 */
size_t plot_looks(const char *name, double budget, int higher, const double *ratio, size_t n, double conf,
    struct plot_look *out);

/* Write the SVG document of p to fp; the caller checks fp for errors. */
void plot_svg(FILE *fp, const struct plot *p);

/* Write the SVG document of a comparison. */
void plot_compare_svg(FILE *fp, const struct plot_compare *c);

#endif
