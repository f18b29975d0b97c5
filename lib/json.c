/*
 * json: the JSON grammar for records (json.h); writing is jsonwrite.c's.
 *
 * The parser is a single forward pass over the line with no recursion:
 * top-level members are returned as fields, nested arrays and objects are
 * validated with an explicit stack of at most JSONL_MAXDEPTH levels, so a
 * hostile line cannot exhaust the C stack. Numbers are jnum's, UTF-8
 * sequences utf8's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonnum.h"
#include "json.h"
#include "utf8.h"
#include "util.h"

#define JSONL_MAXDEPTH 512

/* Byte classes inside a string: 0 is a byte that needs no attention. */
enum { S_PLAIN, S_QUOTE, S_BACKSLASH, S_CONTROL, S_HIGH };

#define C_ S_CONTROL
#define Q_ S_QUOTE
#define B_ S_BACKSLASH
#define H_ S_HIGH
static const unsigned char sclass[256] = {
	C_, C_, C_, C_, C_, C_, C_, C_, C_, C_, C_, C_, C_, C_, C_, C_,
	C_, C_, C_, C_, C_, C_, C_, C_, C_, C_, C_, C_, C_, C_, C_, C_,
	0, 0, Q_, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, B_, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_,
	H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_,
	H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_,
	H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_,
	H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_,
	H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_,
	H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_,
	H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_, H_,
};
#undef C_
#undef Q_
#undef B_
#undef H_

/* Messages with a variable part live here until the next call. */
static char msgbuf[256];

static int
isws(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static const char *
skipws(const char *p, const char *end)
{
	while (p < end && isws((unsigned char)*p))
		p++;
	return p;
}

/* After a key: the ':' and the start of its value, blanks skipped. */
static const char *
colon(const char **pp, const char *end)
{
	const char *p = skipws(*pp, end);

	if (p == end)
		return "unexpected end of line";
	if (*p != ':')
		return "expected ':'";
	p = skipws(p + 1, end);
	if (p == end)
		return "unexpected end of line";
	*pp = p;
	return NULL;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Read the 4 hex digits after "\u" at p; -1 if they are not there. */
static long
hex4(const char *p, const char *end)
{
	long v = 0;
	int i, h;

	if (end - p < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		if ((h = hexval((unsigned char)p[i])) < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

#define ONES 0x0101010101010101ULL
#define haszero(x) (((x) - ONES) & ~(x))

/*
 * Check a string whose opening quote is just before *pp; on success *pp
 * points past the closing quote.
 */
const char *
jskip_string(const char **pp, const char *end)
{
	const unsigned char *p = (const unsigned char *)*pp;
	const unsigned char *e = (const unsigned char *)end;
	long u, lo;
	int n;

	for (;;) {
		/* Eight bytes at a time while none is a quote, a backslash, a control or a high byte. */
		while (e - p >= 8) {
			uint64_t x;

			memcpy(&x, p, 8);
			if (((haszero(x ^ ONES * '"') | haszero(x ^ ONES * '\\') |
			    (x - ONES * 0x20) | x) & ONES * 0x80) != 0)
				break;
			p += 8;
		}
		while (p < e && sclass[*p] == S_PLAIN)
			p++;
		if (p == e)
			return "unterminated string";
		switch (sclass[*p]) {
		case S_QUOTE:
			*pp = (const char *)p + 1;
			return NULL;
		case S_CONTROL:
			return "control character in string";
		case S_HIGH:
			if ((n = utf8_seqlen(p, e)) == 0)
				return "invalid UTF-8 in string";
			p += n;
			break;
		default:
			if (e - p < 2)
				return "unterminated string";
			switch (p[1]) {
			case '"': case '\\': case '/': case 'b':
			case 'f': case 'n': case 'r': case 't':
				p += 2;
				break;
			case 'u':
				if ((u = hex4((const char *)p + 2, end)) < 0)
					return "invalid \\u escape in string";
				p += 6;
				if (u >= 0xDC00 && u <= 0xDFFF)
					return "unpaired surrogate in string";
				if (u >= 0xD800 && u <= 0xDBFF) {
					if (e - p < 2 || p[0] != '\\' || p[1] != 'u')
						return "unpaired surrogate in string";
					lo = hex4((const char *)p + 2, end);
					if (lo < 0xDC00 || lo > 0xDFFF)
						return "unpaired surrogate in string";
					p += 6;
				}
				break;
			default:
				return "invalid escape in string";
			}
		}
	}
}

static const char *
parse_literal(const char **pp, const char *end, const char *word, size_t len)
{
	if ((size_t)(end - *pp) < len || memcmp(*pp, word, len) != 0)
		return "invalid value";
	*pp += len;
	return NULL;
}

/*
 * Check a nested array or object whose opening bracket is at *pp, at
 * nesting depth `depth` (the top-level object is 1). An explicit stack of
 * closing brackets replaces recursion.
 */
static const char *
skip_nested(const char **pp, const char *end, int depth)
{
	char stack[JSONL_MAXDEPTH + 1];
	int sp = 0;
	const char *p = *pp, *err;
	double d;
	char c;

	for (;;) {
		/* Here p is at the start of a value. */
		c = *p;
		if (c == '{' || c == '[') {
			if (depth + sp + 1 > JSONL_MAXDEPTH)
				return "nesting deeper than 512";
			stack[sp++] = c == '{' ? '}' : ']';
			p = skipws(p + 1, end);
			if (p == end)
				return "unexpected end of line";
			if (*p == stack[sp - 1]) {
				p++;
				sp--;
				goto closed;
			}
			if (c == '{')
				goto key;
			continue;
		}
		if (c == '"') {
			p++;
			if ((err = jskip_string(&p, end)) != NULL)
				return err;
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			if ((err = jnum_parse(&p, end, &d)) != NULL)
				return err;
		} else if (c == 't') {
			if ((err = parse_literal(&p, end, "true", 4)) != NULL)
				return err;
		} else if (c == 'f') {
			if ((err = parse_literal(&p, end, "false", 5)) != NULL)
				return err;
		} else if (c == 'n') {
			if ((err = parse_literal(&p, end, "null", 4)) != NULL)
				return err;
		} else
			return "invalid value";
closed:
		/* A value ended: a separator, a closing bracket, or done. */
		for (;;) {
			if (sp == 0) {
				*pp = p;
				return NULL;
			}
			p = skipws(p, end);
			if (p == end)
				return "unexpected end of line";
			if (*p == stack[sp - 1]) {
				p++;
				sp--;
				continue;
			}
			if (*p != ',')
				return stack[sp - 1] == '}' ? "expected ',' or '}'" : "expected ',' or ']'";
			p = skipws(p + 1, end);
			if (p == end)
				return "unexpected end of line";
			if (stack[sp - 1] == '}')
				goto key;
			break;
		}
		continue;
key:
		/* Inside an object: "key" ':' then a value. */
		if (*p != '"')
			return "expected a key in quotes";
		p++;
		if ((err = jskip_string(&p, end)) != NULL)
			return err;
		if ((err = colon(&p, end)) != NULL)
			return err;
	}
}

static const char *
dupkey(const struct jfield *f)
{
	int n = f->keylen > 64 ? 64 : (int)f->keylen;

	snprintf(msgbuf, sizeof msgbuf, "duplicate key \"%.*s%s\"", n, f->key,
	    f->keylen > 64 ? "..." : "");
	return msgbuf;
}

static int
cmpfield(const void *a, const void *b)
{
	const struct jfield *x = *(const struct jfield *const *)a;
	const struct jfield *y = *(const struct jfield *const *)b;
	size_t n = x->keylen < y->keylen ? x->keylen : y->keylen;
	int c = memcmp(x->key, y->key, n);

	if (c != 0)
		return c;
	return (x->keylen > y->keylen) - (x->keylen < y->keylen);
}

/*
 * Duplicate keys: a pairwise check for the usual handful of members
 * (a tag of length and end bytes makes most comparisons one integer
 * compare), sorting for large records so that a line of a million keys
 * stays n log n.
 */
static const char *
check_dups(const struct jrecord *rec)
{
	const struct jfield **v;
	size_t i, j, n = rec->n;
	const char *err = NULL;

	if (n <= 32) {
		uint32_t tag[32];

		for (i = 0; i < n; i++) {
			const struct jfield *f = &rec->field[i];

			tag[i] = (uint32_t)f->keylen << 16;
			if (f->keylen > 0)
				tag[i] |= (uint32_t)(unsigned char)f->key[0] << 8 |
				    (unsigned char)f->key[f->keylen - 1];
			for (j = 0; j < i; j++)
				if (tag[j] == tag[i] &&
				    memcmp(rec->field[j].key, f->key, f->keylen) == 0)
					return dupkey(f);
		}
		return NULL;
	}
	v = xmalloc(n * sizeof *v);
	for (i = 0; i < n; i++)
		v[i] = &rec->field[i];
	qsort(v, n, sizeof *v, cmpfield);
	for (i = 1; i < n && err == NULL; i++)
		if (cmpfield(&v[i - 1], &v[i]) == 0)
			err = dupkey(v[i]);
	free(v);
	return err;
}

const char *
jparse(const char *line, size_t len, struct jrecord *rec)
{
	const char *p = line, *end = line + len, *err;
	struct jfield *f;

	rec->n = 0;
	p = skipws(p, end);
	if (p == end)
		return "empty line";
	if (*p != '{')
		return "not a JSON object";
	p = skipws(p + 1, end);
	if (p < end && *p == '}') {
		p++;
		goto done;
	}
	for (;;) {
		if (p == end)
			return "unexpected end of line";
		if (*p != '"')
			return "expected a key in quotes";
		if (rec->n == rec->cap) {
			rec->cap = rec->cap ? rec->cap * 2 : 16;
			rec->field = xrealloc(rec->field, rec->cap * sizeof *rec->field);
		}
		f = &rec->field[rec->n];
		f->key = ++p;
		if ((err = jskip_string(&p, end)) != NULL)
			return err;
		f->keylen = (size_t)(p - 1 - f->key);
		if ((err = colon(&p, end)) != NULL)
			return err;
		f->raw = p;
		f->num = 0;
		switch (*p) {
		case '"':
			f->type = J_STRING;
			f->raw = ++p;
			if ((err = jskip_string(&p, end)) != NULL)
				return err;
			f->rawlen = (size_t)(p - 1 - f->raw);
			break;
		case '-': case '0': case '1': case '2': case '3': case '4':
		case '5': case '6': case '7': case '8': case '9':
			f->type = J_NUMBER;
			if ((err = jnum_parse(&p, end, &f->num)) != NULL)
				return err;
			f->rawlen = (size_t)(p - f->raw);
			break;
		case 't':
			f->type = J_TRUE;
			goto literal;
		case 'f':
			f->type = J_FALSE;
			goto literal;
		case 'n':
			f->type = J_NULL;
literal:
			if ((err = skip_nested(&p, end, 1)) != NULL)
				return err;
			f->rawlen = (size_t)(p - f->raw);
			break;
		case '[':
		case '{':
			f->type = *p == '[' ? J_ARRAY : J_OBJECT;
			if ((err = skip_nested(&p, end, 1)) != NULL)
				return err;
			f->rawlen = (size_t)(p - f->raw);
			break;
		default:
			return "invalid value";
		}
		rec->n++;
		p = skipws(p, end);
		if (p == end)
			return "unexpected end of line";
		if (*p == '}') {
			p++;
			break;
		}
		if (*p != ',')
			return "expected ',' or '}'";
		p = skipws(p + 1, end);
	}
done:
	if (skipws(p, end) != end)
		return "text after the object";
	return check_dups(rec);
}


const char *
jskip_value(const char **pp, const char *end)
{
	return skip_nested(pp, end, 1);
}

int
jblank(const char *line, size_t len)
{
	return skipws(line, line + len) == line + len;
}

const struct jfield *
jget(const struct jrecord *rec, const char *key, size_t keylen)
{
	size_t i;

	for (i = 0; i < rec->n; i++)
		if (rec->field[i].keylen == keylen &&
		    memcmp(rec->field[i].key, key, keylen) == 0)
			return &rec->field[i];
	return NULL;
}

void
jrecord_free(struct jrecord *rec)
{
	free(rec->field);
	rec->field = NULL;
	rec->n = rec->cap = 0;
}

int
jfield_is(const struct jfield *f, const char *key)
{
	return memeq_str(f->key, f->keylen, key);
}

static const char *
lastline(const char *buf, size_t len, struct jrecord *rec, int strings)
{
	const char *end = buf + len, *line, *err;
	size_t i;

	/* Back over trailing blank lines, then to the start of the last line. */
	while (end > buf && isws((unsigned char)end[-1]))
		end--;
	if (end == buf)
		return "no output on stdout";
	line = end;
	while (line > buf && line[-1] != '\n')
		line--;
	if ((err = jparse(line, (size_t)(end - line), rec)) != NULL) {
		char why[128];

		/* err may be msgbuf itself (a duplicate key): copy it first. */
		snprintf(why, sizeof why, "%s", err);
		snprintf(msgbuf, sizeof msgbuf, "last stdout line is not a JSON object: %s", why);
		return msgbuf;
	}
	for (i = 0; i < rec->n; i++) {
		const struct jfield *f = &rec->field[i];
		int n = f->keylen > 64 ? 64 : (int)f->keylen;

		if (f->type != J_NUMBER && !(strings && f->type == J_STRING)) {
			snprintf(msgbuf, sizeof msgbuf, "value of \"%.*s%s\" is %s",
			    n, f->key, f->keylen > 64 ? "..." : "", strings ? "neither a number nor a string" : "not a number");
			return msgbuf;
		}
	}
	return NULL;
}

const char *
jmetrics(const char *buf, size_t len, struct jrecord *rec)
{
	return lastline(buf, len, rec, 0);
}

const char *
jmembers(const char *buf, size_t len, struct jrecord *rec)
{
	return lastline(buf, len, rec, 1);
}
