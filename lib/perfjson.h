/*
 * perfjson: the reference benchmarks' document, docs/perf.json, read back
 * (perfdoc(1) has its schema).
 * A reader meets a bad document with "perfdoc: FILE: what" and exit 2.
 */
#ifndef PERFGATE_PERFJSON_H
#define PERFGATE_PERFJSON_H

#include <stddef.h>

#include "buf.h"
#include "jsonl.h"
#include "jsonvalue.h"

#define PERFJSON_SCHEMA 1
/* A document with accuracy (perfacc.h); one without keeps schema 1. */
#define PERFJSON_SCHEMA_ACCURACY 2

/* A whole file as a new NUL-terminated string; or exit 2. */
char *read_all(const char *path, size_t *len);

/* The document, read back. */
struct doc {
	const char *path;
	char *text;
	struct jrecord top;
	struct jrecord *rows;
	size_t nrows;
	const char **rowraw;
	size_t *rowlen;
};

/* Read and check path's document; or exit 2. */
void doc_read(struct doc *d, const char *path);
void doc_free(struct doc *d);

/* The member key of r, which must be there with type t; or exit 2 naming where. */
const struct jfield *doc_need(const struct jrecord *r, const char *key, enum jtype t,
    const char *where);
char *doc_str(const struct jrecord *r, const char *key, const char *where);
double doc_num(const struct jrecord *r, const char *key, const char *where);

/* Whether a row is valid (measured, not deferred). */
int doc_valid(const struct jrecord *row);

/*
 * Whether row i of d has an entry for every side: a valid row's "sides"
 * names each side of the document's "sides" and its "references" each
 * but the first, in that order, once; with "accuracy", its "sides" and
 * "labels" the same. NULL, or what is missing or out of place (a static
 * string, good until the next call).
 */
const char *doc_row_entries(const struct doc *d, size_t i);

/* Each member of the object at f as "key value", separated by sep, into b. */
void doc_members(struct buf *b, const struct jfield *f, const char *sep);

/* The value of f as the document has it, for a message; "absent" for NULL. */
void doc_quoted(struct buf *b, const struct jfield *f);

/* The elements of row's array key, each parsed, in turn. */
struct items {
	const char *p, *end;
	struct jrecord r;
};

/* Walk the elements of row's array member key, each parsed into it->r. */
void doc_items_open(struct items *it, const struct jrecord *row, const char *key,
    const char *where);
int doc_items_next(struct items *it, const char *where);

#endif
