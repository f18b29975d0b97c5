/*
 * Fuzz target: the JSON-line reader (lib/jsonl.c). The input is a file of
 * lines. Checked for every line:
 *   - jparse and jparse_like (one layout carried across the lines) give the
 *     same result, the same message and the same record, and a line
 *     jparse_like calls "same layout" has the last layout's keys;
 *   - jparse accepts what the reference parser (refjson.h) accepts, with
 *     the same members at the same places;
 *   - every number reads as strtod reads its lexeme, bit for bit;
 *   - jget finds every member;
 *   - the record written again (keys and strings through jescape, numbers
 *     passed through as written, or computed ones through fmt_double) and
 *     read again is the same record, or a duplicate key when two keys were
 *     written apart but decode alike.
 */
#include "fuzz.h"
#include "refjson.h"
#include "jsonl.h"
#include "util.h"

struct snap {			/* a record, kept by offsets so it outlives its line */
	size_t key, keylen, raw, rawlen;
	int type;
	double num;
};

static struct snap *prevkeys;	/* the keys of the last record parsed through lay */
static size_t nprev, capprev;
static char *prevtext;
static size_t prevtextcap;

static void
check_same_record(const char *line, const struct jrecord *a, const struct jrecord *b)
{
	size_t i;

	FUZZ_CHECK(a->n == b->n, "jparse %zu members, jparse_like %zu", a->n, b->n);
	for (i = 0; i < a->n; i++) {
		const struct jfield *x = &a->field[i], *y = &b->field[i];

		FUZZ_CHECK(x->key == y->key && x->keylen == y->keylen, "member %zu: key at %td+%zu, %td+%zu",
		    i, x->key - line, x->keylen, y->key - line, y->keylen);
		FUZZ_CHECK(x->type == y->type, "member %zu: type %d, %d", i, (int)x->type, (int)y->type);
		FUZZ_CHECK(x->raw == y->raw && x->rawlen == y->rawlen, "member %zu: raw at %td+%zu, %td+%zu",
		    i, x->raw - line, x->rawlen, y->raw - line, y->rawlen);
		FUZZ_CHECK(fuzz_samebits(x->num, y->num), "member %zu: num %.17g, %.17g", i, x->num, y->num);
	}
}

static void
check_reference(const char *line, size_t len, const char *err, const struct jrecord *rec)
{
	static struct refparse ref;
	static const int kind[] = {
		[J_NUMBER] = REF_NUMBER, [J_STRING] = REF_STRING, [J_TRUE] = REF_LITERAL,
		[J_FALSE] = REF_LITERAL, [J_NULL] = REF_LITERAL, [J_ARRAY] = REF_NESTED,
		[J_OBJECT] = REF_NESTED
	};
	int ok = ref_parse(&ref, line, len) == 0;
	size_t i;

	FUZZ_CHECK(ok == (err == NULL), "jparse says %s, the reference %s",
	    err ? err : "valid", ok ? "valid" : "invalid");
	if (!ok)
		return;
	FUZZ_CHECK(ref.n == rec->n, "%zu members, the reference %zu", rec->n, ref.n);
	for (i = 0; i < rec->n; i++) {
		const struct jfield *f = &rec->field[i];
		const struct reffield *g = &ref.f[i];

		FUZZ_CHECK(f->key == line + g->key && f->keylen == g->keylen, "member %zu: key", i);
		FUZZ_CHECK(f->raw == line + g->raw && f->rawlen == g->rawlen, "member %zu: raw", i);
		FUZZ_CHECK(kind[f->type] == g->kind, "member %zu: type %d, reference kind %d",
		    i, (int)f->type, g->kind);
		if (f->type == J_TRUE || f->type == J_FALSE || f->type == J_NULL)
			FUZZ_CHECK(f->raw[0] == "tfn"[f->type - J_TRUE], "member %zu: literal type", i);
		if (f->type == J_ARRAY || f->type == J_OBJECT)
			FUZZ_CHECK(f->raw[0] == "[{"[f->type - J_ARRAY], "member %zu: nested type", i);
	}
}

static void
check_numbers(const struct jrecord *rec)
{
	size_t i;

	for (i = 0; i < rec->n; i++) {
		const struct jfield *f = &rec->field[i];
		double want;

		if (f->type != J_NUMBER)
			continue;
		FUZZ_CHECK(fuzz_isjsonnumber(f->raw, f->rawlen), "number %.*s", (int)f->rawlen, f->raw);
		want = fuzz_strtod(f->raw, f->rawlen);
		FUZZ_CHECK(fuzz_samebits(f->num, want), "%.*s reads %a, strtod %a",
		    (int)f->rawlen, f->raw, f->num, want);
	}
}

static void
check_jget(const struct jrecord *rec)
{
	size_t i;

	for (i = 0; i < rec->n; i++)
		FUZZ_CHECK(jget(rec, rec->field[i].key, rec->field[i].keylen) == &rec->field[i],
		    "jget member %zu", i);
	FUZZ_CHECK(rec->n > 0 || jget(rec, "x", 1) == NULL, "jget in an empty record");
}

/* Write rec compactly; computed: numbers through fmt_double. Returns the text (malloc'd). */
static char *
write_record(const struct jrecord *rec, int computed, size_t *len)
{
	char *text = NULL, num[32];
	size_t i, n, size = 0, cap = 0;
	char *dec = NULL;
	FILE *fp = open_memstream(&text, &size);

	FUZZ_CHECK(fp != NULL, "open_memstream");
	fputc('{', fp);
	for (i = 0; i < rec->n; i++) {
		const struct jfield *f = &rec->field[i];
		size_t need = f->keylen > f->rawlen ? f->keylen : f->rawlen;

		if (need + 1 > cap) {
			cap = need + 1;
			if ((dec = realloc(dec, cap)) == NULL)
				abort();
		}
		if (i > 0)
			fputc(',', fp);
		fputc('"', fp);
		n = ref_decode(f->key, f->keylen, dec);
		jescape(fp, dec, n);
		fputs("\":", fp);
		if (f->type == J_STRING) {
			fputc('"', fp);
			n = ref_decode(f->raw, f->rawlen, dec);
			jescape(fp, dec, n);
			fputc('"', fp);
		} else if (f->type == J_NUMBER && computed) {
			int k = fmt_double(num, f->num);

			fwrite(num, 1, (size_t)k, fp);
		} else
			fwrite(f->raw, 1, f->rawlen, fp);
	}
	fputc('}', fp);
	FUZZ_CHECK(fclose(fp) == 0, "fclose memstream");
	free(dec);
	*len = size;
	return text;
}

static int
same_decoded(const char *a, size_t alen, const char *b, size_t blen)
{
	char *x = malloc(alen + 1), *y = malloc(blen + 1);
	size_t m, n;
	int same;

	if (x == NULL || y == NULL)
		abort();
	m = ref_decode(a, alen, x);
	n = ref_decode(b, blen, y);
	same = m == n && memcmp(x, y, m) == 0;
	free(x);
	free(y);
	return same;
}

static void
check_roundtrip(const struct jrecord *rec, int computed)
{
	struct jrecord again = { 0 };
	size_t len, i, j;
	char *text = write_record(rec, computed, &len);
	const char *err = jparse(text, len, &again);
	int dup = 0;

	FUZZ_CHECK(memchr(text, '\n', len) == NULL, "the record written holds a newline: %.*s", (int)len, text);
	for (i = 0; i < rec->n && !dup; i++)
		for (j = 0; j < i && !dup; j++)
			dup = same_decoded(rec->field[i].key, rec->field[i].keylen,
			    rec->field[j].key, rec->field[j].keylen);
	if (dup) {
		FUZZ_CHECK(err != NULL && strncmp(err, "duplicate key \"", 15) == 0,
		    "keys that decode alike read back as %s: %.*s", err ? err : "valid", (int)len, text);
		goto out;
	}
	FUZZ_CHECK(err == NULL, "the record written reads back as %s: %.*s", err, (int)len, text);
	FUZZ_CHECK(again.n == rec->n, "%zu members written, %zu read", rec->n, again.n);
	for (i = 0; i < rec->n; i++) {
		const struct jfield *f = &rec->field[i], *g = &again.field[i];

		FUZZ_CHECK(same_decoded(f->key, f->keylen, g->key, g->keylen), "member %zu: key", i);
		FUZZ_CHECK(f->type == g->type, "member %zu: type %d, %d", i, (int)f->type, (int)g->type);
		if (f->type == J_STRING)
			FUZZ_CHECK(same_decoded(f->raw, f->rawlen, g->raw, g->rawlen), "member %zu: string", i);
		else if (f->type == J_NUMBER)
			FUZZ_CHECK(fuzz_samebits(f->num, g->num), "member %zu: %.*s read back as %.*s, %a != %a",
			    i, (int)f->rawlen, f->raw, (int)g->rawlen, g->raw, f->num, g->num);
		if (f->type != J_STRING && !(f->type == J_NUMBER && computed))
			FUZZ_CHECK(f->rawlen == g->rawlen && memcmp(f->raw, g->raw, f->rawlen) == 0,
			    "member %zu: raw %.*s passed through as %.*s", i, (int)f->rawlen, f->raw,
			    (int)g->rawlen, g->raw);
	}
out:
	jrecord_free(&again);
	free(text);
}

/* Remember the keys of a record jparse_like made the layout. */
static void
keep_keys(const char *line, size_t len, const struct jrecord *rec)
{
	size_t i;

	if (len > prevtextcap) {
		prevtextcap = len;
		if ((prevtext = realloc(prevtext, prevtextcap)) == NULL)
			abort();
	}
	memcpy(prevtext, line, len);
	if (rec->n > capprev) {
		capprev = rec->n;
		if ((prevkeys = realloc(prevkeys, capprev * sizeof *prevkeys)) == NULL)
			abort();
	}
	for (i = 0; i < rec->n; i++) {
		prevkeys[i].key = (size_t)(rec->field[i].key - line);
		prevkeys[i].keylen = rec->field[i].keylen;
	}
	nprev = rec->n;
}

static void
check_same_keys(const struct jrecord *rec)
{
	size_t i;

	FUZZ_CHECK(rec->n == nprev, "same layout, %zu members after %zu", rec->n, nprev);
	for (i = 0; i < rec->n; i++)
		FUZZ_CHECK(rec->field[i].keylen == prevkeys[i].keylen &&
		    memcmp(rec->field[i].key, prevtext + prevkeys[i].key, prevkeys[i].keylen) == 0,
		    "same layout, member %zu has another key", i);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct jrecord a, b;
	struct jlayout lay = { 0 };
	const char *p = (const char *)data, *end = p + size, *nl, *ea, *eb;
	char msg[256], *line;
	size_t len;
	int same;

	nprev = 0;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		len = (size_t)(nl - p);
		/* Copied to the heap, so that a read past the line's end is caught. */
		if ((line = malloc(len ? len : 1)) == NULL)
			abort();
		memcpy(line, p, len);
		ea = jparse(line, len, &a);
		if (ea != NULL) {
			snprintf(msg, sizeof msg, "%s", ea);
			ea = msg;
		}
		eb = jparse_like(line, len, &b, &lay, &same);
		FUZZ_CHECK((ea == NULL) == (eb == NULL) && (ea == NULL || strcmp(ea, eb) == 0),
		    "jparse says %s, jparse_like %s", ea ? ea : "valid", eb ? eb : "valid");
		FUZZ_CHECK(eb == NULL || !same, "jparse_like: same layout and %s", eb);
		check_reference(line, len, ea, &a);
		if (ea == NULL) {
			check_same_record(line, &a, &b);
			if (same)
				check_same_keys(&b);
			else
				keep_keys(line, len, &b);
			check_numbers(&a);
			check_jget(&a);
			check_roundtrip(&a, 0);
			check_roundtrip(&a, 1);
		}
		free(line);
		p = nl + 1;
	}
	jlayout_free(&lay);
	return 0;
}
