/*
 * oracle: the kata's kernels in long double (oracle.h). On x86-64 long
 * double has a 64-bit mantissa against float32's 24: the sums of these
 * kernels' inputs are exact in it, and the square root and divisions of
 * rmsnorm are rounded 40 bits below a float32 ulp.
 *
 * Build: cc -std=c11 -O2 -DBENCH_ORACLE -Ikata -Ibench kata/bench.c kata/oracle.c \
 *	kata/plain.c -DPLAIN_AS_KATA -lm
 */
#include <math.h>

#include "oracle.h"

void
oracle_matmul(const float *A, const float *B, double *C, int n)
{
	int i, j, k;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			long double s = 0;

			for (k = 0; k < n; k++)
				s += (long double)A[(long)i * n + k] * B[(long)k * n + j];
			C[(long)i * n + j] = (double)s;
		}
}

double
oracle_sum(const float *x, int n)
{
	long double s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += x[i];
	return (double)s;
}

void
oracle_rmsnorm(const float *x, const float *w, double *y, int rows, int d, float eps)
{
	int r, i;

	for (r = 0; r < rows; r++) {
		const float *xr = x + (long)r * d;
		long double ss = 0, rms;

		for (i = 0; i < d; i++)
			ss += (long double)xr[i] * xr[i];
		rms = sqrtl(ss / d + eps);
		for (i = 0; i < d; i++)
			y[(long)r * d + i] = (double)(xr[i] / rms * w[i]);
	}
}

/* Exact: a count, by comparison alone. */
int
oracle_count_below(const float *sorted, int n, float t)
{
	int i, c = 0;

	for (i = 0; i < n; i++)
		c += sorted[i] < t;
	return c;
}
