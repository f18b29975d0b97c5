/*
 * rounds: pair the rounds of alternate's records for cmpbudget -r. In
 * every round base and head run next to each other, so the ratio head /
 * base of one round cancels what the machine did to both (DESIGN.md).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonl.h"
#include "msg.h"
#include "names.h"
#include "recordkeys.h"
#include "rounds.h"
#include "util.h"

/* One side's record of one round: its budgeted metrics, NAN where absent, and as written. */
struct rrec {
	double round;
	unsigned long line;
	double *v;
	char **raw;
};

struct sidelist {
	struct rrec *rec;
	size_t n, cap;
	unsigned long idline;	/* the record the identity was taken from */
};

/*
 * The string members other than the side's key: the first record of a side
 * sets them, every later one must repeat them exactly (no more, no less).
 * Returns 0, or -1 when they differ.
 */
static int
identity(struct rounds *rs, enum side s, const struct jrecord *rec, const char *key, int first)
{
	size_t i, j, n = 0;
	const struct jfield *f;

	for (i = 0; i < rec->n; i++) {
		f = &rec->field[i];
		if (f->type != J_STRING || jfield_is(f, key))
			continue;
		if (first) {
			rs->id[s] = xrealloc(rs->id[s], (rs->nid[s] + 1) * sizeof *rs->id[s]);
			rs->id[s][rs->nid[s]].key = xmemdup(f->key, f->keylen);
			rs->id[s][rs->nid[s]].val = xmemdup(f->raw, f->rawlen);
			rs->nid[s]++;
			continue;
		}
		n++;
		for (j = 0; j < rs->nid[s]; j++)
			if (jfield_is(f, rs->id[s][j].key))
				break;
		if (j == rs->nid[s] || strlen(rs->id[s][j].val) != f->rawlen ||
		    !memeq(rs->id[s][j].val, f->raw, f->rawlen))
			return -1;
	}
	return first || n == rs->nid[s] ? 0 : -1;
}

static int
byround(const void *a, const void *b)
{
	const struct rrec *x = a, *y = b;

	return (x->round > y->round) - (x->round < y->round);
}

/* Pair the rounds both sides have; the lists are sorted by round. */
static char *
pair(struct rounds *rs, struct sidelist *sl, const char *name, const char *const side[NSIDE],
    const struct budget *b)
{
	size_t i = 0, j = 0, m;
	int s;
	double r;
	const struct rrec *x, *y;

	for (s = 0; s < NSIDE; s++)
		for (m = 1; m < sl[s].n; m++)
			if (sl[s].rec[m].round == sl[s].rec[m - 1].round)
				return msgf("%s:%lu: second record for side \"%s\", round %.17g (first at line %lu)",
				    name, sl[s].rec[m].line > sl[s].rec[m - 1].line ? sl[s].rec[m].line : sl[s].rec[m - 1].line,
				    side[s], sl[s].rec[m].round,
				    sl[s].rec[m].line < sl[s].rec[m - 1].line ? sl[s].rec[m].line : sl[s].rec[m - 1].line);
	while (i < sl[SIDE_BASE].n && j < sl[SIDE_HEAD].n) {
		x = &sl[SIDE_BASE].rec[i];
		y = &sl[SIDE_HEAD].rec[j];
		if (x->round < y->round) {
			i++;
			continue;
		}
		if (y->round < x->round) {
			j++;
			continue;
		}
		for (m = 0; m < b->n; m++) {
			if (isnan(x->v[m]) || isnan(y->v[m]))
				continue;
			if (!(x->v[m] > 0))
				return msgf("%s:%lu: %s: base %.17g is not above 0: no ratio", name, x->line,
				    b->entry[m].name, x->v[m]);
			/* A time of 0 or less is not a measurement: no ratio either (issue 37). */
			if (!(y->v[m] > 0))
				return msgf("%s:%lu: %s: head %.17g is not above 0: no ratio", name, y->line,
				    b->entry[m].name, y->v[m]);
			r = y->v[m] / x->v[m];
			if (!isfinite(r) || !(r > 0))
				return msgf("%s:%lu: %s: head / base is out of range", name, y->line, b->entry[m].name);
			rs->val[SIDE_BASE][m][rs->n[m]] = x->v[m];
			rs->val[SIDE_HEAD][m][rs->n[m]] = y->v[m];
			rs->raw[SIDE_BASE][m][rs->n[m]] = x->raw[m];
			rs->raw[SIDE_HEAD][m][rs->n[m]] = y->raw[m];
			rs->ratio[m][rs->n[m]++] = r;
		}
		rs->nrounds++;
		i++;
		j++;
	}
	return NULL;
}

/* A number member of rec, or NAN. */
static double
numof(const struct jrecord *rec, const char *key)
{
	const struct jfield *f = jget(rec, key, strlen(key));

	return f != NULL && f->type == J_NUMBER ? f->num : NAN;
}

/* What alternate says of the machine during one run. */
static void
disturbance(struct disturb *d, const struct jrecord *rec)
{
	double wall = numof(rec, "wall_s"), stall = numof(rec, "stall_s"), v;

	d->runs++;
	if (!isnan(wall) && !isnan(stall)) {
		d->psi_runs++;
		d->wall_s += wall;
		d->stall_s += stall;
	}
	if (!isnan(v = numof(rec, "steal_s")))
		d->steal_s += v;
	if (!isnan(v = numof(rec, "ivcsw")))
		d->ivcsw += v;
	/* A run that had less than 90 % of a CPU while it ran was disturbed. */
	if ((!isnan(v = numof(rec, "cpu")) && v < 0.9) || (!isnan(v = numof(rec, "busy")) && v > 0))
		d->busy++;
	if (!isnan(numof(rec, "cpu")))
		d->watched++;
	/* Each record of a round says how often it was run again: count the first. */
	if (!isnan(v = numof(rec, "reruns")) && numof(rec, "slot") == 0)
		d->rerun += v;
	/* Another gate pinned to the same CPU (alternate -c auto, every CPU held). */
	if (!isnan(v = numof(rec, "shared")) && v > d->shared) {
		d->shared = v;
		d->shared_cpu = numof(rec, "pinned");
	}
}

/*
 * Note each numeric member's name, once. seen indexes the names noted, so
 * that a record of thousands of metrics is not compared with every name
 * before it (issue 20: quadratic in the metrics).
 */
static void
numnames(struct rounds *rs, struct names *seen, const struct jrecord *rec)
{
	size_t i;
	const struct jfield *f;

	for (i = 0; i < rec->n; i++) {
		f = &rec->field[i];
		if (f->type != J_NUMBER || is_bookkeeping(f->key, f->keylen))
			continue;
		if (names_find(seen, f->key, f->keylen) >= 0)
			continue;
		names_add(seen, f->key, f->keylen);
		rs->num = xrealloc(rs->num, (rs->nnum + 1) * sizeof *rs->num);
		rs->num[rs->nnum++] = xmemdup(f->key, f->keylen);
	}
}

/* The index in b->entry of the metric named key[0..len), or -1. */
static long
entry_index(const struct budget *b, const char *key, size_t len)
{
	size_t m;

	if (b->n > 0 && b->entryidx.n == b->n)
		return names_find(&b->entryidx, key, len);
	for (m = 0; m < b->n; m++)
		if (memeq_str(key, len, b->entry[m].name))
			return (long)m;
	return -1;
}

/* Read the records into sl; returns NULL or why not. */
static char *
readall(struct rounds *rs, struct sidelist *sl, struct jreader *r, const char *key,
    const char *const side[NSIDE], const struct budget *b)
{
	struct jrecord rec = { 0 };
	const struct jfield *sf, *rf, *f;
	const char *line, *msg;
	char *err = NULL;
	size_t len, m, i;
	long k;
	int rc, s;
	struct rrec *x;
	struct names seen = { 0 };

	while (err == NULL && (rc = jreader_next(r, &line, &len)) == 1) {
		if ((msg = jparse(line, len, &rec)) != NULL) {
			err = msgf("%s:%lu: %s", r->name, r->lineno, msg);
			break;
		}
		sf = jget(&rec, key, strlen(key));
		if (sf == NULL || sf->type != J_STRING) {
			err = msgf("%s:%lu: no string \"%s\": not a record of alternate", r->name, r->lineno, key);
			break;
		}
		for (s = 0; s < NSIDE; s++)
			if (sf->rawlen == strlen(side[s]) && memeq(sf->raw, side[s], sf->rawlen))
				break;
		if (s == NSIDE)
			continue;
		rf = jget(&rec, "round", 5);
		if (rf == NULL || rf->type != J_NUMBER) {
			err = msgf("%s:%lu: no number \"round\": not a record of alternate", r->name, r->lineno);
			break;
		}
		if (identity(rs, (enum side)s, &rec, key, sl[s].n == 0) < 0) {
			err = msgf("%s:%lu: the string members of side \"%s\" differ from its first record's (line %lu)",
			    r->name, r->lineno, side[s], sl[s].idline);
			break;
		}
		if (sl[s].n == 0)
			sl[s].idline = r->lineno;
		if (sl[s].n == sl[s].cap) {
			sl[s].cap = sl[s].cap ? 2 * sl[s].cap : 64;
			sl[s].rec = xrealloc(sl[s].rec, sl[s].cap * sizeof *sl[s].rec);
		}
		x = &sl[s].rec[sl[s].n++];
		x->round = rf->num;
		x->line = r->lineno;
		x->v = xmalloc((b->n ? b->n : 1) * sizeof *x->v);
		x->raw = xmalloc((b->n ? b->n : 1) * sizeof *x->raw);
		for (m = 0; m < b->n; m++) {
			x->v[m] = NAN;
			x->raw[m] = NULL;
		}
		/*
		 * Each member is looked up in the budget's index, once: a
		 * member is in a record once (jparse refuses a second), so
		 * this is jget for each metric at the cost of one pass.
		 */
		for (i = 0; i < rec.n; i++) {
			f = &rec.field[i];
			if (f->type != J_NUMBER || isnan(f->num) || (k = entry_index(b, f->key, f->keylen)) < 0)
				continue;
			m = (size_t)k;
			x->v[m] = f->num;
			rs->seen[s][m]++;
			rs->pool = xrealloc(rs->pool, (rs->npool + 1) * sizeof *rs->pool);
			rs->pool[rs->npool++] = x->raw[m] = xmemdup(f->raw, f->rawlen);
		}
		numnames(rs, &seen, &rec);
		disturbance(&rs->dist, &rec);
	}
	if (err == NULL && rc < 0)
		err = msgf("read %s: %s", r->name, strerror(errno));
	names_free(&seen);
	jrecord_free(&rec);
	return err;
}

char *
rounds_load(struct rounds *rs, const char *path, const char *key,
    const char *const side[NSIDE], const struct budget *b)
{
	struct sidelist sl[NSIDE] = { { 0 } };
	struct jreader r;
	char *err;
	size_t m, i;
	int s;

	if (jreader_open(&r, path) < 0)
		return msgf("%s: %s", path, strerror(errno));
	rs->ratio = xmalloc((b->n ? b->n : 1) * sizeof *rs->ratio);
	rs->n = xmalloc((b->n ? b->n : 1) * sizeof *rs->n);
	for (s = 0; s < NSIDE; s++) {
		rs->seen[s] = xmalloc((b->n ? b->n : 1) * sizeof *rs->seen[s]);
		memset(rs->seen[s], 0, (b->n ? b->n : 1) * sizeof *rs->seen[s]);
	}
	err = readall(rs, sl, &r, key, side, b);
	for (s = 0; s < NSIDE; s++) {
		rs->val[s] = xmalloc((b->n ? b->n : 1) * sizeof *rs->val[s]);
		rs->raw[s] = xmalloc((b->n ? b->n : 1) * sizeof *rs->raw[s]);
	}
	for (m = 0; m < b->n; m++) {
		i = sl[SIDE_BASE].n ? sl[SIDE_BASE].n : 1;
		rs->ratio[m] = xmalloc(i * sizeof **rs->ratio);
		for (s = 0; s < NSIDE; s++) {
			rs->val[s][m] = xmalloc(i * sizeof **rs->val[s]);
			rs->raw[s][m] = xmalloc(i * sizeof **rs->raw[s]);
		}
		rs->n[m] = 0;
	}
	if (err == NULL) {
		for (s = 0; s < NSIDE; s++)
			if (sl[s].n > 0)	/* qsort takes no NULL, even for nothing */
				qsort(sl[s].rec, sl[s].n, sizeof *sl[s].rec, byround);
		err = pair(rs, sl, r.name, side, b);
	}
	for (s = 0; s < NSIDE; s++) {
		for (i = 0; i < sl[s].n; i++) {
			free(sl[s].rec[i].v);
			free(sl[s].rec[i].raw);
		}
		free(sl[s].rec);
	}
	jreader_close(&r);
	return err;
}

void
rounds_free(struct rounds *rs, const struct budget *b)
{
	size_t i;
	int s;

	for (s = 0; s < NSIDE; s++) {
		for (i = 0; i < rs->nid[s]; i++) {
			free(rs->id[s][i].key);
			free(rs->id[s][i].val);
		}
		free(rs->id[s]);
	}
	if (rs->ratio != NULL)
		for (i = 0; i < b->n; i++) {
			free(rs->ratio[i]);
			for (s = 0; s < NSIDE; s++) {
				free(rs->val[s][i]);
				free((void *)rs->raw[s][i]);
			}
		}
	for (s = 0; s < NSIDE; s++) {
		free(rs->val[s]);
		free(rs->raw[s]);
		free(rs->seen[s]);
	}
	free(rs->ratio);
	free(rs->n);
	for (i = 0; i < rs->nnum; i++)
		free(rs->num[i]);
	free(rs->num);
	for (i = 0; i < rs->npool; i++)
		free(rs->pool[i]);
	free(rs->pool);
}
