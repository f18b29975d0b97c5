/*
 * rule: the confidence sequence of the median paired ratio and the
 * verdicts it gives, look after look (rule.h).
 *
 * At look k, with S of the k ratios above m, the mixture is a function
 * of k and S alone, increasing in S; so "m is out" is "S >= s*(k)", the
 * fewest signs that reach 1/a, and the ends of the sequence are order
 * statistics: the look's lower end is the (k - s* + 1)-th smallest
 * ratio, its upper end the s*-th (the sign test's interval, with an s*
 * that grows with k). The running sequence keeps the highest lower end
 * and the lowest upper end seen. The verdicts need no sorting: each
 * compares a count of ratios beyond a bound with s*.
 */
#include <math.h>
#include <stdlib.h>

#include "rule.h"
#include "util.h"

#define GRID 6

/* log(2 p_j) and log(2 (1 - p_j)), p_j = 1 - 2^-(j+1). */
static double up_log[GRID], down_log[GRID];

static void
grid(void)
{
	int j;

	if (up_log[0] != 0)
		return;
	for (j = 0; j < GRID; j++) {
		double q = ldexp(1.0, -(j + 2));

		up_log[j] = log(2 * (1 - q));
		down_log[j] = log(2 * q);
	}
}

/* log M after k signs, s of them for the change (the mixture, uniform weights). */
static double
logmix(size_t k, size_t s)
{
	double t[GRID], most = -INFINITY, sum = 0;
	int j;

	for (j = 0; j < GRID; j++) {
		t[j] = (double)s * up_log[j] + (double)(k - s) * down_log[j];
		if (t[j] > most)
			most = t[j];
	}
	/* In logs: (2 p)^k overflows past k = 1000 or so. */
	for (j = 0; j < GRID; j++)
		sum += exp(t[j] - most);
	return most + log(sum) - log((double)GRID);
}

/*
 * The fewest signs of k that reach 1/a (level is log(1/a)), k + 1 when
 * none do: s*(k). Whatever the ratios, so kept, per level, for every k
 * asked so far: one more round adds a factor 2 p > 1 or 2 (1 - p) < 1 to
 * each term, so s*(k + 1) is s*(k) or s*(k) + 1, one mixture a round.
 */
#define LEVELS 4

static struct fewest {
	double level;
	size_t n, *s;		/* s[k] for k < n */
} fewest[LEVELS];
static unsigned evict;

static size_t
signs_needed(size_t k, double level)
{
	struct fewest *f = NULL;
	unsigned i;

	for (i = 0; i < LEVELS && f == NULL; i++)
		if (fewest[i].n > 0 && fewest[i].level == level)
			f = &fewest[i];
	if (f == NULL) {
		f = &fewest[evict++ % LEVELS];
		free(f->s);
		f->level = level;
		f->s = xmalloc(64 * sizeof *f->s);
		f->s[0] = 1;	/* no signs reach a level above 0 */
		f->n = 1;
	}
	if (k >= f->n) {
		size_t want = f->n, j;

		while (want <= k)
			want *= 2;
		f->s = xrealloc(f->s, want * sizeof *f->s);
		for (j = f->n; j < want; j++) {
			size_t t = f->s[j - 1];

			f->s[j] = t <= j && logmix(j, t) >= level ? t : t + 1;
		}
		f->n = want;
	}
	return f->s[k];
}

/* Whether s signs of k reach the level. */
static int
reaches(size_t k, size_t s, double level)
{
	return s >= signs_needed(k, level);
}

double
rule_claimerror(double conf)
{
	return (1 - conf) / 5;
}

/* The counts of one look that the verdicts compare, in the metric's direction (higher is worse). */
struct counts {
	size_t k;		/* ratios that count */
	size_t over;		/* above 1 + budget: for a regression */
	size_t under;		/* below 1 / (1 + budget): for an improvement */
	size_t notover;		/* at or below 1 + budget: for ok's upper end */
	size_t notunder;	/* at or above 1 / (1 + budget): for ok's lower end */
};

/* Where the evidence stands: each test passed at some look so far. */
struct tests {
	int regressed, improved;	/* at the claim's error */
	int okup, okdown;		/* ok's two ends, at conf */
	int nofaster;			/* the sequence's high end is 1 or more: no improvement in sight */
};

struct run {
	double claimlevel, oklevel;	/* log(1/a) of the claim and of each end at conf */
	size_t *over, *under;		/* over[h]: ratios above the bound among the first h that count */
};

static void
pass(struct tests *t, const struct counts *c, const struct run *ru)
{
	t->regressed |= reaches(c->k, c->over, ru->claimlevel);
	t->improved |= reaches(c->k, c->under, ru->claimlevel);
	t->okup |= reaches(c->k, c->notover, ru->oklevel);
	t->okdown |= reaches(c->k, c->notunder, ru->oklevel);
}

/* Whether a strict majority of the first h and of the other k - h lie beyond the bound (count: over or under). */
static int
halves(const size_t *count, size_t k, size_t extra)
{
	size_t all = k + extra, h = all / 2, first, second;

	first = h <= k ? count[h] : count[k] + (h - k);
	second = count[k] + extra - first;
	return 2 * first > h && 2 * second > all - h;
}

/* The verdict of a look from the tests passed and the halves; *decided when the rule stops there. */
static enum verdict
verdict_of(const struct tests *t, const struct run *ru, size_t k, int empty, int *decided)
{
	*decided = 0;
	if (empty)
		return V_UNDECIDED;
	if (t->regressed && halves(ru->over, k, 0)) {
		*decided = 1;
		return V_REGRESSED;
	}
	if (t->improved && halves(ru->under, k, 0)) {
		*decided = 1;
		return V_IMPROVED;
	}
	if (t->okup) {
		/*
		 * Decided when no improvement is possible either, or none is in
		 * sight: a high end of 1 or more. Measuring on for an
		 * improvement that the rounds do not even point to would only
		 * spend the deadline (the exit status is the same).
		 */
		*decided = t->okdown || t->nofaster;
		return V_OK;
	}
	return V_UNDECIDED;
}

/*
 * The fewest rounds more after which the rule could decide: each kind of
 * decision with every round more on its side (far beyond a bound, or
 * exactly 1 for ok), the nearest of them. Never 0.
 */
static size_t
rounds_to(const struct tests *t, const struct counts *c, const struct run *ru)
{
	size_t j, most = 4 * c->k + 64;

	for (j = 1; j < most; j++) {
		size_t k = c->k + j;

		if ((t->regressed || reaches(k, c->over + j, ru->claimlevel)) && halves(ru->over, c->k, j))
			return j;
		if ((t->improved || reaches(k, c->under + j, ru->claimlevel)) && halves(ru->under, c->k, j))
			return j;
		if ((t->okup || reaches(k, c->notover + j, ru->oklevel)) &&
		    (t->okdown || t->nofaster || reaches(k, c->notunder + j, ru->oklevel)))
			return j;
	}
	return most;
}

/* Insert x into the sorted v[0..n). */
static void
insert(double *v, size_t n, double x)
{
	while (n > 0 && v[n - 1] > x) {
		v[n] = v[n - 1];
		n--;
	}
	v[n] = x;
}

/*
 * The whole rule over n ratios: each look's sequence and verdict into out
 * (when not NULL), the state after the last into st.
 */
static void
rule_run(struct rule_state *st, const struct budget_entry *e, const double *ratio, size_t n, double conf, size_t first,
    struct rule_look *out)
{
	struct run ru;
	struct tests t = { 0, 0, 0, 0, 1 };
	struct counts c = { 0, 0, 0, 0, 0 };
	double *sorted, up = 1 + e->budget, down = 1 / (1 + e->budget), lo = 0, hi = INFINITY;
	size_t i, s;
	int higher = e->better == BETTER_HIGHER, decided = 0, now;
	enum verdict v = V_UNDECIDED, at;

	grid();
	ru.claimlevel = -log(rule_claimerror(conf));
	ru.oklevel = -log((1 - conf) / 2);
	sorted = xmalloc((n ? n : 1) * sizeof *sorted);
	ru.over = xmalloc((n + 1) * sizeof *ru.over);
	ru.under = xmalloc((n + 1) * sizeof *ru.under);
	ru.over[0] = ru.under[0] = 0;
	st->decided = 0;
	for (i = 0; i < n; i++) {
		/* Higher is better: base / head, so that above the bound is always worse. */
		double r = higher ? 1 / ratio[i] : ratio[i];

		if (r > 0 && isfinite(r)) {
			insert(sorted, c.k, r);
			c.k++;
			c.over += r > up;
			c.under += r < down;
			c.notover += r <= up;
			c.notunder += r >= down;
			ru.over[c.k] = c.over;
			ru.under[c.k] = c.under;
			pass(&t, &c, &ru);
			if ((s = signs_needed(c.k, ru.oklevel)) <= c.k) {
				if (sorted[c.k - s] > lo)
					lo = sorted[c.k - s];
				if (sorted[s - 1] < hi)
					hi = sorted[s - 1];
			}
		}
		t.nofaster = hi >= 1;
		at = verdict_of(&t, &ru, c.k, lo > hi, &now);
		if (!decided) {
			v = at;
			if (now && i + 1 >= first) {
				decided = 1;
				st->decided = i + 1;
			}
		}
		if (out != NULL) {
			out[i].lo = higher ? 1 / hi : lo;
			out[i].hi = higher ? 1 / lo : hi;
			out[i].verdict = v;
		}
	}
	st->verdict = v;
	st->empty = lo > hi;
	st->haslo = lo > 0;
	st->hashi = isfinite(hi);
	st->lo = higher ? 1 / hi : lo;
	st->hi = higher ? 1 / lo : hi;
	if (higher) {
		int h = st->haslo;

		st->haslo = st->hashi;
		st->hashi = h;
	}
	st->half[0] = st->half[1] = V_OK;
	if (c.k >= 2) {
		size_t h = c.k / 2;

		for (i = 0; i < 2; i++) {
			size_t lo_i = i ? h : 0, hi_i = i ? c.k : h, len = hi_i - lo_i;

			if (2 * (ru.over[hi_i] - ru.over[lo_i]) > len)
				st->half[i] = V_REGRESSED;
			else if (2 * (ru.under[hi_i] - ru.under[lo_i]) > len)
				st->half[i] = V_IMPROVED;
		}
	}
	st->want = 0;
	st->possible = 0;
	if (!decided && !st->empty) {
		st->want = rounds_to(&t, &c, &ru);
		if (n < first && first - n > st->want)
			st->want = first - n;
		/* Beyond a bound at conf, not yet at the claim's error or not in both halves. */
		st->possible = lo > up || hi < down;
	}
	free(sorted);
	free(ru.over);
	free(ru.under);
}

void
rule_judge(struct rule_state *st, const struct budget_entry *e, const double *ratio, size_t n, double conf,
    size_t first)
{
	rule_run(st, e, ratio, n, conf, first, NULL);
}

size_t
rule_looks(const struct budget_entry *e, const double *ratio, size_t n, double conf, struct rule_look *out)
{
	struct rule_state st;

	rule_run(&st, e, ratio, n, conf, 1, out);
	return st.decided;
}

size_t
rule_fewest(double conf)
{
	struct budget_entry e = { 0 };
	struct rule_state st;

	e.budget = 0;
	rule_run(&st, &e, NULL, 0, conf, 1, NULL);
	return st.want;
}
