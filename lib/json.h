/*
 * json: the JSON grammar for records (DESIGN.md, "A record"). The writer
 * is jsonwrite.h, included here for every reader that also writes.
 *
 * A record is one JSON object on one line. The parser validates the whole
 * line as strict JSON (RFC 8259: no NaN, no Infinity, UTF-8 strings) and
 * returns the object's top-level members; nested values are checked but
 * kept only as raw text. Keys and values point into the caller's line, so
 * a record is valid until the line is overwritten.
 */
#ifndef PERFGATE_JSON_H
#define PERFGATE_JSON_H

#include <stddef.h>
#include <stdio.h>

#include "jsonwrite.h"

enum jtype {
	J_NUMBER,
	J_STRING,
	J_TRUE,
	J_FALSE,
	J_NULL,
	J_ARRAY,
	J_OBJECT
};

struct jfield {
	const char *key;	/* between the quotes, escapes left as written */
	size_t keylen;
	enum jtype type;
	const char *raw;	/* the value as written; strings without the quotes */
	size_t rawlen;
	double num;		/* J_NUMBER: the value read from raw */
};

struct jrecord {
	struct jfield *field;
	size_t n, cap;
};

/*
 * Parse line[0..len) (without its '\n'; a trailing '\r' is whitespace) as
 * one JSON object into rec, replacing what rec held. Returns NULL, or a
 * short message for "FILE:LINE: message": "expected ',' or '}'",
 * "duplicate key \"x\"", "number out of range", "invalid UTF-8 in string",
 * "not a JSON object", "nesting deeper than 512", "empty line", ...
 * A caller that skips empty lines asks jblank (jreader_next skips them),
 * never the message's text. The message may live in a static buffer until
 * the next call.
 *
 * Numbers: num is the double strtod gives for raw (bit for bit, jsonnum.h).
 * A magnitude above DBL_MAX (1e400) is "number out of range"; one below
 * the smallest subnormal (1e-400) is accepted and reads as 0, with raw
 * kept as written. -0 reads as -0.0 and keeps raw "-0".
 * Keys: duplicate top-level keys are an error; keys are compared as
 * written, so "a" and "\u0061" are different keys. Nested objects are
 * validated but their keys are not checked for duplicates.
 */
const char *jparse(const char *line, size_t len, struct jrecord *rec);

/* Is line[0..len) empty or only JSON blanks (space, tab, CR, LF)? */
int jblank(const char *line, size_t len);

/* The member named key (keylen bytes, compared raw), or NULL. */
const struct jfield *jget(const struct jrecord *rec, const char *key, size_t keylen);

/* Is f's key, as written, the NUL-terminated key? */
int jfield_is(const struct jfield *f, const char *key);

void jrecord_free(struct jrecord *rec);

/*
 * If the last non-empty line of buf[0..len) is a JSON object whose values
 * are all numbers (the metrics line of a benchmark, DESIGN.md "A side"),
 * parse it into rec and return NULL; else return why not.
 */
const char *jmetrics(const char *buf, size_t len, struct jrecord *rec);
/* jmetrics' rule, but a member may also be a string (alternate -s: a digest, a version). */
const char *jmembers(const char *buf, size_t len, struct jrecord *rec);

/*
 * The grammar's pieces, for the layout fast path (jsonlayout.h). jskip_string
 * checks a string whose opening quote is just before *pp and moves *pp
 * past its closing quote; jskip_value checks one value that is not a
 * number or a string (a literal, an array, an object) at top-level depth
 * and moves *pp past it. Both return NULL or jparse's message.
 */
const char *jskip_string(const char **pp, const char *end);
const char *jskip_value(const char **pp, const char *end);

#endif
