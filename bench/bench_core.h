/*
 * bench_core: what bench.h and its counts mode (bench_counts.h) share, so
 * that each includes this and neither the other's insides: the metrics'
 * state, the one-line fatal error, the environment's numbers, perfgate's
 * rule for numbers and the end of the metrics line. Include bench.h, not
 * this.
 */
#ifndef BENCH_CORE_H
#define BENCH_CORE_H

#if !defined(_POSIX_C_SOURCE) && !defined(_XOPEN_SOURCE) && !defined(_GNU_SOURCE) && !defined(_DEFAULT_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_MAX_METRICS 64

/*
 * The batch loop must stay a real loop of real calls: were fn inlined into
 * it, the compiler could hoist a call's work out of the loop.
 */
#if defined(__GNUC__) && !defined(__TINYC__)
#define BENCH_NOINLINE_ __attribute__((noinline))
#else
#define BENCH_NOINLINE_
#endif

typedef void (*bench_fn)(void *arg);

/* One metric: what to time, and how far its timing has got. */
struct bench_metric_ {
	const char *name;
	bench_fn fn;		/* NULL: a value given to bench_metric */
	void *arg;
	double value;		/* the best ns a call so far */
	double spent;		/* wall-clock ns spent on it */
	long iters, batches;
	int done;
};

struct bench_state_ {
	int init, verbose, wall, nmetric;
	long reps;
	double min_s, max_s;
	const char *prog;
	struct bench_metric_ m[BENCH_MAX_METRICS];
	/* The sinks: stores here cannot be proved dead. */
	volatile float sink_float;
	volatile double sink_double;
	volatile long sink_long;
	const void *volatile sink_ptr;
};

/* The state lives in a function, so that an unused header costs no warning. */
static inline struct bench_state_ *
bench_state_(void)
{
	static struct bench_state_ s;

	return &s;
}

/* One line on stderr, "prog: what is wrong", and exit 2. */
static inline _Noreturn void
bench_die_(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", bench_state_()->prog ? bench_state_()->prog : "bench");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* An environment number in [min, max], or def when the variable is unset. */
static inline double
bench_env_(const char *var, double def, double min, double max, int whole)
{
	const char *s = getenv(var);
	char *end;
	double v;

	if (s == NULL)
		return def;
	errno = 0;
	v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || v != v)
		bench_die_("%s=%s: not a number", var, s);
	if (errno == ERANGE || !(v >= min && v <= max))
		bench_die_("%s=%s: out of range", var, s);
	/* In range, so the cast is defined; no libm needed. */
	if (whole && v != (double)(long)v)
		bench_die_("%s=%s: not a whole number", var, s);
	return v;
}

/*
 * v in the shortest form that strtod reads back to the same double, by
 * perfgate's one rule for numbers (lib/util.c's fmt_double, held to it by
 * tests/json.bats): the fewest %g digits, written without an exponent when
 * that is no longer (10, not 1e+01).
 */
static inline void
bench_fmt_(char *buf, double v)
{
	char fixed[400];
	int prec, len = 0, exp, decimals, flen;
	char *e;

	for (prec = 1; prec <= 17; prec++) {
		len = snprintf(buf, 32, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if ((e = strchr(buf, 'e')) != NULL) {
		exp = (int)strtol(e + 1, NULL, 10);
		decimals = prec - 1 - exp;
		if (decimals < 0)
			decimals = 0;
		flen = snprintf(fixed, sizeof fixed, "%.*f", decimals, v);
		if (flen <= len && strtod(fixed, NULL) == v)
			memcpy(buf, fixed, (size_t)flen + 1);
	}
}

/*
 * End the metrics line, both modes' last: 0, or 2 (the exit status) when
 * stdout could not take it.
 */
static inline int
bench_endline_(const struct bench_state_ *st)
{
	puts("}");
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: write stdout: %s\n", st->prog ? st->prog : "bench", strerror(errno));
		return 2;
	}
	return 0;
}

#endif
