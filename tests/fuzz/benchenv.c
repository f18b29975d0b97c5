/*
 * Fuzz target: bench.h's environment (bench_init, bench_selected). The
 * first byte says which variables are set; the lines after it are their
 * values, in the order BENCH_REPS, BENCH_MIN_S, BENCH_MAX_S, BENCH_VERBOSE,
 * BENCH_CLOCK, BENCH_CASES; the lines after those are metric names.
 * bench_init either returns with every setting in its documented range
 * (and a number given read as strtod reads it, defaults otherwise), or
 * says one line, "bench: VAR=value: why", about the first variable that
 * is wrong by the rule computed here apart, and exits 2. bench_selected
 * selects a metric exactly when the list names it or its case (the name
 * up to its last '_'), and the check before timing exits 2 exactly when a
 * name of the list matches no metric. Exits are caught by a longjmp and
 * stderr by a memory stream, so one process runs every input.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static jmp_buf died;
static int exitcode;

static _Noreturn void
fuzz_exit(int code)
{
	exitcode = code;
	longjmp(died, 1);
}

#define exit fuzz_exit
#include "bench.h"
#undef exit

/*
 * Call fn with stderr going to msg; the exit code it asked for, or -1 when
 * it returned. Here, apart from the callers, no local of theirs can be
 * clobbered by the longjmp.
 */
static int
caught(void (*fn)(void), char *msg, size_t size)
{
	FILE *saved = stderr, *fp = fmemopen(msg, size, "w");
	size_t len;

	FUZZ_CHECK(fp != NULL, "fmemopen");
	stderr = fp;
	exitcode = -1;
	if (setjmp(died) == 0)
		fn();
	stderr = saved;
	len = (size_t)ftell(fp);
	fclose(fp);
	msg[len < size ? len : size - 1] = '\0';
	return exitcode;
}

static void
init(void)
{
	bench_init("bench");
}

static const char *const var[] = {
	"BENCH_REPS", "BENCH_MIN_S", "BENCH_MAX_S", "BENCH_VERBOSE", "BENCH_CLOCK", "BENCH_CASES"
};

static const struct {
	double def, min, max;
	int whole;
} rule[] = {
	{ 8, 1, 1e6, 1 },	/* bench.h's defaults */
	{ 0.0005, 1e-6, 3600, 0 },
	{ 0, 1e-6, 1e6, 0 },	/* unset: 4 x reps x min_s, not checked */
	{ 0, 0, 1, 1 },
};

/* Why s is not a value of variable i, as the header documents it; NULL if it is one. */
static const char *
why(int i, const char *s, double *v)
{
	char *end;

	if (i == 4)
		return strcmp(s, "cpu") == 0 || strcmp(s, "wall") == 0 ? NULL : "not cpu or wall";
	errno = 0;
	*v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || isnan(*v))
		return "not a number";
	if (errno == ERANGE || *v < rule[i].min || *v > rule[i].max)
		return "out of range";
	if (rule[i].whole && floor(*v) != *v)
		return "not a whole number";
	return NULL;
}

/* Does list element e[0..n) name metric name or its case? */
static int
names(const char *e, size_t n, const char *name)
{
	const char *us = strrchr(name, '_');
	size_t caselen = us != NULL && us != name ? (size_t)(us - name) : strlen(name);

	return (n == strlen(name) && memcmp(e, name, n) == 0) || (n == caselen && memcmp(e, name, n) == 0);
}

/*
 * BENCH_CASES=list (NULL: unset) against metrics name[0..n). The elements
 * are split at ',' as bench.h splits them: a last empty element ("a,") is
 * no element, and only the first 64 are checked (a bit mask each); both
 * reported in tests/README.md, not checked here.
 */
static void
check_cases(const char *list, char **name, int n)
{
	static char msgbuf[4096];
	struct bench_cases_ *c = bench_cases_();
	const char *p, *end;
	int i, k, want, stopped, bad = 0;
	size_t len;

	memset(c, 0, sizeof *c);
	if (list != NULL)
		setenv("BENCH_CASES", list, 1);
	else
		unsetenv("BENCH_CASES");
	for (i = 0; i < n; i++) {
		want = list == NULL;
		for (p = list; p != NULL && *p != '\0'; p = *end == ',' ? end + 1 : end) {
			end = p + strcspn(p, ",");
			want |= names(p, (size_t)(end - p), name[i]);
		}
		FUZZ_CHECK(bench_selected(name[i]) == want, "BENCH_CASES=%s: %s selected %d", list, name[i], !want);
	}
	for (p = list, k = 0; p != NULL && *p != '\0' && !bad; p = *end == ',' ? end + 1 : end, k++) {
		end = p + strcspn(p, ",");
		/* Empty, or (among the first 64) naming no metric. */
		bad = end == p || k < 64;
		for (i = 0; i < n && bad && end > p; i++)
			if (names(p, (size_t)(end - p), name[i]))
				bad = 0;
	}
	caught(bench_cases_check_, msgbuf, sizeof msgbuf);
	len = strlen(msgbuf);
	stopped = exitcode == 2;
	FUZZ_CHECK(stopped == bad, "BENCH_CASES=%s: %s", list, stopped ? msgbuf : "accepted");
	if (stopped)
		FUZZ_CHECK(strncmp(msgbuf, "bench: BENCH_CASES=", 19) == 0 && strstr(msgbuf, ": no case '") != NULL &&
		    strchr(msgbuf, '\n') == msgbuf + len - 1, "said %s", msgbuf);
	unsetenv("BENCH_CASES");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char msgbuf[4096];
	struct bench_state_ *st = bench_state_();
	char *val[6] = { NULL }, *text, *p, *nl, expect[4200], *name[16];
	double num[6] = { 0 };
	int nname = 0;
	const char *bad = NULL;
	int i, bad_i = -1, set;
	size_t len;

	if (size < 1)
		return 0;
	set = data[0];
	if ((text = malloc(size)) == NULL)
		abort();
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	p = text;
	for (i = 0; i < 5; i++) {
		unsetenv(var[i]);
		if (!(set >> i & 1))
			continue;
		if ((nl = strchr(p, '\n')) != NULL)
			*nl = '\0';
		val[i] = p;
		setenv(var[i], p, 1);
		p = nl != NULL ? nl + 1 : p + strlen(p);
		if (bad == NULL && (bad = why(i, val[i], &num[i])) != NULL)
			bad_i = i;
	}
	/* BENCH_CASES, then the metrics: names of letters, digits and '_', as bench_add takes. */
	if (set >> 5 & 1) {
		if ((nl = strchr(p, '\n')) != NULL)
			*nl = '\0';
		val[5] = p;
		p = nl != NULL ? nl + 1 : p + strlen(p);
	}
	while (*p != '\0' && nname < 16) {
		if ((nl = strchr(p, '\n')) != NULL)
			*nl = '\0';
		if (*p != '\0' && strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == strlen(p))
			name[nname++] = p;
		p = nl != NULL ? nl + 1 : p + strlen(p);
	}
	check_cases(val[5], name, nname);
	memset(st, 0, sizeof *st);
	caught(init, msgbuf, sizeof msgbuf);
	len = strlen(msgbuf);
	if (bad == NULL) {
		double reps = val[0] ? num[0] : rule[0].def, min_s = val[1] ? num[1] : rule[1].def;
		double max_s = val[2] ? num[2] : 4 * reps * min_s;

		if (max_s < min_s) {
			FUZZ_CHECK(exitcode == 2 && strncmp(msgbuf, "bench: BENCH_MAX_S=", 19) == 0 &&
			    strstr(msgbuf, " is below BENCH_MIN_S=") != NULL, "max below min: %s", msgbuf);
			goto out;
		}
		FUZZ_CHECK(exitcode == -1, "valid settings, yet: %s", msgbuf);
		FUZZ_CHECK(msgbuf[0] == '\0', "valid settings said: %s", msgbuf);
		FUZZ_CHECK(st->init == 1, "not initialized");
		FUZZ_CHECK(st->reps == (long)reps, "reps %ld, want %.17g", st->reps, reps);
		FUZZ_CHECK(fuzz_samebits(st->min_s, min_s), "min_s %.17g, want %.17g", st->min_s, min_s);
		FUZZ_CHECK(fuzz_samebits(st->max_s, max_s), "max_s %.17g, want %.17g", st->max_s, max_s);
		FUZZ_CHECK(st->verbose == (int)(val[3] ? num[3] : rule[3].def), "verbose %d", st->verbose);
		FUZZ_CHECK(st->wall == (val[4] != NULL && strcmp(val[4], "wall") == 0), "wall %d", st->wall);
		goto out;
	}
	snprintf(expect, sizeof expect, "bench: %s=%s: %s\n", var[bad_i], val[bad_i], bad);
	FUZZ_CHECK(exitcode == 2, "%s=%s is %s, yet bench_init returned", var[bad_i], val[bad_i], bad);
	FUZZ_CHECK(strcmp(msgbuf, expect) == 0 || len >= sizeof msgbuf - 1, "said %s, want %s", msgbuf, expect);
out:
	for (i = 0; i < 6; i++)
		unsetenv(var[i]);
	free(text);
	return 0;
}
