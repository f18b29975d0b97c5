/*
 * msg: the error a helper returns (docs/STYLE.md: helpers return errors,
 * only main exits): a message formatted into memory of its own.
 */
#ifndef PERFGATE_MSG_H
#define PERFGATE_MSG_H

#include <stdarg.h>

/* printf into a new string, freed by the caller; out of memory is exit 2. */
char *msgf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* msgf with its arguments in ap, for a caller that takes a format itself. */
char *vmsgf(const char *fmt, va_list ap);

#endif
