/*
 * judge: the rules of cmpbudget(1). The budget decides the verdict; the
 * paired ratios give an opinion beside it that must never cry wolf: it
 * names a direction only when a distribution-free interval of the median
 * ratio clears 1 by more than a noise floor.
 */
#include <stdlib.h>

#include "judge.h"
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

double
rule_claimconf(double conf)
{
	return 1 - (1 - conf) / 5;
}

size_t
rule_fewest(double conf)
{
	size_t n = 2;

	while (median_interval(n, conf) == 0)
		n++;
	return n;
}

/* The median of x[0..n) and its interval, sorted into work; 0 when n is too few for one. */
static int
interval(const double *x, size_t n, double conf, double *work, double *med, double *lo, double *hi)
{
	size_t i, k, at;
	double frac;

	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		work[i] = x[i];
	qsort(work, n, sizeof *work, cmpdouble);
	*med = quantile(work, n, 0.5, &at, &frac);
	if ((k = median_interval(n, conf)) == 0)
		return 0;
	*lo = work[k - 1];
	*hi = work[n - k];
	return 1;
}

/*
 * The claim n rounds show alone: regressed or improved, in the metric's
 * direction, when the whole interval lies beyond the budget that way, so
 * that the rounds exclude a change within the budget (its opposite); else
 * V_OK (no claim). A median beyond the budget with an interval reaching
 * into it is no claim: a change exactly at the budget would make it in
 * most gates.
 */
static enum verdict
claim(const struct budget_entry *e, const double *x, size_t n, double conf, double *work)
{
	double med, lo, hi;
	int slower, faster;

	if (!interval(x, n, conf, work, &med, &lo, &hi))
		return V_OK;
	slower = regressed(1, lo, e->budget);
	faster = improved(1, hi, e->budget);
	if (e->better == BETTER_HIGHER)
		return faster ? V_REGRESSED : slower ? V_IMPROVED : V_OK;
	return slower ? V_REGRESSED : faster ? V_IMPROVED : V_OK;
}

void
judge_rule(struct result *r, const double *ratio, size_t n, const struct rule *ru, double *work)
{
	size_t fewest = rule_fewest(ru->confidence), first = ru->first > fewest ? ru->first : fewest, h = n / 2;
	size_t fewclaim = rule_fewest(rule_claimconf(ru->confidence));
	double med = 1, lo = 0, hi = 0;
	int has, within;

	if (fewclaim < first)
		fewclaim = first;

	r->ruled = 1;
	r->rounds = n;
	r->outcome = O_NONE;
	r->possible = 0;
	r->want = 0;
	has = interval(ratio, n, ru->confidence, work, &med, &lo, &hi);
	r->hasratio = n > 0;
	r->ratio = med;
	r->hasinterval = has;
	r->lo = lo;
	r->hi = hi;
	r->hasdelta = n > 0;
	r->deltav = med - 1;
	/*
	 * Each half alone, at the claim's confidence: the later rounds confirm
	 * the earlier ones.
	 */
	r->half[0] = claim(r->e, ratio, h, rule_claimconf(ru->confidence), work);
	r->half[1] = claim(r->e, ratio + h, n - h, rule_claimconf(ru->confidence), work);
	if (r->e->better == BETTER_HIGHER) {
		within = has && !improved(1, lo, r->e->budget);
		r->bound = lo - 1;
	} else {
		within = has && !regressed(1, hi, r->e->budget);
		r->bound = hi - 1;
	}
	if (r->half[0] != V_OK && r->half[0] == r->half[1] &&
	    claim(r->e, ratio, n, rule_claimconf(ru->confidence), work) == r->half[0])
		r->verdict = r->half[0];
	else if (within)
		r->verdict = V_OK;
	else
		r->verdict = V_UNDECIDED;
	if (n < first) {
		r->want = first - n;
		return;
	}
	if (r->verdict == V_OK && n < 2 * fewclaim && claim(r->e, ratio, n, ru->confidence, work) == V_IMPROVED) {
		/* Within the budget, and perhaps an improvement: worth the rounds to show it. */
		r->possible = 1;
		r->want = 2 * fewclaim - n;
		return;
	}
	if (r->verdict != V_UNDECIDED)
		return;
	/*
	 * More rounds, a quarter more each time: few looks, so that looking
	 * often cannot lend a chance run the weight of evidence. A claim one
	 * half or all the rounds point to needs two halves long enough to
	 * show it.
	 */
	r->want = (n + 3) / 4;
	if (r->half[0] != V_OK || r->half[1] != V_OK || claim(r->e, ratio, n, ru->confidence, work) != V_OK) {
		r->possible = 1;
		if (2 * fewclaim > n && 2 * fewclaim - n > r->want)
			r->want = 2 * fewclaim - n;
	}
}
