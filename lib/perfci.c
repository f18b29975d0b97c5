/*
 * perfci: make compare-ci's checks, and the row edits that record
 * allocations (perfci.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jsonl.h"
#include "perfci.h"
#include "perfjson.h"
#include "perfprov.h"
#include "util.h"

char *
ci_read_counts(const char *path, struct jrecord *r)
{
	const char *line, *err;
	size_t len, n;
	char *text = read_all(path, &len);

	while (len > 0 && strchr(" \t\r\n", text[len - 1]) != NULL)
		len--;
	for (n = len; n > 0 && text[n - 1] != '\n'; n--)
		;
	line = text + n;
	if (len == n)
		die("%s: no metrics line", path);
	if ((err = jparse(line, len - n, r)) != NULL)
		die("%s: its last line: %s", path, err);
	return text;
}

/* The counts record's member "<case><suffix>", or NULL. */
static const struct jfield *
countof_case(const struct jrecord *counts, const char *c, const char *suffix)
{
	struct buf key = { 0 };
	const struct jfield *f;

	buf_printf(&key, "%s%s", c, suffix);
	f = jget(counts, key.p, key.n);
	free(key.p);
	return f != NULL && f->type == J_NUMBER ? f : NULL;
}

/* Each member of r but those named skip1 and skip2, as written, into b. */
static void
members_but(struct buf *b, const struct jrecord *r, const char *skip1, const char *skip2)
{
	size_t i, n = 0;

	for (i = 0; i < r->n; i++) {
		const struct jfield *f = &r->field[i];

		if (jfield_is(f, skip1) || (skip2 != NULL && jfield_is(f, skip2)))
			continue;
		buf_printf(b, "%s\"%.*s\":", n++ ? "," : "", (int)f->keylen, f->key);
		if (f->type == J_STRING)
			buf_printf(b, "\"%.*s\"", (int)f->rawlen, f->raw);
		else
			buf_add(b, f->raw, f->rawlen);
	}
}

char *
ci_row_allocs(const char *row, const struct jrecord *counts)
{
	struct jrecord r = { 0 };
	const struct jfield *a, *bytes;
	struct buf b = { 0 };
	char *c;

	if (jparse(row, strlen(row), &r) != NULL)
		die("a row that is not a record: %.60s", row);
	c = doc_str(&r, "case", "a row");
	a = countof_case(counts, c, "_allocs");
	bytes = countof_case(counts, c, "_alloc_bytes");
	free(c);
	if (a == NULL) {
		jrecord_free(&r);
		return xstrdup(row);
	}
	buf_puts(&b, "{");
	members_but(&b, &r, "allocs", "alloc_bytes");
	buf_printf(&b, ",\"allocs\":%.*s", (int)a->rawlen, a->raw);
	if (bytes != NULL)
		buf_printf(&b, ",\"alloc_bytes\":%.*s", (int)bytes->rawlen, bytes->raw);
	buf_puts(&b, "}");
	jrecord_free(&r);
	return b.p;
}

/* One allocation figure of a case against the document's. */
static int
ci_compare(const char *c, const char *what, const struct jfield *now, const struct jfield *was)
{
	if (was == NULL || was->type != J_NUMBER) {
		warnmsg("row %s: perf.json records no %s a call: make compare-allocs records them", c, what);
		return 1;
	}
	if (now->num > was->num) {
		warnmsg("row %s: %.*s %s a call, %.*s in perf.json: more than recorded, a regression",
		    c, (int)now->rawlen, now->raw, what, (int)was->rawlen, was->raw);
		return 1;
	}
	if (now->num < was->num) {
		warnmsg("row %s: %.*s %s a call, %.*s in perf.json: fewer than recorded; record them: make compare-allocs",
		    c, (int)now->rawlen, now->raw, what, (int)was->rawlen, was->raw);
		return 1;
	}
	return 0;
}

int
ci_check_allocs(const char *countspath, const struct jrecord *counts, char *cases,
    const struct doc *d)
{
	const struct jfield *a, *bytes;
	char *c, *rc;
	size_t i;
	int bad = 0, k;

	for (c = strtok(cases, ", \t\n"); c != NULL; c = strtok(NULL, ", \t\n")) {
		if ((a = countof_case(counts, c, "_allocs")) == NULL)
			die("%s: no %s_allocs: the implementation counted no allocations"
			    " (bench.h's counts mode, on glibc)", countspath, c);
		bytes = countof_case(counts, c, "_alloc_bytes");
		for (i = 0, k = -1; i < d->nrows && k < 0; i++) {
			rc = doc_str(&d->rows[i], "case", d->path);
			if (strcmp(rc, c) == 0)
				k = (int)i;
			free(rc);
		}
		if (k < 0) {
			warnmsg("row %s: not in %s: make compare-allocs adds it", c, d->path);
			bad = 1;
			continue;
		}
		if (ci_compare(c, "allocations", a, jget(&d->rows[k], "allocs", 6)) != 0) {
			bad = 1;
			continue;
		}
		if (bytes != NULL)
			bad |= ci_compare(c, "bytes allocated", bytes, jget(&d->rows[k], "alloc_bytes", 11));
	}
	return bad;
}

/* A C header's public functions, as the checks read it. */
struct fn {
	char *name;
	unsigned long line;
};

static const char *const notnames[] = {
	"int", "char", "void", "short", "long", "float", "double", "signed", "unsigned",
	"_Bool", "bool", "const", "volatile", "restrict", "struct", "union", "enum", "extern",
	"inline", "static", "typedef", "auto", "register", "_Noreturn", "noreturn", "_Atomic",
	"__attribute__", "__attribute", "__declspec", "__asm__", "__asm", "asm", "_Alignas",
	"alignas", "sizeof", "_Static_assert", "static_assert", "__typeof__", "typeof",
	"__extension__", "__inline", "__inline__", "__restrict", "__restrict__", NULL
};

static int
isname(const char *s, size_t n, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strlen(*list) == n && memcmp(*list, s, n) == 0)
			return 1;
	return 0;
}

/*
 * One declaration's text (comments and directives gone), ended by ';' or
 * a function's body: its function names, unless typedef or static.
 */
static void
take_decl(const char *path, const char *t, size_t n, const unsigned long *lines,
    struct fn **fns, size_t *nfns)
{
	static const char *const statements[] = { "return", "if", "for", "while", "do",
		"switch", "goto", "break", "continue", "else", "case", "default", NULL };
	size_t i = 0, j, depth = 0, first = 1;

	while (i < n) {
		if (isalpha((unsigned char)t[i]) || t[i] == '_') {
			for (j = i; j < n && (isalnum((unsigned char)t[j]) || t[j] == '_'); j++)
				;
			if (depth == 0 && (isname(t + i, j - i, (const char *const[]){ "typedef", "static", NULL })))
				return;
			if (first && isname(t + i, j - i, statements))
				die("%s:%lu: not a declaration: a statement (%.*s)", path, lines[i], (int)(j - i), t + i);
			first = 0;
			if (depth == 0) {
				size_t k = j;

				while (k < n && isspace((unsigned char)t[k]))
					k++;
				if (k < n && t[k] == '(' && !isname(t + i, j - i, notnames)) {
					*fns = xrealloc(*fns, (*nfns + 1) * sizeof **fns);
					(*fns)[*nfns].name = xmemdup(t + i, j - i);
					(*fns)[(*nfns)++].line = lines[i];
				}
			}
			i = j;
			continue;
		}
		if (t[i] == '(' || t[i] == '[')
			depth++;
		else if ((t[i] == ')' || t[i] == ']') && depth > 0)
			depth--;
		else if (!isspace((unsigned char)t[i]))
			first = 0;
		i++;
	}
}

/* The public functions of a header; or exit 2, naming the line that does not parse. */
static size_t
public_functions(const char *path, struct fn **fns)
{
	size_t len, i, n = 0, nfns = 0, depth = 0, body = 0, externc = 0;
	char *src = read_all(path, &len), *t = xmalloc(len + 1);
	unsigned long line = 1, *lines = xmalloc((len + 1) * sizeof *lines), opened = 0;
	int bol = 1;

	*fns = NULL;
	for (i = 0; i < len; i++) {
		char ch = src[i];

		if (ch == '\n') {
			line++;
			bol = 1;
			if (body == 0)
				t[n] = ' ', lines[n++] = line;
			continue;
		}
		if (ch == '/' && i + 1 < len && src[i + 1] == '*') {
			unsigned long at = line;

			for (i += 2; i + 1 < len && !(src[i] == '*' && src[i + 1] == '/'); i++)
				line += src[i] == '\n';
			if (i + 1 >= len)
				die("%s:%lu: a comment that does not end", path, at);
			i++;
			if (body == 0)
				t[n] = ' ', lines[n++] = line;
			continue;
		}
		if (ch == '/' && i + 1 < len && src[i + 1] == '/') {
			while (i + 1 < len && src[i + 1] != '\n')
				i++;
			continue;
		}
		if (bol && ch == '#') {
			/* A directive, continued lines and all: nothing of a declaration. */
			while (i + 1 < len && (src[i + 1] != '\n' || src[i] == '\\')) {
				i++;
				line += src[i] == '\n';
			}
			continue;
		}
		if (!isspace((unsigned char)ch))
			bol = 0;
		if (ch == '"' || ch == '\'') {
			size_t start = n;
			unsigned long at = line;

			for (t[n] = ch, lines[n++] = line, i++; i < len && src[i] != ch && src[i] != '\n'; i++) {
				if (src[i] == '\\' && i + 1 < len)
					i++;
				t[n] = 'x', lines[n++] = line;
			}
			if (i >= len || src[i] != ch)
				die("%s:%lu: a %s that does not end on its line", path, at, ch == '"' ? "string" : "character");
			t[n] = ch, lines[n++] = line;
			if (body > 0)
				n = start;
			continue;
		}
		if (body > 0) {
			/* Inside a function's body or an aggregate's braces: only nesting counts. */
			if (ch == '{')
				body++;
			else if (ch == '}' && --body == 0 && depth == 1) {
				depth = 0;
				t[n] = ' ', lines[n++] = line;
			}
			continue;
		}
		if (ch == '(' || ch == '[')
			depth++, opened = line;
		if ((ch == ')' || ch == ']') && depth-- == 0)
			die("%s:%lu: '%c' closes nothing", path, line, ch);
		if (ch == '}' && depth == 0) {
			if (externc == 0)
				die("%s:%lu: '}' closes nothing", path, line);
			externc--;
			n = 0;
			continue;
		}
		if (ch == '{' && depth == 0) {
			size_t k = n;

			while (k > 0 && isspace((unsigned char)t[k - 1]))
				k--;
			if (k >= 10 && memcmp(t + k - 10, "extern \"x\"", 10) == 0) {
				/* extern "C" { ... }: its declarations are the header's own. */
				externc++;
				n = 0;
				continue;
			}
			if (k > 0 && t[k - 1] == ')') {
				/* A function's body: the declaration ends here. */
				take_decl(path, t, n, lines, fns, &nfns);
				n = 0;
			} else {
				/* An aggregate's members: skipped, the declarators after them kept. */
				depth = 1;
			}
			body = 1;
			continue;
		}
		if (ch == ';' && depth == 0) {
			take_decl(path, t, n, lines, fns, &nfns);
			n = 0;
			continue;
		}
		t[n] = ch, lines[n++] = line;
	}
	if (depth > 0 || body > 0)
		die("%s:%lu: '%s' that is never closed", path, opened ? opened : line, body ? "{" : "(");
	for (i = 0; i < n && isspace((unsigned char)t[i]); i++)
		;
	if (i < n)
		die("%s:%lu: a declaration without its ';'", path, lines[i]);
	free(src);
	free(t);
	free(lines);
	return nfns;
}

/* The exemptions: each list item "- `name`: reason"; or exit 2 naming the line. */
static size_t
exemptions(const char *path, struct fn **ex)
{
	size_t len, n = 0, k;
	unsigned long line = 0;
	char *text, *p, *nl, *q;
	FILE *fp;

	*ex = NULL;
	/* No file: nothing is exempt. */
	if ((fp = fopen(path, "r")) == NULL)
		return 0;
	fclose(fp);
	text = read_all(path, &len);
	for (p = text; p < text + len; p = nl + 1) {
		line++;
		if ((nl = memchr(p, '\n', (size_t)(text + len - p))) == NULL)
			nl = text + len;
		*nl = '\0';
		for (q = p; *q == ' ' || *q == '\t'; q++)
			;
		/* Headings and prose are the reader's; every list item is an exemption. */
		if (!(strchr("-*+", *q) != NULL && *q != '\0' && (q[1] == ' ' || q[1] == '\t')))
			continue;
		if (q != p || strncmp(q, "- `", 3) != 0)
			goto bad;
		q += 3;
		for (k = 0; isalnum((unsigned char)q[k]) || q[k] == '_'; k++)
			;
		if (k == 0 || isdigit((unsigned char)q[0]) || strncmp(q + k, "`: ", 3) != 0)
			goto bad;
		if (q[k + 3 + strspn(q + k + 3, " \t")] == '\0')
			goto bad;
		*ex = xrealloc(*ex, (n + 1) * sizeof **ex);
		(*ex)[n].name = xmemdup(q, k);
		(*ex)[n++].line = line;
	}
	free(text);
	return n;
bad:
	die("%s:%lu: not an exemption: expected - `name`: reason", path, line);
}

/* Whether the function fn has the case c: named so, or ending in _c. */
static int
covers(const char *fn, const char *c)
{
	size_t f = strlen(fn), n = strlen(c);

	return strcmp(fn, c) == 0 || (f > n + 1 && fn[f - n - 1] == '_' && strcmp(fn + f - n, c) == 0);
}

int
ci_check_public(const char *header, const char *exempt, const struct doc *d)
{
	struct fn *fns, *ex;
	size_t nfns = public_functions(header, &fns), nex = exemptions(exempt, &ex), i, j;
	int bad = 0, found;
	char *c;

	for (i = 0; i < nfns; i++) {
		for (j = 0, found = 0; j < d->nrows && !found; j++) {
			c = doc_str(&d->rows[j], "case", d->path);
			found = covers(fns[i].name, c);
			free(c);
		}
		for (j = 0; j < nex && !found; j++)
			found = strcmp(ex[j].name, fns[i].name) == 0;
		if (!found) {
			warnmsg("%s:%lu: %s has no case in %s and no line in %s", header, fns[i].line,
			    fns[i].name, d->path, exempt);
			bad = 1;
		}
	}
	for (j = 0; j < nex; j++) {
		for (i = 0, found = 0; i < nfns && !found; i++)
			found = strcmp(ex[j].name, fns[i].name) == 0;
		if (!found) {
			warnmsg("%s:%lu: %s is not a public function of %s", exempt, ex[j].line, ex[j].name, header);
			bad = 1;
		}
	}
	for (i = 0; i < nfns; i++)
		free(fns[i].name);
	for (j = 0; j < nex; j++)
		free(ex[j].name);
	free(fns);
	free(ex);
	return bad;
}

int
ci_check_refs(const struct doc *d)
{
	const struct jfield *f = doc_need(&d->top, "sides", J_OBJECT, d->path), *lic, *bb;
	struct jrecord sides = { 0 }, side = { 0 };
	const char *why;
	char *name, *expr;
	size_t i, j;
	int bad = 0, gpl;

	if (jparse(f->raw, f->rawlen, &sides) != NULL)
		die("%s: \"sides\" is not an object", d->path);
	for (i = 0; i < sides.n; i++) {
		name = json_unescape(sides.field[i].key, sides.field[i].keylen);
		for (j = 0; j < i; j++)
			if (sides.field[j].keylen == sides.field[i].keylen &&
			    memcmp(sides.field[j].key, sides.field[i].key, sides.field[i].keylen) == 0) {
				warnmsg("%s: side %s is named twice", d->path, name);
				bad = 1;
			}
		if (sides.field[i].type != J_OBJECT || jparse(sides.field[i].raw, sides.field[i].rawlen, &side) != NULL)
			die("%s: side %s is not an object", d->path, name);
		lic = jget(&side, "license", 7);
		bb = jget(&side, "blackbox", 8);
		expr = lic != NULL && lic->type == J_STRING ? json_unescape(lic->raw, lic->rawlen) : NULL;
		if (expr == NULL || strcmp(expr, "NOASSERTION") == 0 || strcmp(expr, "NONE") == 0) {
			warnmsg("%s: side %s states no licence%s%s: every side needs one (make compare: COMPARE_LICENSE_%s)",
			    d->path, name, expr ? ", only " : "", expr ? expr : "", name);
			bad = 1;
		} else if ((why = prov_license(expr, &gpl)) != NULL) {
			warnmsg("%s: side %s: licence \"%s\": %s", d->path, name, expr, why);
			bad = 1;
		} else if (gpl && i > 0 && (bb == NULL || bb->type != J_TRUE)) {
			warnmsg("%s: side %s: licence %s: a GPL reference runs only as a black box, a separate"
			    " program never linked (make compare: COMPARE_BLACKBOX_%s = 1)", d->path, name, expr, name);
			bad = 1;
		}
		free(expr);
		free(name);
		jrecord_free(&side);
	}
	jrecord_free(&sides);
	for (i = 0; i < d->nrows; i++)
		if ((why = doc_row_entries(d, i)) != NULL) {
			warnmsg("%s: %s", d->path, why);
			bad = 1;
		}
	return bad;
}
