/*
 * cmpbudget: the verdict. Compares one side's statistics with another's,
 * metric by metric, against the budgets of a small TOML file, and with -r
 * gives the paired ratios' opinion beside it.
 * Reads minjson's records (and alternate's with -r); writes one record per
 * budgeted metric and a summary record last on stdout, an aligned table on
 * stderr, and with -m the same table in Markdown. Exit 0 ok, 1 regressed,
 * 2 cannot decide.
 * The gate's rule on alternate's rounds alone (decide.h) is gaterun's.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budget.h"
#include "budgetdiff.h"
#include "decide.h"
#include "jsonl.h"
#include "jsonvalue.h"
#include "judge.h"
#include "judgerec.h"
#include "msg.h"
#include "recordkeys.h"
#include "report.h"
#include "rounds.h"
#include "stats.h"
#include "statsread.h"
#include "tool.h"
#include "util.h"

static struct budget budget;
/* The sides' names and minjson's records of each (statsread.h). */
static const char *sidename[NSIDE] = { "base", "head" };
static struct sidestats ss = { .stat = { { "min", "q1", "q3" }, { "min", "q1", "q3" } } };

/* The input's numeric members that the budget does not name, in order of appearance. */
static char **unbudgeted;
static size_t nunbudgeted;

/* -p: a verdict beyond the budget must agree with the paired ratios (judge_agree). */
static int agree;

/* Every reason that stops a decision, printed after the table; the first goes into the summary. */
static char **errs;
static size_t nerrs;

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-V] [-Epqu] [-b budget] [-B base] [-c confidence] [-f floor] [-H head]"
	    " [-k key] [-M metrics] [-m markdown] [-N noise] [-O oldbudget] [-r runs] [-s stat] [-S side=stat]"
	    " [file ...]\n", argv0);
	exit(2);
}

/* Keep a reason that the verdict cannot be decided; msg is allocated. */
static void
failmsg(char *msg)
{
	errs = xrealloc(errs, (nerrs + 1) * sizeof *errs);
	errs[nerrs++] = msg;
}

static void
fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	failmsg(vmsgf(fmt, ap));
	va_end(ap);
}

/* Numbers that are not metrics: minjson's count and alternate's bookkeeping. */
static int
bookkeeping(const struct jfield *f)
{
	return jfield_is(f, "n") || is_bookkeeping(f->key, f->keylen);
}

/*
 * The numbers of each side's judged record that the budget does not name:
 * a new benchmark must not go ungated unnoticed.
 */
/* -M: the budget's metrics left to other shards, budgeted but not judged here. */
static struct budget othershare;

static void
find_unbudgeted(void)
{
	const struct jfield *f;
	static struct names seen;	/* the names in unbudgeted */
	size_t i;
	int s;

	for (s = 0; s < NSIDE; s++)
		for (i = 0; i < ss.slot[s][ST_MAIN].rec.n; i++) {
			f = &ss.slot[s][ST_MAIN].rec.field[i];
			/* A [counts] metric is countof's to judge: neither budgeted nor unbudgeted here. */
			if (f->type != J_NUMBER || bookkeeping(f) || budget_find(&budget, f->key, f->keylen) != NULL ||
			    budget_find(&othershare, f->key, f->keylen) != NULL || names_find(&seen, f->key, f->keylen) >= 0)
				continue;
			names_add(&seen, f->key, f->keylen);
			unbudgeted = xrealloc(unbudgeted, (nunbudgeted + 1) * sizeof *unbudgeted);
			unbudgeted[nunbudgeted++] = json_unescape(f->key, f->keylen);	/* a name, escaped once when written */
		}
}

/* The judgment. */

static void
judge(struct result *res, const struct budget_entry *e)
{
	const struct jfield *bq1, *bq3, *hq1, *hq3, *f;
	int i;

	res->e = e;
	res->verdict = V_ERROR;
	res->base = sidestats_metric(&ss, SIDE_BASE, ST_MAIN, e->name);
	res->head = sidestats_metric(&ss, SIDE_HEAD, ST_MAIN, e->name);
	for (i = 0; i < NSIDE; i++) {
		f = sidestats_member(&ss, i, ST_MAIN, e->name);
		if (f == NULL)
			fail("%s: missing on side \"%s\"", e->name, sidename[i]);
		else if (f->type != J_NUMBER)
			fail("%s: not a number on side \"%s\"", e->name, sidename[i]);
	}
	if (res->base == NULL || res->head == NULL)
		return;
	if (!(res->base->num > 0)) {
		fail("%s: base %.*s is not above 0: no ratio", e->name, (int)res->base->rawlen, res->base->raw);
		return;
	}
	if (res->head->num < 0) {
		fail("%s: head %.*s is below 0", e->name, (int)res->head->rawlen, res->head->raw);
		return;
	}
	res->deltav = res->head->num / res->base->num - 1;
	if (!isfinite(res->deltav)) {
		fail("%s: head / base is out of range", e->name);
		return;
	}
	res->hasdelta = 1;
	res->verdict = judge_budget(e, res->base->num, res->head->num);
	bq1 = sidestats_metric(&ss, SIDE_BASE, ST_Q1, e->name);
	bq3 = sidestats_metric(&ss, SIDE_BASE, ST_Q3, e->name);
	hq1 = sidestats_metric(&ss, SIDE_HEAD, ST_Q1, e->name);
	hq3 = sidestats_metric(&ss, SIDE_HEAD, ST_Q3, e->name);
	if (bq1 && bq3 && hq1 && hq3)
		res->quartiles = quartile_opinion(bq1->num, bq3->num, hq1->num, hq3->num);
}

/* -D's settings. */
/* -S side=stat: judge one side by another statistic. */
static int
parse_sidestat(const char *arg, const char *stat[NSIDE])
{
	int s;
	size_t n;

	for (s = 0; s < NSIDE; s++) {
		n = strlen(side_name[s]);
		if (strncmp(arg, side_name[s], n) == 0 && arg[n] == '=' && arg[n + 1] != '\0') {
			stat[s] = arg + n + 1;
			return 0;
		}
	}
	return -1;
}

int
main(int argc, char *argv[])
{
	const char *bfile = "budget.toml", *key = "side", *mdfile = NULL, *rfile = NULL, *why;
	const char *stat = "min", *sidestat[NSIDE] = { NULL, NULL }, *onlylist = NULL, *oldbudget = NULL;
	struct result *res = NULL;
	static struct rounds rs;
	struct report rp;
	struct judged jd;
	double conf = 0.95, noise = -1, settle = -1;
	size_t i, nres = 0;
	long n, nrec = 0;
	int c, s, ok, status, check = 0, strict = 0, haverounds = 0;
	char *msg;

	tool_begin(argc, argv);
	while ((c = getopt(argc, argv, ":B:b:c:DdEf:H:k:M:m:N:nO:opqRr:S:s:TuW")) != -1) {
		switch (c) {
		case 'O':
			oldbudget = optarg;
			break;
		case 'D':
		case 'd':
		case 'o':
		case 'R':
		case 'T':
		case 'W':
			/* The gate's rule on its rounds, and its loop, moved to one program. */
			die("-%c: the gate's rule is gaterun's: gaterun -j dir judges a gate's stored rounds (gaterun(1))", c);
		case 'B':
			sidename[SIDE_BASE] = optarg;
			break;
		case 'b':
			bfile = optarg;
			break;
		case 'c':
			if ((why = parse_double(optarg, 0, 1, &conf)) != NULL || !(conf > 0 && conf < 1))
				die("-c %s: the confidence must be above 0 and below 1", optarg);
			break;
		case 'f':
			noise = opt_double('f', 0, 1e6, NULL);
			break;
		case 'H':
			sidename[SIDE_HEAD] = optarg;
			break;
		case 'k':
			key = optarg;
			break;
		case 'M':
			onlylist = optarg;
			break;
		case 'm':
			mdfile = optarg;
			break;
		case 'N':
			settle = opt_double('N', 0, 1e6, NULL);
			break;
		case 'n':
			opt_moved('n', 'q', "check the budget file only");
		case 'q':
			check = 1;
			break;
		case 'E':
			check = 2;
			break;
		case 'p':
			agree = 1;
			break;
		case 'r':
			rfile = optarg;
			break;
		case 'S':
			if (parse_sidestat(optarg, sidestat) < 0) {
				warnmsg("-S %s: expected base=stat or head=stat", optarg);
				usage();
			}
			break;
		case 's':
			stat = optarg;
			break;
		case 'u':
			strict = 1;
			break;
		default:
			optionerror(c);
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (*key == '\0' || *sidename[SIDE_BASE] == '\0' || *sidename[SIDE_HEAD] == '\0' || *stat == '\0' ||
	    (mdfile != NULL && *mdfile == '\0') || (rfile != NULL && *rfile == '\0')) {
		warnmsg("-B, -H, -k, -m, -r and -s take a non-empty argument");
		usage();
	}
	if (strcmp(sidename[SIDE_BASE], sidename[SIDE_HEAD]) == 0)
		die("-B and -H name the same side \"%s\"", sidename[SIDE_BASE]);
	/* -O: what the budget file -b changes from oldbudget (budgetdiff.h), and nothing else. */
	if (oldbudget != NULL) {
		if (argc > 0 || check || rfile || onlylist || agree || strict || settle >= 0 || noise >= 0)
			die("-O compares two budget files: only -b and -m go with it");
		return budget_compare(oldbudget, bfile, mdfile);
	}
	for (s = 0; s < NSIDE; s++) {
		ss.side[s] = sidename[s];
		ss.stat[s][ST_MAIN] = sidestat[s] ? sidestat[s] : stat;
	}

	if ((msg = budget_load(&budget, bfile)) != NULL) {
		if (check)
			die("%s", msg);
		failmsg(msg);
	}
	if (onlylist != NULL && nerrs == 0 && (msg = budget_only(&budget, &othershare, onlylist)) != NULL)
		failmsg(msg);
	/* -q: the budget file is valid, and the gate learns its rounds. */
	if (check) {
		printf("%ld\n", budget.runs);
		/* -E: then each time metric, its table, name and fraction: the scripts' one reader. */
		for (i = 0; check == 2 && i < budget.n; i++) {
			printf("%s %s ", budget.entry[i].better == BETTER_HIGHER ? "higher" : "budget", budget.entry[i].name);
			jput_double(stdout, 1, budget.entry[i].budget);
			putchar('\n');
		}
		return fshut(stdout, "stdout");
	}
	ok = nerrs == 0;
	for (i = 0; ok && i < (size_t)(argc > 0 ? argc : 1); i++) {
		n = sidestats_read(&ss, argc > 0 ? argv[i] : "-", key, &msg);
		if (n < 0) {
			failmsg(msg);
			ok = 0;
		}
		else
			nrec += n;
	}
	if (ok && nrec == 0) {
		fail("%s: no records to compare", argc == 1 ? argv[0] : argc == 0 ? "<stdin>" : "input");
		ok = 0;
	}
	for (s = 0; ok && s < NSIDE; s++)
		if (!ss.slot[s][ST_MAIN].have) {
			fail("no record of side \"%s\" with stat \"%s\"", sidename[s], ss.stat[s][ST_MAIN]);
			ok = 0;
		}
	if (ok && rfile != NULL) {
		if ((msg = rounds_load(&rs, rfile, key, sidename, &budget)) != NULL) {
			failmsg(msg);
			ok = 0;
		} else {
			haverounds = 1;
		}
	}
	if (ok) {
		find_unbudgeted();
		nres = budget.n;
		res = xmalloc((nres ? nres : 1) * sizeof *res);
		memset(res, 0, (nres ? nres : 1) * sizeof *res);
		for (i = 0; i < nres; i++) {
			judge(&res[i], &budget.entry[i]);
			if (haverounds) {
				judge_paired(&res[i], rs.ratio[i], rs.n[i], conf, noise);
				if (agree)
					judge_agree(&res[i]);
			}
		}
		for (i = 0; strict && i < nunbudgeted; i++)
			fail("%s: not in the budget file (-u)", unbudgeted[i]);
	}
	rp.res = res;
	rp.n = nres;
	rp.confidence = conf;
	rp.error = nerrs ? errs[0] : NULL;
	if (mdfile != NULL && (msg = report_markdown(mdfile, &rp)) != NULL)
		failmsg(msg);
	jd.res = res;
	jd.n = nres;
	jd.budget = &budget;
	jd.confidence = conf;
	jd.settle = settle;
	jd.agree = agree;
	jd.error = nerrs ? errs[0] : NULL;
	jd.unbudgeted = unbudgeted;
	jd.nunbudgeted = nunbudgeted;
	jd.rs = haverounds ? &rs : NULL;
	jd.bfile = budget.sha256[0] ? bfile : NULL;
	judge_records(stdout, &jd);
	if (nres > 0)
		report_table(stderr, &rp);
	if (nunbudgeted > 0 && !strict) {
		fprintf(stderr, "%s: not in the budget, not judged:", argv0);
		for (i = 0; i < nunbudgeted; i++)
			fputs(i ? ", " : " ", stderr), jescape(stderr, unbudgeted[i], strlen(unbudgeted[i]));
		fputc('\n', stderr);
	}
	for (i = 0; i < nerrs; i++)
		warnmsg("%s", errs[i]);
	status = nerrs ? 2 : 0;
	for (i = 0; status == 0 && i < nres; i++)
		if (res[i].verdict == V_REGRESSED)
			status = 1;
	if (fshut(stdout, "stdout") != 0)
		status = 2;
	free(res);
	sidestats_free(&ss);
	rounds_free(&rs, &budget);
	budget_free(&budget);
	budget_free(&othershare);
	return status;
}
