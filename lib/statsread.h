/*
 * statsread: minjson's statistic records, read for cmpbudget's minima
 * mode. Of each side it keeps the record of the statistic the side is
 * judged by and the quartiles q1 and q3 for the quartiles' opinion; a
 * second record of one side and statistic makes the input ambiguous.
 */
#ifndef PERFGATE_STATSREAD_H
#define PERFGATE_STATSREAD_H

#include <stddef.h>

#include "jsonl.h"
#include "judge.h"
#include "names.h"

enum { ST_MAIN, ST_Q1, ST_Q3, NSTAT };

/* A record kept, as a copy, so that its parsed fields stay valid after the reader moves on. */
struct statslot {
	char *line;
	struct jrecord rec;
	const char *file;
	unsigned long lineno;
	int have;
	struct names idx;	/* each member's index in rec: a metric of thousands found at once */
};

struct sidestats {
	const char *side[NSIDE];		/* the sides' names, as the key's value */
	const char *stat[NSIDE][NSTAT];		/* the statistics kept ("min", "q1", "q3") */
	struct statslot slot[NSIDE][NSTAT];
	char **names;				/* the files read: slots point to their names */
	size_t nnames;
};

/*
 * Read path's records ("-": stdin), whose side is the member key. Returns
 * how many there were, or -1 with *err an allocated message.
 */
long sidestats_read(struct sidestats *ss, const char *path, const char *key, char **err);

/* The number name of side's record of statistic stat, or NULL. */
const struct jfield *sidestats_metric(const struct sidestats *ss, int side, int stat, const char *name);
/* The member name of side's record of statistic stat, whatever its type, or NULL. */
const struct jfield *sidestats_member(const struct sidestats *ss, int side, int stat, const char *name);

void sidestats_free(struct sidestats *ss);

#endif
