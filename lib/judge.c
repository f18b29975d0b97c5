/*
 * judge: the rules of cmpbudget(1). The budget decides the verdict; the
 * paired ratios give an opinion beside it that must never cry wolf: it
 * names a direction only when a distribution-free interval of the median
 * ratio clears 1 by more than a noise floor.
 */
#include <stdlib.h>

#include "judge.h"
#include "rule.h"
#include "stats.h"

const char *const side_name[NSIDE] = { "base", "head" };
const char *const verdict_name[] = { "ok", "regressed", "improved", "error", "undecided" };
const char *const outcome_name[] = { NULL, "same", "slower", "faster", "too few rounds" };

enum verdict
judge_budget(const struct budget_entry *e, double base, double head)
{
	/* A higher-is-better metric regresses where a time would improve. */
	if (e->better == BETTER_HIGHER) {
		if (improved(base, head, e->budget))
			return V_REGRESSED;
		if (regressed(base, head, e->budget))
			return V_IMPROVED;
		return V_OK;
	}
	if (regressed(base, head, e->budget))
		return V_REGRESSED;
	if (improved(base, head, e->budget))
		return V_IMPROVED;
	return V_OK;
}

static int
cmpdouble(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void
judge_paired(struct result *r, double *ratio, size_t n, double conf, double noise)
{
	size_t k, lo;
	double frac;
	enum outcome up = O_SLOWER, down = O_FASTER;

	r->rounds = n;
	r->floor = noise < 0 ? r->e->budget / 4 : noise;
	r->hasratio = r->hasinterval = 0;
	r->outcome = O_FEW;
	if (n == 0)
		return;
	qsort(ratio, n, sizeof *ratio, cmpdouble);
	r->ratio = quantile(ratio, n, 0.5, &lo, &frac);
	r->hasratio = 1;
	if ((k = median_interval(n, conf)) == 0)
		return;
	r->lo = ratio[k - 1];
	r->hi = ratio[n - k];
	r->hasinterval = 1;
	if (r->e->better == BETTER_HIGHER) {
		up = O_FASTER;
		down = O_SLOWER;
	}
	if (r->lo > 1 + r->floor)
		r->outcome = up;
	else if (r->hi < 1 - r->floor)
		r->outcome = down;
	else
		r->outcome = O_SAME;
}

void
judge_agree(struct result *r)
{
	enum verdict paired;

	if (r->verdict == V_ERROR || !r->hasratio)
		return;
	/* The median ratio, judged by the same budget as the two sides. */
	paired = judge_budget(r->e, 1, r->ratio);
	if (r->verdict == V_OK) {
		/* Within the budget stays so; a median that regresses is a doubt. */
		r->doubted = paired == V_REGRESSED;
		return;
	}
	/* Too few rounds for an outcome cannot gainsay the two sides. */
	if (r->outcome == O_FEW)
		return;
	/* Outcomes are in the metric's direction: "slower" is always worse. */
	if (r->outcome == (r->verdict == V_REGRESSED ? O_SLOWER : O_FASTER) || paired == r->verdict)
		return;
	r->verdict = V_OK;
	r->doubted = 1;
}

int
judge_settled(const struct result *res, size_t n, double noise)
{
	size_t i;
	int open = 0;

	for (i = 0; i < n; i++) {
		const struct result *r = &res[i];
		double limit = 1 + r->e->budget;

		if (!r->hasdelta || r->verdict == V_ERROR || r->doubted || r->e->better == BETTER_HIGHER)
			open = 1;
		else if (1 + r->deltav > limit * (1 + noise))
			return 1;
		else if (!(1 + r->deltav <= limit / (1 + noise)))
			open = 1;
	}
	return n > 0 && !open;
}

/* The median of x[0..n), sorted into work. */
static double
median_of(const double *x, size_t n, double *work)
{
	size_t i, at;
	double frac;

	for (i = 0; i < n; i++)
		work[i] = x[i];
	qsort(work, n, sizeof *work, cmpdouble);
	return quantile(work, n, 0.5, &at, &frac);
}

void
judge_rule(struct result *r, const double *ratio, size_t n, const struct rule *ru, double *work)
{
	struct rule_state st;

	rule_judge(&st, r->e, ratio, n, ru->confidence, ru->first > 0 ? ru->first : 1);
	r->ruled = 1;
	r->rounds = n;
	r->outcome = O_NONE;
	r->hasratio = r->hasdelta = n > 0;
	r->ratio = n > 0 ? median_of(ratio, n, work) : 1;
	r->deltav = r->ratio - 1;
	/* Both ends come at once: the two sides' tests need as many signs. */
	r->hasinterval = st.haslo && st.hashi;
	r->lo = r->hasinterval ? st.lo : 0;
	r->hi = r->hasinterval ? st.hi : 0;
	r->bound = r->e->better == BETTER_HIGHER ? r->lo - 1 : r->hi - 1;
	r->verdict = st.verdict;
	r->half[0] = st.half[0];
	r->half[1] = st.half[1];
	r->want = st.want;
	r->possible = st.possible;
}
