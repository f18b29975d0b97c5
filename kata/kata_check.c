/*
 * kata_check: compare a kata's kernels with the plain ones on awkward sizes.
 * Prints one line on stdout and exits 0 when every result agrees; names the
 * first mismatch (kernel, size, index, both values) on stderr and exits 1;
 * exits 2 on its own errors.
 *
 * Build: cc -std=c11 -O2 -Ikata kata/kata_check.c kata/plain.c KERNELS.c -lm
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels.h"
#include "plain.h"

/* Words past each output that a kernel must leave alone. */
#define GUARD 16
#define GUARDVAL 1234.5f

/* The sizes the issue asks for: empty, tiny, around every power-of-two tile. */
static const int sizes[] = { 0, 1, 2, 7, 31, 33, 63, 65, 255, 257 };
#define NSIZES (int)(sizeof(sizes) / sizeof(sizes[0]))

static long cases;

static void *
alloc(long n)
{
	void *p = malloc(sizeof(float) * (size_t)(n + GUARD));

	if (p == NULL) {
		fprintf(stderr, "kata_check: out of memory\n");
		exit(2);
	}
	return p;
}

/*
 * Fixed inputs from the index: exact floats in [-3.9, 3.9] of both signs,
 * so that sums cancel and a dropped or doubled term shows.
 */
static void
fill(float *v, long n, long seed)
{
	long i;

	for (i = 0; i < n; i++)
		v[i] = (float)((i * 7919 + seed * 104729) % 2001 - 1000) / 256.0f;
}

static void
guard_set(float *v, long n)
{
	int g;

	for (g = 0; g < GUARD; g++)
		v[n + g] = GUARDVAL;
}

static int
guard_bad(const char *what, const float *v, long n)
{
	int g;

	for (g = 0; g < GUARD; g++)
		if (v[n + g] != GUARDVAL) {
			fprintf(stderr, "kata_check: %s: wrote past the end of its output (index %ld)\n",
			    what, n + g);
			return 1;
		}
	return 0;
}

/*
 * The tolerances. Reordering a float sum changes its rounding, so a kata
 * that sums in another order (tiles, partial sums) is not bit-exact. Any
 * order of summing n terms is off the exact sum by at most about
 * (n - 1) u sum|term|, u = FLT_EPSILON / 2; the kata and the oracle each
 * are, so they differ by at most (n - 1) FLT_EPSILON sum|term|. The bounds
 * below add two terms of slack. They scale with sum|term|, not with the
 * result, because a result near zero after cancellation may carry all the
 * error there is; yet a missing or doubled term (at least 1/256 here) is
 * far above them at every size checked.
 */
static int
matmul_case(int n)
{
	long N = n, i, j, k;
	float *A = alloc(N * N), *B = alloc(N * N), *C = alloc(N * N), *P = alloc(N * N);
	int bad = 0;

	fill(A, N * N, 1);
	fill(B, N * N, 2);
	/* NaN in C catches a kernel that adds to C instead of setting it. */
	for (i = 0; i < N * N; i++)
		C[i] = NAN;
	guard_set(C, N * N);
	kata_matmul(A, B, C, n);
	plain_matmul(A, B, P, n);
	cases++;
	if (guard_bad("matmul", C, N * N))
		bad = 1;
	for (i = 0; i < N && !bad; i++)
		for (j = 0; j < N && !bad; j++) {
			double mag = 0.0, tol;

			for (k = 0; k < N; k++)
				mag += fabs((double)A[i * N + k] * B[k * N + j]);
			tol = (N + 2) * FLT_EPSILON * mag;
			if (!(fabs((double)C[i * N + j] - P[i * N + j]) <= tol)) {
				fprintf(stderr, "kata_check: matmul n=%d: C[%ld][%ld] = %.9g, plain %.9g (tolerance %.3g)\n",
				    n, i, j, C[i * N + j], P[i * N + j], tol);
				bad = 1;
			}
		}
	free(A);
	free(B);
	free(C);
	free(P);
	return bad;
}

static int
sum_case(int n)
{
	float *x = alloc(n);
	double mag = 0.0, tol;
	float got, want;
	int i;

	fill(x, n, 3);
	for (i = 0; i < n; i++)
		mag += fabs(x[i]);
	tol = (n + 2) * FLT_EPSILON * mag;
	got = kata_sum(x, n);
	want = plain_sum(x, n);
	cases++;
	free(x);
	if (!(fabs((double)got - want) <= tol)) {
		fprintf(stderr, "kata_check: sum n=%d: kata %.9g, plain %.9g (tolerance %.3g)\n",
		    n, got, want, tol);
		return 1;
	}
	return 0;
}

/*
 * rmsnorm: the sum of squares has positive terms, so its relative error is
 * at most about d u; the square root halves that, and the mean, the eps,
 * the division and the weight add a few u. Each version is within
 * (d / 2 + 5) u of exact, so they differ by at most (d + 10) u relative,
 * written here as (d + 10) FLT_EPSILON for slack.
 */
static int
rmsnorm_case(int rows, int d, float eps, int zero_row)
{
	long R = rows, D = d, i;
	float *x = alloc(R * D), *w = alloc(D), *y = alloc(R * D), *p = alloc(R * D);
	int bad = 0;

	fill(x, R * D, 4);
	fill(w, D, 5);
	if (zero_row >= 0 && zero_row < rows)
		for (i = 0; i < D; i++)
			x[zero_row * D + i] = 0.0f;
	for (i = 0; i < R * D; i++)
		y[i] = NAN;
	guard_set(y, R * D);
	kata_rmsnorm(x, w, y, rows, d, eps);
	plain_rmsnorm(x, w, p, rows, d, eps);
	cases++;
	if (guard_bad("rmsnorm", y, R * D))
		bad = 1;
	for (i = 0; i < R * D && !bad; i++) {
		double tol = (D + 10) * FLT_EPSILON * fabs(p[i]);

		if (!(fabs((double)y[i] - p[i]) <= tol)) {
			fprintf(stderr, "kata_check: rmsnorm rows=%d d=%d eps=%g: y[%ld][%ld] = %.9g, plain %.9g (tolerance %.3g)\n",
			    rows, d, eps, i / D, i % D, y[i], p[i], tol);
			bad = 1;
		}
	}
	free(x);
	free(w);
	free(y);
	free(p);
	return bad;
}

static int
count_one(const float *v, int n, float t)
{
	int got = kata_count_below(v, n, t), want = plain_count_below(v, n, t);

	cases++;
	if (got != want) {
		fprintf(stderr, "kata_check: count_below n=%d: t=%.9g: kata %d, plain %d\n",
		    n, t, got, want);
		return 1;
	}
	return 0;
}

/*
 * count_below is exact, so it is compared exactly. The array has runs of
 * three equal entries, and its zeros alternate 0 and -0, which compare
 * equal: a search must count neither below t = 0 or t = -0. t runs over
 * every entry, the midpoints, both zeros, below and above all, and the
 * infinities. (A NaN t is left out: nothing is below it, but a search that
 * tests t <= v instead of v < t is not wrong for any ordered t.)
 */
static int
count_below_case(int n)
{
	float *v = alloc(n);
	int i, bad = 0;

	for (i = 0; i < n; i++) {
		v[i] = (float)(i / 3 - n / 6) * 0.5f;
		if (v[i] == 0.0f)
			v[i] = i % 2 ? -0.0f : 0.0f;
	}
	bad |= count_one(v, n, -INFINITY) || count_one(v, n, INFINITY) ||
	    count_one(v, n, 0.0f) || count_one(v, n, -0.0f);
	if (n > 0)
		bad = bad || count_one(v, n, v[0] - 1.0f) || count_one(v, n, v[n - 1] + 1.0f);
	for (i = 0; i < n && !bad; i++)
		bad = count_one(v, n, v[i]) || count_one(v, n, v[i] + 0.25f) ||
		    count_one(v, n, v[i] - 0.25f);
	free(v);
	return bad;
}

int
main(int argc, char *argv[])
{
	static const int rows[] = { 0, 1, 3, 5 };
	static const int ds[] = { 0, 1, 2, 7, 9, 31, 33, 63, 65, 255, 257, 1031 };
	int s, r, d;

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "usage: kata_check\n");
		return 2;
	}
	for (s = 0; s < NSIZES; s++)
		if (matmul_case(sizes[s]))
			return 1;
	for (s = 0; s < NSIZES; s++)
		if (sum_case(sizes[s]))
			return 1;
	/* Longer sums, where the eight partial sums each run far. */
	if (sum_case(4099) || sum_case(100003))
		return 1;
	for (r = 0; r < (int)(sizeof(rows) / sizeof(rows[0])); r++)
		for (d = 0; d < (int)(sizeof(ds) / sizeof(ds[0])); d++)
			if (rmsnorm_case(rows[r], ds[d], 1e-5f, rows[r] - 1) ||
			    rmsnorm_case(rows[r], ds[d], 0.0f, -1) ||
			    rmsnorm_case(rows[r], ds[d], 0.5f, 0))
				return 1;
	for (s = 0; s < NSIZES; s++)
		if (count_below_case(sizes[s]))
			return 1;
	if (count_below_case(1 << 12) || count_below_case((1 << 12) + 1))
		return 1;
	printf("kata_check: the kata agrees with the plain kernels in %ld cases\n", cases);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("kata_check: stdout");
		return 2;
	}
	return 0;
}
