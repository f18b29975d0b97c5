/*
 * stats: the statistics of DESIGN.md, kept in one place so that every tool
 * and a later, tighter budget agree on them.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* A key for unsigned order that matches the doubles' order (no NaN here). */
static uint64_t
sortkey(double d)
{
	uint64_t b;

	memcpy(&b, &d, sizeof b);
	return b >> 63 ? ~b : b | 1ULL << 63;
}

static double
unsortkey(uint64_t k)
{
	double d;

	k = k >> 63 ? k & ~(1ULL << 63) : ~k;
	memcpy(&d, &k, sizeof d);
	return d;
}

/* Six passes of 11-bit digits at most; a digit all keys share is skipped. */
#define DIGITS 6
#define RADIX 2048

void
sort_doubles(double *sorted, const double *v, size_t n, uint64_t *tmp)
{
	static size_t count[DIGITS][RADIX];
	size_t i, sum, c;
	uint64_t *src, *dst, *swap, *key = (uint64_t *)(void *)sorted;
	int d;

	if (n == 0)
		return;
	memset(count, 0, sizeof count);
	for (i = 0; i < n; i++) {
		uint64_t k = sortkey(v[i]);

		key[i] = k;
		for (d = 0; d < DIGITS; d++)
			count[d][k >> (11 * d) & (RADIX - 1)]++;
	}
	src = key;
	dst = tmp;
	for (d = 0; d < DIGITS; d++) {
		if (count[d][key[0] >> (11 * d) & (RADIX - 1)] == n)
			continue;
		for (sum = 0, c = 0; c < RADIX; c++) {
			size_t k = count[d][c];

			count[d][c] = sum;
			sum += k;
		}
		for (i = 0; i < n; i++)
			dst[count[d][src[i] >> (11 * d) & (RADIX - 1)]++] = src[i];
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != key)
		memcpy(key, src, n * sizeof *key);
	for (i = 0; i < n; i++)
		sorted[i] = unsortkey(key[i]);
}

void
mean_add(struct mean *m, double x)
{
	double t;

	if (m->n++ == 0) {
		m->sum = m->run = x;
		m->comp = 0;
		return;
	}
	t = m->sum + x;
	if (fabs(m->sum) >= fabs(x))
		m->comp += (m->sum - t) + x;
	else
		m->comp += (x - t) + m->sum;
	m->sum = t;
	m->run += (x - m->run) / (double)m->n;
}

double
mean_value(const struct mean *m)
{
	if (m->n == 1)
		return m->sum;
	if (isfinite(m->sum + m->comp))
		return (m->sum + m->comp) / (double)m->n;
	return m->run;
}

size_t
williams_rows(size_t k)
{
	return k % 2 == 0 ? k : 2 * k;
}

void
williams(size_t k, size_t row, size_t *order)
{
	size_t j, first, mirror;

	row %= williams_rows(k);
	mirror = row >= k;
	if (mirror)
		row -= k;
	for (j = 0; j < k; j++) {
		/* The first row is 0, 1, k-1, 2, k-2, ...; row r adds r to it. */
		size_t i = mirror ? k - 1 - j : j;

		if (i == 0)
			first = 0;
		else if (i % 2 == 1)
			first = (i + 1) / 2;
		else
			first = k - i / 2;
		order[j] = (first + row) % k;
	}
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
