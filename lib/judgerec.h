/*
 * judgerec: the records of cmpbudget's minima mode, one per budgeted
 * metric and a summary last, as cmpbudget(1) OUTPUT describes them,
 * written through the one writer (jsonwrite.h).
 */
#ifndef PERFGATE_JUDGEREC_H
#define PERFGATE_JUDGEREC_H

#include <stddef.h>
#include <stdio.h>

#include "budget.h"
#include "judge.h"
#include "rounds.h"

struct judged {
	const struct result *res;	/* one per budget entry */
	size_t n;
	const struct budget *budget;
	double confidence;
	double settle;			/* -N's noise; below 0: no "settled" */
	int agree;			/* -p: "doubted" members */
	const char *error;		/* the first reason it cannot decide, or NULL */
	char **unbudgeted;
	size_t nunbudgeted;
	const struct rounds *rs;	/* -r's rounds (each side's identity), or NULL */
	const char *bfile;		/* the budget file read, or NULL */
};

/* The records of j to fp. Returns 0, or -1 when fp has had an error. */
int judge_records(FILE *fp, const struct judged *j);

#endif
