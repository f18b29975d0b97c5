/*
 * bench: a best-of timer for in-process C benchmarks, in headers alone
 * (this one, bench_core.h and bench_counts.h; no library to link).
 *
 *	#include "bench.h"
 *	static void run_sum(void *arg) { bench_keep_float(sum(x, n)); }
 *	int main(int argc, char *argv[]) {
 *		bench_init(argv[0]);
 *		bench_add("sum_ns", run_sum, NULL);
 *		return bench_report();
 *	}
 *
 * Each metric is timed best-of: fn is called once to warm up; then the
 * number of calls a batch needs to last BENCH_MIN_S seconds is found by
 * growing it (the first batch that lasts that long counts); then more
 * batches of that many calls, BENCH_REPS in all, and the smallest time per
 * call is the metric (noise only ever adds time). The clock is read once
 * per batch, never per call, so a 20 ns call is timed over many calls.
 *
 * bench_report takes the batches of all the metrics added in turns, one
 * batch of each a turn, so that each metric's batches spread over the whole
 * run: a machine shared with other work has slow spells of a fraction of a
 * second, and a metric whose batches all fell in one would carry it. It then
 * prints every metric as one JSON object on the last line of stdout,
 * {"sum_ns":812.25}, each number in the shortest form that reads back to the
 * same double.
 *
 * The rest of the interface: bench_init(argv0) reads the environment
 * (optional); bench_selected(name) says whether BENCH_CASES lets metric
 * name run; bench_note(name, text) adds a string member to the line (such
 * as an input's SHA-256, "sum_input_sha256"; a reader of metrics must then
 * accept strings, as alternate -s does); bench_time(fn, arg) times one function at once and returns
 * its ns a call; bench_metric(name, value) adds a metric measured some other
 * way; bench_keep_float, _double, _int and _ptr store a result where the
 * compiler cannot prove it dead.
 *
 * Effort comes from the environment, so a gate can trade time for precision
 * without a rebuild:
 *	BENCH_REPS	batches per metric (default 8, at most 1000000)
 *	BENCH_MIN_S	seconds a batch lasts at least (default 0.0005;
 *			8 batches of 0.5 ms gave the gate's verdicts as
 *			right as 4 of 3 ms, in 0.6 to 0.7 of the time,
 *			measured: kata/README.md, "Effort")
 *	BENCH_MAX_S	wall-clock seconds a metric may spend before it takes no
 *			more batches, having at least one (default 4 x
 *			BENCH_REPS x BENCH_MIN_S). When the warm-up call
 *			alone lasts longer, one more call is the measurement,
 *			so a kernel 1000x slower than planned costs about two
 *			calls, not BENCH_REPS + 1 of them; the warm-up call
 *			itself never is (it pays for loading and first use).
 *	BENCH_CLOCK	cpu (default): the thread's CPU time, which leaves out
 *			the time other processes take; wall: the monotonic clock
 *	BENCH_VERBOSE	1: a line per metric on stderr (batches, calls, time)
 *	BENCH_CASES	a comma list of the cases to run, by metric name
 *			(sum_ns) or case name (sum: the name up to its last
 *			'_'); the others are not timed and not printed, so a
 *			comparison can measure one case at a time. A name that
 *			matches no metric is an error.
 *	BENCH_MODE	time (default), or counts: allocations and, under
 *			valgrind, instructions a call (bench_counts.h)
 * A bad value is one line on stderr, "bench: BENCH_REPS=x: not a number",
 * and exit 2.
 *
 * The overhead per call, an empty function through the pointer, is one call
 * and return: 1.6-1.7 ns on the machine this was built on (Xeon, KVM), where a
 * loop of direct calls to a function that does nothing costs the same
 * (lab/timer-vs-gbench.sh measures it). A kernel much faster than that
 * should be called several times by fn.
 *
 * Include this header before any system header, so that it can ask for
 * clock_gettime; otherwise it falls back to C11's timespec_get on the wall
 * clock. It needs no library beyond libc.
 */
#ifndef BENCH_H
#define BENCH_H

/* What this header and its counts mode share: the state, errors, numbers. */
#include "bench_core.h"

/* Results stored here cannot be proved dead: the work that made them stays. */
static inline void
bench_keep_float(float v)
{
	bench_state_()->sink_float = v;
}

static inline void
bench_keep_double(double v)
{
	bench_state_()->sink_double = v;
}

static inline void
bench_keep_int(long v)
{
	bench_state_()->sink_long = v;
}

static inline void
bench_keep_ptr(const void *p)
{
	bench_state_()->sink_ptr = p;
}

/* Wall-clock nanoseconds, on a clock that only moves forward where there is one. */
static inline double
bench_now_ns(void)
{
	struct timespec ts;

#if defined(CLOCK_MONOTONIC)
	clock_gettime(CLOCK_MONOTONIC, &ts);
#else
	timespec_get(&ts, TIME_UTC);
#endif
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/*
 * The clock batches are timed on: by default the CPU time of this thread,
 * which does not count the time the thread waits while another process
 * runs. On a machine shared with other work a wall-clock batch is often
 * interrupted, and its minimum drifts up with the load; the CPU time of a
 * computing kernel does not. BENCH_CLOCK=wall times wall-clock instead.
 */
static inline double
bench_clock_ns_(void)
{
#if defined(CLOCK_THREAD_CPUTIME_ID)
	if (!bench_state_()->wall) {
		struct timespec ts;

		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
	}
#endif
	return bench_now_ns();
}

/*
 * Read the effort from the environment; prog names the benchmark in
 * messages (its basename is used). Calling it is optional: the first
 * bench_add or bench_time calls it with "bench" if nothing did.
 */
static inline void
bench_init(const char *prog)
{
	struct bench_state_ *st = bench_state_();
	const char *slash, *clock;

	st->prog = "bench";
	if (prog != NULL && *prog != '\0') {
		slash = strrchr(prog, '/');
		st->prog = slash ? slash + 1 : prog;
	}
	st->reps = (long)bench_env_("BENCH_REPS", 8, 1, 1e6, 1);
	st->min_s = bench_env_("BENCH_MIN_S", 0.0005, 1e-6, 3600, 0);
	st->max_s = bench_env_("BENCH_MAX_S", 4 * st->reps * st->min_s, 1e-6, 1e6, 0);
	st->verbose = (int)bench_env_("BENCH_VERBOSE", 0, 0, 1, 1);
	clock = getenv("BENCH_CLOCK");
	if (clock == NULL || strcmp(clock, "cpu") == 0)
		st->wall = 0;
	else if (strcmp(clock, "wall") == 0)
		st->wall = 1;
	else
		bench_die_("BENCH_CLOCK=%s: not cpu or wall", clock);
	if (st->max_s < st->min_s)
		bench_die_("BENCH_MAX_S=%s is below BENCH_MIN_S=%s", getenv("BENCH_MAX_S"),
		    getenv("BENCH_MIN_S") ? getenv("BENCH_MIN_S") : "0.0005");
	st->init = 1;
}

/*
 * The time of iters calls, the clock read twice. Eight calls a pass leave
 * the call and its return as the only branches taken.
 */
static BENCH_NOINLINE_ double
bench_batch_(bench_fn fn, void *arg, long iters)
{
	double t0 = bench_clock_ns_();
	long i = 0;

	for (; i + 8 <= iters; i += 8) {
		fn(arg);
		fn(arg);
		fn(arg);
		fn(arg);
		fn(arg);
		fn(arg);
		fn(arg);
		fn(arg);
	}
	for (; i < iters; i++)
		fn(arg);
	return bench_clock_ns_() - t0;
}

/* One timed batch of m; the wall time it took counts against max_s. */
static inline void
bench_step_(struct bench_metric_ *m)
{
	struct bench_state_ *st = bench_state_();
	double w = bench_now_ns(), t = bench_batch_(m->fn, m->arg, m->iters);

	m->spent += bench_now_ns() - w;
	m->batches++;
	if (t / m->iters < m->value)
		m->value = t / m->iters;
	if (m->batches >= st->reps || m->spent >= st->max_s * 1e9)
		m->done = 1;
}

/*
 * Warm m up and find its batch size: the first batch that lasts min_s is
 * its first. After a warm-up call longer than max_s, one more call is the
 * only measurement: never the warm-up, which may have compiled, loaded or
 * faulted in what the calls after it use.
 */
#define BENCH_FIRST_ITERS_ 16

static inline void
bench_calibrate_(struct bench_metric_ *m)
{
	struct bench_state_ *st = bench_state_();
	double w = bench_now_ns(), warm, t, mult, min_ns = st->min_s * 1e9;

	warm = bench_clock_ns_();
	m->fn(m->arg);
	warm = bench_clock_ns_() - warm;
	m->value = HUGE_VAL;
	if (warm >= st->max_s * 1e9) {
		m->value = bench_batch_(m->fn, m->arg, 1);
		m->iters = m->batches = 1;
		m->done = 1;
		m->spent = bench_now_ns() - w;
		if (st->verbose)
			fprintf(stderr, "%s: %s: the warm-up call took %.3g s, over BENCH_MAX_S: one more call is the measurement\n",
			    st->prog, m->name, warm / 1e9);
		return;
	}
	/*
	 * A first guess from the warm-up call, at most BENCH_FIRST_ITERS_
	 * calls: one call can be far quicker than the calls after it (a
	 * search whose first query ends at once), and a batch sized from it
	 * alone would run a hundred times min_s. The batches grow from there,
	 * tenfold at most a step, until one lasts min_s; the smaller batches
	 * cost about a ninth of the last one.
	 */
	m->iters = warm >= min_ns || warm <= 0 ? 1 : (long)(min_ns / warm);
	if (m->iters > BENCH_FIRST_ITERS_)
		m->iters = BENCH_FIRST_ITERS_;
	if (m->iters < 1)
		m->iters = 1;
	for (;;) {
		t = bench_batch_(m->fn, m->arg, m->iters);
		if (t >= min_ns)
			break;
		/* Aim 10 % past min_s, growing at most tenfold a step. */
		mult = t > 0 ? 1.1 * min_ns / t : 10;
		if (mult > 10)
			mult = 10;
		if (mult < 1.1)
			mult = 1.1;
		if ((double)m->iters * mult > 1e15)
			bench_die_("%s: a call takes no measurable time", m->name);
		m->iters = (long)((double)m->iters * mult) + 1;
	}
	m->value = t / m->iters;
	m->batches = 1;
	m->spent = bench_now_ns() - w;
	if (m->batches >= st->reps || m->spent >= st->max_s * 1e9)
		m->done = 1;
}

/*
 * BENCH_CASES and the notes: kept apart from the timing state. seen has a
 * bit for each name of the list that some metric matched.
 */
#define BENCH_MAX_NOTES 16

struct bench_cases_ {
	int read;
	const char *list;		/* NULL: every case runs */
	unsigned long long seen;
	int nnote;
	const char *note[BENCH_MAX_NOTES][2];
};

static inline struct bench_cases_ *
bench_cases_(void)
{
	static struct bench_cases_ c;

	if (!c.read) {
		c.list = getenv("BENCH_CASES");
		c.read = 1;
	}
	return &c;
}

/* Whether BENCH_CASES (unset: every case) names metric name or its case. */
static inline int
bench_selected(const char *name)
{
	struct bench_cases_ *c = bench_cases_();
	const char *p, *end, *us = strrchr(name, '_');
	size_t caselen = us != NULL && us != name ? (size_t)(us - name) : strlen(name);
	int i, hit = 0;

	if (c->list == NULL)
		return 1;
	for (p = c->list, i = 0; *p != '\0'; i++) {
		end = strchr(p, ',');
		if (end == NULL)
			end = p + strlen(p);
		if (((size_t)(end - p) == strlen(name) && strncmp(p, name, (size_t)(end - p)) == 0) ||
		    ((size_t)(end - p) == caselen && strncmp(p, name, caselen) == 0)) {
			if (i < 64)
				c->seen |= 1ULL << i;
			hit = 1;
		}
		p = *end == ',' ? end + 1 : end;
	}
	return hit;
}

/* A list name that no metric matched: exit 2, naming it. */
static inline void
bench_cases_check_(void)
{
	struct bench_cases_ *c = bench_cases_();
	const char *p, *end;
	int i;

	if (c->list == NULL)
		return;
	for (p = c->list, i = 0; *p != '\0'; i++) {
		end = strchr(p, ',');
		if (end == NULL)
			end = p + strlen(p);
		if (end == p || (i < 64 && !(c->seen >> i & 1)))
			bench_die_("BENCH_CASES=%s: no case '%.*s'", c->list, (int)(end - p), p);
		p = *end == ',' ? end + 1 : end;
	}
}

/* Add a string member to the metrics line; text is printed JSON-escaped. */
static inline void
bench_note(const char *name, const char *text)
{
	struct bench_cases_ *c = bench_cases_();

	if (c->nnote == BENCH_MAX_NOTES)
		bench_die_("%s: more than %d notes", name, BENCH_MAX_NOTES);
	c->note[c->nnote][0] = name;
	c->note[c->nnote++][1] = text;
}

/*
 * s as a JSON string, by perfgate's one rule for strings (lib/jsonwrite.h,
 * held to it by tests/json.bats): '"' and '\\' escaped, \b \f \n \r \t
 * by name, other control characters as \u00XX, and every byte that is not
 * valid UTF-8 as \ufffd.
 */
static inline void
bench_putstr_(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char lo, hi;
	int n, i, ok;

	putchar('"');
	while (*s != '\0') {
		if (*s == '"' || *s == '\\') {
			printf("\\%c", *s++);
			continue;
		}
		if (*s < 0x20) {
			switch (*s) {
			case '\b': fputs("\\b", stdout); break;
			case '\f': fputs("\\f", stdout); break;
			case '\n': fputs("\\n", stdout); break;
			case '\r': fputs("\\r", stdout); break;
			case '\t': fputs("\\t", stdout); break;
			default: printf("\\u%04x", (unsigned)*s);
			}
			s++;
			continue;
		}
		if (*s < 0x80) {
			putchar(*s++);
			continue;
		}
		/* RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF. */
		lo = 0x80, hi = 0xbf, n = 0;
		if (*s >= 0xc2 && *s <= 0xdf)
			n = 2;
		else if (*s >= 0xe0 && *s <= 0xef)
			n = 3, lo = *s == 0xe0 ? 0xa0 : 0x80, hi = *s == 0xed ? 0x9f : 0xbf;
		else if (*s >= 0xf0 && *s <= 0xf4)
			n = 4, lo = *s == 0xf0 ? 0x90 : 0x80, hi = *s == 0xf4 ? 0x8f : 0xbf;
		ok = n > 0 && s[1] >= lo && s[1] <= hi;
		for (i = 2; ok && i < n; i++)
			ok = s[i] >= 0x80 && s[i] <= 0xbf;
		if (ok) {
			fwrite(s, 1, (size_t)n, stdout);
			s += n;
		} else {
			fputs("\\ufffd", stdout);
			s++;
		}
	}
	putchar('"');
}

/* Check a metric's name and take a slot for it. */
static inline struct bench_metric_ *
bench_slot_(const char *name)
{
	struct bench_state_ *st = bench_state_();
	struct bench_metric_ *m;
	const char *p;

	if (!st->init)
		bench_init(NULL);
	for (p = name; *p; p++)
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9')))
			break;
	if (*name == '\0' || *p != '\0')
		bench_die_("metric name '%s': use letters, digits and _", name);
	if (st->nmetric == BENCH_MAX_METRICS)
		bench_die_("%s: more than %d metrics", name, BENCH_MAX_METRICS);
	m = &st->m[st->nmetric++];
	memset(m, 0, sizeof(*m));
	m->name = name;
	return m;
}

/*
 * Add a metric to time: the best ns per call of fn(arg), measured by
 * bench_report in turns with the other metrics. The name should carry a
 * unit (_ns).
 */
static inline void
bench_add(const char *name, bench_fn fn, void *arg)
{
	struct bench_metric_ *m;

	if (!bench_selected(name))
		return;
	m = bench_slot_(name);

	m->fn = fn;
	m->arg = arg;
}

/* Add a metric whose value is known: bench_report prints it as it is. */
static inline void
bench_metric(const char *name, double value)
{
	struct bench_metric_ *m;

	if (!bench_selected(name))
		return;
	m = bench_slot_(name);

	if (!isfinite(value))
		bench_die_("%s: not a finite number", name);
	m->value = value;
	m->done = 1;
}

static inline void
bench_verbose_(const struct bench_metric_ *m)
{
	struct bench_state_ *st = bench_state_();

	if (st->verbose && m->fn != NULL)
		fprintf(stderr, "%s: %s: %ld batches of %ld calls, best %.6g ns a call, %.3g s in all\n",
		    st->prog, m->name, m->batches, m->iters, m->value, m->spent / 1e9);
}

/* Time fn(arg) now, alone: the best ns per call. */
static inline double
bench_time(bench_fn fn, void *arg)
{
	struct bench_metric_ m;

	if (!bench_state_()->init)
		bench_init(NULL);
	memset(&m, 0, sizeof(m));
	m.name = "bench_time";
	m.fn = fn;
	m.arg = arg;
	bench_calibrate_(&m);
	while (!m.done)
		bench_step_(&m);
	bench_verbose_(&m);
	return m.value;
}

/* BENCH_MODE=counts: counts, not times (bench_counts.h). */
#include "bench_counts.h"

/*
 * Time every metric added and not yet timed, in turns, then print every
 * metric as one JSON object, the last line of stdout. Returns the exit
 * status for main: 0, or 2 if stdout could not be written.
 */
static inline int
bench_report(void)
{
	struct bench_state_ *st = bench_state_();
	struct bench_cases_ *c = bench_cases_();
	char buf[32];
	int i, busy;

	bench_cases_check_();
	if (bench_counts_mode_())
		return bench_counts_report_();
	for (i = 0; i < st->nmetric; i++)
		if (!st->m[i].done)
			bench_calibrate_(&st->m[i]);
	do {
		busy = 0;
		for (i = 0; i < st->nmetric; i++)
			if (!st->m[i].done) {
				bench_step_(&st->m[i]);
				busy = 1;
			}
	} while (busy);
	for (i = 0; i < st->nmetric; i++)
		bench_verbose_(&st->m[i]);
	putchar('{');
	for (i = 0; i < st->nmetric; i++) {
		bench_fmt_(buf, st->m[i].value);
		if (i)
			putchar(',');
		bench_putstr_(st->m[i].name);
		printf(":%s", buf);
	}
	for (i = 0; i < c->nnote; i++) {
		if (i || st->nmetric)
			putchar(',');
		bench_putstr_(c->note[i][0]);
		putchar(':');
		bench_putstr_(c->note[i][1]);
	}
	return bench_endline_(st);
}

#endif
