/*
 * mergeshards: judge the shards of one gate as one. Reads each shard's
 * verdict records (cmpbudget's per-metric records, the summary last, which
 * carries both sides' identities and the budget's digest), refuses shards
 * of different commits, budgets or overlapping metrics, and writes every
 * metric record as it was read, one summary record last, an aligned table
 * on stderr and, with -m, the same table in Markdown.
 * Exit 0 ok, 1 regressed, 2 cannot decide.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonl.h"
#include "judge.h"
#include "perfjson.h"
#include "report.h"
#include "tool.h"
#include "util.h"
#include "version.h"

/* One metric record of a shard, kept whole: its line is copied out. */
struct row {
	char *line;
	struct jrecord rec;
	size_t shard;
	unsigned long lineno;
	const struct jfield *metric, *verdict;
};

/* One shard: its file and its summary's members, copied. */
struct shard {
	const char *file;
	char *verdict, *error, *base, *head, *budget, *id;
	long metrics;		/* the summary's count; -1 when it has none */
	size_t rows;
};

static struct row *rows;
static size_t nrows, caprows;
static struct shard *shards;
static size_t nshards;

/* Every reason that stops a decision; the first goes into the summary. */
static char **errs;
static size_t nerrs;

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-V] [-m markdown] [-n shards] file ...\n", argv0);
	exit(2);
}

static void
fail(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	errs = xrealloc(errs, (nerrs + 1) * sizeof *errs);
	errs[nerrs++] = xstrdup(buf);
}

/* The raw text of member key (strings without quotes), copied, or NULL. */
static char *
member(const struct jrecord *rec, const char *key, enum jtype type)
{
	const struct jfield *f = jget(rec, key, strlen(key));
	char *s;

	if (f == NULL || f->type != type)
		return NULL;
	s = xmalloc(f->rawlen + 1);
	memcpy(s, f->raw, f->rawlen);
	s[f->rawlen] = '\0';
	return s;
}

/* A string member's text, its escapes undone (it is written escaped once). */
static char *
member_text(const struct jrecord *rec, const char *key)
{
	const struct jfield *f = jget(rec, key, strlen(key));

	if (f == NULL || f->type != J_STRING)
		return NULL;
	return json_unescape(f->raw, f->rawlen);
}

/*
 * Read one shard: its metric records, then its summary, which must come
 * last. A record the shard cannot stand behind is a failure, not a skip.
 */
static void
readshard(size_t k)
{
	struct shard *sh = &shards[k];
	struct jreader r;
	struct jrecord rec = { 0 };
	const struct jfield *f;
	const char *line, *err;
	unsigned long sumline = 0;
	size_t len;
	int got;

	if (jreader_open(&r, sh->file) != 0) {
		fail("%s: %s", sh->file, strerror(errno));
		return;
	}
	while ((got = jreader_next(&r, &line, &len)) == 1) {
		if (len == 0)
			continue;
		if ((err = jparse(line, len, &rec)) != NULL) {
			fail("%s:%lu: %s", r.name, r.lineno, err);
			break;
		}
		if (sumline) {
			fail("%s:%lu: a record after the summary", r.name, r.lineno);
			break;
		}
		if ((f = jget(&rec, "metric", 6)) == NULL) {
			sumline = r.lineno;
			if ((sh->verdict = member(&rec, "verdict", J_STRING)) == NULL) {
				fail("%s:%lu: the summary has no \"verdict\"", r.name, r.lineno);
				break;
			}
			sh->error = member_text(&rec, "error");
			sh->base = member(&rec, "base", J_OBJECT);
			sh->head = member(&rec, "head", J_OBJECT);
			sh->budget = member(&rec, "budget_sha256", J_STRING);
			sh->id = member(&rec, "shard", J_STRING);
			sh->metrics = jget(&rec, "metrics", 7) && jget(&rec, "metrics", 7)->type == J_NUMBER ?
			    (long)jget(&rec, "metrics", 7)->num : -1;
			continue;
		}
		if (f->type != J_STRING) {
			fail("%s:%lu: \"metric\" is not a string", r.name, r.lineno);
			break;
		}
		if (nrows == caprows) {
			caprows = caprows ? 2 * caprows : 32;
			rows = xrealloc(rows, caprows * sizeof *rows);
		}
		memset(&rows[nrows], 0, sizeof rows[nrows]);
		rows[nrows].line = xmalloc(len + 1);
		memcpy(rows[nrows].line, line, len);
		rows[nrows].line[len] = '\0';
		/* Parsed again from the copy, so that the fields point into it. */
		jparse(rows[nrows].line, len, &rows[nrows].rec);
		rows[nrows].shard = k;
		rows[nrows].lineno = r.lineno;
		rows[nrows].metric = jget(&rows[nrows].rec, "metric", 6);
		rows[nrows].verdict = jget(&rows[nrows].rec, "verdict", 7);
		nrows++;
		sh->rows++;
	}
	if (got == -1)
		fail("%s: %s", r.name, strerror(errno));
	else if (sumline == 0 && nerrs == 0)
		fail("%s: no summary record: not a whole shard", r.name);
	else if (sh->verdict && strcmp(sh->verdict, "error") != 0 && sh->metrics >= 0 && (size_t)sh->metrics != sh->rows)
		fail("%s: the summary counts %ld metrics, the shard holds %zu", r.name, sh->metrics, sh->rows);
	jrecord_free(&rec);
	jreader_close(&r);
}

static int
same(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/*
 * Shards judged as one must be one gate: the same two sides, the same
 * budget, each metric measured once, and, when the shards say which they
 * are ("shard":"i/n"), every one of the n exactly once.
 */
static void
consistent(long want)
{
	size_t i, j, first = (size_t)-1;
	long idx, of, ofall = -1;
	char *seen = NULL;

	for (i = 0; i < nshards; i++) {
		struct shard *sh = &shards[i];

		if (sh->verdict == NULL)
			continue;
		if (strcmp(sh->verdict, "error") == 0) {
			fail("%s: the shard could not be decided: %s", sh->file, sh->error ? sh->error : "no reason given");
			continue;
		}
		if (sh->base == NULL || sh->head == NULL || sh->budget == NULL) {
			fail("%s: the summary lacks %s: not a gate's verdict", sh->file,
			    sh->base == NULL ? "\"base\"" : sh->head == NULL ? "\"head\"" : "\"budget_sha256\"");
			continue;
		}
		if (first == (size_t)-1) {
			first = i;
			continue;
		}
		if (!same(sh->base, shards[first].base))
			fail("%s: base is not the base of %s: %s against %s", sh->file, shards[first].file, sh->base, shards[first].base);
		if (!same(sh->head, shards[first].head))
			fail("%s: head is not the head of %s: %s against %s", sh->file, shards[first].file, sh->head, shards[first].head);
		if (!same(sh->budget, shards[first].budget))
			fail("%s: judged by another budget than %s (budget_sha256 %s against %s)", sh->file,
			    shards[first].file, sh->budget, shards[first].budget);
	}
	for (i = 0; i < nshards; i++)
		for (j = 0; j < i; j++)
			if (strcmp(shards[i].file, shards[j].file) == 0) {
				fail("%s: given twice", shards[i].file);
				break;
			}
	for (i = 0; i < nrows; i++)
		for (j = 0; j < i; j++)
			if (rows[i].metric->rawlen == rows[j].metric->rawlen &&
			    memcmp(rows[i].metric->raw, rows[j].metric->raw, rows[i].metric->rawlen) == 0) {
				fail("%s:%lu: metric %.*s also in %s:%lu: the shards overlap",
				    shards[rows[i].shard].file, rows[i].lineno, (int)rows[i].metric->rawlen,
				    rows[i].metric->raw, shards[rows[j].shard].file, rows[j].lineno);
				break;
			}
	/* One rule: the paired ratios' confidence is the same in every row. */
	for (i = 1; i < nrows; i++) {
		const struct jfield *a = jget(&rows[i].rec, "confidence", 10), *b = jget(&rows[0].rec, "confidence", 10);

		if ((a == NULL) != (b == NULL) || (a && (a->rawlen != b->rawlen || memcmp(a->raw, b->raw, a->rawlen) != 0))) {
			fail("%s:%lu: judged at another confidence than %s:%lu", shards[rows[i].shard].file,
			    rows[i].lineno, shards[rows[0].shard].file, rows[0].lineno);
			break;
		}
	}
	if (want > 0 && (size_t)want != nshards)
		fail("%zu shard%s given, %ld expected", nshards, nshards == 1 ? "" : "s", want);
	for (i = 0; i < nshards; i++) {
		if (shards[i].id == NULL)
			continue;
		if (sscanf(shards[i].id, "%ld/%ld", &idx, &of) != 2 || of < 1 || idx < 1 || idx > of) {
			fail("%s: \"shard\" is not i/n: %s", shards[i].file, shards[i].id);
			continue;
		}
		if (ofall < 0) {
			ofall = of;
			seen = calloc((size_t)of + 1, 1);
			if (seen == NULL)
				die("calloc:");
		}
		if (of != ofall)
			fail("%s: shard %s of a split into %ld", shards[i].file, shards[i].id, ofall);
		else if (seen[idx]++)
			fail("%s: shard %s given twice", shards[i].file, shards[i].id);
	}
	for (idx = 1; seen && idx <= ofall; idx++)
		if (!seen[idx]) {
			fail("shard %ld/%ld is missing", idx, ofall);
			break;
		}
	free(seen);
}

static int
isverdict(const struct row *r, const char *v)
{
	return r->verdict && r->verdict->type == J_STRING && r->verdict->rawlen == strlen(v) &&
	    memcmp(r->verdict->raw, v, r->verdict->rawlen) == 0;
}

static int
isregressed(const struct row *r)
{
	return isverdict(r, "regressed");
}

/* The summary: the verdict of all shards as one, with the identities they share. */
static void
summary(int nreg)
{
	const struct shard *sh = NULL;
	struct jwriter w;
	size_t i;

	for (i = 0; i < nshards && sh == NULL; i++)
		if (shards[i].base && shards[i].head && shards[i].budget)
			sh = &shards[i];
	jw_begin(&w, stdout);
	jw_str(&w, "verdict", nerrs ? "error" : nreg ? "regressed" : "ok");
	/* The names, the identities and the digest pass through as the shards wrote them. */
	jw_open(&w, "regressed", '[');
	for (i = 0; i < nrows; i++)
		if (isregressed(&rows[i]))
			jw_rawstr(&w, NULL, rows[i].metric->raw, rows[i].metric->rawlen);
	jw_close(&w);
	jw_long(&w, "metrics", (long long)nrows);
	jw_long(&w, "shards", (long long)nshards);
	if (nerrs)
		jw_str(&w, "error", errs[0]);
	jw_open(&w, "improved", '[');
	for (i = 0; i < nrows; i++)
		if (isverdict(&rows[i], "improved"))
			jw_rawstr(&w, NULL, rows[i].metric->raw, rows[i].metric->rawlen);
	jw_close(&w);
	if (sh != NULL && !nerrs) {
		jw_raw(&w, "base", sh->base, strlen(sh->base));
		jw_raw(&w, "head", sh->head, strlen(sh->head));
		jw_rawstr(&w, "budget_sha256", sh->budget, strlen(sh->budget));
	}
	jw_str(&w, "perfgate_version", perfgate_version());
	jw_end(&w);
}

/*
 * The table: cmpbudget's own (report.c), from the rows' records, so that a
 * merged verdict reads as one shard's does.
 */
static struct budget_entry *entries;
static struct result *results;
static double confidence = 0.95;

static int
num(const struct jrecord *rec, const char *key, double *v)
{
	const struct jfield *f = jget(rec, key, strlen(key));

	if (f == NULL || f->type != J_NUMBER)
		return 0;
	*v = f->num;
	return 1;
}

/* The index of a record's string member in names[0..n), or def. */
static int
named(const struct jrecord *rec, const char *key, const char *const *names, int n, int def)
{
	const struct jfield *f = jget(rec, key, strlen(key));
	int i;

	if (f == NULL || f->type != J_STRING)
		return def;
	for (i = 0; i < n; i++)
		if (names[i] != NULL && strlen(names[i]) == f->rawlen && memcmp(names[i], f->raw, f->rawlen) == 0)
			return i;
	return def;
}

static void
torows(void)
{
	const struct jfield *f;
	struct result *r;
	double v;
	size_t i;

	entries = xmalloc((nrows ? nrows : 1) * sizeof *entries);
	results = xmalloc((nrows ? nrows : 1) * sizeof *results);
	memset(results, 0, (nrows ? nrows : 1) * sizeof *results);
	for (i = 0; i < nrows; i++) {
		const struct jrecord *rec = &rows[i].rec;

		r = &results[i];
		memset(&entries[i], 0, sizeof entries[i]);
		entries[i].name = xmalloc(rows[i].metric->rawlen + 1);
		memcpy(entries[i].name, rows[i].metric->raw, rows[i].metric->rawlen);
		entries[i].name[rows[i].metric->rawlen] = '\0';
		num(rec, "budget", &entries[i].budget);
		entries[i].better = named(rec, "better", (const char *const[]){ "lower", "higher" }, 2, 0) ?
		    BETTER_HIGHER : BETTER_LOWER;
		r->e = &entries[i];
		f = jget(rec, "base", 4);
		r->base = f && f->type == J_NUMBER ? f : NULL;
		f = jget(rec, "head", 4);
		r->head = f && f->type == J_NUMBER ? f : NULL;
		r->hasdelta = num(rec, "delta", &r->deltav);
		r->verdict = (enum verdict)named(rec, "verdict", verdict_name, 4, V_ERROR);
		r->hasratio = num(rec, "ratio", &r->ratio);
		r->hasinterval = r->hasratio && num(rec, "ratio_lo", &r->lo) && num(rec, "ratio_hi", &r->hi);
		if (num(rec, "rounds", &v))
			r->rounds = (size_t)v;
		num(rec, "floor", &r->floor);
		r->outcome = (enum outcome)named(rec, "outcome", outcome_name, 5, O_NONE);
		if (i == 0)
			num(rec, "confidence", &confidence);
	}
}

int
main(int argc, char *argv[])
{
	const char *mdfile = NULL, *why;
	struct report rp;
	char *msg;
	long want = 0;
	size_t i;
	int c, nreg = 0, status;

	tool_begin(argc, argv);
	while ((c = getopt(argc, argv, ":m:n:")) != -1) {
		switch (c) {
		case 'm':
			mdfile = optarg;
			break;
		case 'n':
			if ((why = parse_long(optarg, 1, 1000000, &want)) != NULL) {
				warnmsg("-n %s: %s", optarg, why);
				usage();
			}
			break;
		default:
			optionerror(c);
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0)
		usage();
	nshards = (size_t)argc;
	shards = xmalloc(nshards * sizeof *shards);
	memset(shards, 0, nshards * sizeof *shards);
	for (i = 0; i < nshards; i++) {
		shards[i].file = argv[i];
		readshard(i);
	}
	consistent(want);
	for (i = 0; i < nrows; i++)
		nreg += isregressed(&rows[i]);
	/* The records pass through as they were read; only the summary is new. */
	for (i = 0; i < nrows; i++)
		puts(rows[i].line);
	torows();
	rp.res = results;
	rp.n = nrows;
	rp.confidence = confidence;
	rp.error = nerrs ? errs[0] : NULL;
	if (mdfile != NULL && (msg = report_markdown(mdfile, &rp)) != NULL)
		fail("%s", msg);
	summary(nreg);
	if (nrows > 0)
		report_table(stderr, &rp);
	for (i = 0; i < nerrs; i++)
		warnmsg("%s", errs[i]);
	status = nerrs ? 2 : nreg ? 1 : 0;
	if (fshut(stdout, "stdout") != 0)
		status = 2;
	return status;
}
