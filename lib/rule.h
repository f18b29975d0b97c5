/*
 * rule: the gate's rule (perfgate(7), "The rule"), a confidence sequence
 * for the median of one metric's paired ratios head / base, valid at
 * every look: the gate may look after every round and stop when the
 * sequence decides, and its error rates hold over all the looks together.
 *
 * For a candidate median m, each round's sign 1[r > m] is under "median
 * <= m" a coin that shows 1 with chance at most 1/2, so the mixture
 *
 *	M_n(m) = 1/6 sum_j prod_i (2 p_j)^[r_i > m] (2 (1 - p_j))^[r_i <= m],
 *	p_j = 1 - 2^-(j+1), j = 1..6,
 *
 * is a nonnegative supermartingale that starts at 1: by Ville's
 * inequality it ever reaches 1/a with chance at most a. Every m that
 * reached it (and the mirror, with 1[r < m], for "median >= m") is out
 * of the sequence for good. Ties (r exactly m) count against neither.
 */
#ifndef PERFGATE_RULE_H
#define PERFGATE_RULE_H

#include <stddef.h>

#include "budget.h"
#include "judge.h"

/*
 * One look at a metric: the running confidence sequence [lo, hi] at the
 * rule's confidence, as head / base (lo 0 and hi INFINITY while a side has
 * no end yet), and the verdict the rule gives if the gate ends there.
 */
struct rule_look {
	double lo, hi;
	enum verdict verdict;
};

/*
 * The running confidence sequence after each of the n paired ratios
 * (round order; in the metric's own direction as judge_rule gets them),
 * and the verdict the rule gives at that look; returns the 1-based look at
 * which the metric was first decided (regressed, improved or ok), 0 if
 * none. out has n entries.
 */
size_t rule_looks(const struct budget_entry *e, const double *ratio, size_t n, double conf, struct rule_look *out);

/* What the rule makes of n ratios (rule_judge). */
struct rule_state {
	double lo, hi;		/* the running sequence at conf, head / base, as in struct rule_look */
	int haslo, hashi;	/* lo, hi are ends, not 0 and INFINITY */
	enum verdict verdict;	/* at the look it was decided, else at the last */
	size_t decided;		/* that look, 1-based; 0 when none */
	size_t want;		/* rounds more before the rule could decide; 0 when decided or it cannot be */
	int possible;		/* undecided (or ok, an improvement open), the sequence beyond a bound */
	enum verdict half[2];	/* the halves guard: the side a majority of each half's ratios lies beyond */
	int empty;		/* the sequence is empty: the rounds contradict any one median */
};

/*
 * The rule on one metric's n ratios head / base in round order at
 * confidence conf (0 < conf < 1), deciding from look first (>= 1) on:
 *
 *	regressed  when the sequence at the claim's error a = (1 - conf) / 5,
 *	           one-sided, lies above 1 + budget, and a majority of each
 *	           half's ratios too;
 *	improved   the mirror, below 1 / (1 + budget);
 *	ok         when the sequence at conf (two-sided) has its upper end
 *	           at or below 1 + budget; decided when its lower end is at
 *	           or above 1 / (1 + budget) too, or its upper end at or
 *	           above 1 (no improvement in sight);
 *	undecided  otherwise.
 *
 * Where higher is better the ratios are turned over (base / head) first.
 * A verdict once decided stays: later rounds do not change it. A ratio
 * that is not above 0 and finite counts for nothing (the rounds' reader
 * refuses it).
 */
void rule_judge(struct rule_state *st, const struct budget_entry *e, const double *ratio, size_t n, double conf,
    size_t first);

/* The claim's one-sided error (1 - conf) / 5: 0.01 at 0.95. */
double rule_claimerror(double conf);

/* The fewest rounds any verdict can be decided in: 6 at 0.95 (ok), 8 for a claim. */
size_t rule_fewest(double conf);

#endif
