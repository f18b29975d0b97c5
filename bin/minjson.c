/*
 * minjson: reduce JSON-line records to per-group statistics.
 * Reads records, writes one record per group and statistic:
 * {"side":"base","stat":"min","n":3,"matmul_ns":...}.
 *
 * A value it selects (a minimum, a maximum, a quantile that falls on one
 * record) is written byte for byte as read; a value it computes (a mean,
 * an interpolated quantile) in the shortest form that reads back exactly.
 * Values are kept only when a quantile needs them (statsacc.h).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonl.h"
#include "names.h"
#include "recordkeys.h"
#include "stats.h"
#include "statsacc.h"
#include "tool.h"
#include "util.h"

enum stat { ST_MIN, ST_MAX, ST_MEAN, ST_MEDIAN, ST_Q1, ST_Q3, NSTAT };

static const char *const statname[NSTAT] = {
	"min", "max", "mean", "median", "q1", "q3"
};

struct group {
	char *name;		/* the key's value, as written */
	size_t len;
	unsigned long n;	/* records */
	struct acc *acc;	/* by field index */
	size_t nacc;
	uint64_t *firstat;	/* by round, where a whole round was first seen (seenround) */
	size_t nfirstat;
};

struct field {
	char *name;		/* as written */
	size_t len;
	int skip;		/* the key, or named by -x */
	int used;		/* has had a number: an output column */
};

static struct field *fields;
static size_t nfields, capfields;
static struct names fieldnames;
static size_t *order;		/* output columns, in first-seen order */
static size_t norder;

static struct group *groups;
static size_t ngroups, capgroups;
static struct names groupnames;

/*
 * The layout of the last record (jparse_like) and what minjson derived
 * from it: per position the field found there, and where the key is
 * (-1: not in the record). Valid while jparse_like says the layout stays.
 */
static struct jlayout layout;
static long *poscache;
static size_t nposcache;
static long keyat = -1;
static long roundat = -1;	/* where "round" is (-1: not in the record) */

/*
 * The (group, round) pairs seen, and where each was first: two records of
 * one side for one round are two runs merged into one file (two gates or
 * compares writing at once), never data to reduce. Rounds are whole
 * numbers from 1 in alternate's records: those are kept by the group, in
 * firstat, 8 bytes a round (a table of names took 80 bytes, and a third of
 * minjson's time); any other round, in the table.
 */
static struct names seenrounds;
static struct seen {
	const char *file;
	unsigned long line;
} *seenat;
static size_t capseen;
/* The files read, so that firstat can name one: file i + 1 in its top bits. */
static const char **filename;
static size_t nfilename;

enum { SEEN_LINEBITS = 40, DENSE_MIN = 4096 };

static const char *key = "side";
static size_t keylen = 4;
static char **xlist;
static size_t nxlist;
static int xgiven;	/* -x replaces the bookkeeping keys (recordkeys.h) */
static enum stat stats[NSTAT];
static size_t nstats;
static int need;		/* what the statistics asked for need kept (ACC_*) */

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-V] [-k key] [-s stats] [-x fields] [file ...]\n", argv0);
	exit(2);
}

static long
field_index(const char *s, size_t len)
{
	size_t i;
	long idx = names_find(&fieldnames, s, len);
	struct field *f;

	if (idx >= 0)
		return idx;
	if (nfields == capfields) {
		capfields = capfields ? capfields * 2 : 16;
		fields = xrealloc(fields, capfields * sizeof *fields);
	}
	f = &fields[nfields];
	idx = names_add(&fieldnames, s, len);
	f->name = fieldnames.name[idx].s;
	f->len = len;
	f->used = 0;
	f->skip = len == keylen && memcmp(s, key, len) == 0;
	if (!xgiven)
		f->skip = f->skip || is_bookkeeping(s, len);
	for (i = 0; i < nxlist && !f->skip; i++)
		f->skip = strlen(xlist[i]) == len && memcmp(xlist[i], s, len) == 0;
	nfields++;
	return idx;
}

static struct group *
group_of(const char *s, size_t len)
{
	size_t i;
	long idx;
	struct group *g;

	/* Sides are few: a look at each beats hashing the name. */
	for (i = 0; i < ngroups && i < 8; i++)
		if (groups[i].len == len && memeq(groups[i].name, s, len))
			return &groups[i];
	if ((idx = names_find(&groupnames, s, len)) < 0) {
		if (ngroups == capgroups) {
			capgroups = capgroups ? capgroups * 2 : 8;
			groups = xrealloc(groups, capgroups * sizeof *groups);
		}
		g = &groups[ngroups];
		memset(g, 0, sizeof *g);
		idx = names_add(&groupnames, s, len);
		g->name = groupnames.name[idx].s;
		g->len = len;
		ngroups++;
	}
	return &groups[idx];
}

/*
 * The text of every statistic of one group's fields, stat-major: the
 * values of a field are sorted once for all its quantiles.
 */
static void
reduce(const struct group *gr, struct text *out, double *sorted, uint64_t *tmp)
{
	static const double p[NSTAT] = { 0, 1, 0, 0.5, 0.25, 0.75 };
	size_t i, s;

	for (i = 0; i < gr->nacc; i++) {
		const struct acc *a = &gr->acc[i];

		if (a->n == 0)
			continue;
		if (need & ACC_VALUES)
			sort_doubles(sorted, a->v, a->vn, tmp);
		for (s = 0; s < nstats; s++) {
			struct text *t = &out[s * gr->nacc + i];

			switch (stats[s]) {
			case ST_MIN:
				text_set(t, a->rmin.s, a->rmin.len);
				break;
			case ST_MAX:
				text_set(t, a->rmax.s, a->rmax.len);
				break;
			case ST_MEAN:
				text_double(t, mean_value(&a->mean));
				break;
			default:
				acc_quantile(a, sorted, p[stats[s]], t);
			}
		}
	}
}

static void
output(void)
{
	size_t g, s, i, j, maxn = 0, maxacc = 0;
	double *sorted = NULL;
	uint64_t *tmp = NULL;
	struct text *out;

	for (g = 0; g < ngroups; g++) {
		if (groups[g].nacc > maxacc)
			maxacc = groups[g].nacc;
		for (i = 0; i < groups[g].nacc && (need & ACC_VALUES); i++)
			if (groups[g].acc[i].vn > maxn)
				maxn = groups[g].acc[i].vn;
	}
	if (maxn > 0) {
		sorted = xmalloc(maxn * sizeof *sorted);
		tmp = xmalloc(maxn * sizeof *tmp);
	}
	out = xmalloc((maxacc * nstats + 1) * sizeof *out);
	memset(out, 0, (maxacc * nstats + 1) * sizeof *out);
	for (g = 0; g < ngroups; g++) {
		const struct group *gr = &groups[g];

		reduce(gr, out, sorted, tmp);
		for (s = 0; s < nstats; s++) {
			putchar('{');
			if (keylen > 0) {
				putchar('"');
				jescape(stdout, key, keylen);
				fputs("\":\"", stdout);
				fwrite(gr->name, 1, gr->len, stdout);
				fputs("\",", stdout);
			}
			printf("\"stat\":\"%s\",\"n\":%lu", statname[stats[s]], gr->n);
			for (j = 0; j < norder; j++) {
				const struct text *t;

				i = order[j];
				if (i >= gr->nacc || gr->acc[i].n == 0)
					continue;
				t = &out[s * gr->nacc + i];
				fputs(",\"", stdout);
				fwrite(fields[i].name, 1, fields[i].len, stdout);
				fputs("\":", stdout);
				fwrite(t->s, 1, t->len, stdout);
			}
			fputs("}\n", stdout);
		}
	}
	for (i = 0; i < maxacc * nstats; i++)
		free(out[i].s);
	free(out);
	free(sorted);
	free(tmp);
}

/* readfile's message, until the next one. */
static char *message;

/* A message, "FILE:LINE: what" when r is not NULL, as readfile returns it. */
static const char *
inputerror(const struct jreader *r, const char *fmt, ...)
{
	va_list ap;
	int at = 0, n;

	if (r != NULL)
		at = snprintf(NULL, 0, "%s:%lu: ", r->name, r->lineno);
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	free(message);
	message = xmalloc((size_t)at + (size_t)n + 1);
	if (r != NULL)
		snprintf(message, (size_t)at + 1, "%s:%lu: ", r->name, r->lineno);
	va_start(ap, fmt);
	vsnprintf(message + at, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return message;
}

/* A new layout: find each member's field once, for every record that repeats it. */
static void
relayout(const struct jrecord *rec)
{
	size_t i;

	if (rec->n > nposcache) {
		poscache = xrealloc(poscache, rec->n * sizeof *poscache);
		nposcache = rec->n;
	}
	keyat = roundat = -1;
	for (i = 0; i < rec->n; i++) {
		const struct jfield *f = &rec->field[i];

		poscache[i] = field_index(f->key, f->keylen);
		if (keylen > 0 && jfield_is(f, key))
			keyat = (long)i;
		if (jfield_is(f, "round"))
			roundat = (long)i;
	}
}

/* Whether x is a whole round firstat can hold: 0 or more, not -0 (the table tells -0 from 0). */
static int
whole(double x)
{
	return x >= 0 && !(x == 0 && signbit(x)) && x == floor(x) && x < 1e15;
}

/*
 * Whether a new round x of group g goes to firstat: whole, and not far
 * beyond the records so far, so that firstat stays a few bytes a record.
 */
static int
dense(const struct group *g, double x, unsigned long line)
{
	double most = g->n < DENSE_MIN ? DENSE_MIN : 4.0 * (double)g->n;

	return whole(x) && x < most && nfilename < (1u << (64 - SEEN_LINEBITS)) &&
	    line < (1ull << SEEN_LINEBITS);
}

/* Keep in g's firstat that round at was first seen on r's line. */
static void
keepfirst(struct group *g, size_t at, const struct jreader *r)
{
	size_t cap;

	if (at >= g->nfirstat) {
		for (cap = g->nfirstat ? g->nfirstat : 1024; cap <= at; cap *= 2)
			;
		g->firstat = xrealloc(g->firstat, cap * sizeof *g->firstat);
		memset(g->firstat + g->nfirstat, 0, (cap - g->nfirstat) * sizeof *g->firstat);
		g->nfirstat = cap;
	}
	g->firstat[at] = (uint64_t)nfilename << SEEN_LINEBITS | r->lineno;
}

/* A second record of group g for the record's round; NULL, or what is wrong. */
static const char *
onceperround(const struct jreader *r, const struct jrecord *rec, struct group *g)
{
	const struct jfield *rf;
	char buf[64];
	long idx;
	uint64_t first;
	int n;

	if (roundat < 0 || (rf = &rec->field[roundat])->type != J_NUMBER)
		return NULL;
	if (whole(rf->num) && rf->num < (double)g->nfirstat && (first = g->firstat[(size_t)rf->num]) != 0)
		return inputerror(r, "second record for %s \"%s\", round %.*s (first at %s:%llu)", key, g->name,
		    (int)rf->rawlen, rf->raw, filename[(first >> SEEN_LINEBITS) - 1],
		    (unsigned long long)(first & ((1ull << SEEN_LINEBITS) - 1)));
	/* The table holds the rounds that were not dense when first seen: none, as a rule. */
	if (seenrounds.n > 0 || !dense(g, rf->num, r->lineno)) {
		n = snprintf(buf, sizeof buf, "%zu %.17g", (size_t)(g - groups), rf->num);
		if ((idx = names_find(&seenrounds, buf, (size_t)n)) >= 0)
			return inputerror(r, "second record for %s \"%s\", round %.*s (first at %s:%lu)", key,
			    g->name, (int)rf->rawlen, rf->raw, seenat[idx].file, seenat[idx].line);
	}
	if (dense(g, rf->num, r->lineno)) {
		keepfirst(g, (size_t)rf->num, r);
		return NULL;
	}
	idx = names_add(&seenrounds, buf, (size_t)n);
	if ((size_t)idx >= capseen) {
		capseen = capseen ? 2 * capseen : 64;
		seenat = xrealloc(seenat, capseen * sizeof *seenat);
	}
	seenat[idx].file = r->name;
	seenat[idx].line = r->lineno;
	return NULL;
}

/* Take the record on line r->lineno into its group; NULL, or what is wrong. */
static const char *
take(const struct jreader *r, const char *line, size_t len, struct jrecord *rec)
{
	const struct jfield *kf;
	struct group *g;
	const char *err;
	size_t i;
	int same;

	if ((err = jparse_like(line, len, rec, &layout, &same)) != NULL)
		return inputerror(r, "%s", err);
	if (!same)
		relayout(rec);
	if (keylen > 0) {
		if (keyat < 0)
			return inputerror(r, "no key \"%s\"", key);
		kf = &rec->field[keyat];
		if (kf->type != J_STRING)
			return inputerror(r, "value of \"%s\" is not a string", key);
		g = group_of(kf->raw, kf->rawlen);
		if ((err = onceperround(r, rec, g)) != NULL)
			return err;
	} else
		g = group_of("", 0);
	g->n++;
	for (i = 0; i < rec->n; i++) {
		const struct jfield *f = &rec->field[i];
		long fi = poscache[i];
		struct field *fd;

		if (f->type != J_NUMBER)
			continue;
		fd = &fields[fi];
		if (fd->skip)
			continue;
		if (!fd->used) {
			if ((fd->len == 4 && memcmp(fd->name, "stat", 4) == 0) ||
			    (fd->len == 1 && fd->name[0] == 'n'))
				return inputerror(r, "field \"%s\" clashes with minjson's own (exclude it with -x)", fd->name);
			fd->used = 1;
			order = xrealloc(order, (norder + 1) * sizeof *order);
			order[norder++] = (size_t)fi;
		}
		if ((size_t)fi >= g->nacc) {
			size_t ncap = nfields > 8 ? nfields : 8;

			g->acc = xrealloc(g->acc, ncap * sizeof *g->acc);
			memset(g->acc + g->nacc, 0, (ncap - g->nacc) * sizeof *g->acc);
			g->nacc = ncap;
		}
		acc_add(&g->acc[fi], f->num, f->raw, f->rawlen, need);
	}
	return NULL;
}

/* Read the records of path ("-": stdin), counting them in *nrec; NULL, or what is wrong. */
static const char *
readfile(const char *path, struct jrecord *rec, unsigned long *nrec)
{
	struct jreader r;
	const char *line, *err = NULL;
	size_t len;
	int got;

	if (jreader_open(&r, path) < 0)
		return inputerror(NULL, "open %s: %s", path, strerror(errno));
	filename = xrealloc(filename, (nfilename + 1) * sizeof *filename);
	filename[nfilename++] = r.name;
	while ((got = jreader_next(&r, &line, &len)) == 1) {
		if ((err = take(&r, line, len, rec)) != NULL)
			break;
		++*nrec;
	}
	if (got < 0)
		err = inputerror(NULL, "read %s: %s", r.name, strerror(errno));
	jreader_close(&r);
	return err;
}

static void
parsestats(char *arg)
{
	char *tok, *next;
	size_t i;
	int st;

	nstats = 0;
	for (tok = arg; tok != NULL; tok = next) {
		if ((next = strchr(tok, ',')) != NULL)
			*next++ = '\0';
		for (st = 0; st < NSTAT && strcmp(tok, statname[st]) != 0; st++)
			;
		if (st == NSTAT) {
			warnmsg("unknown statistic \"%s\" (min, max, mean, median, q1, q3)", tok);
			usage();
		}
		for (i = 0; i < nstats; i++)
			if (stats[i] == (enum stat)st) {
				warnmsg("statistic \"%s\" given twice", tok);
				usage();
			}
		stats[nstats++] = (enum stat)st;
	}
}

static void
parsexlist(char *arg)
{
	char *tok, *next;

	for (tok = arg; tok != NULL; tok = next) {
		if ((next = strchr(tok, ',')) != NULL)
			*next++ = '\0';
		if (*tok == '\0')
			continue;
		xlist = xrealloc(xlist, (nxlist + 1) * sizeof *xlist);
		xlist[nxlist++] = tok;
	}
}

int
main(int argc, char *argv[])
{
	struct jrecord rec = { 0 };
	const char *err = NULL;
	unsigned long nrec = 0;
	size_t i;
	int c;

	tool_begin(argc, argv);
	stats[0] = ST_MIN;
	nstats = 1;
	while ((c = getopt(argc, argv, ":k:s:x:")) != -1) {
		switch (c) {
		case 'k':
			key = optarg;
			keylen = strlen(key);
			if (strcmp(key, "stat") == 0 || strcmp(key, "n") == 0) {
				warnmsg("key \"%s\" clashes with minjson's own output keys", key);
				usage();
			}
			break;
		case 's':
			parsestats(optarg);
			break;
		case 'x':
			xgiven = 1;
			parsexlist(optarg);
			break;
		default:
			optionerror(c);
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	for (i = 0; i < nstats; i++) {
		need |= stats[i] == ST_MAX ? ACC_MAX : stats[i] == ST_MEAN ? ACC_MEAN :
		    stats[i] >= ST_MEDIAN ? ACC_VALUES : 0;
	}
	if (argc == 0)
		err = readfile("-", &rec, &nrec);
	for (i = 0; i < (size_t)argc && err == NULL; i++)
		err = readfile(argv[i], &rec, &nrec);
	if (err == NULL && nrec == 0)
		err = "no records";
	if (err == NULL)
		output();
	jrecord_free(&rec);
	jlayout_free(&layout);
	if (err != NULL)
		die("%s", err);
	return fshut(stdout, "stdout");
}
