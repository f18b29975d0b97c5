/*
 * perfdoc: the reference benchmarks' document, docs/perf.json, and what is
 * made from it. Writes the document from refjudge(1)'s row records and the
 * run's description (merging with an earlier document to resume its
 * deferred rows); renders its Markdown table; checks that a table is what
 * the document renders; drafts one issue per row where the implementation
 * is slower than a reference; lists the deferred rows. The document's
 * schema is in perfdoc(1).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "jsonl.h"
#include "util.h"

#define SCHEMA 1

/* A growing string. */
struct buf {
	char *p;
	size_t n, cap;
};

static void
badd(struct buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void
bputs(struct buf *b, const char *s)
{
	badd(b, s, strlen(s));
}

static void
bprintf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	s = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	badd(b, s, (size_t)n);
	free(s);
}

/* s as a JSON string, quotes included. */
static void
bstr(struct buf *b, const char *s)
{
	bputs(b, "\"");
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			bprintf(b, "\\%c", *s);
		else if (*s == '\n')
			bputs(b, "\\n");
		else if ((unsigned char)*s < 0x20)
			bprintf(b, "\\u%04x", (unsigned)(unsigned char)*s);
		else
			badd(b, s, 1);
	}
	bputs(b, "\"");
}

/* A JSON string's raw body, unescaped, as a new string. */
static char *
unescape(const char *raw, size_t len)
{
	struct buf b = { 0 };
	const char *p = raw, *end = raw + len;
	unsigned long u;
	char utf[4];

	bputs(&b, "");
	while (p < end) {
		if (*p != '\\' || p + 1 >= end) {
			badd(&b, p++, 1);
			continue;
		}
		p++;
		switch (*p) {
		case 'n': bputs(&b, "\n"); break;
		case 't': bputs(&b, "\t"); break;
		case 'r': bputs(&b, "\r"); break;
		case 'b': bputs(&b, "\b"); break;
		case 'f': bputs(&b, "\f"); break;
		case 'u':
			u = end - p > 4 ? strtoul((char[5]){ p[1], p[2], p[3], p[4], 0 }, NULL, 16) : 0xfffd;
			p += 4;
			/* Surrogates are not paired here: a table needs no emoji. */
			if (u >= 0xd800 && u < 0xe000)
				u = 0xfffd;
			if (u < 0x80) {
				utf[0] = (char)u;
				badd(&b, utf, 1);
			} else if (u < 0x800) {
				utf[0] = (char)(0xc0 | u >> 6);
				utf[1] = (char)(0x80 | (u & 0x3f));
				badd(&b, utf, 2);
			} else {
				utf[0] = (char)(0xe0 | u >> 12);
				utf[1] = (char)(0x80 | (u >> 6 & 0x3f));
				utf[2] = (char)(0x80 | (u & 0x3f));
				badd(&b, utf, 3);
			}
			break;
		default: badd(&b, p, 1);
		}
		p++;
	}
	return b.p;
}

static char *
readall(const char *path, size_t *len)
{
	struct buf b = { 0 };
	char chunk[65536];
	FILE *fp;
	size_t n;

	if ((fp = fopen(path, "r")) == NULL)
		die("%s:", path);
	bputs(&b, "");
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		badd(&b, chunk, n);
	if (ferror(fp))
		die("%s:", path);
	fclose(fp);
	*len = b.n;
	return b.p;
}

/*
 * The next element of a JSON array's raw text: *p moves past it. The text
 * was validated by jparse, so only strings and nesting need care.
 */
static int
nextitem(const char **p, const char *end, const char **item, size_t *len)
{
	const char *s = *p;
	int depth = 0, instr = 0;

	while (s < end && strchr("[, \t\r\n", *s) != NULL)
		s++;
	if (s >= end || *s == ']')
		return 0;
	*item = s;
	for (; s < end; s++) {
		if (instr) {
			if (*s == '\\')
				s++;
			else if (*s == '"')
				instr = 0;
		} else if (*s == '"') {
			instr = 1;
		} else if (*s == '{' || *s == '[') {
			depth++;
		} else if (*s == '}' || *s == ']') {
			if (depth-- == 0)
				break;
			if (depth == 0) {
				s++;
				break;
			}
		} else if (*s == ',' && depth == 0) {
			break;
		}
	}
	*len = (size_t)(s - *item);
	*p = s;
	return 1;
}

/* The member key of r, which must be there with type t; or exit 2. */
static const struct jfield *
need(const struct jrecord *r, const char *key, enum jtype t, const char *where)
{
	const struct jfield *f = jget(r, key, strlen(key));

	if (f == NULL || f->type != t)
		die("%s: no %s \"%s\"", where, t == J_STRING ? "string" : t == J_NUMBER ?
		    "number" : t == J_ARRAY ? "array" : t == J_OBJECT ? "object" : "boolean", key);
	return f;
}

static char *
str(const struct jrecord *r, const char *key, const char *where)
{
	const struct jfield *f = need(r, key, J_STRING, where);

	return unescape(f->raw, f->rawlen);
}

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

static void
readdoc(struct doc *d, const char *path)
{
	const struct jfield *f, *rows;
	const char *p, *item, *err;
	size_t len, ilen;

	memset(d, 0, sizeof *d);
	d->path = path;
	d->text = readall(path, &len);
	if ((err = jparse(d->text, len, &d->top)) != NULL)
		die("%s: %s", path, err);
	f = need(&d->top, "schema", J_NUMBER, path);
	if (f->num != SCHEMA)
		die("%s: schema %.*s, this perfdoc reads %d", path, (int)f->rawlen, f->raw, SCHEMA);
	rows = need(&d->top, "rows", J_ARRAY, path);
	p = rows->raw + 1;
	while (nextitem(&p, rows->raw + rows->rawlen, &item, &ilen)) {
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

static int
isvalid(const struct jrecord *row)
{
	const struct jfield *f = jget(row, "valid", 5);

	return f != NULL && f->type == J_TRUE;
}

/* Each member of the object at f as "key value" items, into b. */
static void
members(struct buf *b, const struct jfield *f, const char *sep)
{
	struct jrecord r = { 0 };
	size_t i;
	char *v;

	if (f == NULL || f->type != J_OBJECT || jparse(f->raw, f->rawlen, &r) != NULL)
		return;
	for (i = 0; i < r.n; i++) {
		bprintf(b, "%s%.*s ", i ? sep : "", (int)r.field[i].keylen, r.field[i].key);
		if (r.field[i].type == J_STRING) {
			v = unescape(r.field[i].raw, r.field[i].rawlen);
			bputs(b, v);
			free(v);
		} else {
			badd(b, r.field[i].raw, r.field[i].rawlen);
		}
	}
	jrecord_free(&r);
}

/* A time for the table: whole ns from 1000 on, else four digits. */
static void
putns(struct buf *b, double v)
{
	if (v >= 1000)
		bprintf(b, "%.0f", v);
	else
		bprintf(b, "%.4g", v);
}

/* The elements of row's array key, each parsed, in turn. */
struct items {
	const char *p, *end;
	struct jrecord r;
};

static void
items_open(struct items *it, const struct jrecord *row, const char *key, const char *where)
{
	const struct jfield *f = need(row, key, J_ARRAY, where);

	it->p = f->raw + 1;
	it->end = f->raw + f->rawlen;
}

static int
items_next(struct items *it, const char *where)
{
	const char *item, *err;
	size_t len;

	if (!nextitem(&it->p, it->end, &item, &len))
		return 0;
	if ((err = jparse(item, len, &it->r)) != NULL)
		die("%s: %s", where, err);
	return 1;
}

static double
num(const struct jrecord *r, const char *key, const char *where)
{
	return need(r, key, J_NUMBER, where)->num;
}

/* The table's line for one row. */
static void
tablerow(struct buf *b, const struct jrecord *row, size_t nsides, const char *where)
{
	struct items it = { 0 };
	char *c = str(row, "case", where), *s;
	size_t i;

	bprintf(b, "| %s |", c);
	free(c);
	if (!isvalid(row)) {
		s = str(row, "error", where);
		bprintf(b, " deferred: %s |", s);
		free(s);
		for (i = 1; i < 2 * nsides; i++)
			bputs(b, " |");
		bputs(b, "\n");
		return;
	}
	for (items_open(&it, row, "sides", where); items_next(&it, where); ) {
		bputs(b, " ");
		putns(b, num(&it.r, "median", where));
		bputs(b, " (");
		putns(b, num(&it.r, "q1", where));
		bputs(b, "–");
		putns(b, num(&it.r, "q3", where));
		bputs(b, ") |");
	}
	for (items_open(&it, row, "references", where); items_next(&it, where); ) {
		s = str(&it.r, "verdict", where);
		bprintf(b, " %.3g %s |", num(&it.r, "ratio", where), s);
		free(s);
	}
	s = str(row, "fastest", where);
	if (num(row, "headline_ratio", where) <= 1)
		bputs(b, " fastest |\n");
	else
		bprintf(b, " %.3gx slower than %s |\n", num(row, "headline_ratio", where), s);
	free(s);
	jrecord_free(&it.r);
}

/* The whole table, generated from d. */
static void
table(struct buf *b, const struct doc *d)
{
	const struct jfield *sides = need(&d->top, "sides", J_OBJECT, d->path);
	struct jrecord sr = { 0 };
	char *impl = str(&d->top, "implementation", d->path), *s;
	size_t i, valid = 0;

	if (jparse(sides->raw, sides->rawlen, &sr) != NULL || sr.n < 2)
		die("%s: \"sides\" needs an implementation and a reference", d->path);
	/* The document's name, not its path: a table must not depend on the cwd. */
	bprintf(b, "<!-- Generated by perfdoc(1) from %s by make compare: do not edit. -->\n",
	    strrchr(d->path, '/') ? strrchr(d->path, '/') + 1 : d->path);
	bputs(b, "# Reference benchmarks\n\n");
	bprintf(b, "%s against ", impl);
	for (i = 1; i < sr.n; i++)
		bprintf(b, "%s%.*s", i == 1 ? "" : i + 1 == sr.n ? " and " : ", ",
		    (int)sr.field[i].keylen, sr.field[i].key);
	bputs(b, ", on one core, one thread: the median time of one call in ns over the"
	    " rounds, its quartiles in brackets; ratio = ");
	bprintf(b, "%s / reference, `slower` or `faster` when the quartiles do not overlap.\n\n", impl);
	bputs(b, "- machine: ");
	members(b, jget(&d->top, "machine", 7), ", ");
	bputs(b, "\n- run: ");
	members(b, jget(&d->top, "run", 3), ", ");
	bputs(b, "\n");
	for (i = 0; i < sr.n; i++) {
		bprintf(b, "- %.*s: ", (int)sr.field[i].keylen, sr.field[i].key);
		members(b, &sr.field[i], ", ");
		bputs(b, "\n");
	}
	for (i = 0; i < d->nrows; i++)
		valid += isvalid(&d->rows[i]);
	if (valid < d->nrows)
		bprintf(b, "\npartial: %zu of %zu rows valid\n", valid, d->nrows);
	bputs(b, "\n| case |");
	for (i = 0; i < sr.n; i++)
		bprintf(b, " %.*s |", (int)sr.field[i].keylen, sr.field[i].key);
	for (i = 1; i < sr.n; i++)
		bprintf(b, " %s / %.*s |", impl, (int)sr.field[i].keylen, sr.field[i].key);
	bputs(b, " headline |\n|---|");
	for (i = 1; i < 2 * sr.n; i++)
		bputs(b, "---:|");
	bputs(b, "---|\n");
	for (i = 0; i < d->nrows; i++) {
		s = xstrdup(d->path);
		tablerow(b, &d->rows[i], sr.n, s);
		free(s);
	}
	free(impl);
	jrecord_free(&sr);
}

/* -c: exit 1 at the first line where path differs from what d renders. */
static int
check(const char *path, const struct doc *d)
{
	struct buf want = { 0 };
	const char *w, *h, *wn, *hn;
	char *have;
	size_t len;
	unsigned long line = 1;

	table(&want, d);
	have = readall(path, &len);
	for (w = want.p, h = have;; line++) {
		wn = strchr(w, '\n');
		hn = memchr(h, '\n', len - (size_t)(h - have));
		if (*w == '\0' && (size_t)(h - have) == len)
			break;
		if (wn == NULL || hn == NULL || wn - w != hn - h || memcmp(w, h, (size_t)(wn - w)) != 0) {
			warnmsg("%s:%lu: not what %s generates (make compare-table writes it)",
			    path, line, d->path);
			fprintf(stderr, "  expected: %.*s\n", wn ? (int)(wn - w) : (int)strlen(w), w);
			fprintf(stderr, "  found:    %.*s\n", hn ? (int)(hn - h) :
			    (int)(len - (size_t)(h - have)), h);
			free(have);
			free(want.p);
			return 1;
		}
		w = wn + 1;
		h = hn + 1;
	}
	free(have);
	free(want.p);
	return 0;
}

static void
writefile(const char *dir, const char *name, const char *ext, const struct buf *b)
{
	struct buf path = { 0 }, tmp = { 0 };
	FILE *fp;

	bprintf(&path, "%s/%s%s", dir, name, ext);
	bprintf(&tmp, "%s.tmp", path.p);
	if ((fp = fopen(tmp.p, "w")) == NULL)
		die("%s:", tmp.p);
	fwrite(b->p, 1, b->n, fp);
	if (fshut(fp, tmp.p) != 0 || fclose(fp) != 0)
		exit(2);
	if (rename(tmp.p, path.p) != 0)
		die("rename %s:", path.p);
	free(path.p);
	free(tmp.p);
}

/* -d: one issue draft per valid row slower than some reference. */
static void
drafts(const char *dir, const struct doc *d)
{
	struct buf title = { 0 }, body = { 0 }, head = { 0 };
	struct items it = { 0 };
	const struct jfield *sides = need(&d->top, "sides", J_OBJECT, d->path), *f;
	struct jrecord sr = { 0 };
	char *c, *ref, *worst, *v;
	double ratio, worstr;
	size_t i, k;

	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		die("%s:", dir);
	table(&head, d);
	jparse(sides->raw, sides->rawlen, &sr);
	for (i = 0; i < d->nrows; i++) {
		if (!isvalid(&d->rows[i]))
			continue;
		worst = NULL;
		worstr = 0;
		for (items_open(&it, &d->rows[i], "references", d->path); items_next(&it, d->path); ) {
			v = str(&it.r, "verdict", d->path);
			ratio = num(&it.r, "ratio", d->path);
			if (strcmp(v, "slower") == 0 && ratio > worstr) {
				free(worst);
				worst = str(&it.r, "reference", d->path);
				worstr = ratio;
			}
			free(v);
		}
		if (worst == NULL)
			continue;
		c = str(&d->rows[i], "case", d->path);
		title.n = body.n = 0;
		bprintf(&title, "perf: %s is %.3gx slower than %s on one core\n", c, worstr, worst);
		bprintf(&body, "`make compare` measured the case `%s` slower than a reference"
		    " (the implementation's first quartile above the reference's third).\n\n", c);
		/* The table's header lines and this row's line. */
		k = strstr(head.p, "\n| case |") - head.p + 1;
		badd(&body, head.p + k, (size_t)(strstr(head.p + k, "---|\n") + 5 - (head.p + k)));
		tablerow(&body, &d->rows[i], sr.n, d->path);
		bputs(&body, "\nEvery reference:\n\n");
		for (items_open(&it, &d->rows[i], "references", d->path); items_next(&it, d->path); ) {
			ref = str(&it.r, "reference", d->path);
			v = str(&it.r, "verdict", d->path);
			f = need(&it.r, "ratio", J_NUMBER, d->path);
			bprintf(&body, "- %s: ratio %.*s (%s); ", ref, (int)f->rawlen, f->raw, v);
			members(&body, jget(&sr, ref, strlen(ref)), ", ");
			bputs(&body, "\n");
			free(ref);
			free(v);
		}
		bputs(&body, "\nMachine: ");
		members(&body, jget(&d->top, "machine", 7), ", ");
		bputs(&body, "\n\nRun: ");
		members(&body, jget(&d->top, "run", 3), ", ");
		f = need(&d->rows[i], "gauge", J_STRING, d->path);
		v = unescape(f->raw, f->rawlen);
		f = need(&d->rows[i], v, J_ARRAY, d->path);
		bprintf(&body, "\n\nThe %s after each round: %.*s\n", v, (int)f->rawlen, f->raw);
		free(v);
		bprintf(&body, "\nFrom %s; drafted by perfdoc -d, filed by no one yet.\n", d->path);
		writefile(dir, c, ".title.txt", &title);
		writefile(dir, c, ".md", &body);
		free(c);
		free(worst);
	}
	jrecord_free(&it.r);
	jrecord_free(&sr);
	free(title.p);
	free(body.p);
	free(head.p);
}

/* The description a new document is written from (-m, -n, -A, -J, -s). */
static struct buf runmeta;
static char **sidename;
static struct buf *sidemeta;
static size_t nside;

static struct buf *
sidebuf(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < nside; i++)
		if (strlen(sidename[i]) == len && memcmp(sidename[i], name, len) == 0)
			return &sidemeta[i];
	die("no side %.*s in -s", (int)len, name);
}

static void
addmeta(struct buf *b, const char *key, size_t keylen, const char *raw, size_t rawlen, int isstr)
{
	char *k = xmalloc(keylen + 1);

	memcpy(k, key, keylen);
	k[keylen] = '\0';
	if (b->n > 0)
		bputs(b, ",");
	bstr(b, k);
	bputs(b, ":");
	if (isstr) {
		char *v = xmalloc(rawlen + 1);

		memcpy(v, raw, rawlen);
		v[rawlen] = '\0';
		bstr(b, v);
		free(v);
	} else {
		badd(b, raw, rawlen);
	}
	free(k);
}

/* -m key=value, -n key=number, -A side:key=value, -J side=file. */
static void
option(int c, const char *arg)
{
	const char *eq = strchr(arg, '='), *colon = strchr(arg, ':');
	struct jrecord r = { 0 };
	const char *err;
	char *text;
	size_t len, i;

	if (eq == NULL || eq == arg)
		die("-%c %s: expected key=value", c, arg);
	if (c == 'm' || c == 'n') {
		if (c == 'n') {
			/* A JSON number, as written: parsed the way a reader will. */
			text = xmalloc(strlen(eq + 1) + 8);
			sprintf(text, "{\"n\":%s}", eq + 1);
			if (jparse(text, strlen(text), &r) != NULL || r.n != 1 || r.field[0].type != J_NUMBER)
				die("-n %s: not a JSON number", arg);
			free(text);
		}
		addmeta(&runmeta, arg, (size_t)(eq - arg), eq + 1, strlen(eq + 1), c == 'm');
	} else if (c == 'A') {
		if (colon == NULL || colon > eq)
			die("-A %s: expected side:key=value", arg);
		addmeta(sidebuf(arg, (size_t)(colon - arg)), colon + 1, (size_t)(eq - colon - 1),
		    eq + 1, strlen(eq + 1), 1);
	} else {
		text = readall(eq + 1, &len);
		while (len > 0 && strchr(" \t\r\n", text[len - 1]) != NULL)
			len--;
		if ((err = jparse(text, len, &r)) != NULL)
			die("%s: %s", eq + 1, err);
		for (i = 0; i < r.n; i++)
			addmeta(sidebuf(arg, (size_t)(eq - arg)), r.field[i].key, r.field[i].keylen,
			    r.field[i].type == J_STRING ? r.field[i].raw - 1 : r.field[i].raw,
			    r.field[i].rawlen + (r.field[i].type == J_STRING ? 2 : 0), 0);
		free(text);
	}
	jrecord_free(&r);
}

/* This machine: CPU model, cores, kernel. */
static void
machine(struct buf *b)
{
	char line[512], *p, *model = NULL;
	struct utsname u;
	FILE *fp;

	if ((fp = fopen("/proc/cpuinfo", "r")) != NULL) {
		while (model == NULL && fgets(line, sizeof line, fp) != NULL)
			if (strncmp(line, "model name", 10) == 0 && (p = strchr(line, ':')) != NULL) {
				p += 1 + strspn(p + 1, " \t");
				p[strcspn(p, "\n")] = '\0';
				model = xstrdup(p);
			}
		fclose(fp);
	}
	bputs(b, "{\"cpu\":");
	bstr(b, model ? model : "unknown");
	bprintf(b, ",\"cores\":%ld,\"kernel\":", sysconf(_SC_NPROCESSORS_ONLN));
	if (uname(&u) == 0) {
		snprintf(line, sizeof line, "%s %s %s", u.sysname, u.release, u.machine);
		bstr(b, line);
	} else {
		bstr(b, "unknown");
	}
	bputs(b, "}");
	free(model);
}

/* The value of f as the document has it, for a message; "absent" for none. */
static void
quoted(struct buf *b, const struct jfield *f)
{
	if (f == NULL)
		bputs(b, "absent");
	else if (f->type == J_STRING)
		bprintf(b, "\"%.*s\"", (int)f->rawlen, f->raw);
	else
		badd(b, f->raw, f->rawlen);
}

/* Refuse to resume old when an object member differs from new's. */
static void
samefields(const char *what, const char *oldraw, size_t oldlen, const char *newraw,
    size_t newlen, const char *skip)
{
	struct jrecord o = { 0 }, n = { 0 };
	const struct jfield *f, *g;
	struct buf b = { 0 };
	size_t i;

	if (jparse(oldraw, oldlen, &o) != NULL || jparse(newraw, newlen, &n) != NULL)
		die("resume: %s is not an object", what);
	/* Every old member against the new one, then the new members the old lacks. */
	for (i = 0; i < o.n + n.n; i++) {
		f = i < o.n ? &o.field[i] : &n.field[i - o.n];
		g = jget(i < o.n ? &n : &o, f->key, f->keylen);
		if (skip != NULL && f->keylen == strlen(skip) && memcmp(f->key, skip, f->keylen) == 0)
			continue;
		if (g != NULL && (i >= o.n ||
		    (g->rawlen == f->rawlen && memcmp(g->raw, f->raw, f->rawlen) == 0)))
			continue;
		bprintf(&b, "%s.%.*s differs: was ", what, (int)f->keylen, f->key);
		quoted(&b, i < o.n ? f : g);
		bputs(&b, ", now ");
		quoted(&b, i < o.n ? g : f);
		die("resume refused: %s", b.p);
	}
	jrecord_free(&o);
	jrecord_free(&n);
}

/* -o: write the document from rows (and with -r, an earlier one's rows). */
static int
writedoc(const char *out, const char *old, char *cases, char **rowfiles, int nfiles)
{
	struct buf doc = { 0 }, mach = { 0 }, sides = { 0 }, run = { 0 }, rows = { 0 };
	struct jrecord r = { 0 }, top = { 0 };
	struct doc od = { 0 };
	const struct jfield *f;
	char **rowtext = NULL, **rowcase = NULL, *text, *c, *tmp;
	size_t nrows = 0, i, j, len, valid = 0;
	int k;
	FILE *fp;

	machine(&mach);
	bputs(&run, "{");
	badd(&run, runmeta.p ? runmeta.p : "", runmeta.n);
	bputs(&run, "}");
	bputs(&sides, "{");
	for (i = 0; i < nside; i++) {
		bprintf(&sides, "%s", i ? "," : "");
		bstr(&sides, sidename[i]);
		bputs(&sides, ":{");
		badd(&sides, sidemeta[i].p ? sidemeta[i].p : "", sidemeta[i].n);
		bputs(&sides, "}");
	}
	bputs(&sides, "}");
	if (old != NULL) {
		readdoc(&od, old);
		f = need(&od.top, "machine", J_OBJECT, old);
		samefields("machine", f->raw, f->rawlen, mach.p, mach.n, NULL);
		f = need(&od.top, "run", J_OBJECT, old);
		samefields("run", f->raw, f->rawlen, run.p, run.n, "date");
		f = need(&od.top, "sides", J_OBJECT, old);
		jparse(sides.p, sides.n, &top);
		for (i = 0; i < top.n; i++) {
			const struct jfield *g;
			struct jrecord os = { 0 };
			char what[300];

			jparse(f->raw, f->rawlen, &os);
			g = jget(&os, top.field[i].key, top.field[i].keylen);
			snprintf(what, sizeof what, "sides.%.*s", (int)top.field[i].keylen, top.field[i].key);
			if (g == NULL)
				die("resume refused: side %.*s is new", (int)top.field[i].keylen, top.field[i].key);
			samefields(what, g->raw, g->rawlen, top.field[i].raw, top.field[i].rawlen, NULL);
			jrecord_free(&os);
		}
		for (i = 0; i < od.nrows; i++) {
			rowtext = xrealloc(rowtext, (nrows + 1) * sizeof *rowtext);
			rowcase = xrealloc(rowcase, (nrows + 1) * sizeof *rowcase);
			rowtext[nrows] = xmalloc(od.rowlen[i] + 1);
			memcpy(rowtext[nrows], od.rowraw[i], od.rowlen[i]);
			rowtext[nrows][od.rowlen[i]] = '\0';
			rowcase[nrows++] = str(&od.rows[i], "case", old);
		}
	}
	/* Each case of -C: its new row, or the note that it was not measured. */
	for (c = strtok(cases, ", "); c != NULL; c = strtok(NULL, ", ")) {
		text = NULL;
		for (k = 0; k < nfiles && text == NULL; k++) {
			if (rowfiles[k] == NULL)
				continue;
			tmp = readall(rowfiles[k], &len);
			while (len > 0 && tmp[len - 1] == '\n')
				tmp[--len] = '\0';
			if (jparse(tmp, len, &r) != NULL || (f = jget(&r, "case", 4)) == NULL)
				die("%s: not a row record", rowfiles[k]);
			if (f->rawlen == strlen(c) && memcmp(f->raw, c, f->rawlen) == 0) {
				text = tmp;
				rowfiles[k] = NULL;
			} else {
				free(tmp);
			}
		}
		if (text == NULL) {
			struct buf b = { 0 };

			bputs(&b, "{\"case\":");
			bstr(&b, c);
			bprintf(&b, ",\"metric\":\"%s_ns\",\"valid\":false,\"deferred\":\"stopped\","
			    "\"error\":\"not measured: the load gate stayed closed before this row\",\"rounds\":0}", c);
			text = b.p;
		}
		for (j = 0; j < nrows && strcmp(rowcase[j], c) != 0; j++)
			;
		if (j == nrows) {
			rowtext = xrealloc(rowtext, (nrows + 1) * sizeof *rowtext);
			rowcase = xrealloc(rowcase, (nrows + 1) * sizeof *rowcase);
			rowcase[nrows++] = xstrdup(c);
		} else {
			free(rowtext[j]);
		}
		rowtext[j] = text;
	}
	for (k = 0; k < nfiles; k++)
		if (rowfiles[k] != NULL)
			die("%s: its case is not in -C", rowfiles[k]);
	for (i = 0; i < nrows; i++) {
		jparse(rowtext[i], strlen(rowtext[i]), &r);
		valid += isvalid(&r);
		bprintf(&rows, "%s%s", i ? ",\n" : "", rowtext[i]);
	}
	if (valid == 0)
		die("no row was measured: %s not written", out);
	bprintf(&doc, "{\"schema\":%d,\n\"status\":\"%s\",\n\"rows_valid\":%zu,\n\"rows_total\":%zu,\n"
	    "\"implementation\":", SCHEMA, valid == nrows ? "complete" : "partial", valid, nrows);
	bstr(&doc, nside > 0 ? sidename[0] : "");
	bprintf(&doc, ",\n\"machine\":%s,\n\"run\":%s,\n\"sides\":%s,\n\"rows\":[\n%s\n]}\n",
	    mach.p, run.p, sides.p, rows.p);
	tmp = xmalloc(strlen(out) + 5);
	sprintf(tmp, "%s.tmp", out);
	if ((fp = fopen(tmp, "w")) == NULL)
		die("%s:", tmp);
	fwrite(doc.p, 1, doc.n, fp);
	if (fshut(fp, tmp) != 0 || fclose(fp) != 0)
		return 2;
	if (rename(tmp, out) != 0)
		die("rename %s:", out);
	return 0;
}

static _Noreturn void
usage(void)
{
	fprintf(stderr, "usage: %s -o perf.json -s impl,ref,... -C cases [-r old.json]"
	    " [-A side:key=value] [-J side=file] [-m key=value] [-n key=number] [row ...]\n"
	    "       %s -t | -q | -c table.md | -d dir perf.json\n", argv0, argv0);
	exit(2);
}

int
main(int argc, char *argv[])
{
	const char *out = NULL, *old = NULL, *checkpath = NULL, *draftdir = NULL;
	char *cases = NULL, *p, **opts;
	int c, mode = 0, nopts = 0, i;
	struct buf b = { 0 };
	struct doc d;

	setargv0(argv[0]);
	opts = xmalloc((size_t)argc * 2 * sizeof *opts);
	opterr = 0;
	while ((c = getopt(argc, argv, ":A:c:C:d:J:m:n:o:qr:s:t")) != -1) {
		switch (c) {
		case 'A': case 'J': case 'm': case 'n':
			opts[nopts++] = c == 'A' ? "A" : c == 'J' ? "J" : c == 'm' ? "m" : "n";
			opts[nopts++] = optarg;
			break;
		case 'c':
			checkpath = optarg;
			mode = c;
			break;
		case 'C':
			cases = optarg;
			break;
		case 'd':
			draftdir = optarg;
			mode = c;
			break;
		case 'o':
			out = optarg;
			break;
		case 'q': case 't':
			mode = c;
			break;
		case 'r':
			old = optarg;
			break;
		case 's':
			for (p = strtok(optarg, ","); p != NULL; p = strtok(NULL, ",")) {
				sidename = xrealloc(sidename, (nside + 1) * sizeof *sidename);
				sidemeta = xrealloc(sidemeta, (nside + 1) * sizeof *sidemeta);
				sidename[nside] = p;
				memset(&sidemeta[nside++], 0, sizeof *sidemeta);
			}
			break;
		default:
			optionerror(c);
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (out != NULL) {
		if (mode != 0 || cases == NULL || nside < 2)
			usage();
		for (i = 0; i < nopts; i += 2)
			option(opts[i][0], opts[i + 1]);
		return writedoc(out, old, cases, argv, argc);
	}
	if (mode == 0 || argc != 1)
		usage();
	readdoc(&d, argv[0]);
	switch (mode) {
	case 't':
		table(&b, &d);
		fwrite(b.p, 1, b.n, stdout);
		break;
	case 'q':
		for (i = 0; i < (int)d.nrows; i++)
			if (!isvalid(&d.rows[i])) {
				p = str(&d.rows[i], "case", d.path);
				puts(p);
				free(p);
			}
		break;
	case 'c':
		if (check(checkpath, &d) != 0)
			return 1;
		break;
	case 'd':
		drafts(draftdir, &d);
		break;
	}
	return fshut(stdout, "<stdout>");
}
