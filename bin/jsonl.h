/*
 * jsonl: read JSON-line records (DESIGN.md, "A record").
 *
 * A record is one JSON object on one line. The parser validates the whole
 * line as strict JSON (RFC 8259: no NaN, no Infinity, UTF-8 strings) and
 * returns the object's top-level members; nested values are checked but
 * kept only as raw text. Keys and values point into the caller's line, so
 * a record is valid until the line is overwritten.
 */
#ifndef PERFGATE_JSONL_H
#define PERFGATE_JSONL_H

#include <stddef.h>
#include <stdio.h>

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
 * The message may live in a static buffer until the next call.
 *
 * Numbers: num is the double strtod gives for raw (bit for bit). A
 * magnitude above DBL_MAX (1e400) is "number out of range"; one below the
 * smallest subnormal (1e-400) is accepted and reads as 0, with raw kept as
 * written. -0 reads as -0.0 and keeps raw "-0".
 * Keys: duplicate top-level keys are an error; keys are compared as
 * written, so "a" and "\u0061" are different keys. Nested objects are
 * validated but their keys are not checked for duplicates.
 */
const char *jparse(const char *line, size_t len, struct jrecord *rec);

/*
 * The layout of a record: the text between its values (braces, blanks,
 * keys, colons, commas), copied, with where each key sits in it. JSON-line
 * files repeat one layout record after record, and a line that repeats
 * the layout byte for byte needs no key parsed and no duplicate searched.
 */
struct jgap {
	size_t off, len;	/* in text: the gap before member i (after the last, for i == n) */
	size_t key, keylen;	/* the key, from the gap's start */
};

struct jlayout {
	char *text;
	size_t textlen, textcap;
	struct jgap *gap;	/* n + 1 gaps */
	size_t n, gapcap;
	int valid;
};

/*
 * jparse for a stream of records: the same result and the same messages
 * (rec filled exactly as jparse fills it), but a line with the layout of
 * the last record parsed through lay is checked with one comparison a
 * member, then only its values are parsed. *same is 1 when it had that
 * layout, so the caller may keep what it derived from the keys by
 * position; 0 otherwise. lay starts zeroed; free it with jlayout_free.
 */
const char *jparse_like(const char *line, size_t len, struct jrecord *rec,
    struct jlayout *lay, int *same);

void jlayout_free(struct jlayout *lay);

/* The member named key (keylen bytes, compared raw), or NULL. */
const struct jfield *jget(const struct jrecord *rec, const char *key, size_t keylen);

void jrecord_free(struct jrecord *rec);

/*
 * A line reader over a file: large buffered reads, lines of any length,
 * the line number kept for messages.
 */
struct jreader {
	int fd;
	const char *name;	/* "-" or "<stdin>" for standard input */
	unsigned long lineno;
	char *buf;
	size_t cap, start, end;
	int eof;
	size_t scan;		/* buf[start..scan) holds no '\n': never searched twice */
};

/*
 * Open path ("-" for stdin, then named "<stdin>"). Returns 0, or -1 with
 * errno set. jreader_close does not close standard input.
 */
int jreader_open(struct jreader *r, const char *path);

/*
 * The next line, without its '\n', in *line and *len. Returns 1, 0 at end
 * of file, or -1 on a read error (errno set). A last line without '\n' is
 * returned like any other.
 */
int jreader_next(struct jreader *r, const char **line, size_t *len);

void jreader_close(struct jreader *r);

/*
 * If the last non-empty line of buf[0..len) is a JSON object whose values
 * are all numbers (the metrics line of a benchmark, DESIGN.md "A side"),
 * parse it into rec and return NULL; else return why not.
 */
const char *jmetrics(const char *buf, size_t len, struct jrecord *rec);

/*
 * Write s[0..len) as a JSON string body (without the quotes) to fp,
 * escaping what JSON requires.
 */
void jescape(FILE *fp, const char *s, size_t len);

#endif
