/*
 * refjson.h: a reference JSON-line parser for the fuzz targets, written as
 * plainly as RFC 8259 and RFC 3629 read (recursive descent, code points
 * decoded and range-checked), to be compared with lib/jsonl.c, which is
 * written for speed (SWAR scans, byte-class tables, layouts). It accepts
 * what jparse documents: one object, no duplicate top-level keys as
 * written, nesting at most 512 with the top-level object at 1, numbers
 * whose strtod is finite.
 */
#ifndef PERFGATE_REFJSON_H
#define PERFGATE_REFJSON_H

#include "fuzz.h"

#define REF_MAXDEPTH 512

enum { REF_STRING, REF_NUMBER, REF_LITERAL, REF_NESTED };

struct reffield {
	size_t key, keylen;	/* offsets into the line */
	size_t raw, rawlen;	/* strings without their quotes */
	int kind;
};

struct refparse {
	const char *line, *p, *end;
	struct reffield *f;
	size_t n, cap;
};

static inline int ref_value(struct refparse *r, int depth, int *kind);

static inline void
ref_ws(struct refparse *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static inline long
ref_hex4(const char *p, const char *end)
{
	long v = 0;
	int i;

	if (end - p < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		char c = p[i];

		if (c >= '0' && c <= '9')
			v = v * 16 + (c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v = v * 16 + (c - 'A' + 10);
		else
			return -1;
	}
	return v;
}

/* A string whose opening quote is at r->p; 0 and r->p past the closing quote, or -1. */
static inline int
ref_string(struct refparse *r)
{
	const unsigned char *p;
	unsigned long cp, min;
	long u, lo;
	int n, i;

	r->p++;
	for (;;) {
		if (r->p == r->end)
			return -1;
		p = (const unsigned char *)r->p;
		if (*p == '"') {
			r->p++;
			return 0;
		}
		if (*p < 0x20)
			return -1;
		if (*p == '\\') {
			if (r->end - r->p < 2)
				return -1;
			switch (p[1]) {
			case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
				r->p += 2;
				continue;
			case 'u':
				break;
			default:
				return -1;
			}
			if ((u = ref_hex4(r->p + 2, r->end)) < 0)
				return -1;
			r->p += 6;
			if (u >= 0xDC00 && u <= 0xDFFF)
				return -1;
			if (u >= 0xD800 && u <= 0xDBFF) {
				if (r->end - r->p < 6 || r->p[0] != '\\' || r->p[1] != 'u')
					return -1;
				lo = ref_hex4(r->p + 2, r->end);
				if (lo < 0xDC00 || lo > 0xDFFF)
					return -1;
				r->p += 6;
			}
			continue;
		}
		if (*p < 0x80) {
			r->p++;
			continue;
		}
		if ((*p & 0xE0) == 0xC0) {
			n = 2;
			cp = *p & 0x1F;
			min = 0x80;
		} else if ((*p & 0xF0) == 0xE0) {
			n = 3;
			cp = *p & 0x0F;
			min = 0x800;
		} else if ((*p & 0xF8) == 0xF0) {
			n = 4;
			cp = *p & 0x07;
			min = 0x10000;
		} else
			return -1;
		if (r->end - r->p < n)
			return -1;
		for (i = 1; i < n; i++) {
			if ((p[i] & 0xC0) != 0x80)
				return -1;
			cp = cp << 6 | (p[i] & 0x3F);
		}
		if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			return -1;
		r->p += n;
	}
}

/*
 * A number: the longest run of number characters, then the grammar and
 * strtod. A valid number is never followed by one of these characters in
 * valid JSON, so the longest run decides as the grammar would.
 */
static inline int
ref_number(struct refparse *r)
{
	const char *s = r->p;
	double v;

	while (r->p < r->end && strchr("0123456789+-.eE", *r->p) != NULL && *r->p != '\0')
		r->p++;
	if (!fuzz_isjsonnumber(s, (size_t)(r->p - s)))
		return -1;
	v = fuzz_strtod(s, (size_t)(r->p - s));
	return v - v == 0 ? 0 : -1;
}

static inline int
ref_word(struct refparse *r, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n) != 0)
		return -1;
	r->p += n;
	return 0;
}

/* Members or elements of a nested value, its opening bracket at r->p. */
static inline int
ref_nested(struct refparse *r, int depth)
{
	char close = *r->p == '{' ? '}' : ']';
	int kind;

	if (depth > REF_MAXDEPTH)
		return -1;
	r->p++;
	ref_ws(r);
	if (r->p < r->end && *r->p == close) {
		r->p++;
		return 0;
	}
	for (;;) {
		if (close == '}') {
			if (r->p == r->end || *r->p != '"' || ref_string(r) < 0)
				return -1;
			ref_ws(r);
			if (r->p == r->end || *r->p != ':')
				return -1;
			r->p++;
			ref_ws(r);
		}
		if (ref_value(r, depth + 1, &kind) < 0)
			return -1;
		ref_ws(r);
		if (r->p == r->end)
			return -1;
		if (*r->p == close) {
			r->p++;
			return 0;
		}
		if (*r->p != ',')
			return -1;
		r->p++;
		ref_ws(r);
	}
}

/* A value at r->p (blanks skipped), at depth if it is nested. */
static inline int
ref_value(struct refparse *r, int depth, int *kind)
{
	if (r->p == r->end)
		return -1;
	switch (*r->p) {
	case '{': case '[':
		*kind = REF_NESTED;
		return ref_nested(r, depth);
	case '"':
		*kind = REF_STRING;
		return ref_string(r);
	case 't':
		*kind = REF_LITERAL;
		return ref_word(r, "true");
	case 'f':
		*kind = REF_LITERAL;
		return ref_word(r, "false");
	case 'n':
		*kind = REF_LITERAL;
		return ref_word(r, "null");
	default:
		*kind = REF_NUMBER;
		return ref_number(r);
	}
}

/* Parse line[0..len); 0 with r->f[0..n) the top-level members, or -1. */
static inline int
ref_parse(struct refparse *r, const char *line, size_t len)
{
	struct reffield *f;
	size_t i, j;

	r->line = r->p = line;
	r->end = line + len;
	r->n = 0;
	ref_ws(r);
	if (r->p == r->end || *r->p != '{')
		return -1;
	r->p++;
	ref_ws(r);
	if (r->p < r->end && *r->p == '}')
		r->p++;
	else
		for (;;) {
			if (r->n == r->cap) {
				r->cap = r->cap ? 2 * r->cap : 8;
				if ((r->f = realloc(r->f, r->cap * sizeof *r->f)) == NULL)
					abort();
			}
			f = &r->f[r->n];
			if (r->p == r->end || *r->p != '"')
				return -1;
			f->key = (size_t)(r->p - line) + 1;
			if (ref_string(r) < 0)
				return -1;
			f->keylen = (size_t)(r->p - line) - 1 - f->key;
			ref_ws(r);
			if (r->p == r->end || *r->p != ':')
				return -1;
			r->p++;
			ref_ws(r);
			f->raw = (size_t)(r->p - line);
			if (ref_value(r, 2, &f->kind) < 0)
				return -1;
			f->rawlen = (size_t)(r->p - line) - f->raw;
			if (f->kind == REF_STRING) {
				f->raw++;
				f->rawlen -= 2;
			}
			r->n++;
			ref_ws(r);
			if (r->p == r->end)
				return -1;
			if (*r->p == '}') {
				r->p++;
				break;
			}
			if (*r->p != ',')
				return -1;
			r->p++;
			ref_ws(r);
		}
	ref_ws(r);
	if (r->p != r->end)
		return -1;
	for (i = 0; i < r->n; i++)
		for (j = 0; j < i; j++)
			if (r->f[i].keylen == r->f[j].keylen &&
			    memcmp(line + r->f[i].key, line + r->f[j].key, r->f[i].keylen) == 0)
				return -1;
	return 0;
}

/*
 * The bytes a valid JSON string body s[0..len) stands for, escapes
 * decoded, surrogate pairs joined into UTF-8; into out (len bytes are
 * always enough). Returns the length.
 */
static inline size_t
ref_decode(const char *s, size_t len, char *out)
{
	const char *p = s, *end = s + len;
	unsigned char *o = (unsigned char *)out;
	long u, lo;

	while (p < end) {
		if (*p != '\\') {
			*o++ = (unsigned char)*p++;
			continue;
		}
		switch (p[1]) {
		case 'b': *o++ = '\b'; p += 2; continue;
		case 'f': *o++ = '\f'; p += 2; continue;
		case 'n': *o++ = '\n'; p += 2; continue;
		case 'r': *o++ = '\r'; p += 2; continue;
		case 't': *o++ = '\t'; p += 2; continue;
		case 'u': break;
		default: *o++ = (unsigned char)p[1]; p += 2; continue;
		}
		u = ref_hex4(p + 2, end);
		p += 6;
		if (u >= 0xD800 && u <= 0xDBFF) {
			lo = ref_hex4(p + 2, end);
			p += 6;
			u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
		}
		if (u < 0x80)
			*o++ = (unsigned char)u;
		else if (u < 0x800) {
			*o++ = (unsigned char)(0xC0 | u >> 6);
			*o++ = (unsigned char)(0x80 | (u & 0x3F));
		} else if (u < 0x10000) {
			*o++ = (unsigned char)(0xE0 | u >> 12);
			*o++ = (unsigned char)(0x80 | (u >> 6 & 0x3F));
			*o++ = (unsigned char)(0x80 | (u & 0x3F));
		} else {
			*o++ = (unsigned char)(0xF0 | u >> 18);
			*o++ = (unsigned char)(0x80 | (u >> 12 & 0x3F));
			*o++ = (unsigned char)(0x80 | (u >> 6 & 0x3F));
			*o++ = (unsigned char)(0x80 | (u & 0x3F));
		}
	}
	return (size_t)((char *)o - out);
}

#endif
