/*
 * jsonlayout: the fast path for streams of records that repeat one layout of
 * keys (jsonlayout.h): a line whose text between the values is the last
 * record's, byte for byte, needs only its values parsed.
 */
#include <stdlib.h>
#include <string.h>

#include "jsonlayout.h"
#include "jsonnum.h"
#include "json.h"
#include "util.h"

/*
 * Parse line against lay: 1 when every gap is lay's, byte for byte, and
 * every value is valid, with rec filled as jparse fills it; 0 on any
 * difference, and jparse then parses the line from the start (so every
 * message is jparse's own). A gap equal to a gap of a valid record is
 * valid: the same keys, in the same order, so no duplicates. A value ends
 * where jparse would end it, since a gap starts with a blank, ',' or '}',
 * which end every value.
 */
static int
match_layout(const char *line, size_t len, struct jrecord *rec, const struct jlayout *lay)
{
	const char *p = line, *end = line + len;
	const struct jgap *g = lay->gap;
	struct jfield *f;
	size_t i, n = lay->n;

	if (rec->cap < n) {
		rec->cap = n;
		rec->field = xrealloc(rec->field, rec->cap * sizeof *rec->field);
	}
	for (i = 0; i < n; i++, g++) {
		if ((size_t)(end - p) <= g->len || !memeq(p, lay->text + g->off, g->len))
			return 0;
		f = &rec->field[i];
		f->key = p + g->key;
		f->keylen = g->keylen;
		p += g->len;
		f->raw = p;
		f->num = 0;
		switch (*p) {
		case '"':
			f->type = J_STRING;
			f->raw = ++p;
			if (jskip_string(&p, end) != NULL)
				return 0;
			f->rawlen = (size_t)(p - 1 - f->raw);
			continue;
		case '-': case '0': case '1': case '2': case '3': case '4':
		case '5': case '6': case '7': case '8': case '9':
			f->type = J_NUMBER;
			if (jnum_parse(&p, end, &f->num) != NULL)
				return 0;
			break;
		case 't':
			f->type = J_TRUE;
			break;
		case 'f':
			f->type = J_FALSE;
			break;
		case 'n':
			f->type = J_NULL;
			break;
		case '[':
			f->type = J_ARRAY;
			break;
		case '{':
			f->type = J_OBJECT;
			break;
		default:
			return 0;
		}
		if (f->type != J_NUMBER && jskip_value(&p, end) != NULL)
			return 0;
		f->rawlen = (size_t)(p - f->raw);
	}
	if ((size_t)(end - p) != g->len || !memeq(p, lay->text + g->off, g->len))
		return 0;
	rec->n = n;
	return 1;
}

/* Make lay the layout of rec, a record jparse accepted from line. */
static void
keep_layout(const char *line, size_t len, const struct jrecord *rec, struct jlayout *lay)
{
	const char *gap = line, *vstart;
	struct jgap *g;
	size_t i;

	if (lay->gapcap < rec->n + 1) {
		lay->gapcap = rec->n + 1;
		lay->gap = xrealloc(lay->gap, lay->gapcap * sizeof *lay->gap);
	}
	if (lay->textcap < len) {
		lay->textcap = len;
		lay->text = xrealloc(lay->text, lay->textcap);
	}
	lay->textlen = 0;
	for (i = 0; i <= rec->n; i++) {
		const struct jfield *f = i < rec->n ? &rec->field[i] : NULL;

		g = &lay->gap[i];
		vstart = f != NULL ? f->raw - (f->type == J_STRING) : line + len;
		g->off = lay->textlen;
		g->len = (size_t)(vstart - gap);
		memcpy(lay->text + lay->textlen, gap, g->len);
		lay->textlen += g->len;
		if (f == NULL)
			break;
		g->key = (size_t)(f->key - gap);
		g->keylen = f->keylen;
		gap = f->raw + f->rawlen + (f->type == J_STRING);
	}
	lay->n = rec->n;
	lay->valid = 1;
}

const char *
jparse_like(const char *line, size_t len, struct jrecord *rec, struct jlayout *lay, int *same)
{
	const char *err;

	if (lay->valid && match_layout(line, len, rec, lay)) {
		*same = 1;
		return NULL;
	}
	*same = 0;
	if ((err = jparse(line, len, rec)) != NULL)
		return err;
	keep_layout(line, len, rec, lay);
	return NULL;
}

void
jlayout_free(struct jlayout *lay)
{
	free(lay->text);
	free(lay->gap);
	memset(lay, 0, sizeof *lay);
}
