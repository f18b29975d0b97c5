/*
 * A planted less-accurate kata for tests/ulpscore.bats: kata/kernels.c
 * with rmsnorm's 1/sqrt taken from the bit trick and one Newton step
 * (relative error up to about 2e-3, thousands of float32 ulp), still as
 * fast as the kata's. Its inputs make every sum of the kata exact in any
 * order, so the precision is lost where rmsnorm rounds, not in a sum.
 * Built with -I kata: cc ... kata/bench.c tests/data/accuracy/lossy.c
 */
#include <stdint.h>
#include <string.h>

#define kata_rmsnorm kata_rmsnorm_exact
#include "kernels.c"
#undef kata_rmsnorm

void kata_rmsnorm(const float *x, const float *w, float *y, int rows, int d, float eps);

static float
rsqrt_approx(float v)
{
	uint32_t i;
	float r;

	memcpy(&i, &v, sizeof i);
	i = 0x5f3759df - (i >> 1);
	memcpy(&r, &i, sizeof r);
	return r * (1.5f - 0.5f * v * r * r);
}

/* The kata's rmsnorm, line for line, but for the reciprocal square root. */
void
kata_rmsnorm(const float *x, const float *w, float *y, int rows, int d, float eps)
{
	int r, i, j;

	for (r = 0; r < rows; r++) {
		const float *xr = x + (long)r * d;
		float *yr = y + (long)r * d;
		float s[8] = { 0 }, ss, inv, t[8];

		for (i = 0; i + 8 <= d; i += 8)
			for (j = 0; j < 8; j++)
				s[j] += xr[i + j] * xr[i + j];
		for (j = 0; i < d; i++, j++)
			s[j] += xr[i] * xr[i];
		ss = ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
		inv = rsqrt_approx(ss / d + eps);
		for (i = 0; i + 8 <= d; i += 8) {
			for (j = 0; j < 8; j++)
				t[j] = xr[i + j] * inv * w[i + j];
			for (j = 0; j < 8; j++)
				yr[i + j] = t[j];
		}
		for (; i < d; i++)
			yr[i] = xr[i] * inv * w[i];
	}
}
