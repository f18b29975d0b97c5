/*
 * bench_counts: the counts mode of bench.h, which includes this header.
 *
 * With BENCH_MODE=counts in the environment (no rebuild), bench_report
 * times nothing: each metric added with bench_add is called once to warm
 * up, then exactly BENCH_CALLS times (default 10, at most 1000000), and the
 * benchmark prints, for a metric m (its name less a trailing "_ns"),
 *	m_allocs	allocations a call: malloc, calloc, realloc, aligned_alloc,
 *			posix_memalign, memalign, valloc and pvalloc, the calls
 *			glibc's own functions make included
 *	m_alloc_bytes	the bytes those calls asked for, a call
 * as one JSON object on the last line of stdout, in the order the metrics
 * were added: {"sum_allocs":0,"sum_alloc_bytes":0}. Metrics given with
 * bench_metric are not printed: counts mode prints counts only.
 *
 * Run under valgrind --tool=callgrind --collect-atstart=no, as countof(1)
 * runs it, the benchmark also has callgrind count the instructions of those
 * BENCH_CALLS calls alone: collection is switched on just before the first
 * counted call and off after the last (client requests of
 * valgrind/callgrind.h), and each metric's count is dumped to a file of its
 * own whose trigger reads "perfgate m_instr N", N being BENCH_CALLS.
 * countof reads those files and divides by N. So start-up, input set-up,
 * the warm-up call (which pays the dynamic linker's lazy binding and any
 * first-call allocation) and the other metrics do not count; the loop that
 * makes the calls does, a few instructions a call, the same in every build.
 * Not under valgrind the client requests are a few instructions that
 * change no register: they cost nothing and do nothing.
 *
 * Why 10 calls: a call that does the same work every time needs one, but
 * a metric that varies its input from call to call (the kata's
 * count_below takes the next query each call) is averaged over them; and
 * under callgrind, about 50x slower than native, ten calls of each kata
 * kernel keep the kata's whole run at 0.7 s. A kernel 1000x slower than
 * the kata's wants fewer (BENCH_CALLS=1) or a smaller size.
 *
 * Counting needs two things of the build:
 *  - valgrind/callgrind.h (Debian package valgrind). A compiler with
 *    __has_include finds it itself; tcc 0.9.27 has none, so there it is
 *    used only with -DBENCH_CALLGRIND=1. -DBENCH_CALLGRIND=0 leaves it out.
 *    Without it there are no instruction counts, and countof says so.
 *  - glibc, for the allocation counts: this header defines malloc and its
 *    kin as weak functions that count, while a metric's counted calls run,
 *    and pass on to glibc's __libc_malloc and kin. Weak, so that bench.h
 *    may be included in several files of one program; one definition wins
 *    and every file counts in the same place (not under tcc 0.9.27, which
 *    calls a second weak definition an error: there, define
 *    BENCH_NO_ALLOCS in every file but one). Elsewhere, or with
 *    -DBENCH_NO_ALLOCS, no allocation metric is printed. A program with an
 *    allocator of its own (jemalloc, tcmalloc) wants -DBENCH_NO_ALLOCS:
 *    these definitions would take the place of a shared library's, and a
 *    strong malloc of its own would leave them counting nothing.
 *    Allocations of other threads while a metric runs count too, without
 *    atomics.
 */
#ifndef BENCH_COUNTS_H
#define BENCH_COUNTS_H

#include <stddef.h>

#include "bench_core.h"

#ifndef BENCH_CALLGRIND
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#define BENCH_CALLGRIND 1
#endif
#endif
#endif

#if defined(BENCH_CALLGRIND) && BENCH_CALLGRIND
#include <valgrind/callgrind.h>
#define BENCH_CG_START_() CALLGRIND_START_INSTRUMENTATION
#define BENCH_CG_ON_() do { CALLGRIND_ZERO_STATS; CALLGRIND_TOGGLE_COLLECT; } while (0)
#define BENCH_CG_OFF_() CALLGRIND_TOGGLE_COLLECT
#define BENCH_CG_DUMP_(desc) CALLGRIND_DUMP_STATS_AT(desc)
#define BENCH_CG_RUNNING_() ((int)RUNNING_ON_VALGRIND)
#else
#define BENCH_CG_START_() ((void)0)
#define BENCH_CG_ON_() ((void)0)
#define BENCH_CG_OFF_() ((void)0)
#define BENCH_CG_DUMP_(desc) ((void)(desc))
#define BENCH_CG_RUNNING_() 0
#endif

#if defined(__GLIBC__) && !defined(BENCH_NO_ALLOCS) && (defined(__GNUC__) || defined(__TINYC__))
#define BENCH_ALLOCS_ 1

/* What was allocated since the counter was last cleared, while on. */
struct bench_allocs_ {
	volatile int on;
	double n, bytes;
};

__attribute__((weak)) struct bench_allocs_ bench_allocs_;

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);

static inline void
bench_count_alloc_(double bytes)
{
	if (bench_allocs_.on) {
		bench_allocs_.n += 1;
		bench_allocs_.bytes += bytes;
	}
}

__attribute__((weak)) void *
malloc(size_t n)
{
	bench_count_alloc_((double)n);
	return __libc_malloc(n);
}

__attribute__((weak)) void *
calloc(size_t k, size_t n)
{
	bench_count_alloc_((double)k * (double)n);
	return __libc_calloc(k, n);
}

/* A realloc to 0 bytes frees; any other is an allocation of its new size. */
__attribute__((weak)) void *
realloc(void *p, size_t n)
{
	if (n > 0 || p == NULL)
		bench_count_alloc_((double)n);
	return __libc_realloc(p, n);
}

__attribute__((weak)) void
free(void *p)
{
	__libc_free(p);
}

__attribute__((weak)) void *
memalign(size_t align, size_t n)
{
	bench_count_alloc_((double)n);
	return __libc_memalign(align, n);
}

__attribute__((weak)) void *
aligned_alloc(size_t align, size_t n)
{
	bench_count_alloc_((double)n);
	return __libc_memalign(align, n);
}

/* glibc's own checks: a power of two, a multiple of a pointer's size. */
__attribute__((weak)) int
posix_memalign(void **out, size_t align, size_t n)
{
	void *p;

	if (align < sizeof(void *) || (align & (align - 1)) != 0)
		return EINVAL;
	bench_count_alloc_((double)n);
	p = __libc_memalign(align, n);
	if (p == NULL)
		return ENOMEM;
	*out = p;
	return 0;
}

__attribute__((weak)) void *
valloc(size_t n)
{
	bench_count_alloc_((double)n);
	return __libc_valloc(n);
}

__attribute__((weak)) void *
pvalloc(size_t n)
{
	bench_count_alloc_((double)n);
	return __libc_pvalloc(n);
}
#endif

/* Whether BENCH_MODE asks for counts; a bad value is exit 2. */
static inline int
bench_counts_mode_(void)
{
	const char *s = getenv("BENCH_MODE");

	if (s == NULL || strcmp(s, "time") == 0)
		return 0;
	if (strcmp(s, "counts") != 0)
		bench_die_("BENCH_MODE=%s: not time or counts", s);
	return 1;
}

/* A count as JSON: a whole number as one, else bench_fmt_'s shortest form. */
static inline void
bench_counts_fmt_(char *buf, double v)
{
	if (v < 9007199254740992.0 && v > -9007199254740992.0 && v == (double)(long long)v)
		snprintf(buf, 32, "%lld", (long long)v);
	else
		bench_fmt_(buf, v);
}

/* The calls counted: a plain loop, the same in every build. */
static BENCH_NOINLINE_ void
bench_counts_calls_(bench_fn fn, void *arg, long calls)
{
	long i;

	for (i = 0; i < calls; i++)
		fn(arg);
}

/* name less a trailing "_ns", into buf of size bytes. */
static inline void
bench_counts_base_(char *buf, size_t size, const char *name)
{
	size_t len = strlen(name);

	if (len > 3 && strcmp(name + len - 3, "_ns") == 0)
		len -= 3;
	snprintf(buf, size, "%.*s", (int)len, name);
}

/*
 * Counts mode's bench_report: count every metric added with a function,
 * one after the other, and print the allocations a call. Returns 0, or 2
 * if stdout could not be written.
 */
static inline int
bench_counts_report_(void)
{
	struct bench_state_ *st = bench_state_();
	double allocs[BENCH_MAX_METRICS], bytes[BENCH_MAX_METRICS];
	char base[128], desc[192], buf[32];
	long calls = (long)bench_env_("BENCH_CALLS", 10, 1, 1e6, 1);
	int i, first = 1, started = 0;

	for (i = 0; i < st->nmetric; i++) {
		struct bench_metric_ *m = &st->m[i];

		allocs[i] = bytes[i] = 0;
		if (m->fn == NULL)
			continue;
		/* Instrumenting from here on: the set-up ran at full speed. */
		if (!started) {
			BENCH_CG_START_();
			started = 1;
		}
		m->fn(m->arg);
#ifdef BENCH_ALLOCS_
		bench_allocs_.n = bench_allocs_.bytes = 0;
		bench_allocs_.on = 1;
#endif
		BENCH_CG_ON_();
		bench_counts_calls_(m->fn, m->arg, calls);
		BENCH_CG_OFF_();
#ifdef BENCH_ALLOCS_
		bench_allocs_.on = 0;
		allocs[i] = bench_allocs_.n / (double)calls;
		bytes[i] = bench_allocs_.bytes / (double)calls;
#endif
		bench_counts_base_(base, sizeof(base), m->name);
		snprintf(desc, sizeof(desc), "perfgate %s_instr %ld", base, calls);
		BENCH_CG_DUMP_(desc);
		if (st->verbose)
			fprintf(stderr, "%s: %s: %ld calls counted%s\n", st->prog, m->name, calls,
			    BENCH_CG_RUNNING_() ? ", instructions dumped by callgrind" : "");
	}
	putchar('{');
#ifdef BENCH_ALLOCS_
	for (i = 0; i < st->nmetric; i++) {
		if (st->m[i].fn == NULL)
			continue;
		bench_counts_base_(base, sizeof(base), st->m[i].name);
		bench_counts_fmt_(buf, allocs[i]);
		printf("%s\"%s_allocs\":%s", first ? "" : ",", base, buf);
		bench_counts_fmt_(buf, bytes[i]);
		printf(",\"%s_alloc_bytes\":%s", base, buf);
		first = 0;
	}
#else
	(void)allocs;
	(void)bytes;
	(void)buf;
	(void)first;
#endif
	return bench_endline_(st);
}

#endif
