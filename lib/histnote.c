/*
 * histnote: a history record, written from a gate's verdict records and
 * read back from a note. One line, one machine, one commit against its
 * first parent: the paired ratios chain along the first-parent path.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "histnote.h"
#include "json.h"
#include "jsonvalue.h"
#include "jsonwrite.h"
#include "util.h"

/* The record's own mark, and its version: a line without it is not ours. */
#define HNOTE_MARK "perfgate_history"

/* The members of a verdict record a history record keeps, in this order. */
static const char *const kept[] = { "ratio", "ratio_lo", "ratio_hi", "rounds", "verdict", "budget",
    "better", "base", "head" };

/* A member copied as it was written: a string keeps its quotes. */
static void
copy(struct jwriter *w, const struct jfield *f)
{
	char *key;

	if (f->type != J_STRING) {
		jw_field(w, f);
		return;
	}
	key = xmemdup(f->key, f->keylen);
	jw_rawstr(w, key, f->raw, f->rawlen);
	free(key);
}

static const char *
nextline(const char **p, const char *end, size_t *len)
{
	const char *s = *p, *nl;

	if (s >= end)
		return NULL;
	nl = memchr(s, '\n', (size_t)(end - s));
	if (nl == NULL)
		nl = end;
	*len = (size_t)(nl - s);
	*p = nl < end ? nl + 1 : end;
	return s;
}

const char *
hnote_write(FILE *fp, const char *out, size_t len, const char *commit, const char *parent,
    const char *machine, const char *desc, const char *when)
{
	struct jrecord rec = { 0 }, sum = { 0 };
	struct jwriter w;
	const struct jfield *f, *v;
	const char *p = out, *end = out + len, *line, *why = NULL;
	const char *sumline = NULL;
	size_t n, sumlen = 0, i;
	int metrics = 0;

	/* The summary is the last record: the one without "metric". */
	while ((line = nextline(&p, end, &n)) != NULL) {
		if (jblank(line, n))
			continue;
		if (jparse(line, n, &rec) != NULL)
			continue;
		if (jget(&rec, "metric", 6) == NULL) {
			sumline = line;
			sumlen = n;
		}
	}
	if (sumline == NULL || jparse(sumline, sumlen, &sum) != NULL) {
		why = "the gate gave no summary record";
		goto done;
	}
	v = jget(&sum, "verdict", 7);
	if (v == NULL || v->type != J_STRING) {
		why = "the gate's summary has no verdict";
		goto done;
	}
	if (v->rawlen == 5 && memcmp(v->raw, "error", 5) == 0) {
		why = "the gate ended in an error: nothing to record";
		goto done;
	}
	jw_begin(&w, fp);
	jw_long(&w, HNOTE_MARK, 1);
	jw_str(&w, "commit", commit);
	jw_str(&w, "parent", parent);
	jw_str(&w, "machine", machine);
	jw_str(&w, "machine_desc", desc);
	jw_str(&w, "recorded", when);
	copy(&w, v);
	jw_open(&w, "metrics", '[');
	for (p = out; (line = nextline(&p, end, &n)) != NULL;) {
		if (jblank(line, n) || jparse(line, n, &rec) != NULL || (f = jget(&rec, "metric", 6)) == NULL)
			continue;
		jw_open(&w, NULL, '{');
		copy(&w, f);
		for (i = 0; i < sizeof kept / sizeof kept[0]; i++)
			if ((f = jget(&rec, kept[i], strlen(kept[i]))) != NULL)
				copy(&w, f);
		jw_close(&w);
		metrics++;
	}
	jw_close(&w);
	if ((f = jget(&sum, "base", 4)) != NULL && f->type == J_OBJECT)
		copy(&w, f);
	if ((f = jget(&sum, "head", 4)) != NULL && f->type == J_OBJECT)
		copy(&w, f);
	if ((f = jget(&sum, "budget", 6)) != NULL && f->type == J_STRING)
		copy(&w, f);
	if ((f = jget(&sum, "budget_sha256", 13)) != NULL)
		copy(&w, f);
	if (jw_end(&w) != 0)
		why = "cannot write the record";
	else if (metrics == 0)
		why = "the gate gave no metric's record";
done:
	jrecord_free(&rec);
	jrecord_free(&sum);
	return why;
}

static char *
strof(const struct jrecord *rec, const char *key)
{
	const struct jfield *f = jget(rec, key, strlen(key));

	return f != NULL && f->type == J_STRING ? xmemdup(f->raw, f->rawlen) : NULL;
}

static int
numof(const struct jrecord *rec, const char *key, double *v)
{
	const struct jfield *f = jget(rec, key, strlen(key));

	if (f == NULL || f->type != J_NUMBER || !isfinite(f->num))
		return 0;
	*v = f->num;
	return 1;
}

/* A commit's name as git writes it: 40 or 64 lowercase hex digits. */
static int
ishash(const char *s)
{
	size_t n = s != NULL ? strspn(s, "0123456789abcdef") : 0;

	return s != NULL && s[n] == '\0' && (n == 40 || n == 64);
}

const char *
hmetric_parse(const char *raw, size_t len, struct hmetric *m)
{
	struct jrecord rec = { 0 };
	const char *why;
	const struct jfield *f;
	double r;

	memset(m, 0, sizeof *m);
	m->rounds = -1;
	if ((why = jparse(raw, len, &rec)) != NULL)
		goto done;
	if ((m->name = strof(&rec, "metric")) == NULL || m->name[0] == '\0') {
		why = "a metric without a name";
		goto done;
	}
	m->have_ratio = numof(&rec, "ratio", &m->ratio) && m->ratio > 0;
	m->have_interval = m->have_ratio && numof(&rec, "ratio_lo", &m->lo) && numof(&rec, "ratio_hi", &m->hi) &&
	    m->lo > 0 && m->lo <= m->ratio && m->ratio <= m->hi;
	m->have_abs = numof(&rec, "base", &m->base) && numof(&rec, "head", &m->head);
	if (numof(&rec, "rounds", &r))
		m->rounds = (long)r;
	numof(&rec, "budget", &m->budget);
	if ((f = jget(&rec, "verdict", 7)) != NULL && f->type == J_STRING && f->rawlen < sizeof m->verdict)
		memcpy(m->verdict, f->raw, f->rawlen);
	if ((f = jget(&rec, "better", 6)) != NULL && f->type == J_STRING)
		m->higher = f->rawlen == 6 && memcmp(f->raw, "higher", 6) == 0;
	/* A count has no rounds and no interval: exact, its ratio is head / base. */
	if (!m->have_ratio && m->have_abs && m->base > 0 && m->head > 0) {
		m->ratio = m->lo = m->hi = m->head / m->base;
		m->have_ratio = m->have_interval = 1;
	}
done:
	/* A metric refused holds nothing of its own. */
	if (why != NULL) {
		free(m->name);
		m->name = NULL;
	}
	jrecord_free(&rec);
	return why;
}

const char *
hrec_parse(const char *line, size_t len, struct hrec *r)
{
	struct jrecord rec = { 0 };
	const struct jfield *f, *mark;
	const char *why = NULL, *p, *end, *item;
	size_t n;

	memset(r, 0, sizeof *r);
	if ((why = jparse(line, len, &rec)) != NULL)
		goto done;
	mark = jget(&rec, HNOTE_MARK, strlen(HNOTE_MARK));
	if (mark == NULL) {
		why = "not a record of perfgate's";
		goto done;
	}
	if (mark->type != J_NUMBER || mark->num != 1) {
		why = "a record of another version of perfgate";
		goto done;
	}
	r->commit = strof(&rec, "commit");
	r->parent = strof(&rec, "parent");
	r->machine = strof(&rec, "machine");
	r->recorded = strof(&rec, "recorded");
	r->verdict = strof(&rec, "verdict");
	r->budget = strof(&rec, "budget");
	if (!ishash(r->commit) || !ishash(r->parent)) {
		why = "its commit or parent is not a commit's name";
		goto done;
	}
	if (r->machine == NULL || r->machine[0] == '\0' || r->recorded == NULL || r->verdict == NULL) {
		why = "it lacks the machine, the time or the verdict";
		goto done;
	}
	f = jget(&rec, "metrics", 7);
	if (f == NULL || f->type != J_ARRAY) {
		why = "it has no metrics";
		goto done;
	}
	p = f->raw + 1;
	end = f->raw + f->rawlen - 1;
	while (json_nextitem(&p, end, &item, &n)) {
		r->m = xrealloc(r->m, (r->nm + 1) * sizeof *r->m);
		if ((why = hmetric_parse(item, n, &r->m[r->nm])) != NULL) {
			free(r->m[r->nm].name);
			goto done;
		}
		r->nm++;
	}
done:
	jrecord_free(&rec);
	if (why != NULL)
		hrec_free(r);
	return why;
}

void
hrec_free(struct hrec *r)
{
	size_t i;

	for (i = 0; i < r->nm; i++)
		free(r->m[i].name);
	free(r->m);
	free(r->commit);
	free(r->parent);
	free(r->machine);
	free(r->recorded);
	free(r->verdict);
	free(r->budget);
	memset(r, 0, sizeof *r);
}

const struct hmetric *
hrec_metric(const struct hrec *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nm; i++)
		if (strcmp(r->m[i].name, name) == 0)
			return &r->m[i];
	return NULL;
}
