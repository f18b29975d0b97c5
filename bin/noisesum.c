/*
 * noisesum: the sum of an A/A study (make noise): gates of one build
 * against itself. Reads the gates' verdict records, each gate's
 * cmpbudget metric records with its summary last; counts the false alarms
 * (gates that regressed), takes each metric's worst drift (the delta
 * furthest toward a regression) and proposes the smallest budget, in
 * whole percent, that would have held every gate with a margin over that
 * drift. Writes one record, and the same for a person on stderr.
 * Exit 0 no false alarm, 1 a false alarm, 2 cannot decide. With -i, the
 * question of perfgate -i about one gate's records instead: whether a
 * metric improved beyond its budget (exit 1) or none did (0). With -b,
 * the record of perfgate bisect, and whether its culprit is confirmed.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonl.h"
#include "jsonwrite.h"
#include "msg.h"
#include "names.h"
#include "perfjson.h"
#include "stats.h"
#include "tool.h"
#include "util.h"
#include "version.h"

/* One metric over the gates, in the order first seen (the names' index). */
struct metric {
	char *worst;		/* the worst delta, as written */
	double delta;		/* its value */
	double drift;		/* toward a regression: delta, or -delta where higher is better */
	char *budget;		/* the budget, as written */
	double budgetv;
	int higher;
	long gates;		/* how many gates judged it */
	long lastgate;		/* the gate that judged it last: twice in one is refused */
	char *where;		/* "file:line" of its first record */
	char *worstwhere;	/* and of its worst */
	double proposed;	/* the smallest budget that holds */
};

static struct names names;
static struct metric *metric;
static size_t capmetric;

/* The study: its gates, its false alarms, the one budget that judged them. */
static long gates, alarms, claims, undecided;
static char *budget, *budget_sha256, *budgetwhere;

/*
 * The gate being read: its metric records so far, and the first reason a
 * record of it cannot be summed. That reason waits for the summary, which
 * says better why when the gate could not be decided.
 */
static long inrecs;
static char *pending;

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-biqV] [-m margin] [file ...]\n", argv0);
	exit(2);
}

static char *
copyraw(const struct jfield *f)
{
	return xmemdup(f->raw, f->rawlen);
}

static int
israw(const struct jfield *f, const char *s)
{
	return memeq_str(f->raw, f->rawlen, s);
}

/* Take one metric record of the gate being read, or say why not. */
static char *
addmetric(const struct jrecord *rec, const char *where)
{
	const struct jfield *name, *delta, *bud, *better;
	struct metric *m;
	long i;
	int higher = 0;
	double drift;

	name = jget(rec, "metric", 6);
	if (name->type != J_STRING)
		return msgf("%s: \"metric\" is not a string", where);
	delta = jget(rec, "delta", 5);
	if (delta == NULL || delta->type == J_NULL) {
		if (pending == NULL)
			pending = msgf("%s: %.*s has no delta: not judged", where, (int)name->rawlen, name->raw);
		inrecs++;
		return NULL;
	}
	if (delta->type != J_NUMBER)
		return msgf("%s: %.*s: \"delta\" is not a number", where, (int)name->rawlen, name->raw);
	bud = jget(rec, "budget", 6);
	if (bud == NULL || bud->type != J_NUMBER)
		return msgf("%s: %.*s: \"budget\" is not a number", where, (int)name->rawlen, name->raw);
	better = jget(rec, "better", 6);
	if (better != NULL) {
		if (better->type != J_STRING || !(israw(better, "lower") || israw(better, "higher")))
			return msgf("%s: %.*s: \"better\" is neither \"lower\" nor \"higher\"", where,
			    (int)name->rawlen, name->raw);
		higher = israw(better, "higher");
	}
	drift = higher ? -delta->num : delta->num;
	if ((i = names_find(&names, name->raw, name->rawlen)) < 0) {
		i = names_add(&names, name->raw, name->rawlen);
		if ((size_t)i == capmetric) {
			capmetric = capmetric ? 2 * capmetric : 16;
			metric = xrealloc(metric, capmetric * sizeof *metric);
		}
		m = &metric[i];
		memset(m, 0, sizeof *m);
		m->budget = copyraw(bud);
		m->budgetv = bud->num;
		m->higher = higher;
		m->lastgate = -1;
		m->where = xstrdup(where);
	}
	m = &metric[i];
	if (m->lastgate == gates)
		return msgf("%s: %.*s twice in one gate", where, (int)name->rawlen, name->raw);
	if (m->higher != higher)
		return msgf("%s: %.*s: \"better\" is %s here, %s at %s", where, (int)name->rawlen, name->raw,
		    higher ? "higher" : "lower", m->higher ? "higher" : "lower", m->where);
	if (m->budgetv != bud->num)
		return msgf("%s: %.*s: budget %.*s here, %s at %s", where, (int)name->rawlen, name->raw,
		    (int)bud->rawlen, bud->raw, m->budget, m->where);
	/* The first of equal drifts stays: the earliest gate that showed it. */
	if (m->worst == NULL || drift > m->drift) {
		free(m->worst);
		free(m->worstwhere);
		m->worst = copyraw(delta);
		m->delta = delta->num;
		m->drift = drift;
		m->worstwhere = xstrdup(where);
	}
	m->gates++;
	m->lastgate = gates;
	inrecs++;
	return NULL;
}

/* The summary of the gate being read: the gate is counted, or not summed. */
static char *
addsummary(const struct jrecord *rec, const char *where)
{
	const struct jfield *verdict, *f, *path, *sha;
	char *err;

	verdict = jget(rec, "verdict", 7);
	if (verdict == NULL || verdict->type != J_STRING)
		return msgf("%s: neither a metric record nor a summary (no \"metric\", no \"verdict\")", where);
	if (israw(verdict, "error")) {
		f = jget(rec, "error", 5);
		return msgf("%s: a gate that could not be decided: %.*s", where,
		    f && f->type == J_STRING ? (int)f->rawlen : 15, f && f->type == J_STRING ? f->raw : "no reason given");
	}
	if (pending != NULL) {
		err = pending;
		pending = NULL;
		return err;
	}
	if (!israw(verdict, "ok") && !israw(verdict, "regressed") && !israw(verdict, "undecided"))
		return msgf("%s: verdict \"%.*s\" is neither \"ok\", \"regressed\" nor \"undecided\"", where,
		    (int)verdict->rawlen, verdict->raw);
	f = jget(rec, "metrics", 7);
	if (f != NULL && f->type == J_NUMBER && f->num != (double)inrecs)
		return msgf("%s: the summary counts %.*s metrics, the gate holds %ld", where, (int)f->rawlen, f->raw, inrecs);
	path = jget(rec, "budget", 6);
	sha = jget(rec, "budget_sha256", 13);
	if (path == NULL || path->type != J_STRING || sha == NULL || sha->type != J_STRING)
		return msgf("%s: the summary names no budget (\"budget\" and \"budget_sha256\")", where);
	if (budget == NULL) {
		budget = copyraw(path);
		budget_sha256 = copyraw(sha);
		budgetwhere = xstrdup(where);
	} else if (!israw(sha, budget_sha256) || !israw(path, budget)) {
		return msgf("%s: judged by another budget than %s: %.*s (sha256 %.*s) against %s (sha256 %s)", where,
		    budgetwhere, (int)path->rawlen, path->raw, (int)sha->rawlen, sha->raw, budget, budget_sha256);
	}
	gates++;
	alarms += israw(verdict, "regressed");
	undecided += israw(verdict, "undecided");
	/* A claim on unchanged code either way: regressed, or an improvement listed. */
	f = jget(rec, "improved", 8);
	claims += israw(verdict, "regressed") || (f != NULL && f->type == J_ARRAY && f->rawlen > 2);
	inrecs = 0;
	return NULL;
}

/* Read one file of verdict records; return NULL or why it cannot be summed. */
static char *
readfile(const char *path)
{
	struct jreader r;
	struct jrecord rec = { 0 };
	const char *line, *err;
	char *msg = NULL, *where;
	size_t len;
	long before = gates;
	int got;

	if (jreader_open(&r, path) != 0)
		return msgf("%s: %s", path, strerror(errno));
	while (msg == NULL && (got = jreader_next(&r, &line, &len)) == 1) {
		where = msgf("%s:%lu", r.name, r.lineno);
		if ((err = jparse(line, len, &rec)) != NULL)
			msg = msgf("%s: %s", where, err);
		else if (jget(&rec, "metric", 6) != NULL)
			msg = addmetric(&rec, where);
		else
			msg = addsummary(&rec, where);
		free(where);
	}
	if (msg == NULL && got == -1)
		msg = msgf("%s: %s", r.name, strerror(errno));
	else if (msg == NULL && inrecs > 0)
		msg = msgf("%s: metric records after the last summary: a gate cut short", r.name);
	else if (msg == NULL && gates == before)
		msg = msgf("%s: no gate (no summary record)", r.name);
	jrecord_free(&rec);
	jreader_close(&r);
	return msg;
}

/*
 * The smallest whole percent at least margin times the drift, 1 % at
 * least. A product within a trillionth of a whole percent is that
 * percent: 0.2 x 1.5 is 0.30000000000000004 in binary, and the budget it
 * asks for is 0.30, not 0.31.
 */
static char *
propose(struct metric *m, double margin)
{
	double x = m->drift * margin * 100;

	if (!(x < 1e12))
		return msgf("%s: %s: a drift of %s is past any budget", m->worstwhere, names.name[m - metric].s, m->worst);
	x = ceil(x - fabs(x) * 1e-12);
	m->proposed = x < 1 ? 0.01 : x / 100;
	return NULL;
}

/* One member a metric, "name":value, of the object named key. */
static void
putmap(const char *key, int what)
{
	size_t i;

	printf(",\"%s\":{", key);
	for (i = 0; i < names.n; i++) {
		printf("%s\"%s\":", i ? "," : "", names.name[i].s);
		switch (what) {
		case 'w':
			fputs(metric[i].worst, stdout);
			break;
		case 'b':
			fputs(metric[i].budget, stdout);
			break;
		case 's':
			jput_double(stdout, 1, metric[i].proposed);
			break;
		default:
			printf("%ld", metric[i].gates);
		}
	}
	putchar('}');
}

static void
putrecord(double margin)
{
	char num[32];

	fmt_double(num, margin);
	/* The budget's path and digest are copied as written: already JSON. */
	printf("{\"gates\":%ld,\"false_alarms\":%ld,\"budget\":\"%s\",\"budget_sha256\":\"%s\",\"margin\":%s",
	    gates, alarms, budget, budget_sha256, num);
	printf(",\"false_claims\":%ld,\"undecided\":%ld", claims, undecided);
	putmap("worst_drift", 'w');
	putmap("budgets", 'b');
	putmap("smallest_budget", 's');
	putmap("judged", 'j');
	fputs("}\n", stdout);
}

/* The line for a person, in the words of make noise. */
static void
putline(void)
{
	char *path = json_unescape(budget, strlen(budget));
	size_t i;

	fprintf(stderr, "noise: %ld false alarms, %ld false claims either way, %ld undecided in %ld gates at %s; worst drift:",
	    alarms, claims, undecided, gates, path);
	for (i = 0; i < names.n; i++) {
		fprintf(stderr, "%s %s %+.1f %% (budget %g %%, %g %% would hold", i ? "," : "", names.name[i].s,
		    metric[i].delta * 100, metric[i].budgetv * 100, metric[i].proposed * 100);
		if (metric[i].gates < gates)
			fprintf(stderr, ", judged in %ld of %ld gates", metric[i].gates, gates);
		fputc(')', stderr);
	}
	fputc('\n', stderr);
	free(path);
}

/*
 * -i: whether the records of a gate say that a metric improved beyond its
 * budget: a metric record whose verdict is "improved", a summary that
 * lists one in "improved", or a count's record (no "rounds": counts are
 * exact, judged ok or regressed only) whose head is below its base by
 * more than the budget, by the judge's own rule. 1 yes, 0 no; the first
 * reason a file cannot be read otherwise.
 */
static char *
improvedfile(const char *path, int *found)
{
	struct jreader r;
	struct jrecord rec = { 0 };
	const struct jfield *v, *b, *h, *u, *better;
	const char *line, *err;
	char *msg = NULL;
	size_t len;
	int got;

	if (jreader_open(&r, path) != 0)
		return msgf("%s: %s", path, strerror(errno));
	while (msg == NULL && (got = jreader_next(&r, &line, &len)) == 1) {
		if ((err = jparse(line, len, &rec)) != NULL) {
			msg = msgf("%s:%lu: %s", r.name, r.lineno, err);
			break;
		}
		v = jget(&rec, "verdict", 7);
		if (jget(&rec, "metric", 6) == NULL) {
			v = jget(&rec, "improved", 8);
			if (v != NULL && v->type == J_ARRAY && memchr(v->raw, '"', v->rawlen) != NULL)
				*found = 1;
			continue;
		}
		if (v != NULL && israw(v, "improved")) {
			*found = 1;
			continue;
		}
		b = jget(&rec, "base", 4), h = jget(&rec, "head", 4), u = jget(&rec, "budget", 6);
		better = jget(&rec, "better", 6);
		if (jget(&rec, "rounds", 6) == NULL && (better == NULL || israw(better, "lower")) &&
		    b != NULL && h != NULL && u != NULL && b->type == J_NUMBER && h->type == J_NUMBER &&
		    u->type == J_NUMBER && improved(b->num, h->num, u->num))
			*found = 1;
	}
	if (msg == NULL && got == -1)
		msg = msgf("%s: %s", r.name, strerror(errno));
	jrecord_free(&rec);
	jreader_close(&r);
	return msg;
}

static int
improvedmain(int argc, char *argv[])
{
	char *msg;
	int i, found = 0;

	if (argc == 0 && (msg = improvedfile("-", &found)) != NULL)
		die("%s", msg);
	for (i = 0; i < argc; i++)
		if ((msg = improvedfile(argv[i], &found)) != NULL)
			die("%s", msg);
	return found;
}

/*
 * -b: the record of perfgate bisect, from its operands GOOD BAD COMMIT
 * SUBJECT STEPS SKIPPED and the exit statuses of the two confirmation
 * gates: COMMIT against its parent, and the parent against GOOD. The
 * culprit is confirmed when the first says so (1) and the second does not
 * (0). The same for a person on stderr. Exit 0 confirmed, 1 not borne
 * out, 2 when a gate could not say.
 */
static const char *
bisectword(long status, const char *what)
{
	return status == 0 ? "ok" : status == 1 ? what : "error";
}

static int
bisectmain(int argc, char *argv[], int improve)
{
	const char *what = improve ? "improved" : "regressed", *why;
	struct jwriter w;
	long n[4];
	int i, status;

	if (argc != 8)
		usage();
	for (i = 0; i < 4; i++)
		if ((why = parse_long(argv[4 + i], 0, 1000000000, &n[i])) != NULL)
			die("-b: %s: %s", argv[4 + i], why);
	jw_begin(&w, stdout);
	jw_str(&w, "bisect", what);
	jw_str(&w, "commit", argv[2]);
	jw_str(&w, "subject", argv[3]);
	jw_bool(&w, "confirmed", n[2] == 1 && n[3] == 0);
	jw_str(&w, "culprit_vs_parent", bisectword(n[2], what));
	jw_str(&w, "parent_vs_good", bisectword(n[3], what));
	jw_long(&w, "steps", n[0]);
	jw_long(&w, "skipped", n[1]);
	jw_str(&w, "good", argv[0]);
	jw_str(&w, "bad", argv[1]);
	jw_end(&w);
	fprintf(stderr, "against its parent: %s; its parent against %s: %s (%s)\n", bisectword(n[2], what), argv[0],
	    bisectword(n[3], what), n[2] == 1 && n[3] == 0 ? "confirmed" : "NOT confirmed");
	status = n[2] == 1 && n[3] == 0 ? 0 : n[2] <= 1 && n[3] <= 1 ? 1 : 2;
	if (fshut(stdout, "stdout") != 0)
		status = 2;
	return status;
}

int
main(int argc, char *argv[])
{
	const char *why;
	char *msg;
	double margin = 1.5;
	size_t i;
	int c, bisect = 0, checkonly = 0, improvedonly = 0, status;

	setargv0(argv[0]);
	if (asks_version(argc, argv))
		return print_version();
	opterr = 0;
	while ((c = getopt(argc, argv, ":bim:nq")) != -1) {
		switch (c) {
		case 'b':
			bisect = 1;
			break;
		case 'i':
			improvedonly = 1;
			break;
		case 'm':
			if ((why = parse_double(optarg, 1, 100, &margin)) != NULL) {
				warnmsg("-m %s: %s", optarg, why);
				usage();
			}
			break;
		case 'n':
			opt_moved('n', 'q', "check the options only");
		case 'q':
			checkonly = 1;
			break;
		default:
			optionerror(c);
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (bisect)
		return bisectmain(argc, argv, improvedonly);
	if (improvedonly)
		return improvedmain(argc, argv);
	/* -n: the options are good; make noise asks before its gates run. */
	if (checkonly) {
		if (argc > 0)
			usage();
		return 0;
	}
	if (argc == 0) {
		if ((msg = readfile("-")) != NULL)
			die("%s", msg);
	}
	for (i = 0; i < (size_t)argc; i++)
		if ((msg = readfile(argv[i])) != NULL)
			die("%s", msg);
	for (i = 0; i < names.n; i++)
		if ((msg = propose(&metric[i], margin)) != NULL)
			die("%s", msg);
	putrecord(margin);
	putline();
	status = claims > 0;
	if (fshut(stdout, "stdout") != 0)
		status = 2;
	return status;
}
