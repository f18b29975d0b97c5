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
	double **ratio;		/* per budget entry: its ratios head / base, in round order */
	size_t *n;		/* per budget entry: how many */
	size_t *seen[NSIDE];	/* per side and budget entry: the records that have it */
	/* Per side and budget entry, the paired rounds' values, as ratio is, and as written. */
	double **val[NSIDE];
	const char ***raw[NSIDE];
	/* The numeric members of the sides' records, each once, in order of appearance. */
	char **num;
	size_t nnum;
	size_t nrounds;		/* the rounds both sides have */
	/* What the machine did during the runs (alternate(1)), summed over the records that say. */
	struct disturb {
		size_t runs;		/* records read */
		size_t psi_runs;	/* of them with "stall" */
		double wall_s;		/* "wall_s", summed */
		double stall_s;		/* "stall_s": CPU pressure stall during the run */
		double steal_s;		/* "steal_s" */
		double ivcsw;		/* "ivcsw" */
		size_t busy;		/* runs disturbed: "cpu" below 0.9, or "busy" */
		size_t watched;		/* runs with "cpu" */
		double rerun;		/* rounds run again, over all rounds ("reruns") */
		double shared;		/* the most other gates on a run's CPU ("shared") */
		double shared_cpu;	/* that run's CPU ("pinned") */
	} dist;
	char **pool;		/* the raw values' storage */
	size_t npool;
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
