/*
 * msg: format a message into memory of its own, for helpers that return
 * errors to main.
 */
#include <stdarg.h>
#include <stdio.h>

#include "msg.h"
#include "util.h"

char *
vmsgf(const char *fmt, va_list ap)
{
	va_list again;
	char *msg;
	int n;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	msg = xmalloc((size_t)n + 1);
	vsnprintf(msg, (size_t)n + 1, fmt, again);
	va_end(again);
	return msg;
}

char *
msgf(const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = vmsgf(fmt, ap);
	va_end(ap);
	return msg;
}
