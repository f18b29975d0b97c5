/*
 * worker.h: a long-lived reference worker for make compare, in one header:
 * the reference-benchmark contract's rbw1 protocol. A worker reads one
 * request line at a time on stdin and writes one reply line on stdout,
 * plain ASCII, at most WORKER_LINE_MAX bytes with the newline (a longer
 * line is refused, and skipped, never buffered):
 *
 *	L <key> <path> <cols> <rows>	load cols x rows float64, little-endian,
 *					column-major                   -> ok <sha256 of the bytes read>
 *	W <key> <fn>			one untimed call (warm-up)     -> ok
 *	T <key> <fn> <iters>		time iters calls, in the worker -> ns <float>
 *	E <key> <fn> <outpath>		evaluate once, write the results as
 *					float64                        -> ok <n_nonfinite> <n_raised>
 *	V				versions and observed threads  -> v k=v k=v ...
 *
 * and "err <why>" for anything refused. <fn> is a name in the table the
 * program compiles in: nothing read from the pipe is evaluated. Paths are
 * relative, without "..", and must resolve inside the run directory
 * WORKER_DIR (make compare's build/compare/workers/<commit>/<side>); an
 * argument is at most WORKER_ARG_MAX bytes (256 MiB), and a file that does
 * not hold exactly cols x rows values is refused. A key whose last load
 * did not verify cannot be warmed, timed or evaluated. T times on the
 * thread's CPU clock (BENCH_CLOCK=wall: the monotonic clock) and replies
 * the time of one call in ns. V reports threads, from threads_source:
 * omp (omp_get_max_threads(), built with OpenMP), proc (the process's
 * thread count, /proc/self/status) or assumed (neither: the harness starts
 * no thread, a library might); and, for a BLAS or OpenMP runtime loaded in
 * the process, its own count (openblas_threads, mkl_threads, blis_threads,
 * omp_threads). A C kernel never raises: n_raised is the points the fn
 * marked so (worker_raised).
 *
 * A C or C++ reference becomes a worker in a dozen lines:
 *
 *	#include "worker.h"
 *	static int run_sum(struct worker_arg *a) { keep(my_sum(a->v, a->n)); return 0; }
 *	static int eval_sum(struct worker_arg *a, struct worker_out *o) { return worker_put(o, my_sum(a->v, a->n)); }
 *	static const struct worker_fn fns[] = { { "sum", run_sum, eval_sum } };
 *	int main(void) { return worker_main("mine", fns, 1); }
 *
 * worker_parse is the request parser alone, for tests/fuzz/wrequest.c.
 */
#ifndef PERFGATE_WORKER_H
#define PERFGATE_WORKER_H

/* realpath and clock_gettime: include this header first, as bench.h. */
#if !defined(_POSIX_C_SOURCE) && !defined(_XOPEN_SOURCE) && !defined(_GNU_SOURCE) && !defined(_DEFAULT_SOURCE)
#define _XOPEN_SOURCE 700
#endif

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WORKER_LINE_MAX 4096		/* bytes of a line, its newline included */
#define WORKER_NAME_MAX 64		/* bytes of a key or a fn name */
#define WORKER_KEYS 32
#define WORKER_ARG_MAX (256ULL << 20)	/* bytes of an argument: cols x rows x 8 */
#define WORKER_ITERS_MAX 1000000000ULL

/* One argument, a matrix loaded under a key. */
struct worker_arg {
	char key[WORKER_NAME_MAX + 1];
	double *v;		/* cols x rows values, column-major: v[c * rows + r] */
	size_t cols, rows, n;	/* n = cols x rows */
	int loaded;		/* the last L of this key read and verified all of it */
	void *scratch;		/* the fns' own (inputs converted, an output), freed with the key */
};

/* Where E's results go: float64, little-endian, counted. */
struct worker_out {
	FILE *fp;
	long n, nonfinite, raised;
	int err;
};

struct worker_fn {
	const char *name;
	/* One call on a's values; nonzero when they do not fit the fn. */
	int (*call)(struct worker_arg *a);
	/* Evaluate once, each result through worker_put; 0, or -1 when a does not fit. */
	int (*eval)(struct worker_arg *a, struct worker_out *o);
};

struct worker_req {
	char op;				/* L W T E V */
	char key[WORKER_NAME_MAX + 1];
	char fn[WORKER_NAME_MAX + 1];
	char path[WORKER_LINE_MAX];
	unsigned long long num;			/* T: iters */
	unsigned long long cols, rows;		/* L */
};

/* The next space-separated token of line[*i..len), as [*tok, *tlen). */
static int
worker_token_(const char *line, size_t len, size_t *i, const char **tok, size_t *tlen)
{
	size_t s = *i;

	if (s >= len)
		return 0;
	while (*i < len && line[*i] != ' ')
		(*i)++;
	*tok = line + s;
	*tlen = *i - s;
	if (*i < len)
		(*i)++;		/* the one space: two in a row leave an empty token */
	return 1;
}

static int
worker_name_(char *out, const char *tok, size_t len)
{
	size_t k;

	if (len == 0 || len > WORKER_NAME_MAX)
		return 0;
	for (k = 0; k < len; k++)
		if (!((tok[k] >= 'a' && tok[k] <= 'z') || (tok[k] >= 'A' && tok[k] <= 'Z') ||
		    (tok[k] >= '0' && tok[k] <= '9') || strchr("_.-", tok[k]) != NULL) || tok[k] == '\0')
			return 0;
	memcpy(out, tok, len);
	out[len] = '\0';
	return 1;
}

/* A decimal from 1 (or 0 when zero is allowed) to max, no sign, no leading zero. */
static int
worker_num_(unsigned long long *out, const char *tok, size_t len, unsigned long long max, int zero)
{
	unsigned long long v = 0;
	size_t k;

	if (len == 0 || len > 20 || (tok[0] == '0' && len > 1))
		return 0;
	for (k = 0; k < len; k++) {
		if (tok[k] < '0' || tok[k] > '9')
			return 0;
		if (v > (max - (unsigned)(tok[k] - '0')) / 10)
			return 0;
		v = v * 10 + (unsigned)(tok[k] - '0');
	}
	if (v == 0 && !zero)
		return 0;
	*out = v;
	return 1;
}

/* A relative path, printable ASCII without spaces, with no ".." component. */
static int
worker_path_(char *out, const char *tok, size_t len)
{
	size_t k;

	if (len == 0 || len >= WORKER_LINE_MAX || tok[0] == '/')
		return 0;
	for (k = 0; k < len; k++)
		if (tok[k] < 0x21 || tok[k] > 0x7e)
			return 0;
	for (k = 0; k + 1 < len; k++)
		if (tok[k] == '.' && tok[k + 1] == '.' && (k == 0 || tok[k - 1] == '/') &&
		    (k + 2 == len || tok[k + 2] == '/'))
			return 0;
	memcpy(out, tok, len);
	out[len] = '\0';
	return 1;
}

/*
 * Parse one request line, its newline taken off. Returns NULL, or why it
 * is refused (a constant string).
 */
static const char *
worker_parse(const char *line, size_t len, struct worker_req *r)
{
	const char *t[6];
	size_t tl[6], i = 0, n = 0, want;

	memset(r, 0, sizeof *r);
	if (len + 1 > WORKER_LINE_MAX)
		return "line longer than 4096 bytes";
	while (n < 6 && worker_token_(line, len, &i, &t[n], &tl[n]))
		n++;
	if (i < len || (len > 0 && line[len - 1] == ' '))
		return "too many fields";
	if (n == 0 || tl[0] != 1 || t[0][0] == '\0' || strchr("LWTEV", t[0][0]) == NULL)
		return "unknown request";
	r->op = t[0][0];
	want = r->op == 'V' ? 1 : r->op == 'W' ? 3 : r->op == 'L' ? 5 : 4;
	if (n != want)
		return "wrong number of fields";
	if (r->op == 'V')
		return NULL;
	if (!worker_name_(r->key, t[1], tl[1]))
		return "bad key";
	if (r->op == 'L') {
		if (!worker_path_(r->path, t[2], tl[2]))
			return "bad path: relative, printable, no ..";
		if (!worker_num_(&r->cols, t[3], tl[3], WORKER_ARG_MAX / 8, 0) ||
		    !worker_num_(&r->rows, t[4], tl[4], WORKER_ARG_MAX / 8, 0))
			return "bad size: cols and rows from 1";
		if (r->cols > WORKER_ARG_MAX / 8 / r->rows)
			return "too large: more than 256 MiB";
		return NULL;
	}
	if (!worker_name_(r->fn, t[2], tl[2]))
		return "bad fn";
	if (r->op == 'T' && !worker_num_(&r->num, t[3], tl[3], WORKER_ITERS_MAX, 0))
		return "bad iters";
	if (r->op == 'E' && !worker_path_(r->path, t[3], tl[3]))
		return "bad path: relative, printable, no ..";
	return NULL;
}

#ifndef WORKER_PARSE_ONLY
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "sha256.h"

static struct worker_arg worker_args_[WORKER_KEYS];

static void
worker_reply_(const char *fmt, const char *a, const char *b)
{
	printf(fmt, a, b);
	putchar('\n');
	fflush(stdout);
}

/* Whether this machine stores a double's least significant byte first. */
static int
worker_little_(void)
{
	const uint16_t one = 1;

	return *(const unsigned char *)&one == 1;
}

/* b's 8 bytes reversed, on a host that is not little-endian. */
static void
worker_swap8_(unsigned char *b)
{
	unsigned char t;
	int k;

	for (k = 0; k < 4; k++)
		t = b[k], b[k] = b[7 - k], b[7 - k] = t;
}

/* One result of E, as float64 little-endian. */
static int
worker_put(struct worker_out *o, double v)
{
	unsigned char b[8];

	memcpy(b, &v, 8);
	if (!worker_little_())
		worker_swap8_(b);
	if (fwrite(b, 1, 8, o->fp) != 8) {
		o->err = 1;
		return -1;
	}
	o->n++;
	o->nonfinite += !isfinite(v);
	return 0;
}

/* One point where the kernel raised: NaN written in its place, and counted. */
#define worker_raised(o) ((o)->raised++, worker_put((o), NAN))

/*
 * The full name of rel inside WORKER_DIR, which it must resolve into
 * (symbolic links followed): for an output, its directory must.
 */
static const char *
worker_inside_(const char *rel, int output, char *full, size_t size)
{
	const char *dir = getenv("WORKER_DIR");
	char rdir[PATH_MAX], rpath[PATH_MAX], tmp[PATH_MAX], *slash;
	size_t dl;

	if (dir == NULL || realpath(dir, rdir) == NULL)
		return "no run directory (WORKER_DIR)";
	if ((size_t)snprintf(tmp, sizeof tmp, "%s/%s", rdir, rel) >= sizeof tmp)
		return "path too long";
	if (output) {
		slash = strrchr(tmp, '/');
		*slash = '\0';
		if (realpath(tmp, rpath) == NULL)
			return "no such directory";
		*slash = '/';
	} else if (realpath(tmp, rpath) == NULL) {
		return "no such file";
	}
	dl = strlen(rdir);
	if (strncmp(rpath, rdir, dl) != 0 || (rpath[dl] != '/' && rpath[dl] != '\0'))
		return "outside the run directory";
	if ((size_t)snprintf(full, size, "%s", output ? tmp : rpath) >= size)
		return "path too long";
	return NULL;
}

static struct worker_arg *
worker_key_(const char *key, int create)
{
	int i, free_slot = -1;

	for (i = 0; i < WORKER_KEYS; i++) {
		if (worker_args_[i].key[0] == '\0') {
			if (free_slot < 0)
				free_slot = i;
		} else if (strcmp(worker_args_[i].key, key) == 0) {
			return &worker_args_[i];
		}
	}
	if (!create || free_slot < 0)
		return NULL;
	snprintf(worker_args_[free_slot].key, sizeof worker_args_[free_slot].key, "%s", key);
	return &worker_args_[free_slot];
}

static const char *
worker_load_(const struct worker_req *r, char hex[65])
{
	struct worker_arg *a = worker_key_(r->key, 1);
	size_t n = (size_t)(r->cols * r->rows), got, i;
	char full[PATH_MAX];
	const char *why;
	struct sha256 h;
	FILE *fp;
	int more;

	if (a == NULL)
		return "too many keys";
	a->loaded = 0;
	free(a->v);
	free(a->scratch);
	a->v = NULL;
	a->scratch = NULL;
	a->n = a->cols = a->rows = 0;
	if ((why = worker_inside_(r->path, 0, full, sizeof full)) != NULL)
		return why;
	if ((a->v = malloc(n * sizeof *a->v)) == NULL)
		return "out of memory";
	if ((fp = fopen(full, "rb")) == NULL)
		return "cannot open";
	got = fread(a->v, 8, n, fp);
	more = got == n && getc(fp) != EOF;
	fclose(fp);
	sha256_init(&h);
	sha256_update(&h, a->v, got * 8);
	sha256_hex(&h, hex);
	if (got != n)
		return "truncated: fewer than cols x rows values";
	if (more)
		return "the file holds more than cols x rows values";
	if (!worker_little_())
		for (i = 0; i < n; i++)
			worker_swap8_((unsigned char *)&a->v[i]);
	a->n = n;
	a->cols = (size_t)r->cols;
	a->rows = (size_t)r->rows;
	a->loaded = 1;
	return NULL;
}

static double
worker_now_(void)
{
	const char *c = getenv("BENCH_CLOCK");
	struct timespec ts;

	clock_gettime(c != NULL && strcmp(c, "wall") == 0 ? CLOCK_MONOTONIC :
	    CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The threads of this process, and where the figure comes from. */
static long
worker_threads_(const char **source)
{
#ifdef _OPENMP
	*source = "omp";
	return omp_get_max_threads();
#else
	char line[256];
	long n = -1;
	FILE *fp = fopen("/proc/self/status", "r");

	*source = "assumed";
	if (fp == NULL)
		return 1;
	while (fgets(line, sizeof line, fp) != NULL)
		if (strncmp(line, "Threads:", 8) == 0)
			n = strtol(line + 8, NULL, 10);
	fclose(fp);
	if (n < 0)
		return 1;
	*source = "proc";
	return n;
#endif
}

/*
 * " name=N" for each threaded runtime loaded in this process that says
 * how many threads it would use (dlopen(NULL): the program and what it
 * links), into buf.
 */
static void
worker_runtimes_(char *buf, size_t size)
{
	static const char *const fns[][2] = {
		{ "openblas_get_num_threads", "openblas_threads" },
		{ "MKL_Get_Max_Threads", "mkl_threads" },
		{ "bli_thread_get_num_threads", "blis_threads" },
		{ "omp_get_max_threads", "omp_threads" },
	};
	void *self = dlopen(NULL, RTLD_LAZY), *sym;
	int (*get)(void);
	size_t k, at;

	buf[0] = '\0';
	if (self == NULL)
		return;
	for (k = 0; k < sizeof fns / sizeof *fns; k++) {
		if ((sym = dlsym(self, fns[k][0])) == NULL)
			continue;
		memcpy(&get, &sym, sizeof get);
		at = strlen(buf);
		snprintf(buf + at, size - at, " %s=%d", fns[k][1], get());
	}
	dlclose(self);
}

static void
worker_do_(const char *name, const struct worker_fn *fns, size_t nfns, const struct worker_req *r)
{
	const struct worker_fn *f = NULL;
	struct worker_arg *a;
	struct worker_out o = { 0 };
	char buf[512], rt[256], hex[65], full[PATH_MAX];
	const char *why, *source;
	double t0, t;
	unsigned long long k;
	long threads;
	size_t i;

	if (r->op == 'V') {
		threads = worker_threads_(&source);
		worker_runtimes_(rt, sizeof rt);
		snprintf(buf, sizeof buf, "harness=c name=%s threads=%ld threads_source=%s%s",
		    name, threads, source, rt);
		worker_reply_("v %s%s", buf, "");
		return;
	}
	if (r->op == 'L') {
		if ((why = worker_load_(r, hex)) != NULL)
			worker_reply_("err %s%s", why, "");
		else
			worker_reply_("ok %s%s", hex, "");
		return;
	}
	if ((a = worker_key_(r->key, 0)) == NULL || !a->loaded) {
		worker_reply_("err key %s not loaded%s", r->key, "");
		return;
	}
	for (i = 0; i < nfns && f == NULL; i++)
		if (strcmp(fns[i].name, r->fn) == 0)
			f = &fns[i];
	if (f == NULL) {
		worker_reply_("err no fn %s%s", r->fn, "");
		return;
	}
	if (r->op == 'W') {
		worker_reply_(f->call(a) == 0 ? "ok%s%s" : "err arguments do not fit%s%s", "", "");
		return;
	}
	if (r->op == 'T') {
		t0 = worker_now_();
		for (k = 0; k < r->num; k++)
			if (f->call(a) != 0) {
				worker_reply_("err arguments do not fit%s%s", "", "");
				return;
			}
		t = (worker_now_() - t0) / (double)r->num;
		snprintf(buf, sizeof buf, "%.17g", t);
		worker_reply_("ns %s%s", buf, "");
		return;
	}
	if (f->eval == NULL) {
		worker_reply_("err fn %s cannot evaluate%s", r->fn, "");
		return;
	}
	if ((why = worker_inside_(r->path, 1, full, sizeof full)) != NULL) {
		worker_reply_("err %s%s", why, "");
		return;
	}
	if ((o.fp = fopen(full, "wb")) == NULL) {
		worker_reply_("err cannot write%s%s", "", "");
		return;
	}
	if (f->eval(a, &o) != 0) {
		fclose(o.fp);
		worker_reply_("err %s%s", o.err ? "cannot write" : "arguments do not fit", "");
		return;
	}
	if (fclose(o.fp) != 0 || o.err) {
		worker_reply_("err cannot write%s%s", "", "");
		return;
	}
	snprintf(buf, sizeof buf, "%ld %ld", o.nonfinite, o.raised);
	worker_reply_("ok %s%s", buf, "");
}

/*
 * Serve requests on stdin until it ends. Returns the exit status: 0, or 2
 * when stdout cannot be written.
 */
static int
worker_main(const char *name, const struct worker_fn *fns, size_t nfns)
{
	static char line[WORKER_LINE_MAX + 1];
	struct worker_req r;
	const char *why;
	size_t len;
	int c;

	for (;;) {
		len = 0;
		while ((c = getchar()) != EOF && c != '\n') {
			if (len < WORKER_LINE_MAX)
				line[len] = (char)c;
			len++;		/* past the limit only counted */
		}
		if (c == EOF && len == 0)
			break;
		if (len >= WORKER_LINE_MAX)
			why = "line longer than 4096 bytes";
		else
			why = worker_parse(line, len, &r);
		if (why != NULL)
			worker_reply_("err %s%s", why, "");
		else
			worker_do_(name, fns, nfns, &r);
		if (ferror(stdout))
			return 2;
		if (c == EOF)
			break;
	}
	return 0;
}
#endif /* WORKER_PARSE_ONLY */

#endif
