/*
 * util: the error, argument and number helpers every perfgate tool shares.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

const char *argv0 = "perfgate";

void
setargv0(const char *arg0)
{
	const char *slash;

	if (arg0 == NULL || *arg0 == '\0')
		return;
	slash = strrchr(arg0, '/');
	argv0 = slash ? slash + 1 : arg0;
}

static void
vwarnmsg(const char *fmt, va_list ap)
{
	int saved = errno;
	size_t len = strlen(fmt);

	fprintf(stderr, "%s: ", argv0);
	vfprintf(stderr, fmt, ap);
	if (len > 0 && fmt[len - 1] == ':')
		fprintf(stderr, " %s", strerror(saved));
	fputc('\n', stderr);
}

void
warnmsg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarnmsg(fmt, ap);
	va_end(ap);
}

void
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarnmsg(fmt, ap);
	va_end(ap);
	exit(2);
}

void
optionerror(int c)
{
	if (c == ':')
		warnmsg("option -%c needs an argument", optopt);
	else
		warnmsg("unknown option -%c", optopt);
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		die("malloc:");
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL)
		die("realloc:");
	return p;
}

char *
xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

char *
xmemdup(const char *s, size_t len)
{
	char *p = xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

const char *
parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end != '\0')
		return "not a whole number";
	if (errno == ERANGE || v < min || v > max)
		return "out of range";
	*out = v;
	return NULL;
}

const char *
parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0' || isnan(v))
		return "not a number";
	if (errno == ERANGE || isinf(v) || v < min || v > max)
		return "out of range";
	*out = v;
	return NULL;
}

int
fmt_double(char *buf, double v)
{
	char fixed[400];
	int prec, len = 0, exp, decimals, flen;
	char *e;

	/* Fewer digits first: the first form that reads back exactly is the shortest. */
	for (prec = 1; prec <= 17; prec++) {
		len = snprintf(buf, 32, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	/*
	 * %g writes 10 as "1e+01"; the same digits without an exponent are
	 * shorter there, and easier to read, so take them when they are.
	 */
	if ((e = strchr(buf, 'e')) != NULL) {
		exp = atoi(e + 1);
		decimals = prec - 1 - exp;
		if (decimals < 0)
			decimals = 0;
		flen = snprintf(fixed, sizeof fixed, "%.*f", decimals, v);
		if (flen <= len && strtod(fixed, NULL) == v) {
			memcpy(buf, fixed, flen + 1);
			len = flen;
		}
	}
	return len;
}

int
fshut(FILE *fp, const char *name)
{
	int bad = fflush(fp) != 0 || ferror(fp);

	if (bad) {
		warnmsg("write %s:", name);
		return 2;
	}
	return 0;
}
