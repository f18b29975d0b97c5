/*
 * counts: the instruction counts beside the times, for cmpbudget -i. A
 * metric whose time regressed while its instruction count did not move is
 * a layout suspect: code placement or noise, not more work.
 */
#ifndef PERFGATE_COUNTS_H
#define PERFGATE_COUNTS_H

#include "json.h"
#include "judge.h"

/* How far an instruction count may move and still count as unmoved. */
#define COUNTS_STILL 0.01

/* Each side's record of the counts' statistics, with its line kept. */
struct counts {
	char *line[NSIDE];
	struct jrecord rec[NSIDE];
};

/*
 * Read minjson's records of the counts run from path: for each side, the
 * one whose "stat" is stat[side]. Returns NULL, or an allocated message.
 */
char *counts_load(struct counts *c, const char *path, const char *key,
    const char *const side[NSIDE], const char *const stat[NSIDE]);

/*
 * Is the time metric name (such as matmul_ns) a layout suspect: does its
 * instruction count (matmul_instr: the name up to its last '_', then
 * "_instr") exist on both sides and move by at most COUNTS_STILL?
 */
int counts_suspect(const struct counts *c, const char *name);

void counts_free(struct counts *c);

#endif
