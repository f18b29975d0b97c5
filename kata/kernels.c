/*
 * kernels: the fast kata. Each kernel is written so that gcc 12 at plain -O2
 * (no -march, so 4-wide SSE) vectorizes it: that -O2 uses the "very cheap"
 * cost model, which refuses loops with an unknown trip count, a scalar
 * epilogue or a run-time alias check. So every hot loop here has a constant
 * trip count over a full tile, works on restrict pointers or local copies,
 * and the ragged edges take a separate plain loop.
 */
#include <math.h>
#include <string.h>

#include "kernels.h"

/*
 * Each kernel starts on its own 64-byte line. A hot loop that straddles a
 * line can cost 1.7x, and without this a change to one kernel would shift
 * the code of every kernel after it: aligned starts keep the others' layout,
 * and so their speed, the same from one build to the next.
 */
#if defined(__GNUC__) && !defined(__TINYC__)
#define KATA_ALIGN __attribute__((aligned(64)))
#else
#define KATA_ALIGN
#endif

/* Columns of C per tile: 16 SSE vectors, a constant the vectorizer can take. */
#define JT 64
/* Rows of B per tile: a KT x JT panel of B is 32 KiB and stays in L1. */
#define KT 128

/*
 * c[0..JT) += a[0..kw) @ b, where b is kw rows of JT columns with stride n.
 * Four rows of b per pass cut the loads and stores of c by four; the sum of
 * the four products is reordered against the plain kernel, which kata_check
 * allows for.
 */
static void
tile_full(float *restrict c, const float *restrict a, const float *restrict b,
    int kw, long n)
{
	int j, k = 0;

	for (; k + 4 <= kw; k += 4) {
		const float a0 = a[k], a1 = a[k + 1], a2 = a[k + 2], a3 = a[k + 3];
		const float *b0 = b + k * n, *b1 = b0 + n, *b2 = b1 + n, *b3 = b2 + n;

		for (j = 0; j < JT; j++)
			c[j] += a0 * b0[j] + a1 * b1[j] + a2 * b2[j] + a3 * b3[j];
	}
	for (; k < kw; k++) {
		const float a0 = a[k];
		const float *b0 = b + k * n;

		for (j = 0; j < JT; j++)
			c[j] += a0 * b0[j];
	}
}

/* The same for the last, narrower tile of columns (jw < JT): not hot. */
static void
tile_edge(float *restrict c, const float *restrict a, const float *restrict b,
    int kw, int jw, long n)
{
	int j, k;

	for (k = 0; k < kw; k++)
		for (j = 0; j < jw; j++)
			c[j] += a[k] * b[k * n + j];
}

KATA_ALIGN void
kata_matmul(const float *restrict A, const float *restrict B, float *restrict C, int n)
{
	long N = n;
	int i, j0, k0;

	if (n <= 0)
		return;
	memset(C, 0, sizeof(float) * N * N);
	for (j0 = 0; j0 < n; j0 += JT) {
		int jw = n - j0 < JT ? n - j0 : JT;

		for (k0 = 0; k0 < n; k0 += KT) {
			int kw = n - k0 < KT ? n - k0 : KT;
			const float *b = B + k0 * N + j0;

			for (i = 0; i < n; i++) {
				float *c = C + i * N + j0;
				const float *a = A + i * N + k0;

				if (jw == JT)
					tile_full(c, a, b, kw, N);
				else
					tile_edge(c, a, b, kw, jw, N);
			}
		}
	}
}

/*
 * Eight partial sums: the adds of one sum form a chain, each waiting for the
 * last; eight independent chains (two SSE vectors) keep the adders busy.
 */
KATA_ALIGN float
kata_sum(const float *x, int n)
{
	float s[8] = { 0 };
	int i = 0, j;

	for (; i + 8 <= n; i += 8)
		for (j = 0; j < 8; j++)
			s[j] += x[i + j];
	for (j = 0; i < n; i++, j++)
		s[j] += x[i];
	return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
}

KATA_ALIGN void
kata_rmsnorm(const float *x, const float *w, float *y, int rows, int d, float eps)
{
	int r, i, j;

	for (r = 0; r < rows; r++) {
		const float *xr = x + (long)r * d;
		float *yr = y + (long)r * d;
		float s[8] = { 0 }, ss, inv, t[8];

		/* Eight partial sums of squares, as in kata_sum. */
		for (i = 0; i + 8 <= d; i += 8)
			for (j = 0; j < 8; j++)
				s[j] += xr[i + j] * xr[i + j];
		for (j = 0; i < d; i++, j++)
			s[j] += xr[i] * xr[i];
		ss = ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));

		/* One division a row; a multiply an element. */
		inv = 1.0f / sqrtf(ss / d + eps);

		/*
		 * Eight results go through t before the stores, so the loads
		 * need not be ordered against them: y may be x (in place)
		 * and the block still vectorizes without an alias check.
		 */
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

/*
 * Branch-free binary search: the range [base, base + len) always holds the
 * answer's position, and each step halves it with a conditional move, so a
 * random t costs no mispredicted branches.
 */
KATA_ALIGN int
kata_count_below(const float *sorted, int n, float t)
{
	const float *base = sorted;
	int len = n;

	if (n <= 0)
		return 0;
	while (len > 1) {
		int half = len / 2;

		base = base[half] < t ? base + half : base;
		len -= half;
	}
	return (int)(base - sorted) + (*base < t);
}
