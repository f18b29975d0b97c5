/*
 * budget: read the budget file, a small strict subset of TOML
 * (cmpbudget(1), "The budget file"). The gate asks cmpbudget -q for its
 * runs, so this is the only code that reads the file: what the gate runs
 * and what cmpbudget judges cannot disagree about it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "sha256.h"
#include "utf8.h"
#include "msg.h"
#include "util.h"

/* Every key of the file, to catch a key or a section given twice. */
struct seenkey {
	char *section;
	char *key;		/* "" for a section header */
	unsigned long line;
};

/* The state of one reading. */
struct reader {
	struct budget *b;
	char *section;			/* the current section, "" before the first */
	unsigned long lineno;
	unsigned long budgetline;	/* of [budget] or [higher], the first given */
	struct seenkey *seen;
	size_t nseen, capseen;
	struct names seenidx;		/* "section\001key" of each seen[i], index i */
	char why[256];
};

static int
isbare(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '-';
}

static int
isdigitc(int c)
{
	return c >= '0' && c <= '9';
}

static char *
skipws(char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static int
atend(const char *p)
{
	return *p == '\0' || *p == '#';
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

/* The index of section and key in r->seen, or -1: a hash, not a scan. */
static long
seen_find(struct reader *r, const char *section, const char *key, int add)
{
	size_t ls = strlen(section), lk = strlen(key);
	char *s = xmalloc(ls + lk + 1);
	long i;

	memcpy(s, section, ls);
	s[ls] = '\001';
	memcpy(s + ls + 1, key, lk);
	i = names_find(&r->seenidx, s, ls + lk + 1);
	if (i < 0 && add)
		names_add(&r->seenidx, s, ls + lk + 1);
	free(s);
	return i;
}

static void
remember(struct reader *r, const char *key)
{
	seen_find(r, r->section, key, 1);
	if (r->nseen == r->capseen) {
		r->capseen = r->capseen ? 2 * r->capseen : 16;
		r->seen = xrealloc(r->seen, r->capseen * sizeof *r->seen);
	}
	r->seen[r->nseen].section = xstrdup(r->section);
	r->seen[r->nseen].key = xstrdup(key);
	r->seen[r->nseen].line = r->lineno;
	r->nseen++;
}

/* A section header, p after its '['. */
static const char *
section(struct reader *r, char *p)
{
	char *name;
	size_t len;
	long at;

	p = skipws(p);
	name = p;
	while (isbare((unsigned char)*p))
		p++;
	len = (size_t)(p - name);
	if (len == 0)
		return "expected a section name after '['";
	p = skipws(p);
	if (*p != ']')
		return "expected ']' after the section name";
	p = skipws(p + 1);
	if (!atend(p))
		return "unexpected text after ']'";
	name[len] = '\0';
	/* A section given twice is a duplicate too: it is remembered as the key "". */
	if ((at = seen_find(r, name, "", 0)) >= 0) {
		snprintf(r->why, sizeof r->why, "duplicate section [%s] (first on line %lu)",
		    name, r->seen[at].line);
		return r->why;
	}
	free(r->section);
	r->section = xstrdup(name);
	if ((strcmp(name, "budget") == 0 || strcmp(name, "higher") == 0) && r->budgetline == 0)
		r->budgetline = r->lineno;
	remember(r, "");
	return NULL;
}

/*
 * One metric's budget in [budget] or [higher] (above 0), or in [counts] (0
 * or more: 0 says a count may not grow at all); val is vallen bytes, 0 for
 * a string.
 */
static const char *
metric(struct reader *r, const char *key, const char *val, size_t vallen, enum better better, int count)
{
	struct budget *b = r->b;
	const struct budget_entry *e;
	struct budget_entry **list = count ? &b->count : &b->entry;
	size_t *n = count ? &b->ncount : &b->n, *cap = count ? &b->capcount : &b->cap;
	double v;

	if (vallen == 0) {
		snprintf(r->why, sizeof r->why, "budget of %s is not a number", key);
		return r->why;
	}
	errno = 0;
	v = strtod(val, NULL);
	if (errno == ERANGE && fabs(v) > 1) {
		snprintf(r->why, sizeof r->why, "budget of %s is out of range", key);
		return r->why;
	}
	if (count && !(v >= 0)) {
		snprintf(r->why, sizeof r->why, "budget of %s must be 0 or more in [counts]", key);
		return r->why;
	}
	if (!count && !(v > 0)) {
		snprintf(r->why, sizeof r->why, "budget of %s must be above 0", key);
		return r->why;
	}
	/* head < base (1 - budget) could never hold. */
	if (better == BETTER_HIGHER && !(v < 1)) {
		snprintf(r->why, sizeof r->why, "budget of %s must be below 1 in [higher]", key);
		return r->why;
	}
	if ((e = budget_find(b, key, strlen(key))) != NULL) {
		snprintf(r->why, sizeof r->why, "%s is budgeted twice (first on line %lu)", key, e->line);
		return r->why;
	}
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*list = xrealloc(*list, *cap * sizeof **list);
	}
	(*list)[*n].name = xstrdup(key);
	(*list)[*n].budget = v;
	(*list)[*n].better = better;
	(*list)[*n].count = count;
	(*list)[*n].line = r->lineno;
	names_add(count ? &b->countidx : &b->entryidx, key, strlen(key));
	(*n)++;
	return NULL;
}

/* A key = value line, p at its key. */
static const char *
keyvalue(struct reader *r, char *p)
{
	char *key, *val, *end;
	size_t keylen, vallen;
	long at;
	const char *bad;
	long runs;

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
		if ((p = skipstring(p + 1, &bad)) == NULL)
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
	if ((at = seen_find(r, r->section, key, 0)) >= 0) {
		snprintf(r->why, sizeof r->why, "duplicate key %s (first on line %lu)", key, r->seen[at].line);
		return r->why;
	}
	val[vallen] = '\0';
	if (strcmp(r->section, "budget") == 0) {
		if ((bad = metric(r, key, val, vallen, BETTER_LOWER, 0)) != NULL)
			return bad;
	} else if (strcmp(r->section, "higher") == 0) {
		if ((bad = metric(r, key, val, vallen, BETTER_HIGHER, 0)) != NULL)
			return bad;
	} else if (strcmp(r->section, "counts") == 0) {
		if ((bad = metric(r, key, val, vallen, BETTER_LOWER, 1)) != NULL)
			return bad;
	} else if (r->section[0] == '\0' && strcmp(key, "runs") == 0) {
		if (vallen == 0 || parse_long(val, 1, 1000000, &runs) != NULL)
			return "runs must be a whole number from 1 to 1000000";
		r->b->runs = runs;
	}
	remember(r, key);
	return NULL;
}

/* One line, without its line end. Returns NULL, or why it is wrong. */
static const char *
line(struct reader *r, char *s, size_t len)
{
	char *p;

	if (memchr(s, '\0', len) != NULL)
		return "NUL byte";
	if (utf8_valid((const unsigned char *)s, len) != len)
		return "invalid UTF-8";
	p = skipws(s);
	if (atend(p))
		return NULL;
	if (*p == '[')
		return section(r, p + 1);
	return keyvalue(r, p);
}

/* The whole file, read once: its bytes are both parsed and hashed. */
static char *
slurp(const char *path, char **buf, size_t *len)
{
	FILE *fp;
	size_t cap = 4096, n;
	char *msg = NULL;

	if ((fp = fopen(path, "rb")) == NULL)
		return msgf("%s: %s", path, strerror(errno));
	*buf = xmalloc(cap + 1);
	*len = 0;
	for (;;) {
		if (*len == cap) {
			cap *= 2;
			*buf = xrealloc(*buf, cap + 1);
		}
		n = fread(*buf + *len, 1, cap - *len, fp);
		*len += n;
		if (n == 0)
			break;
	}
	if (ferror(fp))
		msg = msgf("read %s: %s", path, strerror(errno));
	fclose(fp);
	(*buf)[*len] = '\0';
	return msg;
}

char *
budget_load(struct budget *b, const char *path)
{
	struct reader r = { 0 };
	struct sha256 h;
	char *buf = NULL, *s, *nl, *msg;
	const char *why = NULL;
	size_t len = 0, n, i;

	b->runs = BUDGET_RUNS;
	if ((msg = slurp(path, &buf, &len)) != NULL) {
		free(buf);
		return msg;
	}
	sha256_init(&h);
	sha256_update(&h, buf, len);
	sha256_hex(&h, b->sha256);
	r.b = b;
	r.section = xstrdup("");
	for (s = buf; why == NULL && s < buf + len; s = nl + 1) {
		r.lineno++;
		nl = memchr(s, '\n', (size_t)(buf + len - s));
		if (nl == NULL)
			nl = buf + len;
		n = (size_t)(nl - s);
		if (n > 0 && s[n - 1] == '\r')
			n--;
		s[n] = '\0';
		why = line(&r, s, n);
	}
	if (why != NULL)
		msg = msgf("%s:%lu: %s", path, r.lineno, why);
	else if (r.budgetline == 0)
		msg = msgf("%s: no [budget] section", path);
	else if (b->n == 0)
		msg = msgf("%s:%lu: [budget] names no metric", path, r.budgetline);
	for (i = 0; i < r.nseen; i++) {
		free(r.seen[i].section);
		free(r.seen[i].key);
	}
	free(r.seen);
	names_free(&r.seenidx);
	free(r.section);
	free(buf);
	return msg;
}

/*
 * By the index when it holds every entry (budget_load's, budget_only's),
 * else by a scan: a budget made by hand has none.
 */
static const struct budget_entry *
findin(const struct budget_entry *e, size_t n, const struct names *idx, const char *name, size_t len)
{
	size_t i;
	long k;

	if (n > 0 && idx->n == n)
		return (k = names_find(idx, name, len)) >= 0 ? &e[k] : NULL;
	for (i = 0; i < n; i++)
		if (memeq_str(name, len, e[i].name))
			return &e[i];
	return NULL;
}

const struct budget_entry *
budget_find(const struct budget *b, const char *name, size_t len)
{
	const struct budget_entry *e = findin(b->entry, b->n, &b->entryidx, name, len);

	return e != NULL ? e : findin(b->count, b->ncount, &b->countidx, name, len);
}

/* The index of b's entries again, after they moved. */
static void
reindex(struct names *idx, const struct budget_entry *e, size_t n)
{
	size_t i;

	names_free(idx);
	memset(idx, 0, sizeof *idx);
	for (i = 0; i < n; i++)
		if (names_find(idx, e[i].name, strlen(e[i].name)) < 0)
			names_add(idx, e[i].name, strlen(e[i].name));
}

void
budget_free(struct budget *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		free(b->entry[i].name);
	for (i = 0; i < b->ncount; i++)
		free(b->count[i].name);
	free(b->entry);
	free(b->count);
	names_free(&b->entryidx);
	names_free(&b->countidx);
	memset(&b->entryidx, 0, sizeof b->entryidx);
	memset(&b->countidx, 0, sizeof b->countidx);
	b->entry = b->count = NULL;
	b->n = b->cap = b->ncount = b->capcount = 0;
}

char *
budget_only(struct budget *b, struct budget *rest, const char *list)
{
	const char *p, *end;
	size_t i, k = 0;
	struct names want = { 0 };
	int keep;

	/* The list's names in a table: each entry asked once, not the list scanned. */
	for (p = list; *p != '\0'; p = *end ? end + 1 : end) {
		end = p + strcspn(p, ",");
		if (names_find(&want, p, (size_t)(end - p)) < 0)
			names_add(&want, p, (size_t)(end - p));
	}
	for (i = 0; i < b->n; i++) {
		keep = names_find(&want, b->entry[i].name, strlen(b->entry[i].name)) >= 0;
		if (keep) {
			b->entry[k++] = b->entry[i];
		} else {
			rest->entry = xrealloc(rest->entry, (rest->n + 1) * sizeof *rest->entry);
			rest->entry[rest->n++] = b->entry[i];
		}
	}
	b->n = k;
	names_free(&want);
	reindex(&b->entryidx, b->entry, b->n);
	reindex(&rest->entryidx, rest->entry, rest->n);
	for (p = list; *p != '\0'; p = *end ? end + 1 : end) {
		end = p + strcspn(p, ",");
		if (budget_find(b, p, (size_t)(end - p)) == NULL)
			return msgf("-M: %.*s: not a metric of the budget file", (int)(end - p), p);
	}
	return NULL;
}
