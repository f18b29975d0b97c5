/*
 * budget: the one reader of the gate's budget file (cmpbudget(1), "The
 * budget file"): the rounds to run and each metric's budget and direction.
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

/* One budgeted metric, in the file's order. */
struct budget_entry {
	char *name;
	double budget;
	enum better better;	/* BETTER_LOWER for a count */
	int count;		/* from [counts]: a count countof -j judges, not a time */
	unsigned long line;
};

/*
 * The time metrics ([budget], [higher]) and the counts ([counts]) are kept
 * apart: cmpbudget judges entry, countof -j count. A name is budgeted once
 * in the whole file.
 */
struct budget {
	struct budget_entry *entry;
	size_t n, cap;
	struct budget_entry *count;
	size_t ncount, capcount;
	struct names entryidx, countidx;	/* each name's index, for budget_find */
	long runs;		/* the top-level runs, BUDGET_RUNS when absent */
	char sha256[65];	/* of the file's bytes, lowercase hex */
};

enum { BUDGET_RUNS = 3 };

/*
 * Read the budget file at path into b (zeroed by the caller). Returns NULL,
 * or an allocated message for "cmpbudget: message": "path:line: what" where
 * a line is to blame, "path: what" otherwise. b is freed by budget_free
 * either way.
 */
char *budget_load(struct budget *b, const char *path);

/* The entry named name (len bytes) in either list, or NULL. */
const struct budget_entry *budget_find(const struct budget *b, const char *name, size_t len);

void budget_free(struct budget *b);

/*
 * Keep in b only the metrics that list names, comma-separated, in the
 * budget file's order and with its digest; the others go to rest,
 * budgeted but judged elsewhere (a shard's share of a gate, GATE_SHARD).
 * Returns NULL, or an allocated message naming the first name b lacks.
 */
char *budget_only(struct budget *b, struct budget *rest, const char *list);

#endif
