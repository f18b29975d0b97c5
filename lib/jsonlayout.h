/*
 * jsonlayout: the fast path for streams of records that repeat one layout.
 */
#ifndef PERFGATE_JLAYOUT_H
#define PERFGATE_JLAYOUT_H

#include <stddef.h>

#include "json.h"

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

#endif
