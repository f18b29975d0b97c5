/*
 * budgetdiff: what one budget file changes from another (cmpbudget -O):
 * every key that budget.c gives a meaning, each change named with its
 * sections, both values and whether it lets more through. CI asks this of
 * a pull request's budget against its base's, so that a change cannot
 * pass itself by loosening the budget it is judged by.
 */
#ifndef PERFGATE_BUDGETDIFF_H
#define PERFGATE_BUDGETDIFF_H

#include <stddef.h>

#include "budget.h"

/* What a change does; every kind but BC_TIGHTER and BC_ADDED may loosen. */
enum bchange {
	BC_LOOSER,	/* a value that lets more through: a budget raised, runs lowered */
	BC_TIGHTER,	/* the other way */
	BC_MOVED,	/* to another section: a direction, or the judge, changed */
	BC_REMOVED,
	BC_ADDED
};

/* Where a key is: one of budget.h's sections, or the top of the file. */
enum { BD_TOP = -1, BD_ABSENT = -2 };

struct budget_change {
	const char *key;		/* a metric, a case, "runs" or "allow_loose" */
	int basesec, headsec;		/* enum budget_section, BD_TOP or BD_ABSENT */
	double base, head;		/* the values, where present (allow_loose: 0 or 1) */
	double dflt;			/* what an absent key means, or -1 for nothing judged */
	unsigned long baseline, headline;	/* 0 where absent */
	enum bchange kind;
	int loosens;
};

struct budget_diff {
	struct budget_change *c;
	size_t n, cap;
};

/*
 * The changes from base to head: the top-level keys, then head's metrics
 * and cases in its order, then base's that head lacks. Names point into
 * the budgets, which must outlive d.
 */
void budget_diff(struct budget_diff *d, const struct budget *base, const struct budget *head);

void budget_diff_free(struct budget_diff *d);

/*
 * cmpbudget -O: compare the files basepath and headpath; write a record a
 * change and a summary on stdout, a line a change on stderr and, with
 * mdpath, a Markdown list. Returns the exit status: 0 nothing loosens, 1
 * something does, 2 a file cannot be read or written.
 */
int budget_compare(const char *basepath, const char *headpath, const char *mdpath);

#endif
