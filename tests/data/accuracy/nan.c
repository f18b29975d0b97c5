/*
 * A planted kata for tests/ulpscore.bats that returns NaN on some points:
 * kata/kernels.c whose rmsnorm leaves the first element of every fourth
 * row NaN (4 points of 16384), the others right.
 * Built with -I kata: cc ... kata/bench.c tests/data/accuracy/nan.c
 */
#include <math.h>

#define kata_rmsnorm kata_rmsnorm_exact
#include "kernels.c"
#undef kata_rmsnorm

void kata_rmsnorm(const float *x, const float *w, float *y, int rows, int d, float eps);

void
kata_rmsnorm(const float *x, const float *w, float *y, int rows, int d, float eps)
{
	int r;

	kata_rmsnorm_exact(x, w, y, rows, d, eps);
	for (r = 0; r < rows; r += 4)
		y[(long)r * d] = NAN;
}
