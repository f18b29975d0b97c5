/*
 * util: the error, argument and number helpers every perfgate tool shares.
 */
#ifndef PERFGATE_UTIL_H
#define PERFGATE_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The tool's name, the basename of argv[0], for messages. */
extern const char *argv0;

void setargv0(const char *arg0);

/*
 * Print "argv0: message" on stderr. A format ending in ':' appends
 * strerror(errno), as sbase's eprintf does.
 */
void warnmsg(const char *fmt, ...);

/* warnmsg, then exit 2: for usage, input and system errors in main. */
_Noreturn void die(const char *fmt, ...);

/*
 * Say what was wrong with an option getopt(3) refused, in the tool's own
 * voice: c is getopt's ':' or '?', with opterr = 0 and an optstring that
 * starts with ':' (after any '+').
 */
void optionerror(int c);

/* Allocation that cannot fail: out of memory is exit 2. */
void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

/* s[0..len) as a new NUL-terminated string (s may hold no NUL). */
char *xmemdup(const char *s, size_t len);

/*
 * Are a[0..n) and b[0..n) the same bytes? By words, inline: the texts
 * compared on hot paths (a record's keys, a layout's gaps, group names)
 * are short and mostly equal, where memcmp's call and setup dominate.
 */
static inline int
memeq(const void *a, const void *b, size_t n)
{
	const unsigned char *p = a, *q = b;
	uint64_t x, y;
	uint32_t u, v;

	if (n >= 8) {
		for (; n > 8; n -= 8, p += 8, q += 8) {
			memcpy(&x, p, 8);
			memcpy(&y, q, 8);
			if (x != y)
				return 0;
		}
		/* The last 8 bytes, overlapping what was compared. */
		memcpy(&x, p + n - 8, 8);
		memcpy(&y, q + n - 8, 8);
		return x == y;
	}
	if (n >= 4) {
		memcpy(&u, p, 4);
		memcpy(&v, q, 4);
		if (u != v)
			return 0;
		memcpy(&u, p + n - 4, 4);
		memcpy(&v, q + n - 4, 4);
		return u == v;
	}
	for (; n > 0; n--)
		if (*p++ != *q++)
			return 0;
	return 1;
}

/* Is s[0..len) the string z? A key or raw text of a record against a name. */
static inline int
memeq_str(const char *s, size_t len, const char *z)
{
	return strlen(z) == len && memeq(s, z, len);
}

/*
 * Parse a whole string as a number in [min, max]. Return NULL on success,
 * else a short reason ("not a number", "out of range") for the caller's
 * message.
 */
const char *parse_long(const char *s, long min, long max, long *out);
const char *parse_double(const char *s, double min, double max, double *out);

/*
 * Write v in the shortest form that strtod reads back to the same double
 * (DESIGN.md: a computed value is never rounded). buf needs 32 bytes.
 * v must be finite. Returns the length written.
 */
int fmt_double(char *buf, double v);

/*
 * Flush fp and report whether everything written to it really arrived:
 * returns 0, or 2 after a message naming `name` (catches >/dev/full).
 */
int fshut(FILE *fp, const char *name);

#endif
