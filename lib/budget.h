/*
 * budget: the one reader of the gate's budget file (cmpbudget(1), "The
 * budget file"): the rounds to run, each metric's budget and direction,
 * each count's and each case's accuracy budget.
 */
#ifndef PERFGATE_BUDGET_H
#define PERFGATE_BUDGET_H

#include <stddef.h>

#include "names.h"

/* Which way a metric gets better: a time falls, a throughput rises. */
enum better {
	BETTER_LOWER,	/* [budget]: regressed when head > base (1 + budget) */
	BETTER_HIGHER	/* [higher]: regressed when head < base (1 - budget) */
};

/* The sections that budget something, in the order budget_sections names them. */
enum budget_section {
	BS_BUDGET,	/* a time, lower is better: a fraction in (0, 1) */
	BS_HIGHER,	/* a throughput, higher is better: a fraction in (0, 1) */
	BS_COUNTS,	/* a count of countof -j: a fraction of 0 or more */
	BS_ACCURACY,	/* a case's most error in ulp (make compare): 0 or more */
	BS_N
};

/* The name of section s, as the file spells it: "budget", "higher", ... */
const char *budget_section_name(enum budget_section s);

/* One budgeted metric, in the file's order. */
struct budget_entry {
	char *name;
	double budget;
	enum better better;	/* BETTER_LOWER for a count */
	int count;		/* from [counts]: a count countof -j judges, not a time */
	unsigned long line;
	enum budget_section section;
};

/*
 * The time metrics ([budget], [higher]) and the counts ([counts]) are kept
 * apart: cmpbudget judges entry, countof -j count. A name is budgeted once
 * in the three. The cases of [accuracy] (ulpscore's, named without a unit)
 * are a list of their own, which budget_find does not search.
 */
struct budget {
	struct budget_entry *entry;
	size_t n, cap;
	struct budget_entry *count;
	size_t ncount, capcount;
	struct names entryidx, countidx;	/* each name's index, for budget_find */
	struct budget_entry *acc;
	size_t nacc, capacc;
	long runs;		/* the top-level runs, BUDGET_RUNS when absent */
	unsigned long runsline;	/* its line, 0 when absent */
	int allow_loose;	/* allow_loose = true: a [budget] of 1 or more is meant */
	unsigned long looseline;
	char sha256[65];	/* of the file's bytes, lowercase hex */
	/* [history]: each metric's creep budget (perfgate(1), history check) */
	struct budget_entry *hist;
	size_t nhist, caphist;
};

/*
 * runs, the gate's deadline in rounds (gaterun -N: it stops undecided only
 * after these rounds and GATE_DEADLINE seconds both): the contract's least
 * (a paired ratio needs two rounds), the default (the rounds a claim of a
 * benchmark of a second or two a round needs, with room), and the most.
 */
enum { BUDGET_RUNS_MIN = 2, BUDGET_RUNS = 12, BUDGET_RUNS_MAX = 1000000 };

/*
 * Read the budget file at path into b (zeroed by the caller). Returns NULL,
 * or an allocated message for "cmpbudget: message": "path:line: what" where
 * a line is to blame, "path: what" otherwise. b is freed by budget_free
 * either way.
 */
char *budget_load(struct budget *b, const char *path);

/* The entry named name (len bytes) in either list, or NULL. */
const struct budget_entry *budget_find(const struct budget *b, const char *name, size_t len);

/*
 * The budget of a count that [counts] does not name, by its name's suffix
 * (_instr, _allocs, _alloc_bytes, _l1_misses, _ll_misses), or -1 when it
 * has none and is not judged.
 */
double budget_count_default(const char *name, size_t len);

void budget_free(struct budget *b);
/*
 * The creep budget of a metric: its [history] entry, else its own budget,
 * else -1 (the file does not budget it).
 */
double budget_creep(const struct budget *b, const char *name, size_t len);

/*
 * Keep in b only the metrics that list names, comma-separated, in the
 * budget file's order and with its digest; the others go to rest,
 * budgeted but judged elsewhere (a shard's share of a gate, GATE_SHARD).
 * Returns NULL, or an allocated message naming the first name b lacks.
 */
char *budget_only(struct budget *b, struct budget *rest, const char *list);

#endif
