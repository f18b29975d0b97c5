/*
 * statsread: minjson's statistic records, read for cmpbudget (see statsread.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "statsread.h"
#include "util.h"

/* Is the string f's value, as written, s? (jfield_is compares its key.) */
static int
valueis(const struct jfield *f, const char *s)
{
	size_t n = strlen(s);

	return f->rawlen == n && memeq(f->raw, s, n);
}

/* Keep a copy of the record if it is one that matters; NULL, or an allocated message. */
static char *
keep(struct sidestats *ss, const char *line, size_t len, const struct jfield *side, const struct jfield *stat,
    const char *file, unsigned long lineno)
{
	int i, j;
	struct statslot *s;
	const char *msg;

	for (i = 0; i < NSIDE; i++) {
		if (!valueis(side, ss->side[i]))
			continue;
		for (j = 0; j < NSTAT; j++) {
			if (!valueis(stat, ss->stat[i][j]))
				continue;
			s = &ss->slot[i][j];
			if (s->have)
				return msgf("%s:%lu: second record for side \"%s\", stat \"%s\" (first at %s:%lu)",
				    file, lineno, ss->side[i], ss->stat[i][j], s->file, s->lineno);
			s->line = xmemdup(line, len);
			if ((msg = jparse(s->line, len, &s->rec)) != NULL)
				return msgf("%s:%lu: %s", file, lineno, msg);
			s->file = file;
			s->lineno = lineno;
			s->have = 1;
			for (size_t k = 0; k < s->rec.n; k++)
				names_add(&s->idx, s->rec.field[k].key, s->rec.field[k].keylen);
		}
	}
	return NULL;
}

long
sidestats_read(struct sidestats *ss, const char *path, const char *key, char **err)
{
	struct jreader r;
	struct jrecord rec = { 0 };
	const struct jfield *side, *stat;
	const char *line, *msg;
	size_t len;
	long nrec = 0;
	int rc;
	char *name;

	*err = NULL;
	if (jreader_open(&r, path) < 0) {
		*err = msgf("%s: %s", path, strerror(errno));
		return -1;
	}
	/* The name lives as long as ss: slots point to it. */
	name = xstrdup(r.name);
	ss->names = xrealloc(ss->names, (ss->nnames + 1) * sizeof *ss->names);
	ss->names[ss->nnames++] = name;
	while ((rc = jreader_next(&r, &line, &len)) == 1) {
		if ((msg = jparse(line, len, &rec)) != NULL) {
			*err = msgf("%s:%lu: %s", r.name, r.lineno, msg);
			break;
		}
		side = jget(&rec, key, strlen(key));
		stat = jget(&rec, "stat", 4);
		if (side == NULL || side->type != J_STRING) {
			*err = msgf("%s:%lu: no string \"%s\": not a record of minjson", r.name, r.lineno, key);
			break;
		}
		if (stat == NULL || stat->type != J_STRING) {
			*err = msgf("%s:%lu: no string \"stat\": not a record of minjson", r.name, r.lineno);
			break;
		}
		nrec++;
		if ((*err = keep(ss, line, len, side, stat, name, r.lineno)) != NULL)
			break;
	}
	if (rc < 0)
		*err = msgf("read %s: %s", r.name, strerror(errno));
	jrecord_free(&rec);
	jreader_close(&r);
	return rc == 0 && *err == NULL ? nrec : -1;
}

const struct jfield *
sidestats_member(const struct sidestats *ss, int side, int stat, const char *name)
{
	const struct statslot *sl = &ss->slot[side][stat];
	long k;

	if (!sl->have || (k = names_find(&sl->idx, name, strlen(name))) < 0)
		return NULL;
	return &sl->rec.field[k];
}

const struct jfield *
sidestats_metric(const struct sidestats *ss, int side, int stat, const char *name)
{
	const struct jfield *f = sidestats_member(ss, side, stat, name);

	return f != NULL && f->type == J_NUMBER ? f : NULL;
}

void
sidestats_free(struct sidestats *ss)
{
	size_t i;
	int s, t;

	for (s = 0; s < NSIDE; s++)
		for (t = 0; t < NSTAT; t++) {
			jrecord_free(&ss->slot[s][t].rec);
			free(ss->slot[s][t].line);
			names_free(&ss->slot[s][t].idx);
		}
	for (i = 0; i < ss->nnames; i++)
		free(ss->names[i]);
	free(ss->names);
}
