/*
 * harness: other benchmark harnesses' output (Google Benchmark, go test
 * -bench, hyperfine, pytest-benchmark) as perfgate's metrics line
 * (benchrec(1)). Each harness module reads its document into a metric set;
 * the set names the metrics by one rule, keeps each one's best value and
 * writes the line.
 *
 * The naming rule: a benchmark's name keeps its ASCII letters and digits,
 * every run of other bytes becomes one '_', a leading or trailing run is
 * dropped (the stem: BM_Sort/1024 -> BM_Sort_1024); the key is the stem,
 * '_' and the unit (BM_Sort_1024_ns). A key ending in "_per_s" is a rate,
 * higher is better: its best is the largest value; every other metric's
 * best is the smallest.
 */
#ifndef PERFGATE_HARNESS_H
#define PERFGATE_HARNESS_H

#include <stddef.h>
#include <stdio.h>

#include "names.h"

struct hmetric {
	char *key;
	char *who;		/* what it measures, for messages: "BM_Sort/1024" real_time */
	char *raw;		/* the best value as written, when it is a JSON number */
	double v;		/* the best value */
	size_t stemlen;		/* the key's stem is key[0..stemlen) */
	int higher;		/* a rate: the best is the largest */
};

struct hset {
	const char *file;	/* for messages: FILE:LINE: ... */
	const char *cases;	/* BENCH_CASES, or NULL: every metric */
	int cpu;		/* Google Benchmark: cpu_time instead of real_time */
	struct hmetric *m;
	size_t n, cap;
	struct names keys;
};

/* The stem of name[0..len) by the naming rule, as a new string; NULL when nothing is left. */
char *harness_stem(const char *name, size_t len);

/*
 * Add one measurement of who (a benchmark and what of it, any bytes) under
 * the key stem(name) + "_" + unit. raw[0..rawlen) is the value as written
 * when it is a JSON number to copy (else NULL and v is written, shortest).
 * line is where it was read, for messages. Returns NULL or a message to
 * free: two different whos that make one key, a name that makes no key, a
 * value that is not finite.
 */
char *hset_add(struct hset *s, const char *name, size_t namelen, const char *unit,
    const char *who, const char *raw, size_t rawlen, double v, unsigned long line);

/* hset_add of the JSON number raw[0..len) times 10^k (harness_scale10). */
char *hset_add_scaled(struct hset *s, const char *name, size_t namelen, const char *unit,
    const char *who, const char *raw, size_t rawlen, int k, unsigned long line);

/*
 * Whether BENCH_CASES (s->cases) may select a metric of the benchmark
 * name[0..len): a case is its stem or starts with its stem and '_'. A
 * harness that ran more than was asked for skips the others whole, their
 * errors included.
 */
int hset_wants(const struct hset *s, const char *name, size_t len);

/*
 * Write the metrics line: every metric that BENCH_CASES (s->cases) selects,
 * in the order first added. Returns NULL, or a message to free: no metric
 * at all, or a case that selects none.
 */
char *hset_write(struct hset *s, FILE *fp);

void hset_free(struct hset *s);

/*
 * A regular expression for a harness's filter that matches every name
 * whose stem is a case of the comma list cases, or a prefix of one up to a
 * '_' (so that a metric key, stem and unit, finds its benchmark). It
 * selects more than it must; the metrics line is cut down to the cases
 * afterwards. Each '_' of a case matches a run of bytes other than ASCII
 * letters and digits, and the whole name must match: Google Benchmark's
 * --benchmark_filter, go test's -bench (its first level: a prefix of the
 * stem up to a '_' is the top-level benchmark's), as a new string.
 */
char *harness_cases_regex(const char *cases);

/*
 * The JSON number raw[0..len) times 10^k, exact, as the text of a JSON
 * number (a new string): the digits as written, the point moved. So a
 * value in seconds becomes ns without a binary rounding (DESIGN.md:
 * numbers pass through unchanged). NULL when raw is not a JSON number.
 */
char *harness_scale10(const char *raw, size_t len, int k);

/*
 * s[0..len) for a one-line message, as a new string: a newline, a tab and
 * any other control byte written as \n, \t, \xNN (names are data).
 */
char *harness_printable(const char *s, size_t len);

/* The 1-based line of p within text. */
unsigned long harness_line(const char *text, const char *p);

/*
 * Parse text[0..len) as one JSON document (an object) into its top-level
 * members. Returns NULL, or "FILE:LINE: what" to free, the line being where
 * the document goes wrong (its last line when it is cut short).
 */
struct jrecord;
char *harness_parse_doc(const char *file, const char *text, size_t len, struct jrecord *top);

/* The harnesses: parse text (the document or go test's output) into s. */
char *harness_gbench(struct hset *s, const char *text, size_t len);
char *harness_gotest(struct hset *s, const char *text, size_t len);
char *harness_hyperfine(struct hset *s, const char *text, size_t len);
char *harness_pytest(struct hset *s, const char *text, size_t len);

/*
 * hyperfine's command line argv (argv[0] is hyperfine) without the
 * commands, and their -n names, that BENCH_CASES (s->cases) does not
 * select, as a new array of argv's strings to free; NULL to run it as it
 * is: no cases, every or no command selected, or a command line it does
 * not understand (an unknown option, -P or -L templates, one --prepare a
 * command).
 */
char **harness_hyperfine_select(const struct hset *s, char *const *argv);

/*
 * A pytest plugin, as Python source, that deselects the tests BENCH_CASES
 * does not want (benchrec runs pytest with -p and it on PYTHONPATH).
 */
extern const char harness_pytest_plugin[];

/*
 * Which harness wrote the JSON document top, by its members ("Google
 * Benchmark", "hyperfine", "pytest-benchmark"), or NULL: for the message
 * that one harness's document was given to another's reader.
 */
const char *harness_which(const struct jrecord *top);

/*
 * The message for a document that is not mine's (a harness's name): the
 * harness that wrote it when it is known, else what mine's has (need).
 */
char *harness_notmine(const struct hset *s, const struct jrecord *top, const char *mine,
    const char *need);

/* go test's first FAIL or panic line, as "FILE:LINE: the line" to free, or NULL. */
char *harness_gotest_failure(const char *file, const char *text, size_t len);

#endif
