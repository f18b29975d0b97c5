/*
 * harness: the metric set, the naming rule, the filter and the document
 * reader that every harness module shares (harness.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "harness.h"
#include "jsonl.h"
#include "jsonnum.h"
#include "msg.h"
#include "names.h"
#include "util.h"

static int
isalnum_ascii(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

char *
harness_stem(const char *name, size_t len)
{
	struct buf b = { 0 };
	int gap = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		if (!isalnum_ascii((unsigned char)name[i])) {
			gap = 1;
			continue;
		}
		if (gap && b.n > 0)
			buf_add(&b, "_", 1);
		gap = 0;
		buf_add(&b, &name[i], 1);
	}
	return b.p;
}

char *
harness_printable(const char *s, size_t len)
{
	struct buf b = { 0 };
	size_t i;

	buf_puts(&b, "");
	for (i = 0; i < len; i++) {
		unsigned char u = (unsigned char)s[i];

		if (u == '\n')
			buf_puts(&b, "\\n");
		else if (u == '\t')
			buf_puts(&b, "\\t");
		else if (u < 0x20 || u == 0x7f)
			buf_printf(&b, "\\x%02x", u);
		else
			buf_add(&b, &s[i], 1);
	}
	return b.p;
}

static int
ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && strcmp(s + n - t, tail) == 0;
}

char *
hset_add(struct hset *s, const char *name, size_t namelen, const char *unit,
    const char *who, const char *raw, size_t rawlen, double v, unsigned long line)
{
	struct hmetric *m;
	char *stem, *key;
	size_t stemlen;
	long i;
	int better;

	if (!isfinite(v))
		return msgf("%s:%lu: %s: not a finite number", s->file, line, who);
	if ((stem = harness_stem(name, namelen)) == NULL)
		return msgf("%s:%lu: %s: the name has no letter or digit to make a key of", s->file, line, who);
	key = msgf("%s_%s", stem, unit);
	stemlen = strlen(stem);
	free(stem);
	if ((i = names_find(&s->keys, key, strlen(key))) >= 0) {
		m = &s->m[i];
		free(key);
		if (strcmp(m->who, who) != 0)
			return msgf("%s:%lu: %s and %s make the same key %s", s->file, line, m->who, who, m->key);
		better = m->higher ? v > m->v : v < m->v;
		if (better) {
			m->v = v;
			free(m->raw);
			m->raw = raw != NULL ? xmemdup(raw, rawlen) : NULL;
		}
		return NULL;
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->m = xrealloc(s->m, s->cap * sizeof *s->m);
	}
	m = &s->m[s->n++];
	m->key = key;
	m->who = xstrdup(who);
	m->raw = raw != NULL ? xmemdup(raw, rawlen) : NULL;
	m->v = v;
	m->stemlen = stemlen;
	m->higher = ends_with(key, "_per_s");
	names_add(&s->keys, key, strlen(key));
	return NULL;
}

char *
hset_add_scaled(struct hset *s, const char *name, size_t namelen, const char *unit,
    const char *who, const char *raw, size_t rawlen, int k, unsigned long line)
{
	char *t = harness_scale10(raw, rawlen, k), *err;

	if (t == NULL)
		return msgf("%s:%lu: %s: not a number", s->file, line, who);
	err = hset_add(s, name, namelen, unit, who, t, strlen(t), strtod(t, NULL), line);
	free(t);
	return err;
}

/* Does the case c[0..len) select m: its whole key, or its stem? */
static int
case_selects(const char *c, size_t len, const struct hmetric *m)
{
	return (len == strlen(m->key) || len == m->stemlen) && memcmp(c, m->key, len) == 0;
}

/* Does the comma list cases select m? */
static int
selected(const char *cases, const struct hmetric *m)
{
	const char *p, *end;

	for (p = cases; *p != '\0'; p = *end == ',' ? end + 1 : end) {
		end = strchr(p, ',');
		if (end == NULL)
			end = p + strlen(p);
		if (case_selects(p, (size_t)(end - p), m))
			return 1;
	}
	return 0;
}

char *
hset_write(struct hset *s, FILE *fp)
{
	const char *p, *end;
	size_t i, len;
	int first = 1, hit;

	if (s->n == 0 && s->cases == NULL)
		return msgf("%s: no benchmark results", s->file);
	/* Every case must name a metric, as bench.h's BENCH_CASES does. */
	for (p = s->cases; p != NULL && *p != '\0'; p = *end == ',' ? end + 1 : end) {
		end = strchr(p, ',');
		if (end == NULL)
			end = p + strlen(p);
		len = (size_t)(end - p);
		for (hit = 0, i = 0; i < s->n && !hit; i++)
			hit = len > 0 && case_selects(p, len, &s->m[i]);
		if (!hit)
			return msgf("%s: BENCH_CASES=%s: no case '%.*s'", s->file, s->cases, (int)len, p);
	}
	fputc('{', fp);
	for (i = 0; i < s->n; i++) {
		if (s->cases != NULL && !selected(s->cases, &s->m[i]))
			continue;
		if (!first)
			fputc(',', fp);
		first = 0;
		jput_str(fp, s->m[i].key);
		fputc(':', fp);
		if (s->m[i].raw != NULL)
			fputs(s->m[i].raw, fp);
		else
			jput_double(fp, 1, s->m[i].v);
	}
	fputs("}\n", fp);
	return NULL;
}

void
hset_free(struct hset *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->m[i].key);
		free(s->m[i].who);
		free(s->m[i].raw);
	}
	free(s->m);
	names_free(&s->keys);
	s->m = NULL;
	s->n = s->cap = 0;
}

char *
harness_scale10(const char *raw, size_t len, int k)
{
	struct buf d = { 0 }, b = { 0 };
	const char *p = raw, *end = raw + len, *q = raw;
	long e = 0, point;
	size_t i, lead;
	double x;
	int neg = 0;

	if (jnum_parse(&q, end, &x) != NULL || q != end)
		return NULL;
	if (k == 0)
		return xmemdup(raw, len);
	if (p < end && *p == '-') {
		neg = 1;
		p++;
	}
	/* The digits, and where the point falls among them. */
	buf_puts(&d, "");
	for (; p < end && *p >= '0' && *p <= '9'; p++)
		buf_add(&d, p, 1);
	point = (long)d.n;
	if (p < end && *p == '.')
		for (p++; p < end && *p >= '0' && *p <= '9'; p++)
			buf_add(&d, p, 1);
	/* The exponent, read within the text (it need not end in NUL), capped where 0 is 0. */
	if (p < end && (*p == 'e' || *p == 'E')) {
		int eneg = 0;

		if (++p < end && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		for (; p < end && *p >= '0' && *p <= '9'; p++)
			if (e < 100000000L)
				e = e * 10 + (*p - '0');
		if (eneg)
			e = -e;
	}
	point += e + k;
	for (lead = 0; lead < d.n && d.p[lead] == '0'; lead++)
		point--;
	while (d.n > lead && d.p[d.n - 1] == '0')
		d.n--;
	buf_puts(&b, neg ? "-" : "");
	if (d.n == lead) {
		buf_puts(&b, "0");
	} else if (point > 0 && point <= 21) {
		for (i = 0; i < (size_t)point; i++)
			buf_add(&b, lead + i < d.n ? &d.p[lead + i] : "0", 1);
		if (lead + (size_t)point < d.n) {
			buf_add(&b, ".", 1);
			buf_add(&b, d.p + lead + point, d.n - lead - (size_t)point);
		}
	} else if (point <= 0 && point > -6) {
		buf_puts(&b, "0.");
		for (; point < 0; point++)
			buf_add(&b, "0", 1);
		buf_add(&b, d.p + lead, d.n - lead);
	} else {
		buf_add(&b, d.p + lead, 1);
		if (d.n - lead > 1) {
			buf_add(&b, ".", 1);
			buf_add(&b, d.p + lead + 1, d.n - lead - 1);
		}
		buf_printf(&b, "e%ld", point - 1);
	}
	free(d.p);
	return b.p;
}

int
hset_wants(const struct hset *s, const char *name, size_t len)
{
	const char *p, *end;
	char *stem;
	size_t n;
	int hit = 0;

	if (s->cases == NULL)
		return 1;
	if ((stem = harness_stem(name, len)) == NULL)
		return 1;
	n = strlen(stem);
	for (p = s->cases; *p != '\0' && !hit; p = *end == ',' ? end + 1 : end) {
		end = strchr(p, ',');
		if (end == NULL)
			end = p + strlen(p);
		hit = (size_t)(end - p) >= n && memcmp(p, stem, n) == 0 &&
		    ((size_t)(end - p) == n || p[n] == '_');
	}
	free(stem);
	return hit;
}

/* One alternative of the regex: c[0..len) with each '_' a run of other bytes. */
static void
regex_alt(struct buf *b, const char *c, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (c[i] == '_')
			buf_puts(b, "[^A-Za-z0-9]+");
		else if (isalnum_ascii((unsigned char)c[i]))
			buf_add(b, &c[i], 1);
		/* Anything else cannot be in a stem: leave it out, select more. */
	}
}

char *
harness_cases_regex(const char *cases)
{
	struct buf b = { 0 };
	const char *p, *end;
	size_t i, len;
	int n = 0;

	buf_puts(&b, "^(");
	for (p = cases; *p != '\0'; p = *end == ',' ? end + 1 : end) {
		end = strchr(p, ',');
		if (end == NULL)
			end = p + strlen(p);
		len = (size_t)(end - p);
		/* The case itself and each prefix that ends before a '_'. */
		for (i = 1; i <= len; i++) {
			if (i < len && p[i] != '_')
				continue;
			if (n++ > 0)
				buf_puts(&b, "|");
			regex_alt(&b, p, i);
		}
	}
	buf_puts(&b, ")$");
	return b.p;
}

unsigned long
harness_line(const char *text, const char *p)
{
	unsigned long n = 1;

	for (; text < p; text++)
		n += *text == '\n';
	return n;
}

static const char *
ws(const char *p, const char *end)
{
	while (p < end && strchr(" \t\r\n", *p) != NULL && *p != '\0')
		p++;
	return p;
}

/*
 * Where the document first goes wrong. jparse says what is wrong but not
 * where; this walk finds only where, on the same grammar: strings and
 * numbers are checked by json.h's and jsonnum.h's own functions, and the
 * walk follows the brackets, commas and colons between them. Returns the
 * end of the text when it is cut short, or NULL when it finds nothing
 * wrong (an error of jparse's own, a duplicate key: the first line).
 */
static const char *
where_wrong(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *q;
	char stack[512];
	int sp = 0, key;
	double d;

	p = ws(p, end);
	for (;;) {
		/* A value starts here. */
		if (p == end)
			return end;
		q = p;
		if (*p == '{' || *p == '[') {
			if (sp == (int)sizeof stack)
				return p;
			stack[sp++] = *p == '{' ? '}' : ']';
			key = *p == '{';
			p = ws(p + 1, end);
			if (p < end && *p == stack[sp - 1]) {
				sp--;
				p++;
				goto after;
			}
			if (!key)
				continue;
			goto member;
		}
		if (*p == '"') {
			p++;
			if (jskip_string(&p, end) != NULL)
				return q;
		} else if (*p == '-' || (*p >= '0' && *p <= '9')) {
			if (jnum_parse(&p, end, &d) != NULL)
				return q;
		} else if (jskip_value(&p, end) != NULL)
			return end - p < 5 ? end : q;
after:
		p = ws(p, end);
		if (sp == 0)
			return p < end ? p : NULL;
		if (p == end)
			return end;
		if (*p == stack[sp - 1]) {
			sp--;
			p++;
			goto after;
		}
		if (*p != ',')
			return p;
		p = ws(p + 1, end);
		if (stack[sp - 1] == ']')
			continue;
member:
		if (p == end)
			return end;
		if (*p != '"')
			return p;
		q = p++;
		if (jskip_string(&p, end) != NULL)
			return q;
		p = ws(p, end);
		if (p == end)
			return end;
		if (*p != ':')
			return p;
		p = ws(p + 1, end);
	}
}

char *
harness_parse_doc(const char *file, const char *text, size_t len, struct jrecord *top)
{
	const char *err, *at;

	if (jblank(text, len))
		return msgf("%s:1: empty, no benchmark results", file);
	if ((err = jparse(text, len, top)) == NULL)
		return NULL;
	at = where_wrong(text, len);
	if (at == text + len && strcmp(err, "unexpected end of line") == 0)
		err = "cut short (unexpected end of file)";
	return msgf("%s:%lu: %s", file, at != NULL ? harness_line(text, at) : 1UL, err);
}

const char *
harness_which(const struct jrecord *top)
{
	if (jget(top, "context", 7) != NULL && jget(top, "benchmarks", 10) != NULL)
		return "Google Benchmark";
	if (jget(top, "machine_info", 12) != NULL)
		return "pytest-benchmark";
	if (jget(top, "results", 7) != NULL)
		return "hyperfine";
	return NULL;
}

char *
harness_notmine(const struct hset *s, const struct jrecord *top, const char *mine, const char *need)
{
	const char *which = harness_which(top);

	if (which != NULL)
		return msgf("%s:1: a %s document, not %s's", s->file, which, mine);
	return msgf("%s:1: not %s's document (no %s)", s->file, mine, need);
}
