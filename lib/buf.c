/*
 * buf: a growing string, and JSON string escaping into it (buf.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "util.h"

void
buf_add(struct buf *b, const char *s, size_t n)
{
	/* Even nothing makes b a string: read_all's text of an empty file is "". */
	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	/* Nothing to add may come from a NULL pointer. */
	if (n > 0)
		memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

void
buf_puts(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void
buf_printf(struct buf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("vsnprintf:");
	if ((size_t)n < sizeof tmp) {
		buf_add(b, tmp, (size_t)n);
		return;
	}
	/* Longer: print again, straight into room enough. */
	if (b->n + (size_t)n + 1 > b->cap) {
		b->cap = (b->n + (size_t)n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	va_start(ap, fmt);
	vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->n += (size_t)n;
}

/*
 * The length of the valid UTF-8 sequence at p (before end), or 0 when the
 * bytes there are not one (RFC 3629: no overlong forms, no surrogates,
 * nothing above U+10FFFF).
 */
static size_t
utf8len(const unsigned char *p, const unsigned char *end)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if ((size_t)(end - p) < n || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

void
buf_esc(struct buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	size_t len;

	while (p < end) {
		if (*p == '"' || *p == '\\') {
			buf_add(b, "\\", 1);
			buf_add(b, (const char *)p++, 1);
		} else if (*p == '\n') {
			buf_add(b, "\\n", 2);
			p++;
		} else if (*p == '\t') {
			buf_add(b, "\\t", 2);
			p++;
		} else if (*p < 0x20) {
			buf_printf(b, "\\u%04x", *p++);
		} else if ((len = utf8len(p, end)) == 0) {
			buf_add(b, "\\ufffd", 6);
			p++;
		} else {
			buf_add(b, (const char *)p, len);
			p += len;
		}
	}
}

void
buf_str(struct buf *b, const char *s)
{
	buf_add(b, "\"", 1);
	buf_esc(b, s, strlen(s));
	buf_add(b, "\"", 1);
}
