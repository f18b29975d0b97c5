/*
 * stats: the statistics of DESIGN.md, kept in one place so that every tool
 * and a later, tighter budget agree on them.
 */
#ifndef PERFGATE_STATS_H
#define PERFGATE_STATS_H

#include <stddef.h>

/*
 * The p-quantile (0 <= p <= 1) of a sorted array by linear interpolation
 * between order statistics, numpy's default: h = (n - 1) p, the value is
 * v[lo] + (h - lo) (v[lo + 1] - v[lo]). Sets *lo and *frac so that a caller
 * can pass v[lo] through unchanged when frac is 0. n must be > 0.
 */
double quantile(const double *sorted, size_t n, double p, size_t *lo, double *frac);

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
