/*
 * worker: the kata's kernels as a long-lived worker (bench/worker.h), for
 * make compare's worker protocol: one fn a case, on the inputs bench.c's
 * BENCH_INPUT writes (the bytes BENCH_SHA256 digests: matmul A then B, sum
 * x, rmsnorm x then w, count_below the sorted array then the queries),
 * loaded as float64 in that order, a column-major matrix of COLS x ROWS
 * (make compare's COMPARE_SHAPE_<case>):
 *
 *	matmul 384 x 192 (A's rows, then B's, a column each), sum 1 x 8192,
 *	rmsnorm 17 x 1024 (x's rows, then w), count_below 257 x 1024 (the
 *	array, 1024 values a column, then the queries)
 *
 * The values are float32's, exact in float64; the first call of a load
 * (W, untimed) converts them back for the kernels. A call is one call of
 * bench.c's; E writes bench.c's results as float64. Built with any
 * kernels.c, as bench.c is:
 *
 *	cc -std=c11 -O2 -Ikata -Ibench -o worker kata/worker.c kata/kernels.c -lm
 *
 * With --lock it prints what it loaded instead, one JSON object (the
 * shared libraries mapped, for docs/refs.lock).
 */
#include "worker.h"	/* first: it sets the feature macros it needs */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

/* bench.c's sizes: an argument of another shape does not fit. */
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

#ifdef PLAIN_AS_KATA
#define WORKER_NAME "plain"
#else
#define WORKER_NAME "kata"
#endif

/*
 * A side linked in that names itself and its library (kata/blas.c: "blas"
 * and OpenBLAS's configuration); else WORKER_NAME and the compiler.
 */
extern const char *kata_worker_name(void) __attribute__((weak));
extern const char *kata_worker_version(void) __attribute__((weak));

static const char *
name(void)
{
	return kata_worker_name != NULL ? kata_worker_name() : WORKER_NAME;
}

static volatile float sink_f;
static volatile int sink_i;

/* A load's values as float32, and an output of floats: one block, made once a load. */
struct conv {
	float *in, *out;
};

/*
 * The load's inputs as float32 when it is cols x rows, with an output of
 * nout floats; NULL when the shape does not fit. One allocation, which
 * the harness frees with the key.
 */
static struct conv *
conv(struct worker_arg *a, size_t cols, size_t rows, size_t nout)
{
	struct conv *c = a->scratch;
	size_t i;

	if (a->cols != cols || a->rows != rows)
		return NULL;
	if (c != NULL)
		return c;
	if ((c = calloc(1, sizeof *c + (a->n + nout) * sizeof(float))) == NULL)
		return NULL;
	c->in = (float *)(void *)(c + 1);
	c->out = c->in + a->n;
	for (i = 0; i < a->n; i++)
		c->in[i] = (float)a->v[i];
	a->scratch = c;
	return c;
}

static int
call_matmul(struct worker_arg *a)
{
	size_t n = (size_t)MM_N * MM_N;
	struct conv *c = conv(a, 2 * MM_N, MM_N, n);

	if (c == NULL)
		return 1;
	kata_matmul(c->in, c->in + n, c->out, MM_N);
	sink_f = c->out[n - 1];
	return 0;
}

static int
call_sum(struct worker_arg *a)
{
	struct conv *c = conv(a, 1, SUM_N, 0);

	if (c == NULL)
		return 1;
	sink_f = kata_sum(c->in, SUM_N);
	return 0;
}

static int
call_rmsnorm(struct worker_arg *a)
{
	size_t n = (size_t)RMS_ROWS * RMS_D;
	struct conv *c = conv(a, RMS_ROWS + 1, RMS_D, n);

	if (c == NULL)
		return 1;
	kata_rmsnorm(c->in, c->in + n, c->out, RMS_ROWS, RMS_D, 1e-5f);
	sink_f = c->out[RMS_D + 1];
	return 0;
}

/* One search a call, the queries in turn, as bench.c does. */
static int
call_count_below(struct worker_arg *a)
{
	static unsigned q;
	struct conv *c = conv(a, CB_N / CB_Q + 1, CB_Q, 0);

	if (c == NULL)
		return 1;
	sink_i = kata_count_below(c->in, CB_N, c->in[CB_N + q++ % CB_Q]);
	return 0;
}

static int
put_floats(struct worker_out *o, const float *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (worker_put(o, v[i]) != 0)
			return -1;
	return 0;
}

static int
eval_matmul(struct worker_arg *a, struct worker_out *o)
{
	if (call_matmul(a) != 0)
		return -1;
	return put_floats(o, ((struct conv *)a->scratch)->out, (size_t)MM_N * MM_N);
}

static int
eval_sum(struct worker_arg *a, struct worker_out *o)
{
	struct conv *c = conv(a, 1, SUM_N, 0);

	if (c == NULL)
		return -1;
	return worker_put(o, kata_sum(c->in, SUM_N));
}

static int
eval_rmsnorm(struct worker_arg *a, struct worker_out *o)
{
	if (call_rmsnorm(a) != 0)
		return -1;
	return put_floats(o, ((struct conv *)a->scratch)->out, (size_t)RMS_ROWS * RMS_D);
}

static int
eval_count_below(struct worker_arg *a, struct worker_out *o)
{
	struct conv *c = conv(a, CB_N / CB_Q + 1, CB_Q, 0);
	int i;

	if (c == NULL)
		return -1;
	for (i = 0; i < CB_Q; i++)
		if (worker_put(o, kata_count_below(c->in, CB_N, c->in[CB_N + i])) != 0)
			return -1;
	return 0;
}

static const struct worker_fn fns[] = {
	{ "matmul", call_matmul, eval_matmul },
	{ "sum", call_sum, eval_sum },
	{ "rmsnorm", call_rmsnorm, eval_rmsnorm },
	{ "count_below", call_count_below, eval_count_below },
};

/* s as a JSON string: the characters a path or a version line may hold escaped. */
static void
jstr(const char *s)
{
	putchar('"');
	for (; *s != '\0'; s++)
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	putchar('"');
}

/*
 * --lock: what this reference is and runs with beyond its committed
 * sources, for docs/refs.lock: {"package":..., "version":..., "files":[...]},
 * the files every shared object it has mapped (/proc/self/maps).
 */
static int
lock(void)
{
	char line[4096 + 64], *path, seen[64][512], cc[128];
	size_t nseen = 0, k;
	FILE *fp = fopen("/proc/self/maps", "r");

#ifdef __VERSION__
	snprintf(cc, sizeof cc, "cc %s", __VERSION__);
#else
	snprintf(cc, sizeof cc, "cc");
#endif
	fputs("{\"package\":", stdout);
	jstr(name());
	fputs(",\"version\":", stdout);
	jstr(kata_worker_version != NULL ? kata_worker_version() : cc);
	fputs(",\"files\":[", stdout);
	while (fp != NULL && fgets(line, sizeof line, fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if ((path = strchr(line, '/')) == NULL || strstr(path, ".so") == NULL ||
		    strlen(path) >= sizeof seen[0])
			continue;
		for (k = 0; k < nseen && strcmp(seen[k], path) != 0; k++)
			;
		if (k < nseen || nseen == sizeof seen / sizeof seen[0])
			continue;
		strcpy(seen[nseen], path);
		fputs(nseen++ ? "," : "", stdout);
		jstr(path);
	}
	if (fp != NULL)
		fclose(fp);
	puts("]}");
	return fflush(stdout) != 0 || ferror(stdout) ? 2 : 0;
}

int
main(int argc, char *argv[])
{
	if (argc == 2 && strcmp(argv[1], "--lock") == 0)
		return lock();
	if (argc > 1) {
		fprintf(stderr, "usage: worker [--lock]\n");
		return 2;
	}
	return worker_main(name(), fns, sizeof fns / sizeof *fns);
}
