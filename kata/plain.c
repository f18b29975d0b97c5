/*
 * plain: the obvious kernels, written the way the contract reads and nothing
 * more, so that they are easy to trust as the oracle.
 *
 * Compiled with -DPLAIN_AS_KATA the file also defines the kata_* names, so
 * it can stand in for a kernels.c and be benchmarked by kata/bench.c:
 *	make bench KATA=kata/plain.c CFLAGS='-std=c11 -O2 -DPLAIN_AS_KATA'
 */
#include <math.h>

#include "plain.h"

void
plain_matmul(const float *A, const float *B, float *C, int n)
{
	int i, j, k;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			float s = 0.0f;

			for (k = 0; k < n; k++)
				s += A[(long)i * n + k] * B[(long)k * n + j];
			C[(long)i * n + j] = s;
		}
}

float
plain_sum(const float *x, int n)
{
	float s = 0.0f;
	int i;

	for (i = 0; i < n; i++)
		s += x[i];
	return s;
}

void
plain_rmsnorm(const float *x, const float *w, float *y, int rows, int d, float eps)
{
	int r, i;

	for (r = 0; r < rows; r++) {
		const float *xr = x + (long)r * d;
		float *yr = y + (long)r * d;
		float ss = 0.0f, rms;

		for (i = 0; i < d; i++)
			ss += xr[i] * xr[i];
		rms = sqrtf(ss / d + eps);
		for (i = 0; i < d; i++)
			yr[i] = xr[i] / rms * w[i];
	}
}

int
plain_count_below(const float *sorted, int n, float t)
{
	int i, c = 0;

	for (i = 0; i < n; i++)
		if (sorted[i] < t)
			c++;
	return c;
}

#ifdef PLAIN_AS_KATA
#include "kernels.h"

void
kata_matmul(const float *A, const float *B, float *C, int n)
{
	plain_matmul(A, B, C, n);
}

float
kata_sum(const float *x, int n)
{
	return plain_sum(x, n);
}

void
kata_rmsnorm(const float *x, const float *w, float *y, int rows, int d, float eps)
{
	plain_rmsnorm(x, w, y, rows, d, eps);
}

int
kata_count_below(const float *sorted, int n, float t)
{
	return plain_count_below(sorted, n, t);
}
#endif
