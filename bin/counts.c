/*
 * counts: read the counts run's statistics and tell a regression in time
 * from one in work. Instructions counted under valgrind do not depend on
 * where the code sits in memory or on the machine's load, so a time that
 * regressed over an unmoved count points at layout or noise.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counts.h"
#include "json.h"
#include "jreader.h"
#include "msg.h"
#include "util.h"

static int
valueis(const struct jfield *f, const char *s)
{
	size_t n = strlen(s);

	return f->rawlen == n && memeq(f->raw, s, n);
}

/* Read the records; returns NULL or why not. */
static char *
readall(struct counts *c, struct jreader *r, const char *key,
    const char *const side[NSIDE], const char *const stat[NSIDE])
{
	struct jrecord rec = { 0 };
	const struct jfield *sf, *tf;
	const char *line, *msg;
	char *err = NULL;
	size_t len;
	int rc, s;

	while (err == NULL && (rc = jreader_next(r, &line, &len)) == 1) {
		if ((msg = jparse(line, len, &rec)) != NULL) {
			err = msgf("%s:%lu: %s", r->name, r->lineno, msg);
			break;
		}
		sf = jget(&rec, key, strlen(key));
		tf = jget(&rec, "stat", 4);
		if (sf == NULL || sf->type != J_STRING || tf == NULL || tf->type != J_STRING) {
			err = msgf("%s:%lu: no string \"%s\" or \"stat\": not a record of minjson",
			    r->name, r->lineno, key);
			break;
		}
		for (s = 0; s < NSIDE; s++) {
			if (!valueis(sf, side[s]) || !valueis(tf, stat[s]))
				continue;
			if (c->line[s] != NULL) {
				err = msgf("%s:%lu: second record for side \"%s\", stat \"%s\"",
				    r->name, r->lineno, side[s], stat[s]);
				break;
			}
			c->line[s] = xmemdup(line, len);
			jparse(c->line[s], len, &c->rec[s]);
		}
	}
	if (err == NULL && rc < 0)
		err = msgf("read %s: %s", r->name, strerror(errno));
	jrecord_free(&rec);
	return err;
}

char *
counts_load(struct counts *c, const char *path, const char *key,
    const char *const side[NSIDE], const char *const stat[NSIDE])
{
	struct jreader r;
	char *err;
	int s;

	if (jreader_open(&r, path) < 0)
		return msgf("%s: %s", path, strerror(errno));
	err = readall(c, &r, key, side, stat);
	for (s = 0; err == NULL && s < NSIDE; s++)
		if (c->line[s] == NULL)
			err = msgf("%s: no record of side \"%s\" with stat \"%s\"", r.name, side[s], stat[s]);
	jreader_close(&r);
	return err;
}

int
counts_suspect(const struct counts *c, const char *name)
{
	const char *us = strrchr(name, '_');
	size_t stem = us != NULL ? (size_t)(us - name) : strlen(name);
	char *key = xmalloc(stem + sizeof "_instr");
	const struct jfield *b, *h;

	memcpy(key, name, stem);
	memcpy(key + stem, "_instr", sizeof "_instr");
	b = jget(&c->rec[SIDE_BASE], key, strlen(key));
	h = jget(&c->rec[SIDE_HEAD], key, strlen(key));
	free(key);
	if (b == NULL || h == NULL || b->type != J_NUMBER || h->type != J_NUMBER || !(b->num > 0))
		return 0;
	/* Inclusive, as the budget: 1000 -> 1010 has not moved beyond 1 %. */
	return fabs(h->num - b->num) <= b->num * COUNTS_STILL;
}

void
counts_free(struct counts *c)
{
	int s;

	for (s = 0; s < NSIDE; s++) {
		free(c->line[s]);
		jrecord_free(&c->rec[s]);
	}
}
