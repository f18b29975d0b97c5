/*
 * cmpbudget: the verdict. Compares one side's statistics with another's,
 * metric by metric, against the budgets of a small TOML file, and with -r
 * gives the paired ratios' opinion beside it.
 * Reads minjson's records (and alternate's with -r); writes one record per
 * budgeted metric and a summary record last on stdout, an aligned table on
 * stderr, and with -m the same table in Markdown. Exit 0 ok, 1 regressed,
 * 2 cannot decide.
 * With -D the gate's rule decides on alternate's rounds alone (decide.h):
 * its records go to DIR/verdict.jsonl and its exit status to
 * DIR/verdict.status with -o; -W asks how many rounds more it wants.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budget.h"
#include "decide.h"
#include "jsonl.h"
#include "jsonvalue.h"
#include "judge.h"
#include "msg.h"
#include "recordkeys.h"
#include "report.h"
#include "rounds.h"
#include "stats.h"
#include "util.h"
#include "version.h"

/*
 * The records kept: for each side, the statistic it is judged by and the
 * quartiles q1 and q3 for the quartiles' key. A line is copied so that its
 * parsed fields stay valid after the reader moves on.
 */
enum { ST_MAIN, ST_Q1, ST_Q3, NSTAT };

struct slot {
	char *line;
	struct jrecord rec;
	const char *file;
	unsigned long lineno;
	int have;
	struct names idx;	/* each member's index in rec: metric() finds one of thousands at once */
};

static struct budget budget;
static struct slot slots[NSIDE][NSTAT];
static const char *sidename[NSIDE] = { "base", "head" };
static const char *statname[NSIDE][NSTAT] = { { "min", "q1", "q3" }, { "min", "q1", "q3" } };
static char **names;
static size_t nnames;

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
	fprintf(stderr, "usage: %s [-V] [-DEnpuW] [-b budget] [-B base] [-c confidence] [-d deadline] [-f floor] [-H head]"
	    " [-k key] [-M metrics] [-m markdown] [-N noise] [-o dir] [-R rounds] [-r runs] [-s stat] [-S side=stat]"
	    " [-T since] [file ...]\n", argv0);
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

/* Is the string f's value, as written, s? (jfield_is compares its key.) */
static int
valueis(const struct jfield *f, const char *s)
{
	size_t n = strlen(s);

	return f->rawlen == n && memeq(f->raw, s, n);
}

/*
 * Keep a copy of the record if it is one that matters. A second record for
 * the same side and statistic makes the input ambiguous.
 */
static int
keep(const char *line, size_t len, const struct jfield *side, const struct jfield *stat,
    const char *file, unsigned long lineno)
{
	int i, j;
	struct slot *s;
	const char *msg;

	for (i = 0; i < NSIDE; i++) {
		if (!valueis(side, sidename[i]))
			continue;
		for (j = 0; j < NSTAT; j++) {
			if (!valueis(stat, statname[i][j]))
				continue;
			s = &slots[i][j];
			if (s->have) {
				fail("%s:%lu: second record for side \"%s\", stat \"%s\" (first at %s:%lu)",
				    file, lineno, sidename[i], statname[i][j], s->file, s->lineno);
				return -1;
			}
			s->line = xmemdup(line, len);
			if ((msg = jparse(s->line, len, &s->rec)) != NULL) {
				fail("%s:%lu: %s", file, lineno, msg);
				return -1;
			}
			s->file = file;
			s->lineno = lineno;
			s->have = 1;
			for (size_t k = 0; k < s->rec.n; k++)
				names_add(&s->idx, s->rec.field[k].key, s->rec.field[k].keylen);
		}
	}
	return 0;
}

/* Read one input file; returns the number of records, or -1 after fail(). */
static long
readfile(const char *path, const char *key)
{
	struct jreader r;
	struct jrecord rec = { 0 };
	const struct jfield *side, *stat;
	const char *line, *msg;
	size_t len;
	long nrec = 0;
	int rc;
	char *name;

	if (jreader_open(&r, path) < 0) {
		fail("%s: %s", path, strerror(errno));
		return -1;
	}
	/* The name lives as long as the program: slots point to it. */
	name = xstrdup(r.name);
	names = xrealloc(names, (nnames + 1) * sizeof *names);
	names[nnames++] = name;
	while ((rc = jreader_next(&r, &line, &len)) == 1) {
		if ((msg = jparse(line, len, &rec)) != NULL) {
			fail("%s:%lu: %s", r.name, r.lineno, msg);
			break;
		}
		side = jget(&rec, key, strlen(key));
		stat = jget(&rec, "stat", 4);
		if (side == NULL || side->type != J_STRING) {
			fail("%s:%lu: no string \"%s\": not a record of minjson", r.name, r.lineno, key);
			break;
		}
		if (stat == NULL || stat->type != J_STRING) {
			fail("%s:%lu: no string \"stat\": not a record of minjson", r.name, r.lineno);
			break;
		}
		nrec++;
		if (keep(line, len, side, stat, name, r.lineno) < 0)
			break;
	}
	if (rc < 0)
		fail("read %s: %s", r.name, strerror(errno));
	jrecord_free(&rec);
	jreader_close(&r);
	return rc == 0 ? nrec : -1;
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
		for (i = 0; i < slots[s][ST_MAIN].rec.n; i++) {
			f = &slots[s][ST_MAIN].rec.field[i];
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

static const struct jfield *
metric(int side, int stat, const char *name)
{
	const struct slot *sl = &slots[side][stat];
	long k = names_find(&sl->idx, name, strlen(name));

	return k >= 0 && sl->rec.field[k].type == J_NUMBER ? &sl->rec.field[k] : NULL;
}

static void
judge(struct result *res, const struct budget_entry *e)
{
	const struct jfield *bq1, *bq3, *hq1, *hq3;
	long k;
	int i;

	res->e = e;
	res->verdict = V_ERROR;
	res->base = metric(SIDE_BASE, ST_MAIN, e->name);
	res->head = metric(SIDE_HEAD, ST_MAIN, e->name);
	for (i = 0; i < NSIDE; i++) {
		k = names_find(&slots[i][ST_MAIN].idx, e->name, strlen(e->name));
		if (k < 0)
			fail("%s: missing on side \"%s\"", e->name, sidename[i]);
		else if (slots[i][ST_MAIN].rec.field[k].type != J_NUMBER)
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
	bq1 = metric(SIDE_BASE, ST_Q1, e->name);
	bq3 = metric(SIDE_BASE, ST_Q3, e->name);
	hq1 = metric(SIDE_HEAD, ST_Q1, e->name);
	hq3 = metric(SIDE_HEAD, ST_Q3, e->name);
	if (bq1 && bq3 && hq1 && hq3)
		res->quartiles = quartile_opinion(bq1->num, bq3->num, hq1->num, hq3->num);
}

/* The records. */

/* The metrics whose verdict is v (or, with doubted, that were doubted), as a JSON array. */
static void
putlist(const struct result *res, size_t nres, enum verdict v, int doubted)
{
	size_t i;
	int first = 1;

	putchar('[');
	for (i = 0; i < nres; i++)
		if (doubted ? res[i].doubted : res[i].verdict == v) {
			if (!first)
				putchar(',');
			jput_str(stdout, res[i].e->name);
			first = 0;
		}
	putchar(']');
}

static void
putident(const struct rounds *rs, enum side s)
{
	size_t i;

	/* The members were JSON strings: their text passes through as written. */
	printf(",\"%s\":{", side_name[s]);
	for (i = 0; i < rs->nid[s]; i++)
		printf("%s\"%s\":\"%s\"", i ? "," : "", rs->id[s][i].key, rs->id[s][i].val);
	putchar('}');
}

static void
records(const struct result *res, size_t nres, double conf, double settle, const struct rounds *rs,
    const char *bfile)
{
	size_t i;
	int nreg = 0;

	for (i = 0; i < nres; i++) {
		const struct result *r = &res[i];

		nreg += r->verdict == V_REGRESSED;
		fputs("{\"metric\":", stdout);
		jput_str(stdout, r->e->name);
		fputs(",\"base\":", stdout);
		jput_raw(stdout, r->base);
		fputs(",\"head\":", stdout);
		jput_raw(stdout, r->head);
		fputs(",\"delta\":", stdout);
		jput_double(stdout, r->hasdelta, r->deltav);
		fputs(",\"budget\":", stdout);
		jput_double(stdout, 1, r->e->budget);
		fputs(",\"verdict\":", stdout);
		jput_str(stdout, verdict_name[r->verdict]);
		fputs(",\"quartiles\":", stdout);
		jput_str(stdout, r->quartiles);
		fputs(",\"better\":", stdout);
		jput_str(stdout, r->e->better == BETTER_HIGHER ? "higher" : "lower");
		fputs(",\"rounds\":", stdout);
		jput_double(stdout, r->outcome != O_NONE, (double)r->rounds);
		fputs(",\"ratio\":", stdout);
		jput_double(stdout, r->hasratio, r->ratio);
		fputs(",\"ratio_lo\":", stdout);
		jput_double(stdout, r->hasinterval, r->lo);
		fputs(",\"ratio_hi\":", stdout);
		jput_double(stdout, r->hasinterval, r->hi);
		fputs(",\"confidence\":", stdout);
		jput_double(stdout, 1, conf);
		fputs(",\"floor\":", stdout);
		jput_double(stdout, r->outcome != O_NONE, r->floor);
		fputs(",\"outcome\":", stdout);
		jput_str(stdout, outcome_name[r->outcome]);
		if (agree)
			printf(",\"doubted\":%s", r->doubted ? "true" : "false");
		printf(",\"budget_sha256\":\"%s\"}\n", budget.sha256);
	}
	fputs("{\"verdict\":", stdout);
	jput_str(stdout, nerrs ? "error" : nreg ? "regressed" : "ok");
	fputs(",\"regressed\":", stdout);
	putlist(res, nres, V_REGRESSED, 0);
	printf(",\"metrics\":%zu", budget.n);
	if (nerrs) {
		fputs(",\"error\":", stdout);
		jput_str(stdout, errs[0]);
	}
	fputs(",\"improved\":", stdout);
	putlist(res, nres, V_IMPROVED, 0);
	if (agree) {
		fputs(",\"doubted\":", stdout);
		putlist(res, nres, V_OK, 1);
	}
	fputs(",\"unbudgeted\":[", stdout);
	for (i = 0; i < nunbudgeted; i++) {
		if (i)
			putchar(',');
		jput_str(stdout, unbudgeted[i]);
	}
	putchar(']');
	if (settle >= 0 && !nerrs)
		printf(",\"settled\":%s", judge_settled(res, nres, settle) ? "true" : "false");
	if (rs != NULL) {
		putident(rs, SIDE_BASE);
		putident(rs, SIDE_HEAD);
	}
	if (bfile != NULL) {
		fputs(",\"budget\":", stdout);
		jput_str(stdout, bfile);
		printf(",\"budget_sha256\":\"%s\"", budget.sha256);
	}
	fputs("}\n", stdout);
}

/* -D's settings. */
struct dopts {
	const char *outdir, *since, *bfile, *mdfile, *rfile, *key;
	double conf, deadline;
	long first;
	int wanted, strict;
};

/* -D: the paired rule decides, on the rounds alone (decide.h). */
static int
decidemode(const struct dopts *o)
{
	static struct rounds rs;
	struct decision d;
	struct rule ru;
	struct report rp;
	enum verdict v;
	FILE *fp = stdout;
	char *msg, *list, *phrase, *reason;
	double left, per;
	size_t i, want;
	int status, loaded = 0;

	memset(&d, 0, sizeof d);
	if (nerrs == 0) {
		if ((msg = rounds_load(&rs, o->rfile, o->key, sidename, &budget)) != NULL)
			failmsg(msg);
		else
			loaded = 1;
	}
	for (i = 0; loaded && i < rs.nnum; i++)
		if (budget_find(&budget, rs.num[i], strlen(rs.num[i])) == NULL &&
		    budget_find(&othershare, rs.num[i], strlen(rs.num[i])) == NULL) {
			unbudgeted = xrealloc(unbudgeted, (nunbudgeted + 1) * sizeof *unbudgeted);
			unbudgeted[nunbudgeted++] = json_unescape(rs.num[i], strlen(rs.num[i]));
			if (o->strict)
				fail("%s: not in the budget file (-u)", rs.num[i]);
		}
	ru.confidence = o->conf;
	ru.first = (size_t)(o->first > 0 ? o->first : budget.runs > 0 ? budget.runs : 1);
	if (loaded)
		decide(&d, &budget, &rs, &ru, &errs, &nerrs);
	if (loaded && !o->wanted && rs.nrounds == 0)
		fail("%s: no round of both sides", o->rfile);
	if (o->wanted) {
		/* What cannot be judged needs no more rounds: the verdict will say why. */
		if (nerrs)
			printf("0\n\ncannot be judged\n");
		else if ((msg = decide_timeleft(o->since, o->deadline, rs.nrounds, &left, &per)) != NULL)
			die("%s", msg);
		else {
			want = decide_wanted(&d, left, per, &list, &phrase);
			printf("%zu\n%s\n%s\n", want, list, phrase);
			free(list);
			free(phrase);
		}
		decide_free(&d);
		if (loaded)
			rounds_free(&rs, &budget);
		return fshut(stdout, "stdout");
	}
	v = nerrs ? V_ERROR : decide_verdict(&d, 0);
	rp.res = d.res;
	rp.n = d.n;
	rp.confidence = o->conf;
	rp.error = nerrs ? errs[0] : NULL;
	msg = msgf("machine: %s", d.m.line);
	if (o->mdfile != NULL && (reason = report_markdown_note(o->mdfile, &rp, loaded ? msg : NULL)) != NULL) {
		failmsg(reason);
		v = V_ERROR;
		rp.error = errs[0];
	}
	if (o->outdir != NULL && (fp = decide_open(o->outdir, &reason)) == NULL)
		die("%s", reason);
	decide_records(fp, &d, &budget, rp.error, unbudgeted, nunbudgeted, &rs, budget.sha256[0] ? o->bfile : NULL);
	if (d.n > 0)
		report_table(stderr, &rp);
	if (loaded)
		fprintf(stderr, "%s\n", msg);
	if (nunbudgeted > 0 && !o->strict) {
		fprintf(stderr, "%s: not in the budget, not judged:", argv0);
		for (i = 0; i < nunbudgeted; i++)
			fputs(i ? ", " : " ", stderr), jescape(stderr, unbudgeted[i], strlen(unbudgeted[i]));
		fputc('\n', stderr);
	}
	/* Why it cannot be decided, one line, also in outdir/verdict.why for the gate. */
	reason = v == V_UNDECIDED ? msgf("undecided: %s", list = decide_reason(&d)) : nerrs ? xstrdup(errs[0]) : NULL;
	if (v == V_UNDECIDED) {
		warnmsg("%s", reason);
		free(list);
	}
	for (i = 0; i < nerrs; i++)
		warnmsg("%s", errs[i]);
	status = v == V_REGRESSED ? 1 : v == V_OK ? 0 : 2;
	if (o->outdir == NULL && fshut(stdout, "stdout") != 0)
		status = 2;
	if (o->outdir != NULL && ((phrase = decide_putfile(o->outdir, "verdict.why", reason ? reason : "")) != NULL ||
	    (phrase = decide_commit(o->outdir, fp, status)) != NULL))
		die("%s", phrase);
	free(reason);
	free(msg);
	decide_free(&d);
	if (loaded)
		rounds_free(&rs, &budget);
	return status;
}

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
	const char *stat = "min", *sidestat[NSIDE] = { NULL, NULL }, *onlylist = NULL;
	struct result *res = NULL;
	static struct rounds rs;
	struct report rp;
	double conf = 0.95, noise = -1, settle = -1;
	struct dopts dopt = { 0 };
	int ruled = 0;
	size_t i, nres = 0;
	long n, nrec = 0;
	int c, s, ok, status, check = 0, strict = 0, haverounds = 0;
	char *msg;

	setargv0(argv[0]);
	if (asks_version(argc, argv))
		return print_version();
	opterr = 0;
	while ((c = getopt(argc, argv, ":B:b:c:DEd:f:H:k:M:m:N:no:pR:r:S:s:T:uW")) != -1) {
		switch (c) {
		case 'D':
			ruled = 1;
			break;
		case 'E':
			check = 2;
			break;
		case 'd':
			if ((why = parse_double(optarg, 0, 1e9, &dopt.deadline)) != NULL || !(dopt.deadline > 0))
				die("-d %s: the deadline must be a number of seconds above 0", optarg);
			break;
		case 'o':
			dopt.outdir = optarg;
			break;
		case 'R':
			if ((why = parse_long(optarg, 1, 1000000, &dopt.first)) != NULL)
				die("-R %s: %s", optarg, why);
			break;
		case 'T':
			dopt.since = optarg;
			break;
		case 'W':
			dopt.wanted = 1;
			break;
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
			if ((why = parse_double(optarg, 0, 1e6, &noise)) != NULL)
				die("-f %s: %s", optarg, why);
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
			if ((why = parse_double(optarg, 0, 1e6, &settle)) != NULL)
				die("-N %s: %s", optarg, why);
			break;
		case 'n':
			check = 1;
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
	if (!ruled && (dopt.outdir || dopt.since || dopt.wanted || dopt.first || dopt.deadline > 0))
		die("-d, -o, -R, -T and -W are for -D");
	if (ruled && (rfile == NULL || argc > 0 || agree || settle >= 0 || noise >= 0 || sidestat[0] || sidestat[1] ||
	    strcmp(stat, "min") != 0))
		die("-D judges the rounds of -r alone: no statistics files, -f, -N, -p, -s or -S");
	if ((dopt.since != NULL) != (dopt.deadline > 0))
		die("-T and -d go together");
	for (s = 0; s < NSIDE; s++)
		statname[s][ST_MAIN] = sidestat[s] ? sidestat[s] : stat;

	if ((msg = budget_load(&budget, bfile)) != NULL) {
		if (check)
			die("%s", msg);
		failmsg(msg);
	}
	if (onlylist != NULL && nerrs == 0 && (msg = budget_only(&budget, &othershare, onlylist)) != NULL)
		failmsg(msg);
	/* -n: the budget file is valid, and the gate learns its rounds. */
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
	if (ruled) {
		dopt.bfile = bfile;
		dopt.mdfile = mdfile;
		dopt.rfile = rfile;
		dopt.key = key;
		dopt.conf = conf;
		dopt.strict = strict;
		status = decidemode(&dopt);
		budget_free(&budget);
		budget_free(&othershare);
		return status;
	}
	ok = nerrs == 0;
	for (i = 0; ok && i < (size_t)(argc > 0 ? argc : 1); i++) {
		n = readfile(argc > 0 ? argv[i] : "-", key);
		if (n < 0)
			ok = 0;
		else
			nrec += n;
	}
	if (ok && nrec == 0) {
		fail("%s: no records to compare", argc == 1 ? argv[0] : argc == 0 ? "<stdin>" : "input");
		ok = 0;
	}
	for (s = 0; ok && s < NSIDE; s++)
		if (!slots[s][ST_MAIN].have) {
			fail("no record of side \"%s\" with stat \"%s\"", sidename[s], statname[s][ST_MAIN]);
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
	records(res, nres, conf, settle, haverounds ? &rs : NULL, budget.sha256[0] ? bfile : NULL);
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
	rounds_free(&rs, &budget);
	budget_free(&budget);
	budget_free(&othershare);
	return status;
}
