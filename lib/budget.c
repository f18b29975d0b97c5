/*
 * budget: read the budget file, a small strict subset of TOML
 * (cmpbudget(1), "The budget file"). The gate asks cmpbudget -q for its
 * runs and CI asks cmpbudget -O what a pull request changes, so this is
 * the code that reads the file: what the gate runs, what cmpbudget judges
 * and what CI lets through cannot disagree about it. (ulpscore still
 * reads [accuracy] alone, in accbudget.c, by the same rule.)
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "sha256.h"
#include "toml.h"
#include "utf8.h"
#include "msg.h"
#include "util.h"

/* What a value is: the grammar's three kinds. */
enum vkind { V_NUMBER, V_STRING, V_BOOL };

/* A value as read: its text (a number's or a boolean's), and kind. */
struct value {
	const char *text;
	enum vkind kind;
};

static const char *const sectionname[BS_N] = { "budget", "higher", "counts", "accuracy" };

const char *
budget_section_name(enum budget_section s)
{
	return (unsigned)s < BS_N ? sectionname[s] : "";
}

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

	p = toml_skipws(p);
	name = p;
	while (toml_isbare((unsigned char)*p))
		p++;
	len = (size_t)(p - name);
	if (len == 0)
		return "expected a section name after '['";
	p = toml_skipws(p);
	if (*p != ']')
		return "expected ']' after the section name";
	p = toml_skipws(p + 1);
	if (!toml_atend(p))
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

/* Add a budget to list (of *n, room for *cap), and to idx when there is one. */
static void
addentry(struct budget_entry **list, size_t *n, size_t *cap, struct names *idx, const char *key,
    double v, enum budget_section sec, unsigned long line)
{
	struct budget_entry *e;

	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*list = xrealloc(*list, *cap * sizeof **list);
	}
	e = &(*list)[(*n)++];
	e->name = xstrdup(key);
	e->budget = v;
	e->better = sec == BS_HIGHER ? BETTER_HIGHER : BETTER_LOWER;
	e->count = sec == BS_COUNTS;
	e->line = line;
	e->section = sec;
	if (idx != NULL)
		names_add(idx, key, strlen(key));
}

/*
 * One budget in section sec, each section's range (cmpbudget(1), "The
 * budget file"): [budget] and [higher] above 0 and below 1 (a fraction of
 * 1 lets a 2x slowdown pass; [budget] only, with allow_loose, 1 or more),
 * [counts] and [accuracy] 0 or more (0: may not grow at all). Every value
 * a finite number.
 */
static const char *
onebudget(struct reader *r, const char *key, const struct value *val, enum budget_section sec)
{
	struct budget *b = r->b;
	const struct budget_entry *e;
	double v;

	if (val->kind != V_NUMBER) {
		snprintf(r->why, sizeof r->why, "budget of %s is not a number", key);
		return r->why;
	}
	errno = 0;
	v = strtod(val->text, NULL);
	if (errno == ERANGE && fabs(v) > 1) {
		snprintf(r->why, sizeof r->why, "budget of %s is out of range", key);
		return r->why;
	}
	if (sec >= BS_COUNTS && !(v >= 0)) {
		snprintf(r->why, sizeof r->why, "budget of %s must be 0 or more in [%s]", key, sectionname[sec]);
		return r->why;
	}
	if (sec < BS_COUNTS && !(v > 0)) {
		snprintf(r->why, sizeof r->why, "budget of %s must be above 0", key);
		return r->why;
	}
	/* head < base (1 - budget) could never hold. */
	if (sec == BS_HIGHER && !(v < 1)) {
		snprintf(r->why, sizeof r->why, "budget of %s must be below 1 in [higher]", key);
		return r->why;
	}
	if (sec == BS_BUDGET && !(v < 1) && !b->allow_loose) {
		snprintf(r->why, sizeof r->why, "budget of %s must be below 1: %s lets a %gx slowdown pass"
		    " (allow_loose = true at the top if that is meant)", key, val->text, 1 + v);
		return r->why;
	}
	if (sec == BS_ACCURACY) {
		/* By index: no arithmetic on acc while it is still NULL. */
		for (size_t i = 0; i < b->nacc; i++)
			if (strcmp((e = &b->acc[i])->name, key) == 0) {
				snprintf(r->why, sizeof r->why, "%s is budgeted twice (first on line %lu)", key, e->line);
				return r->why;
			}
		addentry(&b->acc, &b->nacc, &b->capacc, NULL, key, v, sec, r->lineno);
		return NULL;
	}
	if ((e = budget_find(b, key, strlen(key))) != NULL) {
		snprintf(r->why, sizeof r->why, "%s is budgeted twice (first on line %lu)", key, e->line);
		return r->why;
	}
	if (sec == BS_COUNTS)
		addentry(&b->count, &b->ncount, &b->capcount, &b->countidx, key, v, sec, r->lineno);
	else
		addentry(&b->entry, &b->n, &b->cap, &b->entryidx, key, v, sec, r->lineno);
	return NULL;
}

/*
 * A creep budget of [history]: how much a metric may slow over a stretch
 * of commits, chained, before history check proposes a creep. Above 0;
 * 1 or more would let a stretch double unseen, so only with allow_loose,
 * as in [budget]. Kept apart from the gate's budgets: no gate reads it.
 */
static const char *
onecreep(struct reader *r, const char *key, const struct value *val)
{
	struct budget *b = r->b;
	double v;

	if (val->kind != V_NUMBER) {
		snprintf(r->why, sizeof r->why, "creep budget of %s is not a number", key);
		return r->why;
	}
	errno = 0;
	v = strtod(val->text, NULL);
	if (!(v > 0) || !isfinite(v)) {
		snprintf(r->why, sizeof r->why, "creep budget of %s must be above 0", key);
		return r->why;
	}
	if (!(v < 1) && !b->allow_loose) {
		snprintf(r->why, sizeof r->why, "creep budget of %s must be below 1 in [history]"
		    " (allow_loose = true at the top if that is meant)", key);
		return r->why;
	}
	addentry(&b->hist, &b->nhist, &b->caphist, NULL, key, v, BS_BUDGET, r->lineno);
	return NULL;
}

/* A top-level key that means something: runs, allow_loose. */
static const char *
toplevel(struct reader *r, const char *key, const struct value *val)
{
	long runs;

	if (strcmp(key, "runs") == 0) {
		if (val->kind != V_NUMBER || parse_long(val->text, BUDGET_RUNS_MIN, BUDGET_RUNS_MAX, &runs) != NULL)
			return "runs must be a whole number from 2 to 1000000";
		r->b->runs = runs;
		r->b->runsline = r->lineno;
	} else if (strcmp(key, "allow_loose") == 0) {
		if (val->kind != V_BOOL)
			return "allow_loose must be true or false";
		r->b->allow_loose = val->text[0] == 't';
		r->b->looseline = r->lineno;
	}
	return NULL;
}

/* A key = value line, p at its key. */
static const char *
keyvalue(struct reader *r, char *p)
{
	char *key, *val;
	size_t keylen, vallen;
	long at;
	const char *bad;
	struct value v;
	int sec;

	key = p;
	while (toml_isbare((unsigned char)*p))
		p++;
	keylen = (size_t)(p - key);
	/* A metric's name too: TOML's bare keys, so no quoting rule is needed anywhere. */
	if ((unsigned char)*p >= 0x80)
		return "a key is ASCII letters, digits, '_' and '-'";
	if (keylen == 0)
		return "expected 'key = value', a [section] or a comment";
	p = toml_skipws(p);
	if (*p != '=')
		return "expected '=' after the key";
	key[keylen] = '\0';
	p = toml_skipws(p + 1);
	val = p;
	if (*p == '"') {
		bad = NULL;
		if ((p = toml_skipstring(p + 1, &bad)) == NULL)
			return bad;
		vallen = 0;
		v.kind = V_STRING;
	} else {
		while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '#')
			p++;
		vallen = (size_t)(p - val);
		if (vallen == 0)
			return "expected a value after '='";
		if ((vallen == 4 && memcmp(val, "true", 4) == 0) || (vallen == 5 && memcmp(val, "false", 5) == 0))
			v.kind = V_BOOL;
		else if (toml_isnumber(val, vallen))
			v.kind = V_NUMBER;
		else
			return "expected a number, true, false or a \"string\"";
	}
	if (!toml_atend(toml_skipws(p)))
		return "unexpected text after the value";
	if ((at = seen_find(r, r->section, key, 0)) >= 0) {
		snprintf(r->why, sizeof r->why, "duplicate key %s (first on line %lu)", key, r->seen[at].line);
		return r->why;
	}
	if (v.kind != V_STRING)
		val[vallen] = '\0';
	v.text = val;
	for (sec = 0; sec < BS_N && strcmp(r->section, sectionname[sec]) != 0; sec++)
		;
	if (sec < BS_N && (bad = onebudget(r, key, &v, (enum budget_section)sec)) != NULL)
		return bad;
	if (strcmp(r->section, "history") == 0 && (bad = onecreep(r, key, &v)) != NULL)
		return bad;
	if (r->section[0] == '\0' && (bad = toplevel(r, key, &v)) != NULL)
		return bad;
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
	p = toml_skipws(s);
	if (toml_atend(p))
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
	s = buf;
	/* A UTF-8 byte order mark, as most TOML readers take it: not a line's text. */
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		s += 3;
	for (; why == NULL && s < buf + len; s = nl + 1) {
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

static int
endswith(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/*
 * Instructions are exact, so 2 % is room for real work only; an
 * allocation may not appear; cache misses (countof -c) move with layout.
 */
double
budget_count_default(const char *name, size_t len)
{
	if (endswith(name, len, "_allocs") || endswith(name, len, "_alloc_bytes"))
		return 0;
	if (endswith(name, len, "_instr"))
		return 0.02;
	if (endswith(name, len, "_l1_misses") || endswith(name, len, "_ll_misses"))
		return 0.05;
	return -1;
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
	for (i = 0; i < b->nacc; i++)
		free(b->acc[i].name);
	for (i = 0; i < b->nhist; i++)
		free(b->hist[i].name);
	free(b->hist);
	free(b->entry);
	free(b->count);
	free(b->acc);
	names_free(&b->entryidx);
	names_free(&b->countidx);
	memset(&b->entryidx, 0, sizeof b->entryidx);
	memset(&b->countidx, 0, sizeof b->countidx);
	b->entry = b->count = b->acc = NULL;
	b->n = b->cap = b->ncount = b->capcount = b->nacc = b->capacc = 0;
	b->hist = NULL;
	b->nhist = b->caphist = 0;
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

double
budget_creep(const struct budget *b, const char *name, size_t len)
{
	const struct budget_entry *e;
	size_t i;

	for (i = 0; i < b->nhist; i++)
		if (memeq_str(name, len, b->hist[i].name))
			return b->hist[i].budget;
	return (e = budget_find(b, name, len)) != NULL ? e->budget : -1;
}
