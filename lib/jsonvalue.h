/*
 * jsonvalue: values inside a record that jparse has validated (json.h
 * keeps nested values as raw text): a string's body unescaped, an array's
 * raw text walked element by element.
 */
#ifndef PERFGATE_JSONVALUE_H
#define PERFGATE_JSONVALUE_H

#include <stddef.h>

/* A JSON string's raw body, unescaped, as a new string to free(). */
char *json_unescape(const char *raw, size_t len);

/*
 * The next element of a JSON array's raw text (validated by jparse); *p
 * starts after the '[' and moves past each element. Returns 0 at the end.
 */
int json_nextitem(const char **p, const char *end, const char **item, size_t *len);

#endif
