/*
 * stats: the statistics of DESIGN.md, kept in one place so that every tool
 * and a later, tighter budget agree on them.
 */
#include <stddef.h>

#include "stats.h"

double
quantile(const double *sorted, size_t n, double p, size_t *lo, double *frac)
{
	double h, t, a, b, diff;
	size_t i;

	if (p <= 0 || n == 1) {
		*lo = 0;
		*frac = 0;
		return sorted[0];
	}
	h = (double)(n - 1) * p;
	i = (size_t)h;
	if (p >= 1 || i >= n - 1) {
		*lo = n - 1;
		*frac = 0;
		return sorted[n - 1];
	}
	t = h - (double)i;
	*lo = i;
	*frac = t;
	if (t == 0)
		return sorted[i];
	/*
	 * Interpolate from the nearer end, as numpy's _lerp does, so that the
	 * result matches numpy bit for bit and never leaves [a, b].
	 */
	a = sorted[i];
	b = sorted[i + 1];
	diff = b - a;
	if (t >= 0.5)
		return b - diff * (1 - t);
	return a + diff * t;
}

int
regressed(double base, double head, double budget)
{
	/* Inclusive: head exactly at the bound is still within budget. */
	return head > base * (1 + budget);
}

const char *
quartile_opinion(double base_q1, double base_q3, double head_q1, double head_q3)
{
	if (head_q1 > base_q3)
		return "slower";
	if (head_q3 < base_q1)
		return "faster";
	return "tie";
}

/*
 * The paired verdict's statistics (cmpbudget -r). math.h is included here
 * rather than at the top so that this block stays a pure append while
 * other work on this file is merged; move it up afterwards.
 */
#include <math.h>

int
improved(double base, double head, double budget)
{
	/* The mirror of regressed: head exactly at the bound is no improvement. */
	return head < base * (1 - budget);
}

size_t
median_interval(size_t n, double conf)
{
	double lbin, cdf = 0;
	size_t k;

	/* P(B = i) = C(n, i) / 2^n, summed in logs: 2^-n underflows past n = 1074. */
	lbin = lgamma((double)n + 1) - (double)n * log(2.0);
	for (k = 1; 2 * k <= n; k++) {
		cdf += exp(lbin - lgamma((double)k) - lgamma((double)(n - k) + 2));
		/* A tolerance for the exact cases, such as n = 3 at 0.75. */
		if (1 - 2 * cdf < conf - 1e-9)
			break;
	}
	return k - 1;
}
