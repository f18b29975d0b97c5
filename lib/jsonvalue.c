/*
 * jsonvalue: values inside a record that jparse has validated: a string's
 * body unescaped, an array walked element by element (jsonvalue.h).
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jsonvalue.h"

/* A JSON string's raw body, unescaped, as a new string. */
char *
json_unescape(const char *raw, size_t len)
{
	struct buf b = { 0 };
	const char *p = raw, *end = raw + len;
	unsigned long u;
	char utf[4];

	buf_puts(&b, "");
	while (p < end) {
		if (*p != '\\' || p + 1 >= end) {
			buf_add(&b, p++, 1);
			continue;
		}
		p++;
		switch (*p) {
		case 'n': buf_puts(&b, "\n"); break;
		case 't': buf_puts(&b, "\t"); break;
		case 'r': buf_puts(&b, "\r"); break;
		case 'b': buf_puts(&b, "\b"); break;
		case 'f': buf_puts(&b, "\f"); break;
		case 'u':
			u = end - p > 4 ? strtoul((char[5]){ p[1], p[2], p[3], p[4], 0 }, NULL, 16) : 0xfffd;
			p += 4;
			/* Surrogates are not paired here: a table needs no emoji. */
			if (u >= 0xd800 && u < 0xe000)
				u = 0xfffd;
			if (u < 0x80) {
				utf[0] = (char)u;
				buf_add(&b, utf, 1);
			} else if (u < 0x800) {
				utf[0] = (char)(0xc0 | u >> 6);
				utf[1] = (char)(0x80 | (u & 0x3f));
				buf_add(&b, utf, 2);
			} else {
				utf[0] = (char)(0xe0 | u >> 12);
				utf[1] = (char)(0x80 | (u >> 6 & 0x3f));
				utf[2] = (char)(0x80 | (u & 0x3f));
				buf_add(&b, utf, 3);
			}
			break;
		default: buf_add(&b, p, 1);
		}
		p++;
	}
	return b.p;
}

/*
 * The next element of a JSON array's raw text: *p moves past it. The text
 * was validated by jparse, so only strings and nesting need care.
 */
int
json_nextitem(const char **p, const char *end, const char **item, size_t *len)
{
	const char *s = *p;
	int depth = 0, instr = 0;

	while (s < end && strchr(", \t\r\n", *s) != NULL)
		s++;
	if (s >= end || *s == ']')
		return 0;
	*item = s;
	for (; s < end; s++) {
		if (instr) {
			if (*s == '\\')
				s++;
			else if (*s == '"')
				instr = 0;
		} else if (*s == '"') {
			instr = 1;
		} else if (*s == '{' || *s == '[') {
			depth++;
		} else if (*s == '}' || *s == ']') {
			if (depth-- == 0)
				break;
			if (depth == 0) {
				s++;
				break;
			}
		} else if (*s == ',' && depth == 0) {
			break;
		}
	}
	*len = (size_t)(s - *item);
	*p = s;
	return 1;
}
