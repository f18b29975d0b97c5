/*
 * stats: the statistics of DESIGN.md, kept in one place so that every tool
 * and a later, tighter budget agree on them.
 */
#ifndef PERFGATE_STATS_H
#define PERFGATE_STATS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The p-quantile (0 <= p <= 1) of a sorted array by linear interpolation
 * between order statistics, numpy's default: h = (n - 1) p, the value is
 * v[lo] + (h - lo) (v[lo + 1] - v[lo]). Sets *lo and *frac so that a caller
 * can pass v[lo] through unchanged when frac is 0. n must be > 0.
 */
double quantile(const double *sorted, size_t n, double p, size_t *lo, double *frac);

/*
 * v[0..n) sorted ascending into sorted[0..n), which may be v itself (no
 * NaN; -0.0 before 0.0), by an LSD radix sort on the doubles' bits: half a
 * million values sort in a few linear passes, where qsort's comparisons
 * would cost more than reading them. tmp has room for n values.
 */
void sort_doubles(double *sorted, const double *v, size_t n, uint64_t *tmp);

/*
 * A mean over a stream of values: Neumaier's compensated sum, and a
 * running mean for when the sum overflows. Starts zeroed.
 */
struct mean {
	size_t n;
	double sum, comp, run;
};

void mean_add(struct mean *m, double x);

/* The mean of the values added (n > 0): one value is itself, bit for bit. */
double mean_value(const struct mean *m);

/*
 * Row `row` of a Williams design for k sides, into order[0..k). For even k
 * the rows of one balanced Latin square; for odd k that square and then its
 * mirror image, since an odd square alone cannot balance adjacency. Over
 * williams_rows(k) rows every side takes every slot equally often and every
 * ordered pair of sides is adjacent equally often.
 */
size_t williams_rows(size_t k);
void williams(size_t k, size_t row, size_t *order);

/* A metric regresses when head > base * (1 + budget): the bound is inclusive. */
int regressed(double base, double head, double budget);

/*
 * The quartiles' opinion: "slower" when head's q1 is above base's q3,
 * "faster" when head's q3 is below base's q1, else "tie".
 */
const char *quartile_opinion(double base_q1, double base_q3, double head_q1, double head_q3);

#endif

/* head < base * (1 - budget), the mirror of regressed: an improvement beyond the budget. */
int improved(double base, double head, double budget);

/*
 * The distribution-free confidence interval of a median from n sorted
 * values (the sign test's): [v[k - 1], v[n - k]] holds the median with
 * probability 1 - 2 P(B <= k - 1), B binomial(n, 1/2), whatever the
 * distribution. Returns the largest k whose interval reaches confidence
 * conf (0 < conf < 1), or 0 when not even [v[0], v[n - 1]] does: 5 values
 * give at most 93.75 %, 6 give 96.9 %.
 */
size_t median_interval(size_t n, double conf);
