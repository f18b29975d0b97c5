/*
 * judge: cmpbudget's judgment of one metric, apart from how its inputs are
 * read and its results written: the budget's verdict on each side's
 * statistic, and the paired ratios' outcome (cmpbudget(1)).
 */
#ifndef PERFGATE_JUDGE_H
#define PERFGATE_JUDGE_H

#include <stddef.h>

#include "budget.h"
#include "jsonl.h"

enum side { SIDE_BASE, SIDE_HEAD, NSIDE };

/* The budget's verdict on a metric. */
enum verdict { V_OK, V_REGRESSED, V_IMPROVED, V_ERROR, V_UNDECIDED };

/* The paired ratios' outcome; O_NONE without per-round records. */
enum outcome { O_NONE, O_SAME, O_SLOWER, O_FASTER, O_FEW };

extern const char *const side_name[NSIDE];
extern const char *const verdict_name[];
extern const char *const outcome_name[];

/* The judgment of one metric, kept for the records, the table and Markdown. */
struct result {
	const struct budget_entry *e;
	const struct jfield *base, *head;	/* each side's statistic, NULL if missing */
	int hasdelta;
	double deltav;				/* head / base - 1 */
	enum verdict verdict;
	const char *quartiles;			/* "slower", "faster", "tie" or NULL */
	/* The paired ratios head / base, one a round. */
	size_t rounds;
	int hasratio, hasinterval;
	double ratio, lo, hi;			/* median ratio and its interval */
	double floor;				/* the noise floor the outcome used */
	enum outcome outcome;
	int doubted;				/* beyond the budget, not by the paired ratios */
	/* The rule (judge_rule, lib/rule.h): lo and hi are its confidence sequence. */
	int ruled;
	double bound;				/* ok: the change the sequence shows at most (at least, where higher is better) */
	enum verdict half[2];			/* the side a majority of each half's ratios lies beyond; V_OK: none */
	size_t want;				/* the fewest rounds more that could decide; 0 when decided or it cannot be */
	int possible;				/* the sequence beyond a bound at the confidence, not yet a claim */
};

/* The rule's settings: its confidence, the fewest rounds judged (a verdict is decided from that look on). */
struct rule {
	double confidence;
	size_t first;
};

/*
 * The budget's verdict for base and head, both checked already (base > 0,
 * head >= 0, head / base finite): regressed beyond the budget, improved
 * beyond its mirror, else ok, in the metric's direction.
 */
enum verdict judge_budget(const struct budget_entry *e, double base, double head);

/*
 * The paired outcome from the n ratios head / base of one metric (sorted in
 * place), at confidence conf and with noise floor noise: sets ratio, the interval
 * and outcome of r. A negative noise means the default, a quarter of the
 * metric's budget.
 */
void judge_paired(struct result *r, double *ratio, size_t n, double conf, double noise);

/*
 * The two opinions of a metric, its sides' statistics and its paired
 * ratios, where they disagree: one beyond the budget by the statistics
 * stays regressed (or improved) only when its paired ratios agree, their
 * outcome "slower" (or "faster") or their median ratio beyond the budget
 * too; otherwise it is ok and doubted (with too few rounds for an outcome,
 * it stays as it is). One within the budget by the statistics stays ok,
 * doubted when its median ratio regresses beyond the budget.
 */
void judge_agree(struct result *r);

/*
 * Whether more rounds could not change the verdict of the n results, as
 * long as each side's statistic lies within a factor 1 + noise of its true
 * figure (the drift make noise measures): some metric beyond its budget
 * times 1 + noise, which no lower head can undo, or every metric within
 * its budget divided by 1 + noise, which no lower base can undo. A
 * higher-is-better metric, or one in error or doubted, is never settled
 * early.
 */
int judge_settled(const struct result *res, size_t n, double noise);

/*
 * The rule (perfgate(7), "The rule"; lib/rule.h), on one metric's n
 * ratios head / base in the order of their rounds, from look ru->first
 * on: regressed when the confidence sequence of the median ratio, at the
 * claim's error (1 - confidence) / 5, lies beyond 1 + budget and a
 * majority of each half's ratios do too; improved the mirror, below
 * 1 / (1 + budget); ok when the sequence at the confidence shows the
 * change at most 1 + budget (the bound: hi - 1), decided once it lies
 * within [1 / (1 + budget), 1 + budget] as well or reaches 1 (no
 * improvement in sight); else undecided. A
 * verdict once decided stays. Where higher is better, the directions
 * swap. Sets verdict, ratio (the median), lo and hi (the sequence),
 * rounds, bound, half (the halves guard's sides), want (1 or more while
 * undecided: the fewest rounds more that could decide; 0 when decided)
 * and possible of r; work has room for n values. Never gives V_ERROR.
 */
void judge_rule(struct result *r, const double *ratio, size_t n, const struct rule *ru, double *work);

#endif
