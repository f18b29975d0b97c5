/*
 * rulecheck: the rule (judge_rule, lib/rule.c) on synthetic rounds, gate
 * after gate, as the gate asks for rounds: the first block, then what the
 * rule wants, up to a cap that stands for the deadline. Seeded, so that
 * every run checks the same rounds.
 *
 *	rulecheck SCENARIO CHANGE BUDGET GATES [MAXROUNDS]
 *	rulecheck -l BUDGET RATIO...
 *
 * SCENARIO: quiet (2 % noise), skew (noise that only adds time, on both
 * sides), onesided (heavy noise on every run of one side's slot), twospeed
 * (one run in twelve at half the time), spells (runs of 1 to 25 in a row
 * slowed 1.5x to 3x), hog (every run 0 to 60 % slower), firsthalf (head
 * slowed 1.5x to 3x in each gate's first 3 to 6 rounds, fewer than a
 * claim needs, a spell that ends). CHANGE is head's true factor (1 for
 * unchanged code). Prints one line: gates, regressed, improved, ok,
 * undecided, the median and 95th percentile of rounds. RULE_C sets the confidence (default 0.95).
 *
 * -l: the looks of rule_looks on the ratios given, one a line: the look,
 * the sequence's ends and the verdict; then "decided N".
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "judge.h"
#include "rule.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

/* splitmix64, uniform in [0, 1). */
static double
unif(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0;
}

static double
gauss(void)
{
	double u = unif(), v = unif();

	return sqrt(-2 * log(u + 1e-300)) * cos(2 * M_PI * v);
}

static const char *scenario;
static long spell;	/* runs left in the current spell */
static double spellf;
static size_t first_rounds;	/* firsthalf: the rounds the gate's spell covers */

/* One run's time of a side whose true time is t; slot is its place in the round, round its number from 0. */
static double
run(double t, int slot, size_t round, int head)
{
	double x = t * exp(0.02 * gauss());

	if (strcmp(scenario, "firsthalf") == 0 && head && round < first_rounds)
		x *= spellf;

	if (strcmp(scenario, "skew") == 0)
		x *= 1 - 0.2 * log(unif() + 1e-300) * (unif() < 0.3);
	else if (strcmp(scenario, "onesided") == 0 && slot == 1)
		x *= 1 - 0.3 * log(unif() + 1e-300);
	else if (strcmp(scenario, "twospeed") == 0 && unif() < 1.0 / 12)
		x *= 0.5;
	else if (strcmp(scenario, "spells") == 0) {
		if (spell == 0 && unif() < 0.1) {
			spell = 1 + (long)(unif() * 25);
			spellf = 1.5 + 1.5 * unif();
		}
		if (spell > 0) {
			spell--;
			x *= spellf;
		}
	} else if (strcmp(scenario, "hog") == 0)
		x *= 1 + 0.6 * unif();
	return x;
}

static int
cmpsize(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* A number of argv, or one line naming it and exit 2. */
static double
number(const char *what, const char *s, double lo, double hi)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end != '\0' || !(v > lo && v < hi)) {
		fprintf(stderr, "rulecheck: %s %s: not a number above %g and below %g\n", what, s, lo, hi);
		exit(2);
	}
	return v;
}

static int
looks(int argc, char *argv[])
{
	struct budget_entry e = { 0 };
	struct rule_look *out;
	double *ratio, conf = 0.95;
	size_t n = (size_t)argc - 3, i, d;

	e.budget = number("budget", argv[2], 0, 1e9);
	e.name = "x_ns";
	if (getenv("RULE_C") != NULL)
		conf = number("RULE_C", getenv("RULE_C"), 0, 1);
	if (getenv("RULE_HIGHER") != NULL)
		e.better = BETTER_HIGHER;
	ratio = malloc((n ? n : 1) * sizeof *ratio);
	out = malloc((n ? n : 1) * sizeof *out);
	for (i = 0; i < n; i++)
		ratio[i] = number("ratio", argv[i + 3], 0, 1e300);
	d = rule_looks(&e, ratio, n, conf, out);
	for (i = 0; i < n; i++)
		printf("%zu %.6g %.6g %s\n", i + 1, out[i].lo, out[i].hi, verdict_name[out[i].verdict]);
	printf("decided %zu\n", d);
	free(ratio);
	free(out);
	return 0;
}

int
main(int argc, char *argv[])
{
	struct budget_entry e = { 0 };
	struct rule ru = { 0.95, 2 };
	struct result r;
	long gates, g, count[5] = { 0 };
	size_t maxrounds = 200, n, want, *used;
	double change, *ratio, *work, b, h;

	if (argc >= 3 && strcmp(argv[1], "-l") == 0)
		return looks(argc, argv);
	if (argc < 5 || argc > 6) {
		fprintf(stderr, "usage: rulecheck scenario change budget gates [maxrounds]\n");
		return 2;
	}
	scenario = argv[1];
	if (strcmp(scenario, "quiet") != 0 && strcmp(scenario, "skew") != 0 && strcmp(scenario, "onesided") != 0 &&
	    strcmp(scenario, "twospeed") != 0 && strcmp(scenario, "spells") != 0 && strcmp(scenario, "hog") != 0 &&
	    strcmp(scenario, "firsthalf") != 0) {
		fprintf(stderr, "rulecheck: scenario %s: not one of quiet, skew, onesided, twospeed, spells, hog, firsthalf\n",
		    scenario);
		return 2;
	}
	change = number("change", argv[2], 0, 1e9);
	e.budget = number("budget", argv[3], 0, 1e9);
	e.name = "x_ns";
	gates = (long)number("gates", argv[4], 0.5, 1e9);
	if (argc == 6)
		maxrounds = (size_t)number("maxrounds", argv[5], 1.5, 1e7);
	if (getenv("RULE_C") != NULL)
		ru.confidence = number("RULE_C", getenv("RULE_C"), 0, 1);
	ratio = malloc(2 * maxrounds * sizeof *ratio);
	work = malloc(2 * maxrounds * sizeof *work);
	used = malloc((size_t)gates * sizeof *used);
	for (g = 0; g < gates; g++) {
		n = 0;
		spell = 0;
		first_rounds = 3 + (size_t)(unif() * 4);
		spellf = 1.5 + 1.5 * unif();
		for (want = ru.first; ; ) {
			for (; want > 0 && n < maxrounds; want--, n++) {
				/* Base first in odd rounds, head first in even ones. */
				if (n % 2 == 0) {
					b = run(100, 0, n, 0);
					h = run(100 * change, 1, n, 1);
				} else {
					h = run(100 * change, 0, n, 1);
					b = run(100, 1, n, 0);
				}
				ratio[n] = h / b;
			}
			memset(&r, 0, sizeof r);
			r.e = &e;
			judge_rule(&r, ratio, n, &ru, work);
			if (r.want == 0 || n >= maxrounds)
				break;
			want = r.want;
		}
		count[r.verdict]++;
		used[g] = n;
	}
	qsort(used, (size_t)gates, sizeof *used, cmpsize);
	printf("%s %g %g: gates %ld regressed %ld improved %ld ok %ld undecided %ld rounds median %zu p95 %zu\n",
	    scenario, change, e.budget, gates, count[V_REGRESSED], count[V_IMPROVED], count[V_OK], count[V_UNDECIDED],
	    used[gates / 2], used[(size_t)(gates * 95 / 100)]);
	free(ratio);
	free(work);
	free(used);
	return 0;
}
