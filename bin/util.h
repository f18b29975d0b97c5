/*
 * util: the error, argument and number helpers every perfgate tool shares.
 */
#ifndef PERFGATE_UTIL_H
#define PERFGATE_UTIL_H

#include <stddef.h>
#include <stdio.h>

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
