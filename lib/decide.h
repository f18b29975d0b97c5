/*
 * decide: the gate's verdict (gaterun) by the paired rule (judge_rule) on
 * the rounds alone: each metric judged, the machine's account, the
 * records.
 */
#ifndef PERFGATE_DECIDE_H
#define PERFGATE_DECIDE_H

#include <stddef.h>
#include <stdio.h>

#include "budget.h"
#include "jsonl.h"
#include "judge.h"
#include "rounds.h"

/* What a run's machine was like, from the rounds' records (struct disturb). */
struct machine {
	int known;		/* some record carried the CPU pressure stall */
	double pressure;	/* stall over wall time, in percent */
	double steal;		/* steal over wall time, in percent */
	size_t busy;		/* runs marked busy */
	long reruns;		/* rounds run again */
	int isbusy;
	char line[320];		/* "busy (CPU pressure 27 % during the gate, 3 rounds re-run)" */
};

/* The results of the -D mode, with each side's median as a field of its own. */
struct decision {
	struct result *res;
	size_t n;
	struct jfield *med[NSIDE];	/* per result: each side's median over its rounds */
	char **medtext[NSIDE];
	struct machine m;
	struct rule rule;
	size_t rounds;			/* rounds both sides have */
};

/*
 * Judge every budget entry of b by the paired rule on rs. A metric with no
 * paired round is in error: its message is returned through err (one per
 * metric, as allocated strings), counted in *nerr.
 */
void decide(struct decision *d, const struct budget *b, const struct rounds *rs, const struct rule *ru,
    char ***err, size_t *nerr);

/* The gate's verdict: V_ERROR with errors, else regressed, undecided or ok. */
enum verdict decide_verdict(const struct decision *d, size_t nerr);

/*
 * The reason a verdict is undecided, for the summary and a person:
 * "count_below_ns: ratio 1.062 [0.981,1.14] at 95 %, budget 5 %, 40
 * rounds; ...; machine: busy (...)". Allocated.
 */
char *decide_reason(const struct decision *d);

/* The metric records and the summary, as cmpbudget(1) OUTPUT describes them. */
void decide_records(FILE *fp, const struct decision *d, const struct budget *b, const char *error,
    char **unbudgeted, size_t nunbudgeted, const struct rounds *rs, const char *bfile);

void decide_free(struct decision *d);

#endif
