/*
 * sides: the sides alternate runs (name=command) and the members -a gives
 * each (name:key=value), checked as they are added: a bad one is a usage
 * error, exit 2.
 */
#ifndef PERFGATE_SIDES_H
#define PERFGATE_SIDES_H

#include <stddef.h>

#include "buf.h"

struct runside {
	char *name;
	char *script;		/* "exec <command>", for /bin/sh -c */
	char **argv;		/* or the command's words (gaterun: benchargv), run as they are */
	struct buf extra;	/* -a: ,"key":"value"... written after "side" */
	char **keys;		/* -a: the keys, raw, to check metrics against */
	size_t nkeys;
};

/* Add the side of "name=command" as sides[*n], *n then one more; or exit 2. */
void side_add(struct runside *sides, size_t *n, const char *arg);

/*
 * Add the member of "name:key=value" to its side among sides[0..n); or
 * exit 2. A key among own[0..nown) (the keys of alternate's own records)
 * is refused.
 */
void side_member(struct runside *sides, size_t n, const char *arg, const char *const *own, size_t nown);

/* Whether a member given to s by -a is named key[0..len). */
int side_taken(const struct runside *s, const char *key, size_t len);

/* Free what sides[0..n) hold, and sides. */
void side_free(struct runside *sides, size_t n);

#endif
