/*
 * toml: the tokens of the budget file, a small strict subset of TOML
 * (cmpbudget(1), "The budget file"): bare keys, blanks, comments, decimal
 * numbers and basic strings. budget.c gives them their meaning.
 */
#ifndef PERFGATE_TOML_H
#define PERFGATE_TOML_H

#include <stddef.h>

/* A byte of a bare key: an ASCII letter, digit, '_' or '-'. */
int toml_isbare(int c);

/* p past blanks (space, tab). */
char *toml_skipws(char *p);

/* Whether p is at the end of a line's content: its end or a comment. */
int toml_atend(const char *p);

/*
 * Whether s[0..n) is a TOML decimal number: an optional sign, an integer
 * part without leading zeros, an optional fraction and exponent, each with
 * at least one digit (strtod alone would also take hex, "inf" and "nan").
 */
int toml_isnumber(const char *s, size_t n);

/*
 * Past a basic string whose opening quote is just before p, or NULL with
 * *why set when it is bad (unterminated, a control byte, a bad escape).
 */
char *toml_skipstring(char *p, const char **why);

#endif
