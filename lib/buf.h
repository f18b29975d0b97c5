/*
 * buf: a growing string, for records and documents that are built before
 * they are written whole.
 */
#ifndef PERFGATE_BUF_H
#define PERFGATE_BUF_H

#include <stddef.h>

struct buf {
	char *p;		/* NUL-terminated once anything was added; free() it */
	size_t n, cap;
};

void buf_add(struct buf *b, const char *s, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...);

/*
 * s[0..n) as the body of a JSON string, by the one escaper's rule
 * (jsonwrite.h: invalid UTF-8 becomes U+FFFD), so that any bytes (a
 * program's stderr) make valid JSON.
 */
void buf_esc(struct buf *b, const char *s, size_t n);

/* s as a JSON string, quotes included. */
void buf_str(struct buf *b, const char *s);

#endif
