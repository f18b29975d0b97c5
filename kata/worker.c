/*
 * worker: the kata's kernels as a long-lived worker (bench/worker.h), for
 * make compare's worker protocol: one fn a case, on the argument file that
 * bench.c's BENCH_INPUT writes (the bytes BENCH_SHA256 digests: matmul A
 * then B, sum x, rmsnorm x then w, count_below the sorted array then the
 * queries). A call is one call of bench.c's; E writes what BENCH_EVAL
 * writes. Built with any kernels.c, as bench.c is:
 *
 *	cc -std=c11 -O2 -Ikata -Ibench -o worker kata/worker.c kata/kernels.c -lm
 */
#include "worker.h"	/* first: it sets the feature macros it needs */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels.h"

/* bench.c's sizes: an argument file of another size does not fit. */
#ifndef MM_N
#define MM_N 192
#endif
#ifndef SUM_N
#define SUM_N 8192
#endif
#ifndef RMS_ROWS
#define RMS_ROWS 16
#endif
#ifndef RMS_D
#define RMS_D 1024
#endif
#ifndef CB_N
#define CB_N (1 << 18)
#endif
#define CB_Q 1024

static volatile float sink_f;
static volatile int sink_i;

static const float *
floats(const struct worker_arg *a)
{
	return (const float *)(const void *)a->bytes;
}

/* a's scratch of n floats, made once a load. */
static float *
scratch(struct worker_arg *a, size_t n)
{
	if (a->scratch == NULL)
		a->scratch = calloc(n, sizeof(float));
	return a->scratch;
}

static int
call_matmul(struct worker_arg *a)
{
	size_t n = (size_t)MM_N * MM_N;
	float *c = scratch(a, n);

	if (a->n != 2 * n * sizeof(float) || c == NULL)
		return 1;
	kata_matmul(floats(a), floats(a) + n, c, MM_N);
	sink_f = c[n - 1];
	return 0;
}

static int
call_sum(struct worker_arg *a)
{
	if (a->n != SUM_N * sizeof(float))
		return 1;
	sink_f = kata_sum(floats(a), SUM_N);
	return 0;
}

static int
call_rmsnorm(struct worker_arg *a)
{
	size_t n = (size_t)RMS_ROWS * RMS_D;
	float *y = scratch(a, n);

	if (a->n != (n + RMS_D) * sizeof(float) || y == NULL)
		return 1;
	kata_rmsnorm(floats(a), floats(a) + n, y, RMS_ROWS, RMS_D, 1e-5f);
	sink_f = y[RMS_D + 1];
	return 0;
}

/* One search a call, the queries in turn, as bench.c does. */
static int
call_count_below(struct worker_arg *a)
{
	static unsigned q;

	if (a->n != (size_t)(CB_N + CB_Q) * sizeof(float))
		return 1;
	sink_i = kata_count_below(floats(a), CB_N, floats(a)[CB_N + q++ % CB_Q]);
	return 0;
}

static long
nonfinite(const float *v, size_t n)
{
	long bad = 0;
	size_t i;

	for (i = 0; i < n; i++)
		bad += !isfinite(v[i]);
	return bad;
}

static long
eval_matmul(struct worker_arg *a, FILE *fp)
{
	size_t n = (size_t)MM_N * MM_N;

	if (call_matmul(a) != 0 || fwrite(a->scratch, sizeof(float), n, fp) != n)
		return -1;
	return nonfinite(a->scratch, n);
}

static long
eval_sum(struct worker_arg *a, FILE *fp)
{
	float v;

	if (a->n != SUM_N * sizeof(float))
		return -1;
	v = kata_sum(floats(a), SUM_N);
	return fwrite(&v, sizeof v, 1, fp) == 1 ? nonfinite(&v, 1) : -1;
}

static long
eval_rmsnorm(struct worker_arg *a, FILE *fp)
{
	size_t n = (size_t)RMS_ROWS * RMS_D;

	if (call_rmsnorm(a) != 0 || fwrite(a->scratch, sizeof(float), n, fp) != n)
		return -1;
	return nonfinite(a->scratch, n);
}

static long
eval_count_below(struct worker_arg *a, FILE *fp)
{
	int32_t c;
	int i;

	if (a->n != (size_t)(CB_N + CB_Q) * sizeof(float))
		return -1;
	for (i = 0; i < CB_Q; i++) {
		c = kata_count_below(floats(a), CB_N, floats(a)[CB_N + i]);
		if (fwrite(&c, sizeof c, 1, fp) != 1)
			return -1;
	}
	return 0;
}

static const struct worker_fn fns[] = {
	{ "matmul", call_matmul, eval_matmul },
	{ "sum", call_sum, eval_sum },
	{ "rmsnorm", call_rmsnorm, eval_rmsnorm },
	{ "count_below", call_count_below, eval_count_below },
};

int
main(void)
{
	return worker_main("kata", fns, sizeof fns / sizeof *fns);
}
