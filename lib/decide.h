/*
 * decide: cmpbudget -D, the gate's verdict by the paired rule (judge_rule)
 * on alternate's rounds alone: each metric judged, the machine's account,
 * the records and the rounds the rule still asks for.
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

/*
 * The rounds more the rule asks for (0: none), the metrics it asks them
 * for as a comma list, and a phrase for a person, such as "a possible
 * change in count_below_ns (+12 %): 4 more rounds". left is the time left
 * before the deadline in seconds (INFINITY: none; 0 or less: passed) and per_round a round's
 * seconds (0: unknown), so that the rounds asked for end near the deadline.
 */
size_t decide_wanted(const struct decision *d, double left, double per_round, char **list, char **phrase);

/* The metric records and the summary, as cmpbudget(1) OUTPUT describes them. */
void decide_records(FILE *fp, const struct decision *d, const struct budget *b, const char *error,
    char **unbudgeted, size_t nunbudgeted, const struct rounds *rs, const char *bfile);

void decide_free(struct decision *d);

/*
 * The seconds left before deadline, counted from since's modification
 * time, and a round's seconds from the rounds measured after it (since
 * holds how many there were then): INFINITY and 0 when since is NULL.
 * Returns NULL, or an allocated message.
 */
char *decide_timeleft(const char *since, double deadline, size_t rounds, double *left, double *per);

/*
 * -o: the records go to dir/verdict.jsonl.tmp (decide_open); then
 * decide_commit closes it, writes the status to dir/verdict.status and
 * renames the records into dir/verdict.jsonl, dated 1970 when the status
 * is 2 (undecided or in error). NULL, or an allocated message.
 */
FILE *decide_open(const char *dir, char **err);
char *decide_commit(const char *dir, FILE *fp, int status);

/* Write s to dir/name through dir/name.tmp, renamed when whole; NULL or an allocated message. */
char *decide_putfile(const char *dir, const char *name, const char *s);

#endif
