/*
 * harness_gotest: the text of go test -bench into a metric set
 * (harness.h). A result line is the benchmark's name (sub-benchmarks'
 * path and the -cpu suffix included: BenchmarkSort/n=64-8), its
 * iterations, then pairs of a value and a unit: ns/op, B/op, allocs/op,
 * and whatever b.ReportMetric adds. With -count N a name comes N times;
 * its best is kept. A FAIL or panic line is the run's failure.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "harness.h"
#include "jsonnum.h"
#include "msg.h"
#include "util.h"

/* The next blank-separated word of [*p, end), or 0 at the end. */
static size_t
word(const char **p, const char *end, const char **w)
{
	const char *s = *p;

	while (s < end && (*s == ' ' || *s == '\t' || *s == '\r'))
		s++;
	*w = s;
	while (s < end && *s != ' ' && *s != '\t' && *s != '\r')
		s++;
	*p = s;
	return (size_t)(s - *w);
}

static int
starts(const char *line, size_t len, const char *s)
{
	size_t n = strlen(s);

	return len >= n && memcmp(line, s, n) == 0;
}

/* A unit as a key's unit: ns/op is "ns", any other '/' is "_per_" (B/op: B_per_op). */
static char *
unit_key(const char *u, size_t len)
{
	struct buf b = { 0 };
	char *stem;
	size_t i;

	if (memeq_str(u, len, "ns/op"))
		return xstrdup("ns");
	buf_puts(&b, "");
	for (i = 0; i < len; i++)
		if (u[i] == '/')
			buf_puts(&b, "_per_");
		else
			buf_add(&b, &u[i], 1);
	stem = harness_stem(b.p, b.n);
	free(b.p);
	return stem;
}

/* One result line; not one (a log line that starts "Benchmark"): NULL, nothing added. */
static char *
result(struct hset *s, const char *pkg, const char *line, const char *end, unsigned long lineno, int *n)
{
	const char *p = line, *name, *w, *v, *q;
	size_t namelen, wlen, vlen, i;
	char *unit, *who, *err = NULL, *pn, *pu;
	double x;

	namelen = word(&p, end, &name);
	/* A name alone: go test's line before a benchmark's log lines. */
	if ((wlen = word(&p, end, &w)) == 0)
		return NULL;
	/* The iterations: digits only (the text need not end in NUL: no strspn). */
	for (i = 0; i < wlen; i++)
		if (w[i] < '0' || w[i] > '9') {
			/* Words after a blank of the name, then a result: said, not dropped. */
			for (q = w; q + 6 <= end && memcmp(q, " ns/op", 6) != 0 && memcmp(q, "\tns/op", 6) != 0; q++)
				;
			if (q + 6 > end)
				return NULL;
			pn = harness_printable(name, (size_t)(end - name) > 80 ? 80 : (size_t)(end - name));
			err = msgf("%s:%lu: %s: a result whose name holds a blank (go test writes one as _)",
			    s->file, lineno, pn);
			free(pn);
			return err;
		}
	q = p;
	if (word(&q, end, &v) == 0) {
		pn = harness_printable(name, namelen);
		err = msgf("%s:%lu: \"%s\": a result cut short: its iterations and no value", s->file, lineno, pn);
		free(pn);
		return err;
	}
	if (!hset_wants(s, name, namelen))
		return NULL;
	while (err == NULL && (vlen = word(&p, end, &v)) > 0) {
		if ((wlen = word(&p, end, &w)) == 0)
			return msgf("%s:%lu: a value without a unit", s->file, lineno);
		q = v;
		if (jnum_parse(&q, v + vlen, &x) != NULL || q != v + vlen) {
			char num[64], *e;

			/* Not JSON as written (+Inf, NaN, 1e+400): read, and judged by hset_add. */
			snprintf(num, sizeof num, "%.*s", vlen < 63 ? (int)vlen : 63, v);
			x = strtod(num, &e);
			if (vlen > 63 || e != num + vlen) {
				pn = harness_printable(v, vlen > 64 ? 64 : vlen);
				err = msgf("%s:%lu: %s: not a number", s->file, lineno, pn);
				free(pn);
				return err;
			}
			v = NULL;
		}
		if ((unit = unit_key(w, wlen)) == NULL) {
			pu = harness_printable(w, wlen > 64 ? 64 : wlen);
			err = msgf("%s:%lu: unit %s has no letter or digit", s->file, lineno, pu);
			free(pu);
			return err;
		}
		pn = harness_printable(name, namelen);
		pu = harness_printable(w, wlen);
		who = msgf("%s%s\"%s\" %s", pkg != NULL ? pkg : "", pkg != NULL ? ": " : "", pn, pu);
		free(pn);
		free(pu);
		err = hset_add(s, name, namelen, unit, who, v, vlen, x, lineno);
		free(who);
		free(unit);
	}
	(*n)++;
	return err;
}

static int
is_failure(const char *line, size_t n)
{
	return starts(line, n, "--- FAIL") || starts(line, n, "FAIL") || starts(line, n, "panic:");
}

char *
harness_gotest_failure(const char *file, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *eol, *q, *qe;
	unsigned long lineno = 0;
	char *l, *why, *m;
	size_t n;

	for (; p < end; p = eol < end ? eol + 1 : end) {
		if ((eol = memchr(p, '\n', (size_t)(end - p))) == NULL)
			eol = end;
		n = (size_t)(eol - p);
		lineno++;
		if (!is_failure(p, n))
			continue;
		/* The reason, b.Fatal's line, comes indented on the next line. */
		q = eol < end ? eol + 1 : end;
		if ((qe = memchr(q, '\n', (size_t)(end - q))) == NULL)
			qe = end;
		l = harness_printable(p, n > 200 ? 200 : n);
		if (q < qe && (*q == ' ' || *q == '\t')) {
			while (q < qe && (*q == ' ' || *q == '\t'))
				q++;
			why = harness_printable(q, qe - q > 200 ? 200 : (size_t)(qe - q));
			m = msgf("%s:%lu: %s: %s", file, lineno, l, why);
			free(why);
		} else
			m = msgf("%s:%lu: %s", file, lineno, l);
		free(l);
		return m;
	}
	return NULL;
}

char *
harness_gotest(struct hset *s, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *line, *eol;
	char *pkg = NULL, *err = NULL;
	unsigned long lineno = 0;
	size_t n;
	int results = 0;

	if ((err = harness_gotest_failure(s->file, text, len)) != NULL)
		return err;
	for (; p < end && err == NULL; p = eol < end ? eol + 1 : end) {
		line = p;
		eol = memchr(p, '\n', (size_t)(end - p));
		if (eol == NULL)
			eol = end;
		n = (size_t)(eol - line);
		lineno++;
		if (starts(line, n, "pkg: ")) {
			free(pkg);
			pkg = harness_printable(line + 5, n - 5 - (n > 5 && line[n - 1] == '\r'));
		} else if (starts(line, n, "Benchmark")) {
			err = result(s, pkg, line, eol, lineno, &results);
		}
	}
	if (err == NULL && results == 0)
		err = msgf("%s:%lu: no benchmark results (does -bench select any?)", s->file, lineno ? lineno : 1);
	free(pkg);
	return err;
}
