/*
 * cmpbudget: the verdict. Compares one side's statistics with another's,
 * metric by metric, against the budgets of a small TOML file.
 * Reads minjson's records; writes one record per budgeted metric and a
 * summary record last on stdout, an aligned table on stderr, and with -m
 * the same table in Markdown. Exit 0 ok, 1 regressed, 2 cannot decide.
 */
#include <sys/stat.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonl.h"
#include "stats.h"
#include "util.h"

/* One metric of the budget file's [budget] section, in the file's order. */
struct entry {
	char *name;
	double budget;
};

/* Every key of the budget file, to catch a key given twice. */
struct seenkey {
	char *section;
	char *key;
	unsigned long line;
};

/*
 * The records kept: for each side (0 base, 1 head), the statistic of -s and
 * the quartiles q1 and q3 for the second opinion. A line is copied so that
 * its parsed fields stay valid after the reader moves on.
 */
enum { ST_MAIN, ST_Q1, ST_Q3, NSTAT };

struct slot {
	char *line;
	struct jrecord rec;
	const char *file;
	unsigned long lineno;
	int have;
};

/* The judgment of one metric, kept for the records, the table and Markdown. */
struct result {
	const struct entry *e;
	const struct jfield *base, *head;
	char delta[32];
	double deltav;
	const char *verdict;
	const char *quartiles;
};

static struct entry *entries;
static size_t nentries, capentries;
static struct seenkey *seen;
static size_t nseen, capseen;
static struct slot slots[2][NSTAT];
static struct result *results;
static char **names;
static size_t nnames;

/* Every reason that stops a decision, printed after the table; the first goes into the summary. */
static char **errs;
static size_t nerrs;

static const char *sidename[2] = { "base", "head" };
static const char *statname[NSTAT] = { "min", "q1", "q3" };

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-b budget] [-B base] [-H head] [-k key] [-m markdown] [-s stat] [file ...]\n", argv0);
	exit(2);
}

/* Keep a reason that the verdict cannot be decided. */
static void
fail(const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	msg = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(msg, (size_t)n + 1, fmt, ap);
	va_end(ap);
	errs = xrealloc(errs, (nerrs + 1) * sizeof *errs);
	errs[nerrs++] = msg;
}

/* The budget file. */

static int
isbare(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '-';
}

static char *
skipws(char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static int
isdigitc(int c)
{
	return c >= '0' && c <= '9';
}

/* Return the length of a valid UTF-8 text, or where the first bad byte is. */
static size_t
utf8_valid(const unsigned char *s, size_t len)
{
	size_t i = 0, k, need;
	unsigned long cp;

	while (i < len) {
		unsigned char c = s[i];

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			need = 1;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			need = 2;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			need = 3;
			cp = c & 0x07;
		} else {
			return i;
		}
		if (len - i <= need)
			return i;
		for (k = 1; k <= need; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return i;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		/* Overlong forms, surrogates and code points past U+10FFFF are not UTF-8. */
		if ((need == 2 && cp < 0x800) || (need == 3 && cp < 0x10000) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			return i;
		i += need + 1;
	}
	return len;
}

/*
 * A TOML decimal number: an optional sign, an integer part without leading
 * zeros, an optional fraction and exponent, each with at least one digit.
 * strtod alone would also take hex, "inf" and "nan", which TOML spells apart.
 */
static int
istomlnumber(const char *s, size_t n)
{
	size_t i = 0, d;

	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	d = i;
	while (i < n && isdigitc(s[i]))
		i++;
	if (i == d || (s[d] == '0' && i - d > 1))
		return 0;
	if (i < n && s[i] == '.') {
		d = ++i;
		while (i < n && isdigitc(s[i]))
			i++;
		if (i == d)
			return 0;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		d = i;
		while (i < n && isdigitc(s[i]))
			i++;
		if (i == d)
			return 0;
	}
	return i == n;
}

/* Skip a basic string that starts after its opening quote; NULL if it is bad, with *why set. */
static char *
skipstring(char *p, const char **why)
{
	int k, digits;

	for (;;) {
		unsigned char c = (unsigned char)*p;

		if (c == '\0') {
			*why = "unterminated string";
			return NULL;
		}
		if (c == '"')
			return p + 1;
		if ((c < 0x20 && c != '\t') || c == 0x7f) {
			*why = "control character in string";
			return NULL;
		}
		if (c != '\\') {
			p++;
			continue;
		}
		p++;
		switch (*p) {
		case 'b': case 't': case 'n': case 'f': case 'r': case '"': case '\\':
			p++;
			continue;
		case 'u':
			digits = 4;
			break;
		case 'U':
			digits = 8;
			break;
		default:
			*why = "unknown escape in string";
			return NULL;
		}
		for (k = 1; k <= digits; k++) {
			c = (unsigned char)p[k];
			if (!isdigitc(c) && !((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
				*why = "bad \\u escape in string";
				return NULL;
			}
		}
		p += digits + 1;
	}
}

static int
atend(const char *p)
{
	return *p == '\0' || *p == '#';
}

/*
 * Parse one line of the budget file. Returns NULL, or why it is wrong.
 * *section is the current section's name ("" before the first one).
 */
static const char *
budget_line(char *line, unsigned long lineno, char **section, unsigned long *budgetline,
    char *why, size_t whysz)
{
	char *p = skipws(line), *key, *val, *end;
	size_t keylen, vallen, i;
	const char *bad;
	double v;

	if (atend(p))
		return NULL;
	if (*p == '[') {
		p = skipws(p + 1);
		key = p;
		while (isbare((unsigned char)*p))
			p++;
		keylen = (size_t)(p - key);
		if (keylen == 0)
			return "expected a section name after '['";
		p = skipws(p);
		if (*p != ']')
			return "expected ']' after the section name";
		p = skipws(p + 1);
		if (!atend(p))
			return "unexpected text after ']'";
		key[keylen] = '\0';
		/* A section given twice is a duplicate too: remember it as the key "". */
		for (i = 0; i < nseen; i++)
			if (seen[i].key[0] == '\0' && strcmp(seen[i].section, key) == 0) {
				snprintf(why, whysz, "duplicate section [%s] (first on line %lu)", key, seen[i].line);
				return why;
			}
		free(*section);
		*section = xstrdup(key);
		if (strcmp(key, "budget") == 0)
			*budgetline = lineno;
		key = "";
	} else {
		key = p;
		while (isbare((unsigned char)*p))
			p++;
		keylen = (size_t)(p - key);
		if (keylen == 0)
			return "expected 'key = value', a [section] or a comment";
		p = skipws(p);
		if (*p != '=')
			return "expected '=' after the key";
		key[keylen] = '\0';
		p = skipws(p + 1);
		val = p;
		if (*p == '"') {
			bad = NULL;
			p = skipstring(p + 1, &bad);
			if (p == NULL)
				return bad;
			vallen = 0;
		} else {
			while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '#')
				p++;
			vallen = (size_t)(p - val);
			if (vallen == 0)
				return "expected a value after '='";
			if (!istomlnumber(val, vallen))
				return "expected a number or a \"string\"";
		}
		end = skipws(p);
		if (!atend(end))
			return "unexpected text after the value";
		for (i = 0; i < nseen; i++)
			if (strcmp(seen[i].key, key) == 0 && strcmp(seen[i].section, *section) == 0) {
				snprintf(why, whysz, "duplicate key %s (first on line %lu)", key, seen[i].line);
				return why;
			}
		val[vallen] = '\0';
		if (strcmp(*section, "budget") == 0) {
			if (vallen == 0) {
				snprintf(why, whysz, "budget of %s is not a number", key);
				return why;
			}
			errno = 0;
			v = strtod(val, NULL);
			if (errno == ERANGE && fabs(v) > 1) {
				snprintf(why, whysz, "budget of %s is out of range", key);
				return why;
			}
			if (!(v > 0)) {
				snprintf(why, whysz, "budget of %s must be above 0", key);
				return why;
			}
			if (nentries == capentries) {
				capentries = capentries ? 2 * capentries : 16;
				entries = xrealloc(entries, capentries * sizeof *entries);
			}
			entries[nentries].name = xstrdup(key);
			entries[nentries].budget = v;
			nentries++;
		} else if ((*section)[0] == '\0' && strcmp(key, "runs") == 0) {
			long runs;

			/* The gate reads runs; a wrong one is caught here all the same. */
			if (vallen == 0 || parse_long(val, 1, 1000000, &runs) != NULL)
				return "runs must be a whole number from 1 to 1000000";
		}
	}
	if (nseen == capseen) {
		capseen = capseen ? 2 * capseen : 16;
		seen = xrealloc(seen, capseen * sizeof *seen);
	}
	seen[nseen].section = xstrdup(*section);
	seen[nseen].key = xstrdup(key);
	seen[nseen].line = lineno;
	nseen++;
	return NULL;
}

/* Read the budget file; on error, keep "path:line: why" and return -1. */
static int
budget_load(const char *path)
{
	FILE *fp;
	char *line = NULL, *section = xstrdup(""), why[256];
	size_t cap = 0, len, bad;
	ssize_t n;
	unsigned long lineno = 0, budgetline = 0;
	const char *msg = NULL;
	int rc = 0;

	if ((fp = fopen(path, "r")) == NULL) {
		fail("%s: %s", path, strerror(errno));
		free(section);
		return -1;
	}
	while ((n = getline(&line, &cap, fp)) != -1) {
		lineno++;
		len = (size_t)n;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';
		if (strlen(line) != len)
			msg = "NUL byte";
		else if ((bad = utf8_valid((unsigned char *)line, len)) != len)
			msg = "invalid UTF-8";
		else
			msg = budget_line(line, lineno, &section, &budgetline, why, sizeof why);
		if (msg != NULL)
			break;
	}
	if (msg != NULL) {
		fail("%s:%lu: %s", path, lineno, msg);
		rc = -1;
	} else if (ferror(fp)) {
		fail("read %s: %s", path, strerror(errno));
		rc = -1;
	} else if (budgetline == 0) {
		fail("%s: no [budget] section", path);
		rc = -1;
	} else if (nentries == 0) {
		fail("%s:%lu: [budget] names no metric", path, budgetline);
		rc = -1;
	}
	free(line);
	free(section);
	fclose(fp);
	return rc;
}

/* The records. */

static int
fieldis(const struct jfield *f, const char *s)
{
	size_t n = strlen(s);

	return f->rawlen == n && memcmp(f->raw, s, n) == 0;
}

/*
 * Keep a copy of the record if it is one of the six that matter. A second
 * record for the same side and statistic makes the input ambiguous.
 */
static int
keep(const char *line, size_t len, const struct jfield *side, const struct jfield *stat,
    const char *file, unsigned long lineno)
{
	int i, j;
	struct slot *s;
	const char *msg;

	for (i = 0; i < 2; i++) {
		if (!fieldis(side, sidename[i]))
			continue;
		for (j = 0; j < NSTAT; j++) {
			if (!fieldis(stat, statname[j]))
				continue;
			s = &slots[i][j];
			if (s->have) {
				fail("%s:%lu: second record for side \"%s\", stat \"%s\" (first at %s:%lu)",
				    file, lineno, sidename[i], statname[j], s->file, s->lineno);
				return -1;
			}
			s->line = xmalloc(len + 1);
			memcpy(s->line, line, len);
			s->line[len] = '\0';
			if ((msg = jparse(s->line, len, &s->rec)) != NULL) {
				fail("%s:%lu: %s", file, lineno, msg);
				return -1;
			}
			s->file = file;
			s->lineno = lineno;
			s->have = 1;
		}
	}
	return 0;
}

/* Read one input file; returns the number of records, or -1 after fail(). */
static long
readfile(const char *path, const char *key)
{
	struct jreader r;
	struct jrecord rec = { 0 };
	const struct jfield *side, *stat;
	const char *line, *msg;
	size_t len;
	long nrec = 0;
	int rc;
	char *name;

	if (jreader_open(&r, path) < 0) {
		fail("%s: %s", path, strerror(errno));
		return -1;
	}
	/* The name lives as long as the program: slots point to it. */
	name = xstrdup(r.name);
	names = xrealloc(names, (nnames + 1) * sizeof *names);
	names[nnames++] = name;
	while ((rc = jreader_next(&r, &line, &len)) == 1) {
		if ((msg = jparse(line, len, &rec)) != NULL) {
			fail("%s:%lu: %s", r.name, r.lineno, msg);
			break;
		}
		side = jget(&rec, key, strlen(key));
		stat = jget(&rec, "stat", 4);
		if (side == NULL || side->type != J_STRING) {
			fail("%s:%lu: no string \"%s\": not a record of minjson", r.name, r.lineno, key);
			break;
		}
		if (stat == NULL || stat->type != J_STRING) {
			fail("%s:%lu: no string \"stat\": not a record of minjson", r.name, r.lineno);
			break;
		}
		nrec++;
		if (keep(line, len, side, stat, name, r.lineno) < 0)
			break;
	}
	if (rc < 0)
		fail("read %s: %s", r.name, strerror(errno));
	jrecord_free(&rec);
	jreader_close(&r);
	return rc == 0 ? nrec : -1;
}

/* The judgment. */

static const struct jfield *
metric(int side, int stat, const char *name)
{
	const struct jfield *f;

	if (!slots[side][stat].have)
		return NULL;
	f = jget(&slots[side][stat].rec, name, strlen(name));
	return f != NULL && f->type == J_NUMBER ? f : NULL;
}

static void
judge(struct result *res, const struct entry *e)
{
	const struct jfield *bq1, *bq3, *hq1, *hq3, *f;
	int i;

	res->e = e;
	res->verdict = "error";
	res->quartiles = NULL;
	res->delta[0] = '\0';
	res->base = metric(0, ST_MAIN, e->name);
	res->head = metric(1, ST_MAIN, e->name);
	for (i = 0; i < 2; i++) {
		f = jget(&slots[i][ST_MAIN].rec, e->name, strlen(e->name));
		if (f == NULL)
			fail("%s: missing on side \"%s\"", e->name, sidename[i]);
		else if (f->type != J_NUMBER)
			fail("%s: not a number on side \"%s\"", e->name, sidename[i]);
	}
	if (res->base == NULL || res->head == NULL)
		return;
	if (!(res->base->num > 0)) {
		fail("%s: base %.*s is not above 0: no ratio", e->name, (int)res->base->rawlen, res->base->raw);
		return;
	}
	if (res->head->num < 0) {
		fail("%s: head %.*s is below 0", e->name, (int)res->head->rawlen, res->head->raw);
		return;
	}
	res->deltav = res->head->num / res->base->num - 1;
	if (!isfinite(res->deltav)) {
		fail("%s: head / base is out of range", e->name);
		return;
	}
	fmt_double(res->delta, res->deltav);
	res->verdict = regressed(res->base->num, res->head->num, e->budget) ? "regressed" : "ok";
	bq1 = metric(0, ST_Q1, e->name);
	bq3 = metric(0, ST_Q3, e->name);
	hq1 = metric(1, ST_Q1, e->name);
	hq3 = metric(1, ST_Q3, e->name);
	if (bq1 && bq3 && hq1 && hq3)
		res->quartiles = quartile_opinion(bq1->num, bq3->num, hq1->num, hq3->num);
}

/* The outputs. */

static void
putnum(const struct jfield *f)
{
	if (f == NULL)
		fputs("null", stdout);
	else
		fwrite(f->raw, 1, f->rawlen, stdout);
}

static void
putstr(const char *s)
{
	if (s == NULL) {
		fputs("null", stdout);
		return;
	}
	putchar('"');
	jescape(stdout, s, strlen(s));
	putchar('"');
}

static void
records(size_t nres, int nreg, int nmetrics)
{
	size_t i;
	char buf[32];
	int first = 1;

	for (i = 0; i < nres; i++) {
		const struct result *r = &results[i];

		fputs("{\"metric\":", stdout);
		putstr(r->e->name);
		fputs(",\"base\":", stdout);
		putnum(r->base);
		fputs(",\"head\":", stdout);
		putnum(r->head);
		fputs(",\"delta\":", stdout);
		fputs(r->delta[0] ? r->delta : "null", stdout);
		fmt_double(buf, r->e->budget);
		printf(",\"budget\":%s,\"verdict\":", buf);
		putstr(r->verdict);
		fputs(",\"quartiles\":", stdout);
		putstr(r->quartiles);
		fputs("}\n", stdout);
	}
	fputs("{\"verdict\":", stdout);
	putstr(nerrs ? "error" : nreg ? "regressed" : "ok");
	fputs(",\"regressed\":[", stdout);
	for (i = 0; i < nres; i++) {
		if (strcmp(results[i].verdict, "regressed") != 0)
			continue;
		if (!first)
			putchar(',');
		putstr(results[i].e->name);
		first = 0;
	}
	printf("],\"metrics\":%d", nmetrics);
	if (nerrs) {
		fputs(",\"error\":", stdout);
		putstr(errs[0]);
	}
	fputs("}\n", stdout);
}

/* The table's seven columns, as text; numbers are right-aligned. */
enum { NCOL = 7 };

static const char *colname[NCOL] = { "metric", "base", "head", "Δ %", "budget %", "verdict", "quartiles" };
static const int colright[NCOL] = { 0, 1, 1, 1, 1, 0, 0 };

/*
 * A number for a person to read: as written when short, else to six
 * significant digits, finer than any noise the gate can see. The records
 * keep every digit.
 */
static void
readable(char *cell, const struct jfield *f)
{
	if (f == NULL)
		snprintf(cell, 256, "-");
	else if (f->rawlen <= 12)
		snprintf(cell, 256, "%.*s", (int)f->rawlen, f->raw);
	else
		snprintf(cell, 256, "%.6g", f->num);
}

static void
cells(const struct result *r, char cell[NCOL][256])
{
	snprintf(cell[0], 256, "%s", r->e->name);
	readable(cell[1], r->base);
	readable(cell[2], r->head);
	if (r->delta[0])
		snprintf(cell[3], 256, "%+.1f", r->deltav * 100);
	else
		snprintf(cell[3], 256, "-");
	snprintf(cell[4], 256, "%.4g", r->e->budget * 100);
	snprintf(cell[5], 256, "%s", r->verdict);
	snprintf(cell[6], 256, "%s", r->quartiles ? r->quartiles : "-");
}

/* Width on a terminal: UTF-8 continuation bytes take no column. */
static int
width(const char *s)
{
	int w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

static void
padded(FILE *fp, const char *s, int w, int right)
{
	int pad = w - width(s);

	if (right)
		fprintf(fp, "%*s%s", pad > 0 ? pad : 0, "", s);
	else
		fprintf(fp, "%s%*s", s, pad > 0 ? pad : 0, "");
}

static void
table(FILE *fp, size_t nres)
{
	char cell[NCOL][256];
	int w[NCOL], c, last;
	size_t i;

	for (c = 0; c < NCOL; c++)
		w[c] = width(colname[c]);
	for (i = 0; i < nres; i++) {
		cells(&results[i], cell);
		for (c = 0; c < NCOL; c++)
			if (width(cell[c]) > w[c])
				w[c] = width(cell[c]);
	}
	for (i = 0; i <= nres; i++) {
		if (i == 0)
			for (c = 0; c < NCOL; c++)
				snprintf(cell[c], 256, "%s", colname[c]);
		else
			cells(&results[i - 1], cell);
		for (c = 0; c < NCOL; c++) {
			last = c == NCOL - 1;
			/* No trailing blanks: the last column is left-aligned and not padded. */
			if (last)
				fputs(cell[c], fp);
			else
				padded(fp, cell[c], w[c], colright[c]);
			fputs(last ? "\n" : "  ", fp);
		}
	}
}

static void
mdcell(FILE *fp, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', fp);
		fputc(*s, fp);
	}
}

/* The same table in GitHub Markdown, under a one-line verdict for a pull request. */
static void
markdown(FILE *fp, size_t nres, int nreg)
{
	char cell[NCOL][256];
	size_t i;
	int c, first = 1;

	if (nerrs) {
		fputs("**cmpbudget: error**: ", fp);
		mdcell(fp, errs[0]);
		fputs("\n", fp);
	} else if (nreg) {
		fputs("**cmpbudget: regressed**:", fp);
		for (i = 0; i < nres; i++)
			if (strcmp(results[i].verdict, "regressed") == 0) {
				fprintf(fp, "%s `%s`", first ? "" : ",", results[i].e->name);
				first = 0;
			}
		fputs("\n", fp);
	} else {
		fprintf(fp, "**cmpbudget: ok**: %zu metric%s within budget\n", nres, nres == 1 ? "" : "s");
	}
	if (nres == 0)
		return;
	fputs("\n|", fp);
	for (c = 0; c < NCOL; c++)
		fprintf(fp, " %s |", colname[c]);
	fputs("\n|", fp);
	for (c = 0; c < NCOL; c++)
		fputs(colright[c] ? " ---: |" : " :--- |", fp);
	fputs("\n", fp);
	for (i = 0; i < nres; i++) {
		cells(&results[i], cell);
		fputs("|", fp);
		for (c = 0; c < NCOL; c++) {
			fputs(" ", fp);
			if (c == 5 && strcmp(cell[c], "ok") != 0) {
				fputs("**", fp);
				mdcell(fp, cell[c]);
				fputs("**", fp);
			} else {
				mdcell(fp, cell[c]);
			}
			fputs(" |", fp);
		}
		fputs("\n", fp);
	}
}

/*
 * Write the Markdown to path.tmp and rename it, so that a reader never sees
 * half a file. Only a regular file is replaced that way: renaming over
 * /dev/null or a pipe would replace the device itself, so those are
 * written in place.
 */
static void
writemd(const char *path, size_t nres, int nreg)
{
	size_t n = strlen(path);
	char *tmp = xmalloc(n + 5);
	const char *out = tmp;
	struct stat st;
	FILE *fp;
	int bad;

	memcpy(tmp, path, n);
	memcpy(tmp + n, ".tmp", 5);
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		out = path;
	if ((fp = fopen(out, "w")) == NULL) {
		fail("%s: %s", out, strerror(errno));
		free(tmp);
		return;
	}
	markdown(fp, nres, nreg);
	bad = fflush(fp) != 0 || ferror(fp);
	if (fclose(fp) != 0 || bad) {
		fail("write %s: %s", out, strerror(errno));
		if (out == tmp)
			unlink(tmp);
	} else if (out == tmp && rename(tmp, path) != 0) {
		fail("rename %s: %s", tmp, strerror(errno));
		unlink(tmp);
	}
	free(tmp);
}

int
main(int argc, char *argv[])
{
	const char *bfile = "budget.toml", *key = "side", *mdfile = NULL;
	size_t i, nres = 0;
	long n, nrec = 0;
	int c, j, nreg = 0, ok, status;

	setargv0(argv[0]);
	opterr = 0;
	while ((c = getopt(argc, argv, ":B:b:H:k:m:s:")) != -1) {
		switch (c) {
		case 'B':
			sidename[0] = optarg;
			break;
		case 'b':
			bfile = optarg;
			break;
		case 'H':
			sidename[1] = optarg;
			break;
		case 'k':
			key = optarg;
			break;
		case 'm':
			mdfile = optarg;
			break;
		case 's':
			statname[ST_MAIN] = optarg;
			break;
		default:
			optionerror(c);
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (*key == '\0' || *sidename[0] == '\0' || *sidename[1] == '\0' || *statname[ST_MAIN] == '\0' ||
	    (mdfile != NULL && *mdfile == '\0')) {
		warnmsg("-B, -H, -k, -m and -s take a non-empty argument");
		usage();
	}
	if (strcmp(sidename[0], sidename[1]) == 0)
		die("-B and -H name the same side \"%s\"", sidename[0]);

	ok = budget_load(bfile) == 0;
	for (i = 0; ok && i < (size_t)(argc > 0 ? argc : 1); i++) {
		n = readfile(argc > 0 ? argv[i] : "-", key);
		if (n < 0)
			ok = 0;
		else
			nrec += n;
	}
	if (ok && nrec == 0) {
		fail("%s: no records to compare", argc == 1 ? argv[0] : argc == 0 ? "<stdin>" : "input");
		ok = 0;
	}
	for (j = 0; ok && j < 2; j++)
		if (!slots[j][ST_MAIN].have) {
			fail("no record of side \"%s\" with stat \"%s\"", sidename[j], statname[ST_MAIN]);
			ok = 0;
		}
	if (ok) {
		nres = nentries;
		results = xmalloc(nres * sizeof *results);
		for (i = 0; i < nres; i++) {
			judge(&results[i], &entries[i]);
			nreg += strcmp(results[i].verdict, "regressed") == 0;
		}
	}
	if (mdfile != NULL)
		writemd(mdfile, nres, nreg);
	records(nres, nreg, (int)nentries);
	if (nres > 0)
		table(stderr, nres);
	for (i = 0; i < nerrs; i++)
		warnmsg("%s", errs[i]);
	status = nerrs ? 2 : nreg ? 1 : 0;
	if (fshut(stdout, "stdout") != 0)
		status = 2;
	return status;
}
