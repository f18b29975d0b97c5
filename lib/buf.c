/*
 * buf: a growing string, and JSON string escaping into it (buf.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jsonwrite.h"
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

static void
put_buf(void *ctx, const char *p, size_t n)
{
	buf_add(ctx, p, n);
}

/* The one escaper's rule (jsonwrite.h), into a buf. */
void
buf_esc(struct buf *b, const char *s, size_t n)
{
	jesc(s, n, put_buf, b);
}

void
buf_str(struct buf *b, const char *s)
{
	buf_add(b, "\"", 1);
	buf_esc(b, s, strlen(s));
	buf_add(b, "\"", 1);
}
