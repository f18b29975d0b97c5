/*
 * rounds: read alternate's per-round records for cmpbudget -r: pair base
 * and head of each round into ratios per budgeted metric, and keep each
 * side's identity (its string members, constant over its records).
 */
#ifndef PERFGATE_ROUNDS_H
#define PERFGATE_ROUNDS_H

#include <stddef.h>

#include "budget.h"
#include "judge.h"

/* One string member of a side's records, as written (escapes kept). */
struct ident {
	char *key, *val;
};

struct rounds {
	struct ident *id[NSIDE];
	size_t nid[NSIDE];
	double **ratio;		/* per budget entry: its ratios head / base */
	size_t *n;		/* per budget entry: how many */
};

/*
 * Read path ("-" for standard input). A record counts when its member key
 * names side[SIDE_BASE] or side[SIDE_HEAD]; it must have a number "round".
 * Returns NULL, or an allocated message "path:line: what".
 */
char *rounds_load(struct rounds *rs, const char *path, const char *key,
    const char *const side[NSIDE], const struct budget *b);

void rounds_free(struct rounds *rs, const struct budget *b);

#endif
