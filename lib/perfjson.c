/*
 * perfjson: read the reference benchmarks' document back (perfjson.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jsonl.h"
#include "perfjson.h"
#include "util.h"

char *
read_all(const char *path, size_t *len)
{
	struct buf b = { 0 };
	char chunk[65536];
	FILE *fp;
	size_t n;

	if ((fp = fopen(path, "r")) == NULL)
		die("%s:", path);
	buf_puts(&b, "");
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		buf_add(&b, chunk, n);
	if (ferror(fp))
		die("%s:", path);
	fclose(fp);
	*len = b.n;
	return b.p;
}

/* The member key of r, which must be there with type t; or exit 2. */
const struct jfield *
doc_need(const struct jrecord *r, const char *key, enum jtype t, const char *where)
{
	const struct jfield *f = jget(r, key, strlen(key));

	if (f == NULL || f->type != t)
		die("%s: no %s \"%s\"", where, t == J_STRING ? "string" : t == J_NUMBER ?
		    "number" : t == J_ARRAY ? "array" : t == J_OBJECT ? "object" : "boolean", key);
	return f;
}

char *
doc_str(const struct jrecord *r, const char *key, const char *where)
{
	const struct jfield *f = doc_need(r, key, J_STRING, where);

	return json_unescape(f->raw, f->rawlen);
}

void
doc_read(struct doc *d, const char *path)
{
	const struct jfield *f, *rows;
	const char *p, *item, *err;
	size_t len, ilen;

	memset(d, 0, sizeof *d);
	d->path = path;
	d->text = read_all(path, &len);
	if ((err = jparse(d->text, len, &d->top)) != NULL)
		die("%s: %s", path, err);
	f = doc_need(&d->top, "schema", J_NUMBER, path);
	if (f->num != PERFJSON_SCHEMA && f->num != PERFJSON_SCHEMA_ACCURACY)
		die("%s: schema %.*s, this perfdoc reads %d and %d", path, (int)f->rawlen, f->raw,
		    PERFJSON_SCHEMA, PERFJSON_SCHEMA_ACCURACY);
	rows = doc_need(&d->top, "rows", J_ARRAY, path);
	p = rows->raw + 1;
	while (json_nextitem(&p, rows->raw + rows->rawlen, &item, &ilen)) {
		d->rows = xrealloc(d->rows, (d->nrows + 1) * sizeof *d->rows);
		d->rowraw = xrealloc(d->rowraw, (d->nrows + 1) * sizeof *d->rowraw);
		d->rowlen = xrealloc(d->rowlen, (d->nrows + 1) * sizeof *d->rowlen);
		memset(&d->rows[d->nrows], 0, sizeof d->rows[d->nrows]);
		if ((err = jparse(item, ilen, &d->rows[d->nrows])) != NULL)
			die("%s: row %zu: %s", path, d->nrows + 1, err);
		d->rowraw[d->nrows] = item;
		d->rowlen[d->nrows++] = ilen;
	}
}

void
doc_free(struct doc *d)
{
	size_t i;

	for (i = 0; i < d->nrows; i++)
		jrecord_free(&d->rows[i]);
	jrecord_free(&d->top);
	free(d->rows);
	free(d->rowraw);
	free(d->rowlen);
	free(d->text);
	memset(d, 0, sizeof *d);
}

int
doc_valid(const struct jrecord *row)
{
	const struct jfield *f = jget(row, "valid", 5);

	return f != NULL && f->type == J_TRUE;
}

/* Each member of the object at f as "key value" items, into b. */
void
doc_members(struct buf *b, const struct jfield *f, const char *sep)
{
	struct jrecord r = { 0 };
	size_t i;
	char *v;

	if (f == NULL || f->type != J_OBJECT || jparse(f->raw, f->rawlen, &r) != NULL)
		return;
	for (i = 0; i < r.n; i++) {
		buf_printf(b, "%s%.*s ", i ? sep : "", (int)r.field[i].keylen, r.field[i].key);
		if (r.field[i].type == J_STRING) {
			v = json_unescape(r.field[i].raw, r.field[i].rawlen);
			buf_puts(b, v);
			free(v);
		} else {
			buf_add(b, r.field[i].raw, r.field[i].rawlen);
		}
	}
	jrecord_free(&r);
}


void
doc_items_open(struct items *it, const struct jrecord *row, const char *key, const char *where)
{
	const struct jfield *f = doc_need(row, key, J_ARRAY, where);

	it->p = f->raw + 1;
	it->end = f->raw + f->rawlen;
}

int
doc_items_next(struct items *it, const char *where)
{
	const char *item, *err;
	size_t len;

	if (!json_nextitem(&it->p, it->end, &item, &len))
		return 0;
	if ((err = jparse(item, len, &it->r)) != NULL)
		die("%s: %s", where, err);
	return 1;
}

double
doc_num(const struct jrecord *r, const char *key, const char *where)
{
	return doc_need(r, key, J_NUMBER, where)->num;
}

/* The value of f as the document has it, for a message; "absent" for none. */
void
doc_quoted(struct buf *b, const struct jfield *f)
{
	if (f == NULL)
		buf_puts(b, "absent");
	else if (f->type == J_STRING)
		buf_printf(b, "\"%.*s\"", (int)f->rawlen, f->raw);
	else
		buf_add(b, f->raw, f->rawlen);
}


/*
 * Whether the array key of r names, in its items' member name, the
 * document's sides from first on, each once and in order; NULL or why.
 */
static const char *
entries(const struct jrecord *sides, size_t first, const struct jrecord *r, const char *key,
    const char *name, const char *where, const char *what)
{
	static char msg[512];
	struct items it = { 0 };
	const struct jfield *f = jget(r, key, strlen(key));
	size_t k = first;
	char *got;

	if (f == NULL || f->type != J_ARRAY) {
		snprintf(msg, sizeof msg, "%s: no array \"%s\"", what, key);
		return msg;
	}
	for (doc_items_open(&it, r, key, where); doc_items_next(&it, where); k++) {
		got = doc_str(&it.r, name, where);
		if (k >= sides->n || !jfield_is(&sides->field[k], got)) {
			if (k < sides->n)
				snprintf(msg, sizeof msg, "%s: \"%s\" has %s where %.*s is due", what, key,
				    got, (int)sides->field[k].keylen, sides->field[k].key);
			else
				snprintf(msg, sizeof msg, "%s: \"%s\" has %s, a side the document does not have",
				    what, key, got);
			free(got);
			jrecord_free(&it.r);
			return msg;
		}
		free(got);
	}
	jrecord_free(&it.r);
	if (k < sides->n) {
		snprintf(msg, sizeof msg, "%s: \"%s\" has no entry for %s %.*s", what, key,
		    first ? "reference" : "side", (int)sides->field[k].keylen, sides->field[k].key);
		return msg;
	}
	return NULL;
}

const char *
doc_row_entries(const struct doc *d, size_t i)
{
	static char what[300];
	const struct jfield *f = doc_need(&d->top, "sides", J_OBJECT, d->path);
	struct jrecord sides = { 0 }, acc = { 0 };
	const char *why = NULL;
	char *c;

	if (!doc_valid(&d->rows[i]))
		return NULL;
	if (jparse(f->raw, f->rawlen, &sides) != NULL)
		die("%s: \"sides\" is not an object", d->path);
	c = doc_str(&d->rows[i], "case", d->path);
	snprintf(what, sizeof what, "row %.200s", c);
	free(c);
	why = entries(&sides, 0, &d->rows[i], "sides", "side", d->path, what);
	if (why == NULL)
		why = entries(&sides, 1, &d->rows[i], "references", "reference", d->path, what);
	f = jget(&d->rows[i], "accuracy", 8);
	if (why == NULL && f != NULL) {
		if (f->type != J_OBJECT || jparse(f->raw, f->rawlen, &acc) != NULL)
			die("%s: %s: \"accuracy\" is not an object", d->path, what);
		strcat(what, ", its accuracy");
		why = entries(&sides, 0, &acc, "sides", "side", d->path, what);
		if (why == NULL)
			why = entries(&sides, 1, &acc, "labels", "reference", d->path, what);
	}
	jrecord_free(&acc);
	jrecord_free(&sides);
	return why;
}
