/*
 * cgdump: callgrind's dump files, read into per-function sums (cgdump.h).
 *
 * What a dump must be, so that a truncated file, another tool's file or a
 * garbled one is refused rather than read as a smaller profile: the first
 * line "# callgrind format" or "version: 1"; "events:" before any cost;
 * every compressed name "(id)" named before it is used; a "totals:" line at
 * the end, after which nothing but blank lines; and the self costs adding
 * up to those totals, event by event.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgdump.h"
#include "util.h"

/* The kinds of compressed names: objects, files, functions. */
enum { K_OB, K_FL, K_FN };

/* Ids are small numbers counted up from 0 or 1; more is not a dump. */
#define MAX_ID (1L << 22)
#define MAX_EVENTS 64
#define MAX_POSITIONS 2

struct state {
	struct cg_dump *d;
	int started;		/* a body line was read */
	int ended;		/* the totals line was read */
	size_t line, totalsline;	/* the line being read, the totals line */
	int nev, npos, linepos;	/* events, positions, which position is the line */
	int kind[MAX_EVENTS];
	unsigned long long sum[MAX_EVENTS], totals[MAX_EVENTS];
	unsigned long pos[MAX_POSITIONS];
	long ob, fl, fi, fn;		/* string indexes, -1 none; fn: a function */
	long cob, cfi, cfn;		/* the next call's, -1 not given */
	unsigned long long ncalls;	/* > 0: the next cost line is a call's */
	long callee;
};

static const char *
intern(struct cg_dump *d, const char *s, size_t len, long *out)
{
	long i = names_find(&d->str, s, len);

	if (memchr(s, '\0', len) != NULL)
		return "a NUL byte in a name";
	*out = i >= 0 ? i : names_add(&d->str, s, len);
	return NULL;
}

static const char *
base(const struct cg_dump *d, long i)
{
	const char *s, *slash;

	if (i < 0)
		return "???";
	s = d->str.name[i].s;
	slash = strrchr(s, '/');
	return slash != NULL && slash[1] != '\0' ? slash + 1 : s;
}

/* A name spec's string: "(id) name", "(id)" named before, or "name". */
static const char *
name_spec(struct cg_dump *d, int kind, const char *s, size_t len, long *out)
{
	const char *close, *why;
	long id = 0;
	size_t i;

	if (len == 0)
		return "an empty name";
	if (s[0] != '(')
		return intern(d, s, len, out);
	close = memchr(s, ')', len);
	if (close == NULL || close == s + 1)
		return "a compressed name without (id)";
	for (i = 1; s + i < close; i++) {
		if (s[i] < '0' || s[i] > '9' || id >= MAX_ID / 10)
			return "a compressed name whose id is not a small number";
		id = id * 10 + (s[i] - '0');
	}
	if ((size_t)id >= d->nid[kind]) {
		size_t n = d->nid[kind] ? d->nid[kind] : 64;

		while (n <= (size_t)id)
			n *= 2;
		d->id[kind] = xrealloc(d->id[kind], n * sizeof *d->id[kind]);
		for (i = d->nid[kind]; i < n; i++)
			d->id[kind][i] = -1;
		d->nid[kind] = n;
	}
	i = (size_t)(close - s) + 1;
	if (i == len) {
		if (d->id[kind][id] < 0)
			return "a compressed name used before it is named";
		*out = d->id[kind][id];
		return NULL;
	}
	if (s[i] != ' ' || i + 1 == len)
		return "a compressed name: not \"(id) name\"";
	if ((why = intern(d, s + i + 1, len - i - 1, out)) != NULL)
		return why;
	d->id[kind][id] = *out;
	return NULL;
}

/* The function named by string fn in file fl of object ob, added if new. */
static size_t
function(struct cg_dump *d, long fn, long fl, long ob)
{
	const char *name = d->str.name[fn].s, *file = base(d, fl);
	size_t nl = strlen(name), fl_len = strlen(file);
	char *key = xmalloc(nl + fl_len + 2);
	long i;

	memcpy(key, name, nl + 1);
	memcpy(key + nl + 1, file, fl_len + 1);
	i = names_find(&d->key, key, nl + fl_len + 1);
	if (i < 0) {
		i = names_add(&d->key, key, nl + fl_len + 1);
		if (d->nfn == d->capfn) {
			d->capfn = d->capfn ? 2 * d->capfn : 64;
			d->fn = xrealloc(d->fn, d->capfn * sizeof *d->fn);
		}
		memset(&d->fn[d->nfn], 0, sizeof d->fn[d->nfn]);
		/* The key's own copy, which lives as long as the dump. */
		d->fn[d->nfn].name = d->key.name[i].s;
		d->fn[d->nfn].file = d->key.name[i].s + nl + 1;
		d->fn[d->nfn].object = base(d, ob);
		d->nfn++;
	}
	free(key);
	return (size_t)i;
}

static size_t
line_hash(size_t fn, const char *file, unsigned long line)
{
	size_t h = fn * 0x9e3779b97f4a7c15ULL ^ (size_t)(uintptr_t)file * 31 ^ line * 0xff51afd7ed558ccdULL;

	return h ^ (h >> 29);
}

/* Add ir to line of file in function fn. */
static void
add_line(struct cg_dump *d, size_t fn, const char *file, unsigned long line, unsigned long long ir)
{
	size_t i, mask;

	if (2 * (d->nline + 1) > d->capline) {
		struct cg_line *old = d->line;
		size_t oldcap = d->capline, j;

		d->capline = oldcap ? 2 * oldcap : 256;
		d->line = xmalloc(d->capline * sizeof *d->line);
		for (j = 0; j < d->capline; j++)
			d->line[j].file = NULL;
		mask = d->capline - 1;
		for (j = 0; j < oldcap; j++) {
			if (old[j].file == NULL)
				continue;
			for (i = line_hash(old[j].fn, old[j].file, old[j].line) & mask; d->line[i].file != NULL;
			    i = (i + 1) & mask)
				;
			d->line[i] = old[j];
		}
		free(old);
	}
	mask = d->capline - 1;
	for (i = line_hash(fn, file, line) & mask; d->line[i].file != NULL; i = (i + 1) & mask)
		if (d->line[i].fn == fn && d->line[i].line == line && d->line[i].file == file) {
			d->line[i].ir += ir;
			return;
		}
	d->line[i].fn = fn;
	d->line[i].file = file;
	d->line[i].line = line;
	d->line[i].ir = ir;
	d->nline++;
}

/* A decimal (or, with hex, 0x-hexadecimal) number from *p; NULL on success. */
static const char *
number(const char **p, const char *end, int hex, unsigned long long *out)
{
	const char *s = *p;
	unsigned long long v = 0;
	unsigned digit, radix = 10;

	if (hex && end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		radix = 16;
		s += 2;
	}
	if (s == end)
		return "a missing number";
	for (; s < end && *s != ' ' && *s != '\t'; s++) {
		if (*s >= '0' && *s <= '9')
			digit = (unsigned)(*s - '0');
		else if (radix == 16 && ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f'))
			digit = (unsigned)((*s | 0x20) - 'a' + 10);
		else
			return "not a number";
		if (v > (ULLONG_MAX - digit) / radix)
			return "a number too large";
		v = v * radix + digit;
	}
	if (s == *p || (radix == 16 && s == *p + 2))
		return "a missing number";
	*out = v;
	*p = s;
	return NULL;
}

static const char *
skip_space(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* Which sum an event adds to, CG_NSUM for none. */
static int
event_sum(const char *s, size_t len, int *cache)
{
	static const char *const l1[] = { "I1mr", "D1mr", "D1mw" }, *const ll[] = { "ILmr", "DLmr", "DLmw" };
	int i;

	if (memeq_str(s, len, "Ir"))
		return CG_IR;
	for (i = 0; i < 3; i++) {
		if (memeq_str(s, len, l1[i]))
			return *cache = 1, CG_L1;
		if (memeq_str(s, len, ll[i]))
			return *cache = 1, CG_LL;
	}
	return CG_NSUM;
}

/* A header line "key: value" (the key and the value apart). */
static const char *
header(struct state *st, const char *key, size_t klen, const char *v, const char *end)
{
	struct cg_dump *d = st->d;
	const char *w, *why;
	unsigned long long *into;
	int n;

	v = skip_space(v, end);
	if (memeq_str(key, klen, "events") || memeq_str(key, klen, "positions")) {
		if (st->started)
			return "an events or positions line after the costs began";
		n = 0;
		if (key[0] == 'p')
			st->linepos = -1;
		for (; v < end; v = skip_space(w, end), n++) {
			for (w = v; w < end && *w != ' ' && *w != '\t'; w++)
				;
			if (key[0] == 'e') {
				if (n == MAX_EVENTS)
					return "more than 64 events";
				st->kind[n] = event_sum(v, (size_t)(w - v), &d->cache);
			} else {
				if (n == MAX_POSITIONS)
					return "more than two positions";
				if (memeq_str(v, (size_t)(w - v), "line"))
					st->linepos = n;
				else if (!memeq_str(v, (size_t)(w - v), "instr"))
					return "a position that is not instr or line";
			}
		}
		if (n == 0)
			return key[0] == 'e' ? "no events" : "no positions";
		if (key[0] == 'e')
			st->nev = n;
		else
			st->npos = n;
	} else if (memeq_str(key, klen, "totals") || memeq_str(key, klen, "summary")) {
		if (st->nev == 0)
			return "totals before the events line";
		into = key[0] == 't' ? st->totals : NULL;
		for (n = 0; v < end; n++, v = skip_space(v, end)) {
			unsigned long long x;

			if (n == st->nev)
				return "more totals than events";
			if ((why = number(&v, end, 0, &x)) != NULL)
				return why;
			if (into != NULL)
				into[n] = x;
		}
		if (key[0] == 't') {
			if (st->ended)
				return "a second totals line";
			st->ended = 1;
			st->totalsline = st->line;
		}
	} else if (memeq_str(key, klen, "version")) {
		if (!memeq_str(v, (size_t)(end - v), "1"))
			return "a callgrind format version other than 1";
	} else if (memeq_str(key, klen, "cmd")) {
		while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		free(d->cmd);
		d->cmd = xmemdup(v, (size_t)(end - v));
		d->cmdline = st->line;
	} else if (memeq_str(key, klen, "desc") && end - v >= 9 && memcmp(v, "Trigger: ", 9) == 0) {
		free(d->trigger);
		d->trigger = xmemdup(v + 9, (size_t)(end - v - 9));
		d->triggerline = st->line;
	}
	/* Other header lines (creator, pid, part, thread, desc) change nothing. */
	return NULL;
}

/* A cost line: positions, then counts; a call's when one is pending. */
static const char *
cost(struct state *st, const char *p, const char *end)
{
	struct cg_dump *d = st->d;
	unsigned long long v, add[CG_NSUM] = { 0 };
	const char *why;
	int i;

	if (st->nev == 0)
		return "a cost line before the events line";
	if (st->fn < 0)
		return "a cost line outside any function (no fn= before it)";
	if (st->ended)
		return "a cost line after the totals line";
	for (i = 0; i < st->npos; i++) {
		p = skip_space(p, end);
		if (p < end && *p == '*') {
			p++;
		} else if (p < end && (*p == '+' || *p == '-')) {
			int neg = *p == '-';

			p++;
			if ((why = number(&p, end, 0, &v)) != NULL)
				return why;
			if (neg ? v > st->pos[i] : v > ULONG_MAX - st->pos[i])
				return "a relative position out of range";
			st->pos[i] = neg ? st->pos[i] - (unsigned long)v : st->pos[i] + (unsigned long)v;
		} else {
			if ((why = number(&p, end, 1, &v)) != NULL)
				return why;
			if (v > ULONG_MAX)
				return "a position out of range";
			st->pos[i] = (unsigned long)v;
		}
		if (p < end && *p != ' ' && *p != '\t')
			return "a position that is not a number";
	}
	for (i = 0, p = skip_space(p, end); p < end; i++, p = skip_space(p, end)) {
		if (i == st->nev)
			return "more counts than events";
		if ((why = number(&p, end, 0, &v)) != NULL)
			return why;
		if (st->kind[i] < CG_NSUM) {
			if (v > ULLONG_MAX - add[st->kind[i]])
				return "a count too large";
			add[st->kind[i]] += v;
		}
		if (st->ncalls == 0) {
			if (v > ULLONG_MAX - st->sum[i])
				return "counts too large";
			st->sum[i] += v;
		}
	}
	for (i = 0; i < CG_NSUM; i++) {
		struct cg_fn *f = &d->fn[st->fn];

		if (f->incl[i] > ULLONG_MAX - add[i] || (st->ncalls == 0 && f->self[i] > ULLONG_MAX - add[i]))
			return "counts too large";
		f->incl[i] += add[i];
		if (st->ncalls == 0)
			f->self[i] += add[i];
	}
	if (st->ncalls > 0) {
		d->fn[st->callee].calls += st->ncalls;
		st->ncalls = 0;
		st->cob = st->cfi = st->cfn = -1;
	} else if (st->linepos >= 0 && add[CG_IR] > 0) {
		if (st->pos[st->linepos] != 0)
			d->lines = 1;
		add_line(d, (size_t)st->fn, base(d, st->fi), st->pos[st->linepos], add[CG_IR]);
	}
	return NULL;
}

/* A position line "xx=..." with the name spec or call after the '='. */
static const char *
spec(struct state *st, const char *key, size_t klen, const char *v, const char *end)
{
	struct cg_dump *d = st->d;
	unsigned long long n;
	const char *why;
	long s;

	if (st->ended)
		return "a line after the totals line";
	if (st->ncalls > 0)
		return "a calls= line without the cost line after it";
	if (memeq_str(key, klen, "calls")) {
		if (st->cfn < 0)
			return "a calls= line without cfn= before it";
		if ((why = number(&v, end, 0, &n)) != NULL)
			return why;
		if (n == 0)
			n = 1;	/* a call counted 0 times still has a cost line */
		if (st->fn < 0)
			return "a calls= line outside any function";
		st->callee = (long)function(d, st->cfn, st->cfi >= 0 ? st->cfi : st->fl,
		    st->cob >= 0 ? st->cob : st->ob);
		st->ncalls = n;
		return NULL;
	}
	if (memeq_str(key, klen, "jump") || memeq_str(key, klen, "jcnd") ||
	    memeq_str(key, klen, "jfi") || memeq_str(key, klen, "jfl"))
		return NULL;
	if (memeq_str(key, klen, "ob") || memeq_str(key, klen, "cob")) {
		if ((why = name_spec(d, K_OB, v, (size_t)(end - v), &s)) != NULL)
			return why;
		*(key[0] == 'c' ? &st->cob : &st->ob) = s;
	} else if (memeq_str(key, klen, "fl") || memeq_str(key, klen, "fi") || memeq_str(key, klen, "fe") ||
	    memeq_str(key, klen, "cfi") || memeq_str(key, klen, "cfl")) {
		if ((why = name_spec(d, K_FL, v, (size_t)(end - v), &s)) != NULL)
			return why;
		if (key[0] == 'c')
			st->cfi = s;
		else if (key[1] == 'l')
			st->fl = st->fi = s;
		else
			st->fi = s;
	} else if (memeq_str(key, klen, "fn") || memeq_str(key, klen, "cfn")) {
		if ((why = name_spec(d, K_FN, v, (size_t)(end - v), &s)) != NULL)
			return why;
		if (key[0] == 'c') {
			st->cfn = s;
		} else {
			st->fn = (long)function(d, s, st->fl, st->ob);
			st->fi = st->fl;
		}
	} else {
		return "an unknown position line (not ob=, fl=, fi=, fe=, fn=, cob=, cfi=, cfn=, calls=)";
	}
	return NULL;
}

const char *
cg_parse(const char *buf, size_t len, struct cg_dump *d, size_t *lineno)
{
	struct state st;
	const char *p = buf, *end = buf + len, *nl, *e, *why = NULL, *k;
	int first = 1, i;

	memset(&st, 0, sizeof st);
	st.d = d;
	st.npos = 1;
	st.linepos = 0;
	st.ob = st.fl = st.fi = st.fn = st.cob = st.cfi = st.cfn = -1;
	*lineno = 0;
	while (why == NULL && p < end) {
		st.line = ++*lineno;
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			return "truncated: the last line has no newline";
		e = nl;
		if (memchr(p, '\0', (size_t)(e - p)) != NULL)
			return "a NUL byte: not a callgrind dump";
		if (first) {
			if (!(e - p == 18 && memcmp(p, "# callgrind format", 18) == 0) &&
			    !(e - p >= 8 && memcmp(p, "version:", 8) == 0))
				return "not a callgrind dump: its first line is not \"# callgrind format\" or \"version: 1\"";
			first = 0;
			if (p[0] == '#') {
				p = nl + 1;
				continue;
			}
		}
		if (p == e || p[0] == '#') {
			p = nl + 1;
			continue;
		}
		for (k = p; k < e && ((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || *k == '_'); k++)
			;
		if (k > p && k < e && *k == ':')
			why = header(&st, p, (size_t)(k - p), k + 1, e);
		else if (k > p && k < e && *k == '=') {
			st.started = 1;
			why = spec(&st, p, (size_t)(k - p), k + 1, e);
		} else if ((*p >= '0' && *p <= '9') || *p == '+' || *p == '-' || *p == '*') {
			st.started = 1;
			why = cost(&st, p, e);
		} else {
			why = "not a callgrind line";
		}
		p = nl + 1;
	}
	if (why != NULL)
		return why;
	if (first)
		return "empty: not a callgrind dump";
	if (st.ncalls > 0)
		return "truncated: a calls= line is the last";
	if (!st.ended)
		return "truncated: no totals line at the end";
	for (i = 0; i < st.nev; i++)
		if (st.sum[i] != st.totals[i]) {
			*lineno = st.totalsline;
			return "truncated or altered: its costs do not add up to its totals line";
		}
	for (i = 0; i < st.nev; i++)
		if (st.kind[i] < CG_NSUM)
			d->total[st.kind[i]] += st.totals[i];
	return NULL;
}

long
cg_find(const struct cg_dump *d, const char *name, const char *file)
{
	size_t nl = strlen(name), fl_len = strlen(file);
	char *key = xmalloc(nl + fl_len + 2);
	long i;

	memcpy(key, name, nl + 1);
	memcpy(key + nl + 1, file, fl_len + 1);
	i = names_find(&d->key, key, nl + fl_len + 1);
	free(key);
	return i;
}

void
cg_free(struct cg_dump *d)
{
	int i;

	free(d->cmd);
	free(d->trigger);
	free(d->fn);
	free(d->line);
	names_free(&d->str);
	names_free(&d->key);
	for (i = 0; i < 3; i++)
		free(d->id[i]);
	memset(d, 0, sizeof *d);
}

char *
cg_slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, got;

	if (fp == NULL)
		return NULL;
	do {
		if (cap - n < 65536) {
			cap = cap ? 2 * cap : 65536;
			buf = xrealloc(buf, cap);
		}
		got = fread(buf + n, 1, cap - n, fp);
		n += got;
	} while (got > 0);
	if (ferror(fp)) {
		fclose(fp);
		free(buf);
		return NULL;
	}
	fclose(fp);
	*len = n;
	return buf;
}

/* Whether buf holds the trigger line of key's dump, as bench.h writes it. */
int
cg_has_trigger(const char *buf, size_t len, const char *k)
{
	char want[512];
	const char *p = buf, *end = buf + len, *nl;
	size_t wl;

	snprintf(want, sizeof want, "desc: Trigger: " CG_TRIGGER "%s ", k);
	wl = strlen(want);
	/* The header only: the trigger comes before the first cost. */
	for (; p < end && *p != 'o' && *p != 'f'; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			break;
		if ((size_t)(nl - p) > wl && memcmp(p, want, wl) == 0)
			return 1;
	}
	return 0;
}
