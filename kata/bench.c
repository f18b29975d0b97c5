/*
 * bench: time the four kata kernels of kata/kernels.h with bench.h.
 * Prints one JSON object, the last line of stdout:
 *	{"matmul_ns":…,"sum_ns":…,"rmsnorm_ns":…,"count_below_ns":…}
 * each the best time of one call in nanoseconds. Effort and clock:
 * BENCH_REPS, BENCH_MIN_S, BENCH_MAX_S, BENCH_CLOCK, BENCH_VERBOSE; the
 * cases run: BENCH_CASES (see bench.h). With BENCH_SHA256=1 the line also
 * holds, for each case run, the SHA-256 of its input bytes, so that a
 * comparison can prove every side timed the same inputs:
 *	"sum_input_sha256":"<64 hex digits>"
 * The input bytes of a case are its arrays as the kernel reads them, in
 * argument order, float32 in the machine's byte order (little-endian
 * here): matmul A then B; sum x; rmsnorm x then w; count_below the sorted
 * array then the CB_Q queries (kata/numpy_worker.py hashes the same). Exit 0, or 2 on an error (a bad value, an argument, no memory,
 * stdout not written).
 *
 * Build: cc -std=c11 -O2 -Ikata -Ibench kata/bench.c KERNELS.c -lm
 */
#include "bench.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "sha256.h"
#ifdef BENCH_ORACLE
#include "oracle.h"
#endif

/*
 * Sizes: each call takes 0.1 microseconds to a millisecond, so a batch is
 * one call or more, a run of all four takes about 20 ms, and a
 * kernel 1000x slower than the kata's still ends a run in about a second
 * (matmul 0.7 ms a call at n = 192, against 1.6 ms at 256). Each can be
 * set at build time, e.g. -DMM_N=256.
 */
#ifndef MM_N
#define MM_N 192		/* 3 x 144 KiB: fits L2 */
#endif
#ifndef SUM_N
#define SUM_N 8192		/* 32 KiB: fits L1 */
#endif
#ifndef RMS_ROWS
#define RMS_ROWS 16
#endif
#ifndef RMS_D
#define RMS_D 1024		/* 64 KiB in, 64 KiB out */
#endif
#ifndef CB_N
#define CB_N (1 << 18)		/* 1 MiB sorted */
#endif
#define CB_Q 1024		/* queries, taken in turn */

static struct {
	float *A, *B, *C;
	float *sx;
	float *rx, *rw, *ry;
	float *cb, cbq[CB_Q];
	unsigned cbi;
} in;

/* 64-byte aligned, so data layout is the same in every build. */
static float *
alloc(long n)
{
	size_t size = (sizeof(float) * (size_t)n + 63) / 64 * 64;
	float *p = aligned_alloc(64, size);

	if (p == NULL) {
		fprintf(stderr, "bench: out of memory\n");
		exit(2);
	}
	return p;
}

/* Fixed inputs, computed from the index: every run times the same work. */
static void
setup(void)
{
	long i;

	in.A = alloc((long)MM_N * MM_N);
	in.B = alloc((long)MM_N * MM_N);
	in.C = alloc((long)MM_N * MM_N);
	for (i = 0; i < (long)MM_N * MM_N; i++) {
		in.A[i] = (float)(i % 17 - 8) / 8.0f;
		in.B[i] = (float)(i % 13 - 6) / 4.0f;
		in.C[i] = 0.0f;
	}
	in.sx = alloc(SUM_N);
	for (i = 0; i < SUM_N; i++)
		in.sx[i] = (float)(i % 11 - 5) * 0.25f;
	in.rx = alloc((long)RMS_ROWS * RMS_D);
	in.ry = alloc((long)RMS_ROWS * RMS_D);
	in.rw = alloc(RMS_D);
	for (i = 0; i < (long)RMS_ROWS * RMS_D; i++) {
		in.rx[i] = (float)(i % 19 - 9) * 0.125f;
		in.ry[i] = 0.0f;
	}
	for (i = 0; i < RMS_D; i++)
		in.rw[i] = 1.0f + (float)(i % 7) / 16.0f;
	in.cb = alloc(CB_N);
	for (i = 0; i < CB_N; i++)
		in.cb[i] = (float)i * 0.5f;
	/* Queries spread over the array by a multiplicative hash of the index. */
	for (i = 0; i < CB_Q; i++)
		in.cbq[i] = (float)((unsigned long)i * 2654435761UL % CB_N) * 0.5f + 0.25f;
}

static void
run_matmul(void *arg)
{
	(void)arg;
	kata_matmul(in.A, in.B, in.C, MM_N);
	bench_keep_float(in.C[(long)MM_N * MM_N - 1]);
}

static void
run_sum(void *arg)
{
	(void)arg;
	bench_keep_float(kata_sum(in.sx, SUM_N));
}

static void
run_rmsnorm(void *arg)
{
	(void)arg;
	kata_rmsnorm(in.rx, in.rw, in.ry, RMS_ROWS, RMS_D, 1e-5f);
	bench_keep_float(in.ry[RMS_D + 1]);
}

/* One search a call, t taking each query in turn: no branch learns it. */
static void
run_count_below(void *arg)
{
	(void)arg;
	bench_keep_int(kata_count_below(in.cb, CB_N, in.cbq[in.cbi++ % CB_Q]));
}

/* The digests, for bench_note: they must outlive main's calls. */
static char digest[4][65];

/*
 * Note the SHA-256 of n floats at a, then m at b (m may be 0), as name's,
 * when metric runs.
 */
static void
note_input(int i, const char *metric, const char *name, const float *a, long n,
    const float *b, long m)
{
	struct sha256 h;

	if (!bench_selected(metric))
		return;
	sha256_init(&h);
	sha256_update(&h, a, sizeof(float) * (size_t)n);
	if (m > 0)
		sha256_update(&h, b, sizeof(float) * (size_t)m);
	sha256_hex(&h, digest[i]);
	bench_note(name, digest[i]);
}

/* Write n values of size bytes at p to fp, or exit 2 naming path. */
static void
eval_put(FILE *fp, const char *path, const void *p, size_t size, size_t n)
{
	if (fwrite(p, size, n, fp) != n) {
		fprintf(stderr, "bench: BENCH_EVAL=%s: write failed\n", path);
		exit(2);
	}
}

/*
 * BENCH_EVAL=path: evaluate the one case BENCH_CASES names once, on the
 * inputs the rounds time, and write its results to path as raw values in
 * the machine's byte order, for accuracy(1)'s scoring: float32 (matmul's
 * C, sum's value, rmsnorm's y) or int32 (count_below, one a query, the
 * CB_Q queries in turn). Built with -DBENCH_ORACLE and kata/oracle.c, the
 * oracle's results instead, in float64. Nothing is timed.
 */
static int
eval(const char *path)
{
	static const char *names[] = { "matmul_ns", "sum_ns", "rmsnorm_ns", "count_below_ns" };
	long n = (long)MM_N * MM_N, i;
	int which = -1, k;
	FILE *fp;

	for (k = 0; k < 4; k++)
		if (bench_selected(names[k])) {
			if (which >= 0) {
				fprintf(stderr, "bench: BENCH_EVAL needs one case in BENCH_CASES\n");
				return 2;
			}
			which = k;
		}
	if (which < 0 || (fp = fopen(path, "wb")) == NULL) {
		fprintf(stderr, "bench: BENCH_EVAL=%s: %s\n", path, which < 0 ?
		    "no case in BENCH_CASES" : "cannot be written");
		return 2;
	}
#ifdef BENCH_ORACLE
	{
		double *r = malloc(sizeof(double) * (size_t)(n > RMS_ROWS * RMS_D ? n : RMS_ROWS * RMS_D));

		if (r == NULL) {
			fprintf(stderr, "bench: out of memory\n");
			exit(2);
		}
		switch (which) {
		case 0: oracle_matmul(in.A, in.B, r, MM_N); break;
		case 1: r[0] = oracle_sum(in.sx, SUM_N); n = 1; break;
		case 2: oracle_rmsnorm(in.rx, in.rw, r, RMS_ROWS, RMS_D, 1e-5f); n = (long)RMS_ROWS * RMS_D; break;
		default:
			for (i = 0; i < CB_Q; i++)
				r[i] = oracle_count_below(in.cb, CB_N, in.cbq[i]);
			n = CB_Q;
		}
		eval_put(fp, path, r, sizeof *r, (size_t)n);
		free(r);
	}
#else
	switch (which) {
	case 0:
		kata_matmul(in.A, in.B, in.C, MM_N);
		eval_put(fp, path, in.C, sizeof(float), (size_t)n);
		break;
	case 1: {
		float v = kata_sum(in.sx, SUM_N);

		eval_put(fp, path, &v, sizeof v, 1);
		break;
	}
	case 2:
		kata_rmsnorm(in.rx, in.rw, in.ry, RMS_ROWS, RMS_D, 1e-5f);
		eval_put(fp, path, in.ry, sizeof(float), (size_t)RMS_ROWS * RMS_D);
		break;
	default:
		for (i = 0; i < CB_Q; i++) {
			int32_t c = kata_count_below(in.cb, CB_N, in.cbq[i]);

			eval_put(fp, path, &c, sizeof c, 1);
		}
	}
#endif
	if (fclose(fp) != 0) {
		fprintf(stderr, "bench: BENCH_EVAL=%s: write failed\n", path);
		return 2;
	}
	return 0;
}

/*
 * BENCH_INPUT=path: write the input bytes of the one case BENCH_CASES
 * names, the bytes BENCH_SHA256 digests, as a worker's argument file
 * (bench/worker.h, kata/worker.c). Nothing is timed.
 */
static int
input(const char *path)
{
	static const char *names[] = { "matmul_ns", "sum_ns", "rmsnorm_ns", "count_below_ns" };
	const float *a[] = { in.A, in.sx, in.rx, in.cb }, *b[] = { in.B, NULL, in.rw, in.cbq };
	long na[] = { (long)MM_N * MM_N, SUM_N, (long)RMS_ROWS * RMS_D, CB_N };
	long nb[] = { (long)MM_N * MM_N, 0, RMS_D, CB_Q };
	int which = -1, k;
	FILE *fp;

	for (k = 0; k < 4; k++)
		if (bench_selected(names[k]))
			which = which < 0 ? k : 4;
	if (which < 0 || which > 3 || (fp = fopen(path, "wb")) == NULL) {
		fprintf(stderr, "bench: BENCH_INPUT=%s: %s\n", path, which < 0 || which > 3 ?
		    "needs one case in BENCH_CASES" : "cannot be written");
		return 2;
	}
	eval_put(fp, path, a[which], sizeof(float), (size_t)na[which]);
	if (nb[which] > 0)
		eval_put(fp, path, b[which], sizeof(float), (size_t)nb[which]);
	if (fclose(fp) != 0) {
		fprintf(stderr, "bench: BENCH_INPUT=%s: write failed\n", path);
		return 2;
	}
	return 0;
}

int
main(int argc, char *argv[])
{
	bench_init(argv[0]);
	if (argc > 1) {
		fprintf(stderr, "usage: bench\n");
		return 2;
	}
	setup();
	bench_add("matmul_ns", run_matmul, NULL);
	bench_add("sum_ns", run_sum, NULL);
	bench_add("rmsnorm_ns", run_rmsnorm, NULL);
	bench_add("count_below_ns", run_count_below, NULL);
	if (getenv("BENCH_SHA256") != NULL && strcmp(getenv("BENCH_SHA256"), "1") == 0) {
		note_input(0, "matmul_ns", "matmul_input_sha256", in.A, (long)MM_N * MM_N, in.B, (long)MM_N * MM_N);
		note_input(1, "sum_ns", "sum_input_sha256", in.sx, SUM_N, NULL, 0);
		note_input(2, "rmsnorm_ns", "rmsnorm_input_sha256", in.rx, (long)RMS_ROWS * RMS_D, in.rw, RMS_D);
		note_input(3, "count_below_ns", "count_below_input_sha256", in.cb, CB_N, in.cbq, CB_Q);
	}
	if (getenv("BENCH_EVAL") != NULL)
		return eval(getenv("BENCH_EVAL"));
	if (getenv("BENCH_INPUT") != NULL)
		return input(getenv("BENCH_INPUT"));
	return bench_report();
}
