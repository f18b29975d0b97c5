/*
 * countjudge: countof's judgments (countjudge.h): two sides' counts against the
 * budget file's [counts] section (read by budget.c, as cmpbudget reads
 * the rest), and a time verdict joined to a counts verdict, with the time
 * regressions that moved no instruction named.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "countjudge.h"
#include "jsonl.h"
#include "stats.h"
#include "util.h"

/* A record kept with its line, which its fields point into. */
struct kept {
	char *line;
	struct jrecord rec;
	const char *file;
	unsigned long lineno;
};

static struct budget budgets;
static char *firsterr;

/* Keep the first reason the verdict cannot be decided; say every one. */
static void
cfail(const char *fmt, ...)
{
	va_list ap;
	char msg[1024];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	warnmsg("%s", msg);
	if (firsterr == NULL)
		firsterr = xstrdup(msg);
}

static int
endswith(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/* A metric's budget: the [counts] section's, else the default of its suffix; -1 for none. */
static double
budget_of(const char *key, size_t len)
{
	const struct budget_entry *e = budget_find(&budgets, key, len);

	if (e != NULL && e->count)
		return e->budget;
	return budget_count_default(key, len);
}

/* Read every line of path as a record into *recs. Returns 0 or -1. */
static int
read_all(const char *path, struct kept **recs, size_t *n)
{
	struct jreader r;
	const char *line, *why;
	size_t len;
	int got;

	if (jreader_open(&r, path) != 0) {
		cfail("%s: %s", path, strerror(errno));
		return -1;
	}
	while ((got = jreader_next(&r, &line, &len)) == 1) {
		struct kept *k;

		*recs = xrealloc(*recs, (*n + 1) * sizeof **recs);
		k = &(*recs)[*n];
		memset(k, 0, sizeof *k);
		k->line = xmemdup(line, len);
		k->file = r.name;
		k->lineno = r.lineno;
		(*n)++;
		if ((why = jparse(k->line, len, &k->rec)) != NULL) {
			cfail("%s:%lu: %s", r.name, r.lineno, why);
			jreader_close(&r);
			return -1;
		}
	}
	if (got < 0)
		cfail("%s: %s", r.name, strerror(errno));
	jreader_close(&r);
	return got < 0 ? -1 : 0;
}

static void
free_all(struct kept *recs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(recs[i].line);
		jrecord_free(&recs[i].rec);
	}
	free(recs);
}

/* The string value of member key of r, or NULL. */
static const struct jfield *
member(const struct jrecord *r, const char *key, enum jtype type)
{
	const struct jfield *f = jget(r, key, strlen(key));

	return f != NULL && f->type == type ? f : NULL;
}

/* The summary: verdict, regressed, metrics, and the error if any. */
static void
put_summary(const char *verdict, char **names, size_t nreg, size_t metrics)
{
	struct jwriter w;
	size_t i;

	jw_begin(&w, stdout);
	jw_str(&w, "verdict", verdict);
	/* The names are keys as read: their escapes pass through as written. */
	jw_open(&w, "regressed", '[');
	for (i = 0; i < nreg; i++)
		jw_rawstr(&w, NULL, names[i], strlen(names[i]));
	jw_close(&w);
	jw_long(&w, "metrics", (long long)metrics);
	jw_str(&w, "mode", "counts");
	if (firsterr != NULL)
		jw_str(&w, "error", firsterr);
	jw_end(&w);
}

int
counts_judge(const char *budget, char **files, int nfiles)
{
	static char *stdinonly[] = { "-", NULL };
	struct kept *recs = NULL, *side[2] = { NULL, NULL };
	static const char *sidename[2] = { "base", "head" };
	char **regnames = NULL, t[32], *msg;
	struct jwriter w;
	size_t n = 0, i, j, nreg = 0, metrics = 0;
	int s, rc;

	if (nfiles == 0) {
		files = stdinonly;
		nfiles = 1;
	}
	if ((msg = budget_load(&budgets, budget)) != NULL) {
		cfail("%s", msg);
		free(msg);
	}
	for (i = 0; i < (size_t)nfiles && firsterr == NULL; i++)
		read_all(files[i], &recs, &n);
	for (i = 0; i < n && firsterr == NULL; i++) {
		const struct jfield *f = member(&recs[i].rec, "side", J_STRING);

		if (f == NULL) {
			cfail("%s:%lu: no \"side\" string", recs[i].file, recs[i].lineno);
			break;
		}
		for (s = 0; s < 2; s++)
			if (memeq_str(f->raw, f->rawlen, sidename[s])) {
				if (side[s] != NULL)
					cfail("%s:%lu: a second record of side %s", recs[i].file, recs[i].lineno, sidename[s]);
				side[s] = &recs[i];
			}
	}
	for (s = 0; s < 2 && firsterr == NULL; s++)
		if (side[s] == NULL)
			cfail("no record of side %s", sidename[s]);
	if (firsterr == NULL) {
		/* Every budgeted metric, and every metric of head, must be on both sides. */
		for (i = 0; i < budgets.ncount; i++)
			for (s = 0; s < 2; s++)
				if (jget(&side[s]->rec, budgets.count[i].name, strlen(budgets.count[i].name)) == NULL)
					cfail("%s: budgeted metric %s missing", sidename[s], budgets.count[i].name);
		for (s = 0; s < 2; s++)
			for (i = 0; i < side[s]->rec.n; i++) {
				const struct jfield *f = &side[s]->rec.field[i];

				if (!jfield_is(f, "side") && jget(&side[!s]->rec, f->key, f->keylen) == NULL)
					cfail("%s: metric %.*s missing", sidename[!s], (int)f->keylen, f->key);
			}
	}
	if (firsterr == NULL)
		fprintf(stderr, "%-24s %14s %14s %8s %8s  %s\n", "metric", "base", "head", "Δ %", "budget %", "verdict");
	for (i = 0; firsterr == NULL && i < side[0]->rec.n; i++) {
		const struct jfield *bf = &side[0]->rec.field[i], *hf;
		double bud = budget_of(bf->key, bf->keylen), delta = 0;
		const char *verdict;

		if (memeq_str(bf->key, bf->keylen, "side") || bud < 0)
			continue;
		hf = jget(&side[1]->rec, bf->key, bf->keylen);
		if (hf == NULL) {
			cfail("head: metric %.*s missing", (int)bf->keylen, bf->key);
			break;
		}
		if (bf->type != J_NUMBER || hf->type != J_NUMBER || bf->num < 0 || hf->num < 0) {
			cfail("%.*s: not a count on both sides", (int)bf->keylen, bf->key);
			break;
		}
		metrics++;
		/* The budget rule, which holds at base 0 too: 0 may only stay 0. */
		verdict = regressed(bf->num, hf->num, bud) ? "regressed" : "ok";
		jw_begin(&w, stdout);
		jw_rawstr(&w, "metric", bf->key, bf->keylen);
		jw_raw(&w, "base", bf->raw, bf->rawlen);
		jw_raw(&w, "head", hf->raw, hf->rawlen);
		/* From 0 to more has no ratio: null, as a ratio beyond a double is. */
		if (bf->num > 0)
			jw_num(&w, "delta", delta = hf->num / bf->num - 1);
		else if (hf->num > 0)
			jw_null(&w, "delta");
		else
			jw_long(&w, "delta", 0);
		jw_num(&w, "budget", bud);
		jw_str(&w, "verdict", verdict);
		jw_end(&w);
		if (bf->num > 0)
			snprintf(t, sizeof t, "%+.1f", delta * 100);
		else
			snprintf(t, sizeof t, "%s", hf->num > 0 ? "from 0" : "+0.0");
		fprintf(stderr, "%-24.*s %14.*s %14.*s %8s %8g  %s\n", (int)bf->keylen, bf->key,
		    (int)bf->rawlen, bf->raw, (int)hf->rawlen, hf->raw, t, bud * 100, verdict);
		if (strcmp(verdict, "regressed") == 0) {
			regnames = xrealloc(regnames, (nreg + 1) * sizeof *regnames);
			regnames[nreg++] = xmemdup(bf->key, bf->keylen);
		}
	}
	put_summary(firsterr != NULL ? "error" : nreg > 0 ? "regressed" : "ok", regnames, nreg, metrics);
	rc = fshut(stdout, "stdout");
	if (rc == 0)
		rc = firsterr != NULL ? 2 : nreg > 0 ? 1 : 0;
	for (j = 0; j < nreg; j++)
		free(regnames[j]);
	free(regnames);
	free_all(recs, n);
	budget_free(&budgets);
	free(firsterr);
	return rc;
}

/* The metric records of a verdict file, and its summary, the last line. */
static int
read_verdict(const char *path, struct kept **recs, size_t *n, struct kept **summary)
{
	if (read_all(path, recs, n) != 0)
		return -1;
	if (*n == 0 || member(&(*recs)[*n - 1].rec, "verdict", J_STRING) == NULL ||
	    member(&(*recs)[*n - 1].rec, "metric", J_STRING) != NULL) {
		cfail("%s: no summary record last", path);
		return -1;
	}
	*summary = &(*recs)[*n - 1];
	(*n)--;
	return 0;
}

static int
isverdict(const struct kept *k, const char *verdict)
{
	const struct jfield *f = member(&k->rec, "verdict", J_STRING);

	return f != NULL && memeq_str(f->raw, f->rawlen, verdict);
}

/* The names of recs whose verdict is "regressed", as items of w's array. */
static void
put_regressed(struct jwriter *w, const struct kept *recs, size_t n)
{
	const struct jfield *m;
	size_t i;

	for (i = 0; i < n; i++)
		if (isverdict(&recs[i], "regressed") && (m = member(&recs[i].rec, "metric", J_STRING)) != NULL)
			jw_rawstr(w, NULL, m->raw, m->rawlen);
}

/*
 * Whether the counts record of metric key moved by at most eps: 1 when it
 * did, or when there is none and key is not an _instr metric (misses are
 * there with countof -c only); *delta is its delta member.
 */
static int
unmoved(const struct kept *c, size_t nc, const char *key, double eps, const struct jfield **delta)
{
	const struct jfield *cm, *d, *b, *h;
	size_t j;

	for (j = 0; j < nc; j++) {
		cm = member(&c[j].rec, "metric", J_STRING);
		if (cm == NULL || !memeq_str(cm->raw, cm->rawlen, key))
			continue;
		d = member(&c[j].rec, "delta", J_NUMBER);
		b = member(&c[j].rec, "base", J_NUMBER);
		h = member(&c[j].rec, "head", J_NUMBER);
		if (delta != NULL)
			*delta = d;
		/* A delta of null: from 0 to more. */
		if (d == NULL)
			return b != NULL && h != NULL && b->num == 0 && h->num == 0;
		return fabs(d->num) <= eps;
	}
	return !endswith(key, strlen(key), "_instr");
}

int
counts_layout(const char *timefile, const char *countsfile, double eps)
{
	struct kept *t = NULL, *c = NULL, *ts = NULL, *cs = NULL;
	size_t nt = 0, nc = 0, i;
	struct jwriter w;
	const char *verdict;
	char key[256], key2[256], key3[256];
	int rc;

	if (read_verdict(timefile, &t, &nt, &ts) == 0)
		read_verdict(countsfile, &c, &nc, &cs);
	if (firsterr != NULL) {
		put_summary("error", NULL, 0, 0);
		free_all(t, nt + (ts != NULL));
		free_all(c, nc + (cs != NULL));
		free(firsterr);
		return 2;
	}
	for (i = 0; i < nt; i++)
		puts(t[i].line);
	for (i = 0; i < nc; i++)
		puts(c[i].line);
	if (isverdict(ts, "error") || isverdict(cs, "error"))
		verdict = "error";
	else if (isverdict(ts, "regressed") || isverdict(cs, "regressed"))
		verdict = "regressed";
	else
		verdict = "ok";
	jw_begin(&w, stdout);
	jw_str(&w, "verdict", verdict);
	jw_open(&w, "regressed", '[');
	put_regressed(&w, t, nt);
	put_regressed(&w, c, nc);
	jw_close(&w);
	jw_open(&w, "layout_suspect", '[');
	/* A time metric m_ns that regressed while m_instr moved by eps at most. */
	for (i = 0; i < nt; i++) {
		const struct jfield *m = member(&t[i].rec, "metric", J_STRING), *d = NULL;
		size_t len;

		if (m == NULL || !isverdict(&t[i], "regressed"))
			continue;
		len = m->rawlen;
		if (endswith(m->raw, len, "_ns"))
			len -= 3;
		snprintf(key, sizeof key, "%.*s_instr", (int)len, m->raw);
		if (!unmoved(c, nc, key, eps, &d))
			continue;
		snprintf(key2, sizeof key2, "%.*s_l1_misses", (int)len, m->raw);
		snprintf(key3, sizeof key3, "%.*s_ll_misses", (int)len, m->raw);
		if (!unmoved(c, nc, key2, eps, NULL) || !unmoved(c, nc, key3, eps, NULL))
			continue;
		jw_rawstr(&w, NULL, m->raw, m->rawlen);
		fprintf(stderr, "%s: %.*s regressed while %s moved by %.*s: layout suspect: no more "
		    "work, so code layout, noise or memory access is to blame\n", argv0, (int)m->rawlen, m->raw, key,
		    d != NULL ? (int)d->rawlen : 1, d != NULL ? d->raw : "0");
	}
	jw_close(&w);
	jw_long(&w, "metrics", (long long)(nt + nc));
	jw_raw(&w, "time", ts->line, strlen(ts->line));
	jw_raw(&w, "counts", cs->line, strlen(cs->line));
	jw_end(&w);
	rc = fshut(stdout, "stdout");
	if (rc == 0)
		rc = strcmp(verdict, "error") == 0 ? 2 : strcmp(verdict, "regressed") == 0 ? 1 : 0;
	free_all(t, nt + 1);
	free_all(c, nc + 1);
	return rc;
}
